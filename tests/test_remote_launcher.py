"""The kernel as a Kubernetes pod runs it, on 127.0.0.1: gateway_provisioners plays the server.

The pod's command is gateway_provisioners' own bootstrap-kernel.sh (from the installed package, as
``jupyter image-bootstrap install`` puts it in the image), with the environment the provisioner's
launch_kubernetes.py gives the pod (KERNEL_ID, RESPONSE_ADDRESS, PUBLIC_KEY, PORT_RANGE, KERNEL_CLASS_NAME, …, and
KERNEL_LANGUAGE from the kernelspec's language) and the image's KERNEL_LAUNCHERS_DIR (deploy/kernel-launchers).
The server side is jupyter_client's AsyncKernelManager with gateway_provisioners' DistributedProvisioner for the
host 127.0.0.1: the RemoteProvisionerBase that the Kubernetes provisioner extends (its ResponseManager holds the
key pair and decrypts the connection info; signals, polls and the shutdown go to the launcher's communication
port), launching the command here instead of creating a pod. The kernelspec's language, interrupt mode and kernel
class come from deploy/kernelspec, which `deploy/make-kernelspec.sh` generates with the provisioners' tool.
"""

from __future__ import annotations

import asyncio
import base64
import json
import os
import queue
import shutil
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Coroutine, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

import psutil
import pytest
from jupyter_client.blocking.client import BlockingKernelClient

from kernel_client import STARTUP_TIMEOUT, collect, execute, read_until, request, warm_up
from ports import free_port

ROOT = Path(__file__).resolve().parent.parent
DEPLOY = ROOT / "deploy"
KERNEL_NAME = "kotlin-llm-remote"
#: The pod's command as a container runs it: the bootstrap script as process 1 of its own PID namespace.
PID1_KERNEL_NAME = "kotlin-llm-remote-pid1"
PID1_CONTAINER = ("unshare", "--pid", "--fork", "--mount-proc")
USER = "kotlin-llm-test"  # the provisioners refuse to start kernels for root
#: Bounds on the waits, only there to catch hangs.
CALL_TIMEOUT = 240
EXIT_TIMEOUT = 60

T = TypeVar("T")


def _bootstrap_script() -> Path:
    # found without importing gateway_provisioners, which reads its GP_ settings when imported
    import importlib.util

    spec = importlib.util.find_spec("gateway_provisioners")
    assert spec is not None and spec.origin is not None, "gateway_provisioners is a test dependency"
    return Path(spec.origin).parent / "kernel-launchers" / "bootstrap" / "bootstrap-kernel.sh"


def _generated_kernel_class(spec: dict[str, Any]) -> str:
    argv: list[str] = spec["argv"]
    return argv[argv.index("--kernel-class-name") + 1]


def _generate_kernelspec(out: Path) -> Path:
    """The kernelspec deploy/make-kernelspec.sh makes with gateway_provisioners' `jupyter k8s-spec install`."""
    env = os.environ | {"PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"}
    subprocess.run(["bash", str(DEPLOY / "make-kernelspec.sh"), "--out", str(out)], env=env, check=True, timeout=120)
    return out / "kotlin_llm_k8s"


