"""``python -m kotlin_llm_kernel.mcp`` (also the ``kotlin-llm-mcp`` command): serves the tools over stdio."""

from __future__ import annotations

import argparse
import sys

from ..api import SessionOptions


def parse(argv: list[str]) -> SessionOptions:
    """The session's settings from the command line, named as the kernel's settings are."""
    parser = argparse.ArgumentParser(
        prog="kotlin-llm-mcp", description="An MCP server over stdio running Kotlin in one session (started lazily)."
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
    args = parser.parse_args(argv)
    return SessionOptions(
        local_repository=args.local_repository,
        repositories=tuple(args.repository),
        cell_time_limit=args.cell_time_limit,
        echo=False,  # the process's stdout is the MCP channel; what a snippet prints is in its result
    )


def main(argv: list[str] | None = None) -> None:
    options = parse(sys.argv[1:] if argv is None else argv)
    try:
        from .server import build_server
    except ModuleNotFoundError as error:
        if error.name is None or error.name.split(".")[0] not in ("mcp", "mcp_types"):
            raise
        sys.exit("kotlin-llm-mcp: the MCP SDK is not installed: pip install 'kotlin-llm-kernel[mcp]'")
    from .kotlin_session import KotlinSession

    build_server(KotlinSession(options)).run("stdio")


if __name__ == "__main__":
    main()
