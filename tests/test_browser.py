"""Rich output and input as a person sees them: JupyterLab on 127.0.0.1, Debian's chromium driven by Playwright,
one notebook on kotlin-llm whose cells are run one by one with Ctrl+Enter; the assertions read the rendered DOM.

A case whose kernel feature is absent (asked of the kernel itself first, over jupyter_client) fails and says which
one, as does the whole module when no chromium can be found: a regression or a missing part is never a skip. On a
failure the page is saved as a screenshot in a temporary folder, named in the failure's report."""

from __future__ import annotations

import re
import tempfile
from collections.abc import Iterator
from pathlib import Path

import nbformat
import pytest
from nbformat.v4 import new_code_cell, new_notebook
from playwright.sync_api import Browser, Locator, Page, expect

from lab_harness import (
    Features,
    LabServer,
    probe_features,
    require_chromium,
    running_lab,
    screenshot_if_failed,
)

require_chromium()  # the module fails here, never skips, without one

pytestmark = pytest.mark.timeout(900)

# Bounds against hangs only: starting the kernel (a JVM) and a cell (the first one also pays the compiler's start).
KERNEL_START_TIMEOUT_MS = 240_000
CELL_TIMEOUT_MS = 180_000
NOTEBOOK = "rich-output.ipynb"
KERNEL_READY = """() => {
    const kernel = window.jupyterapp?.shell.currentWidget?.sessionContext?.session?.kernel;
    return kernel?.connectionStatus === "connected" && kernel.status === "idle";
}"""

# The notebook's cells, in the order the tests run them.
CELLS = [
    "1 + 1",
    'HTML("<b>bold</b>")',
    "java.awt.image.BufferedImage(40, 30, java.awt.image.BufferedImage.TYPE_INT_RGB)",
    'DISPLAY(HTML("first"), "d1")',
    'UPDATE_DISPLAY(HTML("second"), "d1")',
    'LATEX("e^{i\\\\pi} + 1 = 0")',
    'val name = readLine()\n"Hello, $name"',
    "listOf(1).ma",
]
PLAIN, HTML_CELL, IMAGE, DISPLAYED, UPDATE, LATEX, READ_LINE, COMPLETED = range(len(CELLS))
# Asks the notebook's kernel for a completion through Lab's own connection and waits for the reply.
WARM_COMPLETION = """async code => {
    const kernel = window.jupyterapp.shell.currentWidget.sessionContext.session.kernel;
    const reply = await kernel.requestComplete({code, cursor_pos: code.length});
    return reply.content.matches.length;
}"""

NEEDS_DISPLAY = "the kernel lost the display API: HTML, DISPLAY or UPDATE_DISPLAY no longer compile"
NEEDS_STDIN = "the kernel lost stdin: readLine() returned without an input_request"


class Notebook:
    """The notebook open in Lab: cells by index, run as a user runs them."""

    def __init__(self, page: Page) -> None:
        self.page = page

    def cell(self, index: int) -> Locator:
        return self.page.locator(".jp-Notebook .jp-Cell").nth(index)

    def outputs(self, index: int) -> Locator:
        return self.cell(index).locator(".jp-OutputArea-output")

    def run(self, index: int) -> None:
        """Clicks into the cell's editor and runs it with Ctrl+Enter (which stays on the cell), as a user does; the
        prompt leaving ``[ ]:`` shows that Lab took the key."""
        cell = self.cell(index)
        editor = cell.locator(".cm-content")
        editor.click()
        expect(editor).to_be_focused()
        # Ctrl+Enter is bound per mode; the key waits until Lab has switched the notebook to edit mode.
        expect(self.page.locator(".jp-Notebook.jp-mod-editMode")).to_have_count(1)
        self.page.keyboard.press("Control+Enter")
        expect(cell.locator(".jp-InputPrompt")).not_to_have_text("[ ]:", timeout=CELL_TIMEOUT_MS)


@pytest.fixture(scope="module")
def features() -> Features:
    from kernel_client import running_kernel

    with running_kernel() as (_, kc):
        return probe_features(kc)


@pytest.fixture(scope="module")
def workdir() -> Iterator[Path]:
    with tempfile.TemporaryDirectory(prefix="kotlin-llm-lab-") as path:
        yield Path(path)


@pytest.fixture(scope="module")
def lab(workdir: Path) -> Iterator[LabServer]:
    with running_lab(workdir) as server:
        yield server


@pytest.fixture(scope="module")
def open_notebook(lab: LabServer, browser: Browser) -> Iterator[Notebook]:
    """The test notebook (no outputs yet) opened in Lab; Lab starts its kernel, kotlin-llm, from its metadata."""
    notebook = new_notebook(cells=[new_code_cell(source) for source in CELLS])
    notebook.metadata["kernelspec"] = {"name": "kotlin-llm", "display_name": "Kotlin (LLM)", "language": "kotlin"}
    nbformat.write(notebook, lab.root / NOTEBOOK)
    page = browser.new_page(viewport={"width": 1280, "height": 1600})
    try:
        page.goto(lab.notebook_url(NOTEBOOK))
        expect(page.locator(".jp-Notebook .jp-Cell")).to_have_count(len(CELLS), timeout=CELL_TIMEOUT_MS)
        # Lab drops a run (silently) while the notebook's kernel connection is not up yet; its toolbar indicator says
        # "idle" before that, so the connection itself is waited for.
        page.wait_for_function(KERNEL_READY, timeout=KERNEL_START_TIMEOUT_MS)
        yield Notebook(page)
    finally:
        page.close()