def _write_kernelspec(jupyter: Path, name: str, generated: dict[str, Any], container: Sequence[str] = ()) -> None:
    """The generated kernelspec, with the pod's command (in ``container``) in place of launch_kubernetes.py."""
    pod_environment = [
        # what launch_kubernetes.py puts in the pod's environment from its arguments
        "KERNEL_ID={kernel_id}",
        "RESPONSE_ADDRESS={response_address}",
        "PUBLIC_KEY={public_key}",
        "PORT_RANGE={port_range}",
        "TRANSPORT_ENCRYPTION={transport_encryption}",
        "KERNEL_SPARK_CONTEXT_INIT_MODE=none",
        f"KERNEL_CLASS_NAME={_generated_kernel_class(generated)}",
        "KERNEL_NAME=kotlin_llm_k8s",
    ]
    spec = {
        "argv": [*container, "env", *pod_environment, "bash", str(_bootstrap_script())],
        "display_name": "Kotlin (LLM) as a pod, on 127.0.0.1",
        "language": generated["language"],
        "interrupt_mode": generated["interrupt_mode"],
        "env": {
            # the image's
            "KERNEL_LAUNCHERS_DIR": str(DEPLOY / "kernel-launchers"),
            "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}",
            # the pod's address here
            "KOTLIN_LLM_KERNEL_IP": "127.0.0.1",
            "KERNEL_USERNAME": USER,
            # no background archive helper outliving the test
            "KOTLIN_LLM_CDS": "0",
        },
        "metadata": {
            "supported_encryption": generated["metadata"]["supported_encryption"],
            "kernel_provisioner": {
                "provisioner_name": "distributed-provisioner",
                "config": {"remote_hosts": ["127.0.0.1"], "launch_timeout": STARTUP_TIMEOUT},
            },
        },
    }
    directory = jupyter / "kernels" / name
    directory.mkdir(parents=True)
    (directory / "kernel.json").write_text(json.dumps(spec, indent=2), encoding="utf-8")


class Loop:
    """An asyncio loop on its own thread: the provisioner's response manager polls its socket from it."""

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self.loop.run_forever, name="provisioner-loop", daemon=True)
        self._thread.start()

    def run(self, coroutine: Coroutine[Any, Any, T], timeout: float = CALL_TIMEOUT) -> T:
        return asyncio.run_coroutine_threadsafe(coroutine, self.loop).result(timeout)

    def close(self) -> None:
        self.loop.call_soon_threadsafe(self.loop.stop)
        self._thread.join(timeout=EXIT_TIMEOUT)
        self.loop.close()


@dataclass
class Remote:
    loop: Loop
    km: Any
    kc: BlockingKernelClient
    log_dir: Path

    def kernel_processes(self) -> list[psutil.Process]:
        """The pod's processes: the bootstrap script and all it started."""
        root = psutil.Process(self.km.provisioner.local_proc.pid)
        return [root, *root.children(recursive=True)]

    def launcher(self) -> psutil.Process:
        return psutil.Process(self.km.provisioner.pid)

    def connect(self) -> None:
        """A client of the kernel, once the kernel answers on shell and iopub (jupyter_client's wait_for_ready
        would take a heartbeat not yet answered while the kernel starts for a dead kernel)."""
        self.kc = BlockingKernelClient()
        self.kc.load_connection_info(self.km.get_connection_info())
        self.kc.start_channels()
        deadline = time.monotonic() + STARTUP_TIMEOUT
        while time.monotonic() < deadline:
            msg_id = self.kc.kernel_info()
            try:
                while self.kc.get_shell_msg(timeout=deadline - time.monotonic())["parent_header"]["msg_id"] != msg_id:
                    pass
                self.kc.get_iopub_msg(timeout=2)  # its status: iopub is subscribed
                return
            except queue.Empty:
                continue
        raise AssertionError(f"the kernel did not answer in {STARTUP_TIMEOUT} s:\n{self.log()}")

    def log(self) -> str:
        return "\n".join(p.read_text(errors="replace")[-4000:] for p in sorted(self.log_dir.glob("*.log")))


