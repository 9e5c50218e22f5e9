"""The seccomp filter's BPF program, read back instruction by instruction."""

from __future__ import annotations

import errno
import struct

from kotlin_llm_kernel.sandbox.seccomp import (
    AUDIT_ARCH_X86_64,
    REFUSED_X86_64,
    RET_ALLOW,
    RET_ERRNO,
    X32_SYSCALL_BIT,
    program,
)

DENY = RET_ERRNO | errno.EPERM


def instructions(code: bytes) -> list[tuple[int, int, int, int]]:
    return [struct.unpack("<HBBI", code[i : i + 8]) for i in range(0, len(code), 8)]


def run(code: bytes, arch: int, number: int) -> int:
    """What the filter returns for a call (a small interpreter of the instructions it uses)."""
    listing = instructions(code)
    data = {0: number, 4: arch}
    accumulator, at = 0, 0
    while True:
        op, jt, jf, k = listing[at]
        if op == 0x20:
            accumulator = data[k]
        elif op == 0x06:
            return k
        elif op in (0x15, 0x35):
            matched = accumulator == k if op == 0x15 else accumulator >= k
            at += jt if matched else jf
        at += 1


def test_the_refused_calls_fail_with_eperm_and_the_rest_pass() -> None:
    code = program("x86_64")
    assert code is not None
    for name, number in REFUSED_X86_64.items():
        assert run(code, AUDIT_ARCH_X86_64, number) == DENY, name
    for allowed in (0, 1, 2, 56, 57, 59, 231, 435):  # read, write, open, clone, fork, execve, exit_group, clone3
        assert run(code, AUDIT_ARCH_X86_64, allowed) == RET_ALLOW
    assert run(code, AUDIT_ARCH_X86_64, X32_SYSCALL_BIT | 1) == DENY
    assert run(code, 0x40000003, 1) == DENY  # i386 calls through int 0x80


def test_there_is_no_filter_for_an_architecture_not_listed() -> None:
    assert program("aarch64") is None
