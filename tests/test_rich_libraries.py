"""DataFrame tables and lets-plot figures over the real protocol: the built-in renderers on the real artifacts that the
setup step fetched (:mod:`libraries`), served as a ``file:`` repository, so the kernel needs no network."""

from __future__ import annotations

import base64
import re
from typing import Any

from kernel_client import execute
from libraries import DATAFRAME, LETS_PLOT

# Every URL but an XML namespace's (a name, never loaded).
URL = re.compile(r"https?://(?!www\.w3\.org/)[^\s\"'<>)]+")


def _result(kernel: Any, code: str) -> dict[str, str]:
    cell = execute(kernel, code)
    assert cell.status == "ok", cell.error
    results = cell.outputs("execute_result")
    assert len(results) == 1, cell.messages
    data: dict[str, str] = results[0]["content"]["data"]
    return data


def test_a_dataframe_is_an_html_table_and_its_text_table(library_kernel: Any) -> None:
    data = _result(
        library_kernel,
        f'@file:DependsOn("{DATAFRAME}")\n'
        "import org.jetbrains.kotlinx.dataframe.api.*\n"
        'val df = dataFrameOf("name", "age")("Alice", 15, "Bob", 20, "Charlie", 35)\n'
        "df",
    )
    assert list(data) == ["text/plain", "text/html"]
    assert data["text/plain"].splitlines() == ["      name age", " 0   Alice  15", " 1     Bob  20", " 2 Charlie  35"]
    html = data["text/html"]
    for value in ("Alice", "Bob", "Charlie", "35"):
        assert f">{value}<" in html
    assert URL.findall(html) == []
    assert not re.search(r"<script[^>]*\ssrc\s*=", html, re.IGNORECASE)


def test_a_large_frame_is_bounded(library_kernel: Any) -> None:
    data = _result(
        library_kernel,
        f'@file:DependsOn("{DATAFRAME}")\n'
        "import org.jetbrains.kotlinx.dataframe.api.*\n"
        '(1..1000).toList().toDataFrame { "n" from { it } }',
    )
    lines = data["text/plain"].splitlines()
    assert len(lines) == 22 and lines[-1] == "… 1000 rows × 1 column, the first 20 shown", lines
    assert "showing only top 20 of 1000 rows" in data["text/html"]
    assert ">21<" not in data["text/html"]


def test_a_lets_plot_figure_is_svg_and_html_and_a_line_of_text(library_kernel: Any) -> None:
    data = _result(
        library_kernel,
        f'@file:DependsOn("{LETS_PLOT}")\n'
        "import org.jetbrains.letsPlot.*\nimport org.jetbrains.letsPlot.geom.*\n"
        'letsPlot(mapOf("x" to listOf(1, 2, 3), "y" to listOf(3, 1, 2))) + geomLine { x = "x"; y = "y" }',
    )
    assert list(data) == ["text/plain", "image/svg+xml", "text/html"]
    assert data["text/plain"] == "lets-plot figure, 600×400 px: line(x=x, y=y); data 3 rows × 2 columns [x, y]"
    svg = data["image/svg+xml"]
    assert svg.startswith("<svg") and "<script" not in svg
    assert URL.findall(svg) == []
    # the same SVG as an image, which an untrusted notebook keeps
    image = re.fullmatch(
        r'<img src="data:image/svg\+xml;base64,([A-Za-z0-9+/=]+)" width="600" height="400" alt="[^"]*">',
        data["text/html"],
    )
    assert image, data["text/html"][:300]
    assert base64.b64decode(image.group(1)).decode() == svg