@pytest.fixture(scope="module")
def remote(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Remote]:
    base = tmp_path_factory.mktemp("remote")
    jupyter, log_dir = base / "jupyter", base / "logs"
    log_dir.mkdir()
    generated = json.loads((_generate_kernelspec(base / "generated") / "kernel.json").read_text(encoding="utf-8"))
    _write_kernelspec(jupyter, KERNEL_NAME, generated)
    _write_kernelspec(jupyter, PID1_KERNEL_NAME, generated, PID1_CONTAINER)
    saved = dict(os.environ)
    # read when gateway_provisioners is imported: the response address on loopback, the kernels' logs here
    os.environ |= {
        "GP_RESPONSE_IP": "127.0.0.1",
        "GP_RESPONSE_PORT": str(free_port()),
        "GP_KERNEL_LOG_DIR": str(log_dir),
        "JUPYTER_PATH": f"{jupyter}{os.pathsep}{os.environ.get('JUPYTER_PATH', '')}",
    }
    loop = Loop()
    try:
        with started(loop, log_dir) as remote:
            yield remote
    finally:
        from gateway_provisioners.response_manager import ResponseManager

        loop.run(_stop_response_manager(ResponseManager))
        loop.close()
        os.environ.clear()
        os.environ.update(saved)


@contextmanager
def started(
    loop: Loop, log_dir: Path, transport_encryption: str = "disabled", kernel_name: str = KERNEL_NAME
) -> Iterator[Remote]:
    """A kernel started by the provisioner and connected to, warmed up; shut down at the end, its processes gone."""
    from jupyter_client.manager import AsyncKernelManager

    async def start() -> Any:
        km = AsyncKernelManager(kernel_name=kernel_name, transport_encryption=transport_encryption)
        await km.start_kernel()
        return km

    km = loop.run(start())
    remote = Remote(loop, km, BlockingKernelClient(), log_dir)
    try:
        remote.connect()
        warm_up(remote.kc)
        yield remote
    finally:
        remote.kc.stop_channels()
        try:
            processes = remote.kernel_processes()
        except (AttributeError, psutil.NoSuchProcess):  # shut down already
            processes = []
        if loop.run(km.is_alive()):
            loop.run(km.shutdown_kernel(now=True))
        psutil.wait_procs(processes, timeout=EXIT_TIMEOUT)


async def _stop_response_manager(manager: Any) -> None:
    manager.instance().stop_response_manager()
    manager.clear_instance()


def _listening(process: psutil.Process) -> set[str]:
    return {f"{c.laddr.ip}:{c.laddr.port}" for c in process.net_connections("tcp") if c.status == psutil.CONN_LISTEN}


def test_connection_info_came_from_the_launcher(remote: Remote) -> None:
    provisioner = remote.km.provisioner
    launcher = remote.launcher()
    assert "kernel-launchers/python/scripts/launch_ipykernel.py" in " ".join(launcher.cmdline())
    assert launcher.ppid() == provisioner.local_proc.pid, "started by the bootstrap script"
    info = remote.km.get_connection_info()
    assert info["ip"] == "127.0.0.1"
    expected = {f"127.0.0.1:{info[name]}" for name in ("shell_port", "iopub_port", "stdin_port", "control_port")}
    expected |= {f"127.0.0.1:{info['hb_port']}", f"127.0.0.1:{provisioner.comm_port}"}
    listening = _listening(launcher)
    assert expected <= listening, "the five ports and the communication port"
    assert {address.split(":")[0] for p in remote.kernel_processes() for address in _listening(p)} == {"127.0.0.1"}


def test_execute_with_streams(remote: Remote) -> None:
    cell = execute(remote.kc, 'println("to stdout")\nSystem.err.println("to stderr")\nval n = 6\nn * 7')
    assert cell.status == "ok", remote.log()
    assert (cell.stdout, cell.stderr, cell.result) == ("to stdout\n", "to stderr\n", "42")


def test_compilation_error(remote: Remote) -> None:
    cell = execute(remote.kc, "asdf\nprintln(foo)")
    name = f"snippet{cell.content['execution_count']}.kts"
    assert cell.content["ename"] == "CompilationError"
    assert "\n".join(cell.content["traceback"]) == (
        f"{name}:1:1: error: Unresolved reference 'asdf'.\n  | <error>asdf</error>\n\n"
        f"{name}:2:9: error: Unresolved reference 'foo'.\n  | println(<error>foo</error>)"
    )


