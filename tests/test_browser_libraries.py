"""DataFrame tables and lets-plot figures as a person sees them in JupyterLab (Debian's chromium driven by Playwright,
as in test_browser.py): run in a notebook, then the same outputs reopened as an untrusted notebook, where Lab runs no
script and sanitizes the HTML. The libraries are the real artifacts the setup step fetched (:mod:`libraries`), served
to the notebook's kernel as a ``file:`` repository; the page has no network either way.

Fails, never skips, when no chromium can be found. On a failure the page is saved as a screenshot in a temporary
folder, named in the failure's report."""

from __future__ import annotations

import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import nbformat
import pytest
from kotlin_llm_kernel.install import install
from nbformat.v4 import new_code_cell, new_notebook
from playwright.sync_api import Browser, Locator, Page, expect

from lab_harness import LabServer, page_for_test, require_chromium, running_lab
from libraries import DATAFRAME, LETS_PLOT, library_kernel_arguments

require_chromium()  # the module fails here, never skips, without one

pytestmark = pytest.mark.timeout(900)

KERNEL_START_TIMEOUT_MS = 240_000
# the first cell resolves both libraries from the file: repository and pays the compiler's start
CELL_TIMEOUT_MS = 240_000
KERNEL = "kotlin-llm-libraries"
TRUSTED, UNTRUSTED = "libraries.ipynb", "libraries-untrusted.ipynb"
# the notebook `path` is the current widget (Lab restores earlier tabs too), its kernel connected and idle
KERNEL_READY = """path => {
    const widget = window.jupyterapp?.shell.currentWidget;
    const kernel = widget?.sessionContext?.session?.kernel;
    return widget?.context?.path === path && kernel?.connectionStatus === "connected" && kernel.status === "idle";
}"""
# whether each cell of the notebook open in Lab is trusted (its outputs may run scripts)
CELLS_TRUSTED = """() => {
    const cells = window.jupyterapp.shell.currentWidget.content.model.cells;
    return Array.from({length: cells.length}, (_, i) => cells.get(i).trusted);
}"""

CELLS = [
    f'@file:DependsOn("{DATAFRAME}", "{LETS_PLOT}")\n'
    "import org.jetbrains.kotlinx.dataframe.api.*\n"
    "import org.jetbrains.letsPlot.*\nimport org.jetbrains.letsPlot.geom.*",
    'dataFrameOf("name", "age")("Alice", 15, "Bob", 20, "Charlie", 35)',
    'letsPlot(mapOf("x" to listOf(1, 2, 3, 4), "y" to listOf(2, 4, 3, 5))) + geomPoint { x = "x"; y = "y" }',
]
SETUP, TABLE, PLOT = range(len(CELLS))


@pytest.fixture(scope="module")
def workdir() -> Iterator[Path]:
    with tempfile.TemporaryDirectory(prefix="kotlin-llm-lab-libraries-") as path:
        yield Path(path)


@pytest.fixture(scope="module")
def lab(workdir: Path, jupyter_dir: Path) -> Iterator[LabServer]:
    """Lab with a kernelspec of its own: kotlin-llm resolving from the fetched libraries only, into a private local
    repository."""
    install(prefix=str(jupyter_dir), settings=library_kernel_arguments(workdir / "local-repo"), name=KERNEL)
    with running_lab(workdir) as server:
        yield server


@pytest.fixture
def page(browser: Browser, request: pytest.FixtureRequest) -> Iterator[Page]:
    with page_for_test(browser, request, height=1600) as page:
        yield page


def _open(page: Page, lab: LabServer, name: str) -> None:
    """Opens notebook ``name`` in a Lab workspace of its own, so that it is the only notebook in the page."""
    page.goto(f"{lab.url}/lab/workspaces/{name.removesuffix('.ipynb')}/tree/{name}?token={lab.token}")
    expect(page.locator(".jp-Notebook .jp-Cell")).to_have_count(len(CELLS), timeout=CELL_TIMEOUT_MS)
    page.wait_for_function(KERNEL_READY, arg=name, timeout=KERNEL_START_TIMEOUT_MS)