@pytest.fixture
def nb(open_notebook: Notebook, request: pytest.FixtureRequest) -> Iterator[Notebook]:
    """The open notebook for one test; the page is saved as a screenshot when the test fails."""
    yield open_notebook
    screenshot_if_failed(open_notebook.page, request)


def test_plain_value(nb: Notebook) -> None:
    nb.run(PLAIN)
    expect(nb.outputs(PLAIN)).to_have_text(["2"], timeout=CELL_TIMEOUT_MS)


def test_html(nb: Notebook, features: Features) -> None:
    if not features.display:
        pytest.fail(NEEDS_DISPLAY)
    nb.run(HTML_CELL)
    expect(nb.outputs(HTML_CELL).locator("b")).to_have_text("bold", timeout=CELL_TIMEOUT_MS)


def test_image(nb: Notebook, features: Features) -> None:
    if not features.display:
        pytest.fail(NEEDS_DISPLAY)
    nb.run(IMAGE)
    image = nb.outputs(IMAGE).locator("img")
    expect(image).to_have_count(1, timeout=CELL_TIMEOUT_MS)
    nb.page.wait_for_function(
        "img => img.complete && img.naturalWidth > 0", arg=image.element_handle(), timeout=CELL_TIMEOUT_MS
    )
    assert image.evaluate("img => [img.naturalWidth, img.naturalHeight]") == [40, 30]


def test_updated_display(nb: Notebook, features: Features) -> None:
    if not features.display:
        pytest.fail(NEEDS_DISPLAY)
    displayed = nb.outputs(DISPLAYED)
    nb.run(DISPLAYED)
    expect(displayed.filter(has_text="first")).to_have_count(1, timeout=CELL_TIMEOUT_MS)
    nb.run(UPDATE)
    expect(displayed.filter(has_text="second")).to_have_count(1, timeout=CELL_TIMEOUT_MS)
    expect(displayed.filter(has_text="first")).to_have_count(0)
    expect(nb.cell(UPDATE).locator(".jp-InputPrompt")).to_have_text(re.compile(r"\[\d+\]"))
    expect(nb.outputs(UPDATE)).to_have_count(0)


def test_latex_without_delimiters_is_typeset(nb: Notebook, features: Features) -> None:
    """LaTeX as Kotlin notebooks pass it, without `$$`: Lab's MathJax typesets it instead of showing its source."""
    if not features.display:
        pytest.fail(NEEDS_DISPLAY)
    nb.run(LATEX)
    output = nb.outputs(LATEX)
    expect(output.locator("mjx-container")).to_have_count(1, timeout=CELL_TIMEOUT_MS)
    expect(output).not_to_contain_text("\\pi")


def test_read_line(nb: Notebook, features: Features) -> None:
    if not features.stdin:
        pytest.fail(NEEDS_STDIN)
    nb.run(READ_LINE)
    box = nb.cell(READ_LINE).locator(".jp-Stdin-input")
    expect(box).to_be_visible(timeout=CELL_TIMEOUT_MS)
    box.press_sequentially("Ada")
    box.press("Enter")
    outputs = nb.outputs(READ_LINE)
    expect(outputs.filter(has_text="Hello, Ada")).to_have_count(1, timeout=CELL_TIMEOUT_MS)
    # Lab keeps the answer as a stream output of its own: the prompt (empty here), a space and what was typed.
    echo = nb.cell(READ_LINE).locator('.jp-OutputArea-output[data-mime-type="application/vnd.jupyter.stdout"]')
    expect(echo).to_have_text([re.compile(r"(^|\s)Ada\s*$")])
    expect(box).to_have_count(0)


def test_completion_shows_kotlin_types(nb: Notebook) -> None:
    """Tab at the end of `listOf(1).ma`: Lab's completer lists the extensions of `List<Int>` with their kinds, and its
    documentation panel shows the selected one's signature and KDoc (Lab asks inspect_request for it).

    Lab drops a provider's answer after its `providerTimeout` (1 s), and a fresh kernel's first completions read the
    standard library's functions (with a prefix ~0.2 s, after a bare dot ~1.3 s on 2 cores, more under load): one
    is asked for over Lab's connection first, as a user's first Tab would."""
    assert nb.page.evaluate(WARM_COMPLETION, "listOf(1).ma") > 0
    editor = nb.cell(COMPLETED).locator(".cm-content")
    editor.click()
    expect(nb.page.locator(".jp-Notebook.jp-mod-editMode")).to_have_count(1)
    nb.page.keyboard.press("End")
    nb.page.keyboard.press("Tab")
    completer = nb.page.locator(".jp-Completer")
    expect(completer).to_be_visible(timeout=CELL_TIMEOUT_MS)
    items = completer.locator(".jp-Completer-item")
    expect(items.first.locator(".jp-Completer-match")).to_have_text("map")
    expect(items.nth(1).locator(".jp-Completer-match")).to_have_text("mapIndexed")
    expect(items.first.locator(".jp-Completer-typeExtended")).to_have_text("function")
    docs = completer.locator(".jp-Completer-docpanel")
    signature = "inline fun <T, R> Iterable<T>.map(transform: (T) -> R): List<R>"
    expect(docs).to_contain_text(signature, timeout=CELL_TIMEOUT_MS)
    expect(docs).to_contain_text("Returns a list containing the results of applying the given [transform] function")
    nb.page.keyboard.press("Escape")
    expect(completer).to_be_hidden()