def test_runtime_error(remote: Remote) -> None:
    cell = execute(remote.kc, 'fun check(value: Int) = require(value > 0) { "value must be positive" }\ncheck(-1)')
    name = f"snippet{cell.content['execution_count']}.kts"
    assert cell.content["ename"] == "java.lang.IllegalArgumentException"
    assert cell.content["evalue"] == "value must be positive"
    assert f"at check({name}:1)" in "\n".join(cell.content["traceback"])


def test_interrupt_through_the_communication_port(remote: Remote) -> None:
    assert remote.km.kernel_spec.interrupt_mode == "signal", "the generated kernelspec's: the provisioner signals"
    msg_id = remote.kc.execute('println("started")\nThread.sleep(60000)')
    seen = read_until(remote.kc, msg_id, "started")
    remote.loop.run(remote.km.interrupt_kernel())  # {"signum": 2} to the communication port
    cell = collect(remote.kc, msg_id, seen=seen)
    assert cell.content["ename"] == "java.lang.InterruptedException", cell.content
    assert cell.kotlin_llm["interrupted"] is True
    assert execute(remote.kc, "n").result == "6", "the session keeps its state"


def test_idle_interrupt_is_harmless(remote: Remote) -> None:
    remote.loop.run(remote.km.interrupt_kernel())
    request(remote.kc, "kernel_info_request")  # the kernel's main thread has run the signal's handler by then
    assert execute(remote.kc, "n + 1").result == "7"


def test_restart_starts_a_new_launcher(remote: Remote) -> None:
    before = remote.kernel_processes()
    comm_port = remote.km.provisioner.comm_port
    remote.kc.stop_channels()
    remote.loop.run(remote.km.restart_kernel(now=False))
    _, alive = psutil.wait_procs(before, timeout=EXIT_TIMEOUT)
    assert alive == [], "the old launcher and its bootstrap script ended"
    with pytest.raises(ConnectionRefusedError):
        socket.create_connection(("127.0.0.1", comm_port), timeout=5).close()
    remote.connect()
    assert remote.launcher().pid not in {p.pid for p in before}
    cell = execute(remote.kc, "n")
    assert cell.content["ename"] == "CompilationError", "a fresh session"
    assert execute(remote.kc, '"after " + "restart"').result == "after restart"


def test_shutdown_leaves_nothing_running(remote: Remote) -> None:
    processes = remote.kernel_processes()
    comm_port = remote.km.provisioner.comm_port
    remote.kc.stop_channels()
    remote.loop.run(remote.km.shutdown_kernel(now=False))
    _, alive = psutil.wait_procs(processes, timeout=EXIT_TIMEOUT)
    assert alive == [], [p.cmdline() for p in alive]
    with pytest.raises(ConnectionRefusedError):
        socket.create_connection(("127.0.0.1", comm_port), timeout=5).close()
    assert not remote.loop.run(remote.km.is_alive())


def test_curve_encryption_when_the_server_requires_it(remote: Remote) -> None:
    """The generated kernelspec advertises CurveZMQ: a server requiring it gets keys from the launcher."""
    with started(remote.loop, remote.log_dir, transport_encryption="required") as encrypted:
        info = encrypted.km.get_connection_info()
        assert len(info["curve_publickey"]) == 40 and len(info["curve_secretkey"]) == 40
        assert execute(encrypted.kc, 'println("sealed")\n6 * 7').stdout == "sealed\n"
        processes = encrypted.kernel_processes()
    _, alive = psutil.wait_procs(processes, timeout=EXIT_TIMEOUT)
    assert alive == []


def _namespace_pid(process: psutil.Process) -> int:
    """The process's pid in its own (innermost) PID namespace."""
    status = Path(f"/proc/{process.pid}/status").read_text(encoding="ascii")
    return int(next(line for line in status.splitlines() if line.startswith("NSpid:")).split()[-1])


