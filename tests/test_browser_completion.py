"""The first Tab in a fresh kernel, as a person presses it in JupyterLab (Debian's chromium driven by Playwright, as in
test_browser.py): a new notebook on kotlin-llm whose kernel ran nothing and was asked no completion before.

Lab drops a provider's answer that comes after its ``providerTimeout`` (1 s) and then shows only its own items, so
the kernel's matches appear only when its first completion is answered in time: the kernel reads what that needs
while it idles after its start. The person's pause between the kernel's start and the first Tab is the kernel's
process going quiet (its background work done), not a fixed time. Fails, never skips, when no chromium can be found.
"""

from __future__ import annotations

import re
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import nbformat
import psutil
import pytest
from nbformat.v4 import new_code_cell, new_notebook
from playwright.sync_api import Browser, Page, expect

from lab_harness import LabServer, page_for_test, require_chromium, running_lab

require_chromium()  # the module fails here, never skips, without one

pytestmark = pytest.mark.timeout(900)

KERNEL_START_TIMEOUT_MS = 240_000
QUIET_TIMEOUT_SECONDS = 240.0  # a bound against a kernel that never goes quiet, not an expected wait
QUIET_WINDOW_SECONDS = 0.5
QUIET_SHARE = 0.10  # of one core, in each of QUIET_WINDOWS windows in a row
QUIET_WINDOWS = 3
NOTEBOOK = "first-tab.ipynb"
CODE = '"abc".'
KERNEL_READY = """() => {
    const kernel = window.jupyterapp?.shell.currentWidget?.sessionContext?.session?.kernel;
    return kernel?.connectionStatus === "connected" && kernel.status === "idle";
}"""


@pytest.fixture(scope="module")
def lab() -> Iterator[LabServer]:
    with tempfile.TemporaryDirectory(prefix="kotlin-llm-lab-first-tab-") as path, running_lab(Path(path)) as server:
        yield server


@pytest.fixture
def page(browser: Browser, request: pytest.FixtureRequest) -> Iterator[Page]:
    with page_for_test(browser, request) as page:
        yield page


def _kernel_process(lab: LabServer) -> psutil.Process:
    """The notebook's kernel process (not the class-data archive's helper a first start may spawn)."""
    kernels = [
        process
        for process in psutil.Process(lab.process.pid).children(recursive=True)
        if "kotlin_llm_kernel" in (command := " ".join(process.cmdline())) and "kotlin_llm_kernel.cds" not in command
    ]
    assert len(kernels) == 1, [" ".join(process.cmdline()) for process in kernels]
    return kernels[0]


def _wait_until_quiet(kernel: psutil.Process) -> None:
    """Returns once the kernel used under QUIET_SHARE of a core in QUIET_WINDOWS windows in a row."""
    deadline = time.monotonic() + QUIET_TIMEOUT_SECONDS
    quiet = 0
    while quiet < QUIET_WINDOWS:
        assert time.monotonic() < deadline, f"the kernel did not go quiet within {QUIET_TIMEOUT_SECONDS} s"
        before = sum(kernel.cpu_times()[:2])
        time.sleep(QUIET_WINDOW_SECONDS)  # one measuring window
        used = sum(kernel.cpu_times()[:2]) - before
        quiet = quiet + 1 if used < QUIET_SHARE * QUIET_WINDOW_SECONDS else 0


def test_the_first_tab_of_a_fresh_kernel_shows_its_matches(page: Page, lab: LabServer) -> None:
    notebook = new_notebook(cells=[new_code_cell(CODE)])
    notebook.metadata["kernelspec"] = {"name": "kotlin-llm", "display_name": "Kotlin (LLM)", "language": "kotlin"}
    nbformat.write(notebook, lab.root / NOTEBOOK)
    page.goto(lab.notebook_url(NOTEBOOK))
    expect(page.locator(".jp-Notebook .jp-Cell")).to_have_count(1, timeout=KERNEL_START_TIMEOUT_MS)
    page.wait_for_function(KERNEL_READY, timeout=KERNEL_START_TIMEOUT_MS)
    _wait_until_quiet(_kernel_process(lab))

    editor = page.locator(".jp-Notebook .jp-Cell").first.locator(".cm-content")
    editor.click()
    expect(page.locator(".jp-Notebook.jp-mod-editMode")).to_have_count(1)
    page.keyboard.press("End")
    page.keyboard.press("Tab")
    completer = page.locator(".jp-Completer")
    expect(completer).to_be_visible(timeout=KERNEL_START_TIMEOUT_MS)
    matches = completer.locator(".jp-Completer-item .jp-Completer-match")
    # the kernel's items, with their kinds: Lab's own item for "abc". would be "abc" alone
    for name in ("length", "uppercase"):
        expect(matches.filter(has_text=re.compile(f"^{name}$"))).to_have_count(1, timeout=10_000)
    length = completer.locator(".jp-Completer-item").filter(
        has=page.locator(".jp-Completer-match", has_text=re.compile("^length$"))
    )
    expect(length.locator(".jp-Completer-typeExtended")).to_have_text("property")
    page.keyboard.press("Escape")
    expect(completer).to_be_hidden()
