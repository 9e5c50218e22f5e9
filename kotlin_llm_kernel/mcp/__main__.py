"""``python -m kotlin_llm_kernel.mcp`` (also the ``kotlin-llm-mcp`` command): serves the tools over stdio, or over
streamable HTTP on 127.0.0.1 with ``--http PORT``."""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass, field

from ..api import SessionOptions
from .bounded import TEXT_LIMIT
from .kotlin_session import JvmSettings

#: Where ``--http`` listens: this machine only, as the server runs any code it is sent.
LOOPBACK = "127.0.0.1"


@dataclass(frozen=True)
class ServerSettings:
    options: SessionOptions
    jvm: JvmSettings = field(default_factory=JvmSettings)
    text_limit: int = TEXT_LIMIT
    #: The port of streamable HTTP on 127.0.0.1; None: stdio.
    http_port: int | None = None


def parse(argv: list[str]) -> ServerSettings:
    """The server's settings from the command line, named as the kernel's settings are."""
    parser = argparse.ArgumentParser(
        prog="kotlin-llm-mcp",
        description="An MCP server running Kotlin in one session (started on the first call), over stdio by default.",
    )
    parser.add_argument(
        "--repository",
        action="append",
        default=[],
        metavar="URL",
        help="Maven repository used until a snippet declares one (repeatable); default Maven Central",
    )
    parser.add_argument("--local-repository", metavar="PATH", help="local Maven repository; default ~/.m2/repository")
    parser.add_argument(
        "--cell-time-limit", type=float, default=0.0, metavar="SECONDS", help="interrupt a run that takes longer"
    )
    parser.add_argument("--max-heap", default="", metavar="SIZE", help="the JVM's heap limit, e.g. 4g or 1536m")
    parser.add_argument(
        "--jvm-option",
        action="append",
        default=[],
        metavar="OPTION",
        help="an extra JVM option, as --jvm-option=-Xss4m (repeatable)",
    )
    parser.add_argument(
        "--max-output-chars",
        type=int,
        default=TEXT_LIMIT,
        metavar="N",
        help=f"characters of a value, stdout or stderr a result carries; the rest is in a file (default {TEXT_LIMIT})",
    )
    parser.add_argument("--http", type=int, metavar="PORT", help=f"serve streamable HTTP on {LOOPBACK}:PORT/mcp")
    args = parser.parse_args(argv)
    if args.max_output_chars < 1:
        parser.error("--max-output-chars must be 1 or more")
    options = SessionOptions(
        local_repository=args.local_repository,
        repositories=tuple(args.repository),
        cell_time_limit=args.cell_time_limit,
        echo=False,  # the process's stdout may be the MCP channel; what a snippet prints is in its result
    )
    jvm = JvmSettings(max_heap=args.max_heap, jvm_options=tuple(args.jvm_option))
    return ServerSettings(options, jvm, args.max_output_chars, args.http)


def main(argv: list[str] | None = None) -> None:
    settings = parse(sys.argv[1:] if argv is None else argv)
    try:
        from .server import build_server
    except ModuleNotFoundError as error:
        if error.name is None or error.name.split(".")[0] not in ("mcp", "mcp_types"):
            raise
        sys.exit("kotlin-llm-mcp: the MCP SDK is not installed: pip install 'kotlin-llm-kernel[mcp]'")
    from .kotlin_session import KotlinSession

    server = build_server(KotlinSession(settings.options, settings.jvm), settings.text_limit)
    if settings.http_port is None:
        server.run("stdio")
    else:
        server.run("streamable-http", host=LOOPBACK, port=settings.http_port)


if __name__ == "__main__":
    main()
