"""Driving real kernels over the real protocol (jupyter_client), for the tests."""

from __future__ import annotations

import json
import os
import subprocess
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from jupyter_client.blocking.client import BlockingKernelClient
from jupyter_client.manager import KernelManager, start_new_kernel

ROOT = Path(__file__).resolve().parent.parent

KERNEL = "kotlin-llm"
SIGNAL_KERNEL = "kotlin-llm-signal"
STARTUP_TIMEOUT = 180
CELL_TIMEOUT = 180


@dataclass
class Cell:
    """The execute_reply of a cell and every iopub message it caused (except status and execute_input)."""

    reply: dict[str, Any]
    messages: list[dict[str, Any]] = field(default_factory=list)

    @property
    def content(self) -> dict[str, Any]:
        return self.reply["content"]

    @property
    def status(self) -> str:
        return self.content["status"]

    def outputs(self, msg_type: str) -> list[dict[str, Any]]:
        return [m for m in self.messages if m["msg_type"] == msg_type]

    def stream(self, name: str) -> str:
        return "".join(m["content"]["text"] for m in self.outputs("stream") if m["content"]["name"] == name)

    @property
    def stdout(self) -> str:
        return self.stream("stdout")

    @property
    def stderr(self) -> str:
        return self.stream("stderr")

    @property
    def result(self) -> str | None:
        results = self.outputs("execute_result")
        return results[-1]["content"]["data"]["text/plain"] if results else None

    @property
    def error(self) -> dict[str, Any] | None:
        errors = self.outputs("error")
        return errors[-1]["content"] if errors else None

    @property
    def kotlin_llm(self) -> dict[str, Any]:
        return self.reply["metadata"].get("kotlin_llm", {})


def without_kernel_settings(**more: str) -> dict[str, str]:
    """This process's environment less the ``KOTLIN_LLM_*`` variables that set the kernel up, but for the switch of
    warm spares (off in the tests, see conftest.py), plus ``more``."""
    return {
        k: v for k, v in os.environ.items() if not k.startswith("KOTLIN_LLM_") or k.startswith("KOTLIN_LLM_SPARES")
    } | more


def collect(
    kc: BlockingKernelClient, msg_id: str, timeout: float = CELL_TIMEOUT, seen: list[dict[str, Any]] | None = None
) -> Cell:
    """The cell of ``msg_id``, once it is idle; ``seen`` are its messages already read (by :func:`read_until`)."""
    deadline = time.monotonic() + timeout
    messages: list[dict[str, Any]] = list(seen or [])
    while True:
        msg = kc.get_iopub_msg(timeout=max(deadline - time.monotonic(), 0.1))
        if msg["parent_header"].get("msg_id") != msg_id:
            continue
        if msg["msg_type"] == "status":
            if msg["content"]["execution_state"] == "idle":
                break
            continue
        if msg["msg_type"] != "execute_input":
            messages.append(msg)
    while True:
        reply = kc.get_shell_msg(timeout=max(deadline - time.monotonic(), 0.1))
        if reply["parent_header"].get("msg_id") == msg_id:
            return Cell(reply=reply, messages=messages)


def read_until(
    kc: BlockingKernelClient, msg_id: str, printed: str, timeout: float = CELL_TIMEOUT
) -> list[dict[str, Any]]:
    """The iopub messages of the cell ``msg_id`` up to the stream message in which ``printed`` appears (the cell is
    still running then if it waits for something after printing it); pass them to :func:`collect` as ``seen``."""
    deadline = time.monotonic() + timeout
    messages: list[dict[str, Any]] = []
    text = ""
    while printed not in text:
        msg = kc.get_iopub_msg(timeout=max(deadline - time.monotonic(), 0.1))
        if msg["parent_header"].get("msg_id") != msg_id or msg["msg_type"] in ("status", "execute_input"):
            continue
        messages.append(msg)
        if msg["msg_type"] == "stream":
            text += msg["content"]["text"]
    return messages


def execute(kc: BlockingKernelClient, code: str, timeout: float = CELL_TIMEOUT, **kwargs: Any) -> Cell:
    return collect(kc, kc.execute(code, **kwargs), timeout)


def request(kc: BlockingKernelClient, msg_type: str, timeout: float = 60, **content: Any) -> dict[str, Any]:
    msg = kc.session.msg(msg_type, content)
    kc.shell_channel.send(msg)
    while True:
        reply = kc.get_shell_msg(timeout=timeout)
        if reply["parent_header"].get("msg_id") == msg["header"]["msg_id"]:
            return reply


@contextmanager
def running_kernel(
    kernel_name: str = KERNEL, extra_arguments: list[str] | None = None, env: dict[str, str] | None = None
) -> Iterator[tuple[KernelManager, BlockingKernelClient]]:
    """A started kernel, warmed up by one cell, shut down at the end."""
    kwargs: dict[str, Any] = {"extra_arguments": extra_arguments or []}
    if env is not None:
        kwargs["env"] = env
    km, kc = start_new_kernel(kernel_name=kernel_name, startup_timeout=STARTUP_TIMEOUT, **kwargs)
    try:
        yield km, kc
    finally:
        kc.stop_channels()
        if km.is_alive():
            km.shutdown_kernel(now=False)


def repository_arguments(local_repository: Path, repositories: Sequence[str]) -> list[str]:
    """A kernel's settings that resolve from ``repositories`` only, into a local repository of its own."""
    return [
        f"--KotlinKernel.local_repository={local_repository}",
        f"--KotlinKernel.repositories={json.dumps(list(repositories))}",
    ]


def warm_up(kc: BlockingKernelClient) -> None:
    """Runs a silent cell so that the compiler's first-use cost is paid before timed tests."""
    collect(kc, kc.execute("1 + 1", silent=True), timeout=STARTUP_TIMEOUT)


def jdk_home(version: int) -> str:
    """The home of an installed JDK of ``version`` (``scripts/find-jdk.sh``); fails the test, saying how to get one,
    when there is none: a JDK the tests name is part of the check, not an option."""
    script = ROOT / "scripts" / "find-jdk.sh"
    found = subprocess.run(["bash", str(script), str(version)], capture_output=True, text=True, check=False)
    home = found.stdout.strip()
    if found.returncode != 0 or not home:
        pytest.fail(found.stderr.strip() or f"scripts/find-jdk.sh found no JDK {version}", pytrace=False)
    return home


def jdk_arguments(jdk: str) -> list[str]:
    """The kernel's arguments that run it on ``jdk`` ("default", or a version such as "25"); fails the test when
    that JDK is not installed (:func:`jdk_home`)."""
    if jdk == "default":
        return []
    home = jdk_home(int(jdk))
    return [f"--KotlinKernel.java_home={home}"]
