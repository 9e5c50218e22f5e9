"""``python -m kotlin_llm_kernel.remote.launcher``: the kernel as a remote provisioner starts it (a Kubernetes pod
of Jupyter Enterprise Gateway or gateway_provisioners), with the arguments of their Python launcher.

gateway_provisioners' ``launch_ipykernel.py`` runs ipykernel's application with a subclass of IPythonKernel; this
kernel needs its own application (settings read before ipykernel, the JVM started before ipykernel is imported, see
:mod:`.early`), so this module takes its place: it picks the ports, sends the connection info to the provisioner
(:mod:`.protocol`), starts the JVM, serves the communication port, and runs the kernel on those ports.

``KOTLIN_LLM_KERNEL_IP`` is the address the kernel and its communication port listen on: ``0.0.0.0`` by default,
as the provisioner connects to the pod's address.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import logging
import os
import sys
import tempfile
import uuid
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..config.kernel_config import load
from ..session import early
from .protocol import (
    CommListener,
    LauncherError,
    PortRange,
    bind_in_range,
    choose_ports,
    curve_policy,
    encrypt_payload,
    parse_address,
    parse_port_range,
    send_payload,
)

if TYPE_CHECKING:
    from ..jupyter.app import KotlinKernelApp

log = logging.getLogger("kotlin_llm_kernel.remote.launcher")

ENV_KERNEL_IP = "KOTLIN_LLM_KERNEL_IP"
DEFAULT_KERNEL_IP = "0.0.0.0"  # in a pod the provisioner connects to the pod's address
#: Kernel classes the provisioners' tools put in a kernelspec; this launcher runs KotlinKernel for any of them.
RUNS_OUR_KERNEL = ("", "ipykernel.ipkernel.IPythonKernel", "kotlin_llm_kernel.jupyter.kernel.KotlinKernel")
_CHANNELS = ("shell_port", "iopub_port", "stdin_port", "control_port", "hb_port")


def parser() -> argparse.ArgumentParser:
    # the arguments of gateway_provisioners' launch_ipykernel.py, so that its bootstrap script and kernelspecs work
    parser = argparse.ArgumentParser(
        prog="python -m kotlin_llm_kernel.remote.launcher",
        description="Runs the kotlin-llm kernel for a remote provisioner (gateway_provisioners, Enterprise Gateway).",
        epilog="Other arguments (--KotlinKernel.max_heap=2g, ...) go to the kernel.",
    )
    parser.add_argument("--kernel-id", required=True, help="the kernel's id, given by the provisioner")
    parser.add_argument("--response-address", required=True, metavar="HOST:PORT", help="where to send the ports")
    parser.add_argument("--public-key", required=True, help="the provisioner's RSA public key (base64 DER)")
    parser.add_argument("--port-range", default="0..0", metavar="LOWER..UPPER", help="ports to choose from")
    parser.add_argument("--transport-encryption", default="", help="auto or required: CurveZMQ keys for the ports")
    parser.add_argument("--kernel-class-name", default="", help="accepted for compatibility: KotlinKernel runs")
    # Spark and Dask set-up of the Python launcher: nothing to set up for Kotlin
    parser.add_argument("--spark-context-initialization-mode", default="none", help=argparse.SUPPRESS)
    parser.add_argument("--cluster-type", default="none", help=argparse.SUPPRESS)
    return parser


@dataclasses.dataclass(frozen=True)
class LaunchRequest:
    kernel_id: str
    response_address: tuple[str, int]
    public_key: str
    ip: str
    curve: str | None
    port_range: PortRange
    ports: list[int]
    kernel_arguments: list[str]


def read_arguments(argv: Sequence[str], environ: dict[str, str] | None = None) -> LaunchRequest:
    """The launch this command line asks for; exits with a usage error naming the argument when it is wrong."""
    environ = dict(os.environ) if environ is None else environ
    command = parser()
    args, rest = command.parse_known_args(list(argv))
    if args.kernel_class_name not in RUNS_OUR_KERNEL:
        log.warning("--kernel-class-name %s ignored: this launcher runs KotlinKernel", args.kernel_class_name)
    ip = environ.get(ENV_KERNEL_IP, "").strip() or DEFAULT_KERNEL_IP
    try:
        if not args.kernel_id.strip():
            raise LauncherError("--kernel-id is empty")
        address = parse_address(args.response_address)
        if not args.public_key.strip():
            raise LauncherError("--public-key is empty")
        port_range = parse_port_range(args.port_range)
        ports = choose_ports(ip, port_range, len(_CHANNELS))
        curve = curve_policy(args.transport_encryption)
    except (LauncherError, OSError) as error:
        command.error(str(error))
    return LaunchRequest(args.kernel_id, address, args.public_key, ip, curve, port_range, ports, rest)


def curve_keys(policy: str | None) -> dict[str, str]:
    """CurveZMQ keys for the connection info when the policy asks for them; ``auto`` goes on without them when
    this libzmq cannot (ipykernel 7 applies them from the connection file)."""
    if policy is None:
        return {}
    import zmq

    if not zmq.has("curve"):
        if policy == "required":
            raise LauncherError("--transport-encryption required: this libzmq has no CurveZMQ")
        log.warning("--transport-encryption auto: this libzmq has no CurveZMQ; the ports are not encrypted")
        return {}
    public, secret = zmq.curve_keypair()
    return {"curve_publickey": public.decode("ascii"), "curve_secretkey": secret.decode("ascii")}


def connection_info(request: LaunchRequest) -> dict[str, Any]:
    info: dict[str, Any] = dict(zip(_CHANNELS, request.ports, strict=True))
    info |= {
        "ip": request.ip,
        "key": uuid.uuid4().hex,
        "transport": "tcp",
        "signature_scheme": "hmac-sha256",
        "kernel_name": "",
    }
    return info | curve_keys(request.curve)


def write_connection_file(kernel_id: str, info: dict[str, Any]) -> Path:
    """The connection file the kernel application reads (this user's only: it holds the key)."""
    fd, name = tempfile.mkstemp(prefix=f"kernel-{kernel_id}_", suffix=".json")
    with os.fdopen(fd, "w", encoding="utf-8") as file:
        json.dump(info, file)
    return Path(name)


def report(request: LaunchRequest, info: dict[str, Any], comm_port: int) -> None:
    """Sends the connection info to the provisioner, with what it needs to signal this process."""
    sent = info | {"pid": os.getpid(), "pgid": os.getpgid(0), "comm_port": comm_port, "kernel_id": request.kernel_id}
    send_payload(request.response_address, encrypt_payload(sent, request.public_key))


def main(argv: Sequence[str] | None = None) -> None:
    logging.basicConfig(format="[%(levelname)1.1s %(asctime)s %(name)s] %(message)s", level=logging.INFO)
    request = read_arguments(sys.argv[1:] if argv is None else argv)
    loaded = load(request.kernel_arguments)
    try:
        info = connection_info(request)
        comm = bind_in_range(request.ip, request.port_range)
        listener = CommListener(comm)
        listener.start()
        connection_file = write_connection_file(request.kernel_id, info)
        report(request, info, listener.port)
    except (LauncherError, OSError) as error:
        host, port = request.response_address
        log.error("kernel %s not started (provisioner at %s:%s): %s", request.kernel_id, host, port, error)
        sys.exit(1)
    log.info("kernel %s reported its ports to %s:%s", request.kernel_id, *request.response_address)
    # after the report (a few ms), which the JVM's start would hold up: the provisioner waits for it
    if early.enabled():
        early.begin(loaded.request)  # the JVM and the compiler start while ipykernel is set up, as in __main__

    def ready(app: KotlinKernelApp) -> None:
        connection_file.unlink(missing_ok=True)  # read by now; it holds the key
        listener.ready.set()

    # bootstrap-kernel.sh sets it to a number that is no process here; with it, ipykernel takes a parent of PID 1
    # (the script, as a container's first process) for an ended parent and exits. The provisioner ends the kernel.
    os.environ.pop("JPY_PARENT_PID", None)
    from ..jupyter.app import launch
    from ..jvm.jvm import exit_now

    launch(dataclasses.replace(loaded, other_arguments=[*loaded.other_arguments, "-f", str(connection_file)]), ready)
    exit_now(0)


if __name__ == "__main__":
    main()
