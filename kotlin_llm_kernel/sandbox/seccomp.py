"""The sandbox's seccomp filter, as classic BPF for bwrap's ``--seccomp FD``: the system calls a session never needs
and that widen the kernel's reachable surface or reach other processes fail with EPERM (ptrace and
process_vm_*, the keyring, bpf, perf_event_open, userfaultfd, io_uring, mounts, namespaces, modules, kexec, handles
to files by inode, clocks, swap, reboot); x32 calls and any other architecture's (32-bit ``int 0x80``) too. Written
for x86-64, the architecture whose numbers are checked here; elsewhere there is no filter (:func:`program` is None).
"""

from __future__ import annotations

import errno
import platform
import struct

#: struct seccomp_data: the call's number at 0, its architecture at 4.
_NR, _ARCH = 0, 4
_LD_W_ABS = 0x20
_JEQ_K = 0x15
_JGE_K = 0x35
_RET_K = 0x06
RET_ALLOW = 0x7FFF0000
RET_ERRNO = 0x00050000
AUDIT_ARCH_X86_64 = 0xC000003E
#: Calls of the x32 ABI carry this bit in their number.
X32_SYSCALL_BIT = 0x40000000

#: The refused calls by name, with their x86-64 numbers (asm/unistd_64.h).
REFUSED_X86_64 = {
    "ptrace": 101,
    "process_vm_readv": 310,
    "process_vm_writev": 311,
    "add_key": 248,
    "request_key": 249,
    "keyctl": 250,
    "bpf": 321,
    "perf_event_open": 298,
    "userfaultfd": 323,
    "io_uring_setup": 425,
    "io_uring_enter": 426,
    "io_uring_register": 427,
    "mount": 165,
    "umount2": 166,
    "pivot_root": 155,
    "chroot": 161,
    "open_tree": 428,
    "move_mount": 429,
    "fsopen": 430,
    "fsconfig": 431,
    "fsmount": 432,
    "fspick": 433,
    "mount_setattr": 442,
    "setns": 308,
    "unshare": 272,
    "init_module": 175,
    "finit_module": 313,
    "delete_module": 176,
    "kexec_load": 246,
    "kexec_file_load": 320,
    "name_to_handle_at": 303,
    "open_by_handle_at": 304,
    "swapon": 167,
    "swapoff": 168,
    "reboot": 169,
    "acct": 163,
    "quotactl": 179,
    "syslog": 103,
    "lookup_dcookie": 212,
    "settimeofday": 164,
    "clock_settime": 227,
    "clock_adjtime": 305,
    "adjtimex": 159,
    "vhangup": 153,
    "iopl": 172,
    "ioperm": 173,
    "uselib": 134,
    "nfsservctl": 180,
}


def _instruction(code: int, k: int, jt: int = 0, jf: int = 0) -> bytes:
    return struct.pack("<HBBI", code, jt, jf, k)


def x86_64_program() -> bytes:
    """The filter for x86-64."""
    deny = RET_ERRNO | errno.EPERM
    numbers = sorted(REFUSED_X86_64.values())
    program = [
        _instruction(_LD_W_ABS, _ARCH),
        _instruction(_JEQ_K, AUDIT_ARCH_X86_64, jt=1),
        _instruction(_RET_K, deny),  # another architecture's calls
        _instruction(_LD_W_ABS, _NR),
    ]
    # each test jumps, when it matches, past the rest and the allow to the final deny
    tests = [(X32_SYSCALL_BIT, _JGE_K), *((number, _JEQ_K) for number in numbers)]
    for index, (value, code) in enumerate(tests):
        program.append(_instruction(code, value, jt=len(tests) - index))
    program += [_instruction(_RET_K, RET_ALLOW), _instruction(_RET_K, deny)]
    return b"".join(program)


def program(machine: str | None = None) -> bytes | None:
    """The filter for this machine's architecture, or None where there is none."""
    return x86_64_program() if (machine or platform.machine()) in ("x86_64", "AMD64") else None
