"""Rich output over the real protocol: display_data, update_display_data, clear_output, execute_result bundles,
their order with the streams, the reply metadata, the size bound; nbclient and nbformat; the Python API."""

from __future__ import annotations

import base64
from typing import Any

import nbformat
import pytest
from kotlin_llm_kernel import ClearOutput, Display, Error, ScriptSession, SessionOptions, Value
from nbclient import NotebookClient
from nbformat.v4 import new_code_cell, new_notebook

from kernel_client import execute, running_kernel

pytestmark = pytest.mark.usefixtures("kernel")


@pytest.fixture(scope="module")
def kc(kernel: tuple[Any, Any]) -> Any:
    return kernel[1]


def kinds(messages: list[dict[str, Any]]) -> list[str]:
    """Each message as its type, a stream with its text."""
    return [
        f"stream {m['content']['name']}: {m['content']['text']}" if m["msg_type"] == "stream" else m["msg_type"]
        for m in messages
    ]


def test_display_update_and_clear_in_order_with_the_streams(kc: Any) -> None:
    cell = execute(
        kc,
        'println("before")\n'
        'DISPLAY(HTML("<b>bold</b>"))\n'
        'println("between")\n'
        'DISPLAY("counter 1", "counter")\n'
        'UPDATE_DISPLAY(MIME("text/markdown" to "**2**"), "counter")\n'
        "clearOutput(wait = true)\n"
        "notebook.clearOutput()\n"
        '"done"',
    )
    assert cell.status == "ok"
    assert kinds(cell.messages) == [
        "stream stdout: before\n",
        "display_data",
        "stream stdout: between\n",
        "display_data",
        "update_display_data",
        "clear_output",
        "clear_output",
        "execute_result",
    ]
    html, counter, update, clear_wait, clear = (m["content"] for m in cell.messages[1:7] if m["msg_type"] != "stream")
    assert html == {"data": {"text/plain": "<b>bold</b>", "text/html": "<b>bold</b>"}, "metadata": {}}
    assert "transient" not in html  # no id given
    assert counter == {"data": {"text/plain": "counter 1"}, "metadata": {}, "transient": {"display_id": "counter"}}
    assert update["transient"] == {"display_id": "counter"}
    assert update["data"] == {"text/plain": "**2**", "text/markdown": "**2**"}
    assert clear_wait == {"wait": True} and clear == {"wait": False}
    assert cell.kotlin_llm["outputs"] == [
        {"output_type": "display_data", "mime_types": ["text/plain", "text/html"]},
        {"output_type": "display_data", "mime_types": ["text/plain"], "display_id": "counter"},
        {"output_type": "update_display_data", "mime_types": ["text/plain", "text/markdown"], "display_id": "counter"},
        {"output_type": "clear_output", "wait": True},
        {"output_type": "clear_output", "wait": False},
        {"output_type": "execute_result", "mime_types": ["text/plain"]},
    ]


def test_execute_result_bundles(kc: Any) -> None:
    html = execute(kc, 'HTML("<i>x</i>")')
    [result] = html.outputs("execute_result")
    assert result["content"]["data"] == {"text/plain": "<i>x</i>", "text/html": "<i>x</i>"}
    assert result["content"]["metadata"] == {}
    json_cell = execute(kc, 'JSON("""{"a": [1, 2]}""")')
    [result] = json_cell.outputs("execute_result")
    assert result["content"]["data"]["application/json"] == {"a": [1, 2]}  # unpacked, not a string
    assert result["content"]["metadata"] == {"application/json": {"expanded": True}}
    plain = execute(kc, '"plain"')
    assert plain.outputs("execute_result")[0]["content"]["data"] == {"text/plain": "plain"}


def test_an_image_value_is_png_with_its_size_and_readable_text(kc: Any) -> None:
    cell = execute(
        kc,
        "val img = java.awt.image.BufferedImage(12, 8, java.awt.image.BufferedImage.TYPE_INT_ARGB)\n"
        "img.createGraphics().apply { color = java.awt.Color.RED; fillRect(0, 0, 6, 8); dispose() }\n"
        "img",
    )
    [result] = cell.outputs("execute_result")
    data = result["content"]["data"]
    assert base64.b64decode(data["image/png"])[1:4] == b"PNG"
    assert result["content"]["metadata"] == {"image/png": {"width": 12, "height": 8}}
    assert data["text/plain"].startswith("BufferedImage 12×8 px, image/png ")
    assert len(data["text/plain"]) < 80  # no base64 in the text
    assert cell.kotlin_llm["outputs"] == [{"output_type": "execute_result", "mime_types": ["text/plain", "image/png"]}]


def test_a_renderer_applies_to_later_values_and_displays(kc: Any) -> None:
    assert execute(kc, 'data class Row(val name: String)\nrender<Row> { HTML("<td>${it.name}</td>") }').status == "ok"
    cell = execute(kc, 'DISPLAY(Row("a"))\nRow("b")')
    [display] = cell.outputs("display_data")
    assert display["content"]["data"] == {"text/plain": "Row(name=a)", "text/html": "<td>a</td>"}
    [result] = cell.outputs("execute_result")
    assert result["content"]["data"] == {"text/plain": "Row(name=b)", "text/html": "<td>b</td>"}