def _require_unshare() -> None:
    """Fails the test, saying why, when this machine cannot start a process in a new PID namespace."""
    if shutil.which("unshare") is None:
        pytest.fail("`unshare` is missing: install util-linux (apt-get install util-linux)", pytrace=False)
    done = subprocess.run([*PID1_CONTAINER, "true"], capture_output=True, text=True, check=False)
    if done.returncode != 0:
        pytest.fail(
            f"`{' '.join(PID1_CONTAINER)} true` failed ({done.stderr.strip()}): a new PID namespace needs root or "
            "user namespaces (sysctl kernel.unprivileged_userns_clone=1, or a container run with CAP_SYS_ADMIN)",
            pytrace=False,
        )


def test_bootstrap_as_process_1(remote: Remote) -> None:
    """In a container the bootstrap script is process 1: the kernel must not take it for an ended parent (ipykernel
    exits within a second when its parent is process 1)."""
    _require_unshare()
    with started(remote.loop, remote.log_dir, kernel_name=PID1_KERNEL_NAME) as pod:
        assert execute(pod.kc, 'println("still here")').stdout == "still here\n"
        processes = pod.kernel_processes()
        bootstrap = next(p for p in processes if p.name() == "bash")
        launcher = next(p for p in processes if "launch_ipykernel.py" in " ".join(p.cmdline()))
        assert launcher.ppid() == bootstrap.pid
        assert _namespace_pid(bootstrap) == 1
        assert execute(pod.kc, "2 + 3").result == "5"
    _, alive = psutil.wait_procs(processes, timeout=EXIT_TIMEOUT)
    assert alive == []


@pytest.mark.parametrize("problem", ["unreachable", "bad key"])
def test_a_launch_that_cannot_report_is_a_clear_error(problem: str) -> None:
    """Nothing listens at the response address, or the public key is no RSA key: the launcher says so and exits
    before it starts the JVM."""
    from Cryptodome.PublicKey import RSA

    public = RSA.generate(1024).public_key().export_key("DER")
    key = "bm90IGEga2V5" if problem == "bad key" else base64.b64encode(public).decode()
    port = free_port()  # closed again: nothing listens there
    command = [sys.executable, "-m", "kotlin_llm_kernel.remote.launcher", "--kernel-id", "k1"]
    command += ["--response-address", f"127.0.0.1:{port}", "--public-key", key, "--port-range", "0..0"]
    done = subprocess.run(
        command, env=os.environ | {"KOTLIN_LLM_KERNEL_IP": "127.0.0.1"}, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 1
    cause = {"unreachable": "[Errno 111] Connection refused", "bad key": "--public-key is not a base64 RSA public key"}
    assert f"kernel k1 not started (provisioner at 127.0.0.1:{port}): {cause[problem]}" in done.stderr, done.stderr
    assert "starting Java" not in done.stderr


def test_the_tool_makes_the_kubernetes_kernelspec(tmp_path: Path) -> None:
    """make-kernelspec.sh: the tool's kernelspec for our image, its paths under /usr/local, without a debugger."""
    made = _generate_kernelspec(tmp_path)
    spec = json.loads((made / "kernel.json").read_text(encoding="utf-8"))
    launcher = "/usr/local/share/jupyter/kernels/kotlin_llm_k8s/scripts/launch_kubernetes.py"
    assert spec["argv"][:2] == ["python", launcher]
    for option in ("--kernel-id", "--port-range", "--response-address", "--public-key", "--transport-encryption"):
        assert option in spec["argv"]
    assert spec["display_name"] == "Kotlin (LLM) on Kubernetes"
    assert spec["interrupt_mode"] == "signal"
    assert spec["metadata"]["debugger"] is False
    assert spec["metadata"]["kernel_provisioner"] == {
        "provisioner_name": "kubernetes-provisioner",
        "config": {"image_name": "kotlin-llm-kernel:0.1.0", "launch_timeout": 120},
    }
    assert (made / "scripts" / "launch_kubernetes.py").is_file()
    assert (made / "scripts" / "kernel-pod.yaml.j2").is_file()
