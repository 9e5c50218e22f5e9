"""JupyterLab for the browser tests: finding Debian's chromium and launching it headless, starting a private Lab
server on 127.0.0.1 and stopping it with every kernel it started, saving a failed test's page, and probing which
rich-output features the kernel has."""

from __future__ import annotations

import json
import os
import secrets
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from queue import Empty
from typing import Any

import psutil
import pytest
from jupyter_client.blocking.client import BlockingKernelClient
from playwright.sync_api import Browser, Page, sync_playwright

from ports import free_port

STARTUP_TIMEOUT = 120
SHUTDOWN_TIMEOUT = 60

# Chromium as the machine's own test browser: no sandbox (the tests may run as root), and no connections of its
# own to the outside, which this machine refuses (each refusal slows the start).
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]

# Lab's own settings for a test run: no news or update checks (no network, and their toasts would cover the
# notebook), and every cell kept in the DOM whether it is scrolled into view or not.
_USER_SETTINGS = {
    "@jupyterlab/apputils-extension/notification.jupyterlab-settings": {"fetchNews": "false", "checkForUpdates": False},
    "@jupyterlab/notebook-extension/tracker.jupyterlab-settings": {"windowingMode": "none"},
    # the completer's documentation panel shows what inspect_request gives for the selected match
    "@jupyterlab/completer-extension/manager.jupyterlab-settings": {"showDocumentationPanel": True},
}


def find_chromium() -> str | None:
    """The chromium to drive: $KOTLIN_LLM_CHROMIUM when set, else Debian's (installed by scripts/setup.sh)."""
    explicit = os.environ.get("KOTLIN_LLM_CHROMIUM")
    if explicit:
        return explicit
    return shutil.which("chromium") or shutil.which("chromium-browser")


def require_chromium() -> str:
    """The chromium to drive; when there is none the calling test module fails, and says why: never a skip."""
    chromium = find_chromium()
    if chromium is None:
        pytest.fail(
            "browser test failed: no chromium found (scripts/setup.sh installs Debian's `chromium` with apt-get when "
            "run as root; or set KOTLIN_LLM_CHROMIUM to a Chromium binary)",
            pytrace=False,
        )
    return chromium


@contextmanager
def launched_browser(chromium: str) -> Iterator[Browser]:
    """``chromium`` headless, driven by Playwright, closed on leaving."""
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=chromium, headless=True, args=CHROMIUM_ARGS)
        try:
            yield browser
        finally:
            browser.close()


def screenshot_if_failed(page: Page, request: pytest.FixtureRequest) -> None:
    """Saves the page as a screenshot in a temporary folder when the test of ``request`` failed, named in its report
    (conftest.py keeps each phase's report on the test)."""
    report = getattr(request.node, "rep_call", None)
    if report is not None and report.failed:
        shot = Path(tempfile.mkdtemp(prefix="kotlin-llm-browser-failure-")) / f"{request.node.name}.png"
        page.screenshot(path=str(shot), full_page=True)
        report.sections.append(("browser", f"screenshot of the page: {shot}"))
        print(f"screenshot of the page: {shot}")


@contextmanager
def page_for_test(browser: Browser, request: pytest.FixtureRequest, height: int = 900) -> Iterator[Page]:
    """A page of ``height`` pixels for one test, saved as a screenshot when the test fails, then closed."""
    page = browser.new_page(viewport={"width": 1280, "height": height})
    try:
        yield page
        screenshot_if_failed(page, request)
    finally:
        page.close()


@dataclass
class LabServer:
    """A running JupyterLab: its base URL and token, the folder it serves and its log."""

    url: str
    token: str
    root: Path
    log: Path
    process: subprocess.Popen[bytes]

    def notebook_url(self, name: str) -> str:
        return f"{self.url}/lab/tree/{name}?token={self.token}"

    def api(self, path: str, method: str = "GET", body: dict[str, Any] | None = None, timeout: float = 10) -> Any:
        request = urllib.request.Request(
            f"{self.url}/api/{path}",
            method=method,
            headers={"Authorization": f"token {self.token}", "Content-Type": "application/json"},
            data=None if body is None else json.dumps(body).encode(),
        )
        with urllib.request.urlopen(request, timeout=timeout) as response:
            body = response.read()
        return json.loads(body) if body else None

    def log_tail(self, lines: int = 40) -> str:
        text = self.log.read_text(encoding="utf-8", errors="replace") if self.log.exists() else ""
        return "\n".join(text.splitlines()[-lines:])


def _write_user_settings(settings_dir: Path) -> None:
    for name, values in _USER_SETTINGS.items():
        path = settings_dir / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(values), encoding="utf-8")