def test_latex_is_sent_inside_math_delimiters_once(kc: Any) -> None:
    """MathJax typesets only inside delimiters: LATEX adds `$$…$$` to text without any and keeps those it has."""
    code = 'DISPLAY(LATEX("e^{i\\\\pi} + 1 = 0"))\nDISPLAY(LATEX("\\\\[x^2\\\\]"))\nLATEX("""$$\\frac{1}{2}$$""")'
    cell = execute(kc, code)
    assert cell.status == "ok", cell.content
    shown = [m["content"]["data"] for m in cell.outputs("display_data")]
    assert shown == [
        {"text/plain": "$$e^{i\\pi} + 1 = 0$$", "text/latex": "$$e^{i\\pi} + 1 = 0$$"},
        {"text/plain": "\\[x^2\\]", "text/latex": "\\[x^2\\]"},
    ]
    [result] = cell.outputs("execute_result")
    assert result["content"]["data"] == {"text/plain": "$$\\frac{1}{2}$$", "text/latex": "$$\\frac{1}{2}$$"}


def test_a_launched_coroutine_displays_under_its_cell(kc: Any) -> None:
    cell = execute(kc, 'await { launch { DISPLAY("from a coroutine") }.join() }')
    [display] = cell.outputs("display_data")
    assert display["content"]["data"] == {"text/plain": "from a coroutine"}


def test_past_max_display_bytes_only_the_text_is_sent() -> None:
    with running_kernel(extra_arguments=["--KotlinKernel.max_display_bytes=100"]) as (_, kc):
        cell = execute(kc, 'HTML("x".repeat(150))')
        [result] = cell.outputs("execute_result")
        data = result["content"]["data"]
        assert list(data) == ["text/plain"]
        assert data["text/plain"].endswith(
            "[kotlin-llm] display cut: text/html (150 B) not shown, past the limit of 100 bytes "
            "(setting max_display_bytes)"
        )


def test_a_notebook_with_every_display_kind_is_valid_nbformat() -> None:
    nb = new_notebook(
        cells=[
            new_code_cell('println("text first")\nDISPLAY(HTML("<b>html</b>"))\nDISPLAY("old", "slot")'),
            new_code_cell('UPDATE_DISPLAY("new", "slot")\nDISPLAY(JSON("""{"k": [1, 2]}"""))'),
            new_code_cell('DISPLAY(LATEX("x^2"))\nDISPLAY(MIME("text/markdown" to "**md**"))'),
            new_code_cell("java.awt.image.BufferedImage(3, 2, java.awt.image.BufferedImage.TYPE_INT_RGB)"),
            new_code_cell('DISPLAY("frame 1")\nclearOutput(wait = true)\nDISPLAY("frame 2")'),
            new_code_cell('HTML("<i>value</i>")'),
        ]
    )
    NotebookClient(nb, kernel_name="kotlin-llm", allow_errors=True, timeout=300, startup_timeout=180).execute()
    nbformat.validate(nb)
    first, second, third, image, frames, value = nb.cells
    assert [o.output_type for o in first.outputs] == ["stream", "display_data", "display_data"]
    assert first.outputs[1].data["text/html"] == "<b>html</b>"
    assert first.outputs[2].data["text/plain"] == "new"  # the update of the next cell reached it
    assert second.outputs[0].data["application/json"] == {"k": [1, 2]}
    assert [o.data["text/plain"] for o in third.outputs] == ["$$x^2$$", "**md**"]
    assert image.outputs[0].metadata == {"image/png": {"width": 3, "height": 2}}
    assert [o.data["text/plain"] for o in frames.outputs] == ["frame 2"]
    assert value.outputs[0].data == {"text/plain": "<i>value</i>", "text/html": "<i>value</i>"}
    for cell in nb.cells:
        for output in cell.outputs:
            assert "transient" not in output


def test_the_python_api_carries_bundles_and_displays(capsys: pytest.CaptureFixture[str]) -> None:
    with ScriptSession(options=SessionOptions(echo=True)) as session:
        result = session.execute('DISPLAY(HTML("<b>x</b>"), "d")\nclearOutput()\nJSON("[1, 2]")')
        assert isinstance(result, Value)
        assert result.data == {"application/json": [1, 2], "text/plain": "[\n  1,\n  2\n]"}
        assert result.metadata == {"application/json": {"expanded": True}}
        assert result.displays == (
            Display({"text/plain": "<b>x</b>", "text/html": "<b>x</b>"}, {}, "d", False),
            ClearOutput(False),
        )
        assert "<b>x</b>\n" in capsys.readouterr().out  # echo prints the text of a display
        failed = session.execute('DISPLAY("shown first")\nerror("then failed")')
        assert isinstance(failed, Error)
        assert failed.displays == (Display({"text/plain": "shown first"}, {}, None, False),)
        plain = session.execute("41 + 1")
        assert isinstance(plain, Value) and plain.data == {"text/plain": "42"} and plain.displays == ()
