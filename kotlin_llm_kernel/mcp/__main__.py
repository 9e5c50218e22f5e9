"""``python -m kotlin_llm_kernel.mcp`` (also the ``kotlin-llm-mcp`` command): serves the tools over stdio."""

from __future__ import annotations

import sys


def main(argv: list[str] | None = None) -> None:
    args = sys.argv[1:] if argv is None else argv
    if args:  # no options yet: an unknown one is said rather than ignored
        sys.exit(f"kotlin-llm-mcp: takes no arguments (got {' '.join(args)}); it serves MCP over stdin and stdout")
    try:
        from .server import build_server
    except ModuleNotFoundError as error:
        if error.name is None or error.name.split(".")[0] != "mcp":
            raise
        sys.exit("kotlin-llm-mcp: the MCP SDK is not installed: pip install 'kotlin-llm-kernel[mcp]'")
    build_server().run("stdio")


if __name__ == "__main__":
    main()