def _wait_until_up(server: LabServer) -> None:
    deadline = time.monotonic() + STARTUP_TIMEOUT
    while True:
        if server.process.poll() is not None:
            raise RuntimeError(f"jupyter lab exited with {server.process.returncode}:\n{server.log_tail()}")
        try:
            server.api("status")
            return
        except (urllib.error.URLError, ConnectionError):
            if time.monotonic() > deadline:
                raise TimeoutError(f"jupyter lab did not answer in {STARTUP_TIMEOUT} s:\n{server.log_tail()}") from None
            # The server has no readiness event to wait on; its status endpoint is polled.
            time.sleep(0.2)


def _stop(server: LabServer) -> None:
    """Shuts the server down through its API (which shuts its kernels down), then makes sure that neither it nor any
    process it started (kernels run in sessions of their own, out of its process group) is left."""
    try:
        started = psutil.Process(server.process.pid).children(recursive=True)
    except psutil.NoSuchProcess:
        started = []
    try:
        server.api("shutdown", method="POST")
    except (urllib.error.URLError, ConnectionError):
        server.process.terminate()
    try:
        server.process.wait(timeout=SHUTDOWN_TIMEOUT)
    except subprocess.TimeoutExpired:
        server.process.kill()
        server.process.wait(timeout=SHUTDOWN_TIMEOUT)
    _, alive = psutil.wait_procs(started, timeout=SHUTDOWN_TIMEOUT)
    for process in alive:
        process.kill()
    psutil.wait_procs(alive, timeout=SHUTDOWN_TIMEOUT)


@contextmanager
def running_lab(workdir: Path) -> Iterator[LabServer]:
    """JupyterLab on 127.0.0.1 (a free port, a random token) serving ``workdir/root``, with its settings,
    workspaces and log under ``workdir``; kernels come from the tests' kernelspecs (JUPYTER_PATH)."""
    root = workdir / "root"
    root.mkdir()
    settings = workdir / "user-settings"
    _write_user_settings(settings)
    port, token = free_port(), secrets.token_hex(16)
    log = workdir / "jupyter-lab.log"
    command = [
        sys.executable,
        "-m",
        "jupyterlab",
        "--no-browser",
        "--ServerApp.ip=127.0.0.1",
        f"--ServerApp.port={port}",
        "--ServerApp.port_retries=0",
        f"--IdentityProvider.token={token}",
        f"--ServerApp.root_dir={root}",
        "--ServerApp.allow_root=True",
        "--ServerApp.terminals_enabled=False",
        f"--LabApp.user_settings_dir={settings}",
        f"--LabApp.workspaces_dir={workdir / 'workspaces'}",
        "--LabApp.news_url=None",
        # The test reads the notebook's kernel connection from the app (window.jupyterapp) to know when to type.
        "--LabApp.expose_app_in_browser=True",
        "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate",
    ]
    with log.open("wb") as out:
        process = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT, cwd=root)
    server = LabServer(url=f"http://127.0.0.1:{port}", token=token, root=root, log=log, process=process)
    try:
        _wait_until_up(server)
        yield server
    finally:
        _stop(server)


@dataclass(frozen=True)
class Features:
    """Which rich-output features the kernel has; a feature's browser test fails when it is absent."""

    display: bool
    stdin: bool


def _unresolved(reply: dict[str, Any], names: tuple[str, ...]) -> bool:
    content = reply["content"]
    return content["status"] == "error" and any(f"Unresolved reference '{n}'" in content["evalue"] for n in names)


def _reply(kc: BlockingKernelClient, msg_id: str, timeout: float) -> tuple[dict[str, Any], bool]:
    """The execute_reply of ``msg_id``, and whether the cell asked for input (answered with a fixed text)."""
    deadline = time.monotonic() + timeout
    asked = False
    while time.monotonic() < deadline:
        try:
            request = kc.get_stdin_msg(timeout=0.1)
            if request["msg_type"] == "input_request":
                asked = True
                kc.input("probe")
        except Empty:
            pass
        try:
            reply = kc.get_shell_msg(timeout=0.1)
        except Empty:
            continue
        if reply["parent_header"].get("msg_id") == msg_id:
            return reply, asked
    raise TimeoutError(f"no execute_reply in {timeout} s")


def probe_features(kc: BlockingKernelClient, timeout: float = 120) -> Features:
    """Asks the kernel itself: the display API is there when its names compile (the probe runs nothing); stdin is
    there unless ``readLine()`` returns at once without an input_request. Anything else (an error, a hang) counts
    as present, so that a broken feature fails its test instead of being skipped."""
    names = ("DISPLAY", "UPDATE_DISPLAY", "HTML")
    code = 'if (false) { DISPLAY(HTML("x"), "probe"); UPDATE_DISPLAY(HTML("y"), "probe") }'
    display_reply, _ = _reply(kc, kc.execute(code), timeout)
    try:
        stdin_reply, asked = _reply(kc, kc.execute("readLine()", allow_stdin=True), timeout)
        stdin = asked or stdin_reply["content"]["status"] != "ok"
    except TimeoutError:
        stdin = True
    return Features(display=not _unresolved(display_reply, names), stdin=stdin)