def _output(page: Page, cell: int) -> Locator:
    return page.locator(".jp-Notebook .jp-Cell").nth(cell).locator(".jp-OutputArea-output")


def _assert_table_shows(page: Page) -> None:
    output = _output(page, TABLE)
    for value in ("Alice", "Bob", "Charlie", "35"):
        # (an untrusted notebook's sanitizer keeps the table but may drop its class and id)
        cell = output.locator("table td").filter(has_text=value)
        # the first one drawn and visible: the interactive table when its script ran, else the static one
        expect(cell.filter(visible=True).first).to_be_visible(timeout=CELL_TIMEOUT_MS)


def _assert_figure_shows(page: Page) -> None:
    """The figure's SVG drawn: Lab shows the HTML form, the SVG as an image (the form an untrusted notebook keeps)."""
    image = _output(page, PLOT).locator("img[src^='data:image/svg+xml;base64,']")
    expect(image).to_be_visible(timeout=CELL_TIMEOUT_MS)
    page.wait_for_function(
        "img => img.complete && img.naturalWidth > 0", arg=image.element_handle(), timeout=CELL_TIMEOUT_MS
    )
    assert image.evaluate("img => [img.naturalWidth, img.naturalHeight]") == [600, 400]
    box = image.bounding_box()
    assert box is not None and box["width"] > 100 and box["height"] > 100, box


def test_a_table_and_a_figure_show_in_lab_and_stay_in_an_untrusted_notebook(page: Page, lab: LabServer) -> None:
    notebook = new_notebook(cells=[new_code_cell(source) for source in CELLS])
    notebook.metadata["kernelspec"] = {"name": KERNEL, "display_name": "Kotlin (LLM, libraries)", "language": "kotlin"}
    nbformat.write(notebook, lab.root / TRUSTED)
    _open(page, lab, TRUSTED)
    page.evaluate("() => window.jupyterapp.commands.execute('notebook:run-all-cells')")

    _assert_table_shows(page)
    table = _output(page, TABLE)
    # trusted: DataFrame's own script ran offline, drew the interactive table and hid the static one
    expect(table.locator("table[id^='static_df_']")).to_be_hidden()
    expect(table.locator("table[id^='df_'] td").first).to_be_visible()
    _assert_figure_shows(page)
    # the library's style sheet stays in its output: the page's own cells keep Lab's padding
    padding = page.evaluate(
        """() => { const td = document.createElement("td"); document.body.appendChild(td);
                   const padding = getComputedStyle(td).padding; td.remove(); return padding; }"""
    )
    assert padding != "6px", "DataFrame's `td` rule reached the whole page"

    # saved with its outputs, then copied with a change of its own: no signature matches the copy, so Lab opens it
    # untrusted (as a notebook from elsewhere), runs none of its scripts and sanitizes its HTML
    page.evaluate("() => window.jupyterapp.commands.execute('docmanager:save')")
    saved = lab.root / TRUSTED
    deadline = time.monotonic() + 60
    while not any(cell.get("outputs") for cell in nbformat.read(saved, as_version=4).cells):
        assert time.monotonic() < deadline, "Lab did not save the notebook's outputs"
        time.sleep(0.2)  # the save is a request of its own; the file is polled for it
    copy = nbformat.read(saved, as_version=4)
    copy.metadata.pop("signature", None)
    copy.metadata["kotlin_llm_test"] = "an untrusted copy"
    nbformat.write(copy, lab.root / UNTRUSTED)
    _open(page, lab, UNTRUSTED)
    assert page.evaluate(CELLS_TRUSTED) == [False] * len(CELLS)
    _assert_table_shows(page)
    # one table shows: the static one (the interactive one stays empty without its script)
    expect(_output(page, TABLE).locator("table", has_text="Charlie").filter(visible=True)).to_have_count(1)
    _assert_figure_shows(page)
