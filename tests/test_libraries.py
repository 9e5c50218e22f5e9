"""The libraries Kotlin users reach for, loaded by their plain coordinates through the kernel, offline: the real
artifacts that the setup step fetched (:mod:`libraries`), served as a ``file:`` repository."""

from __future__ import annotations

import http.server
import threading
from collections.abc import Iterator

import pytest

from kernel_client import execute
from libraries import DATETIME, KTOR_CLIENT, LETS_PLOT


@pytest.fixture(scope="module")
def pages() -> Iterator[str]:
    """An HTTP server on 127.0.0.1 whose every path answers with its own name."""

    class Echo(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            body = f"page {self.path}".encode()
            self.send_response(200)
            self.send_header("Content-Type", "text/plain")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, format: str, *args: object) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Echo)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


def test_the_ktor_client_by_its_plain_coordinates_runs_the_specifications_example(
    library_kernel: object, pages: str
) -> None:
    cell = execute(
        library_kernel,
        f'@file:DependsOn("{KTOR_CLIENT}")\n'
        "import io.ktor.client.*\nimport io.ktor.client.engine.cio.*\nimport io.ktor.client.request.*\n"
        "import io.ktor.client.statement.*\n"
        "val client = HttpClient(CIO)\n"
        f'val urls = listOf("{pages}/a", "{pages}/b")\n'
        "val pages = await { urls.map { async { client.get(it).bodyAsText() } }.awaitAll() }\n"
        "pages",
    )
    assert cell.status == "ok", cell.error
    assert cell.result == "[page /a, page /b]"
    # the host's kotlinx-coroutines is the one ktor was built against: not even left out with a warning
    assert "kotlinx-coroutines" not in cell.stderr + cell.stdout, cell.stderr


def test_kotlinx_datetime_by_its_plain_coordinates(library_kernel: object) -> None:
    cell = execute(
        library_kernel,
        f'@file:DependsOn("{DATETIME}")\nimport kotlinx.datetime.*\n'
        'LocalDate(2026, 12, 3).plus(1, DateTimeUnit.MONTH).toString() + " " + LocalDate(2026, 12, 3).dayOfWeek',
    )
    assert cell.status == "ok", cell.error
    assert cell.result == "2027-01-03 THURSDAY"


def test_use_loads_libraries_by_name_with_their_default_imports(library_kernel: object) -> None:
    version = DATETIME.rsplit(":", 1)[1]
    cell = execute(
        library_kernel, f"%use datetime({version})\nLocalDate(2026, 12, 3).plus(1, DateTimeUnit.DAY).toString()"
    )
    assert cell.status == "ok", cell.error
    assert cell.result == "2026-12-04"
    later = execute(library_kernel, "LocalDate(2026, 1, 31).dayOfWeek.toString()")
    assert later.result == "SATURDAY", later.error


def test_use_of_an_unknown_library_is_a_located_error_and_the_others_of_its_line_load(library_kernel: object) -> None:
    version = LETS_PLOT.rsplit(":", 1)[1]
    cell = execute(library_kernel, f"%use lets-plot({version}), nosuchlib\nval lost = 1")
    assert cell.status == "error"
    assert cell.error is not None
    number = cell.content["execution_count"]
    traceback = cell.error["traceback"]
    assert traceback[:4] == [
        f"snippet{number}.kts:1:24: error: `%use nosuchlib`: unknown library 'nosuchlib'; this kernel's %use knows "
        "dataframe, lets-plot, kandy, serialization, datetime, ktor-client, coroutines",
        f"  | %use lets-plot({version}), <error>nosuchlib</error>",
        'hint: for another library write @file:DependsOn("group:artifact:version") with the Maven coordinates of its '
        "artifact",
        "",
    ]
    assert traceback[-2:] == [
        f"snippet{number}.kts:1:6: warning: `%use lets-plot` loaded for the next cells; nothing else of this cell ran",
        f"  | %use <error>lets-plot({version})</error>, nosuchlib",
    ]
    # between them only the resolution's notes (which jars the host or the session provide), all warnings
    assert [line for line in traceback[4:-2] if line.startswith("snippet")] == [
        line for line in traceback[4:-2] if line.startswith(f"snippet{number}.kts:1:6: warning: ")
    ]
    later = execute(library_kernel, "geomPoint(size = 2.0)::class.simpleName")
    assert later.result == "geomPoint", later.error
    assert execute(library_kernel, "lost").status == "error", "nothing else of the failed cell ran"
