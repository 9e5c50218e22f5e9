"""``python -m kotlin_llm_kernel.mcp`` (also the ``kotlin-llm-mcp`` command): serves the tools over stdio, or over
streamable HTTP on 127.0.0.1 with ``--http PORT``; with ``--sandbox``, from inside a sandbox (:mod:`.sandboxed`)."""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass, field
from pathlib import Path

from ..api import SessionOptions
from ..jvm.jvm import exit_now
from ..sandbox.layout import NETWORKS, SandboxOptions
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
    #: Run inside a sandbox (``--sandbox``); None: not sandboxed.
    sandbox: SandboxOptions | None = None
    #: Prepare sessions ahead: the session at the server's start, a spare for ``restart`` (off: ``--no-spare``).
    spare: bool = True


def parse(argv: list[str]) -> ServerSettings:
    """The server's settings from the command line, named as the kernel's settings are."""
    parser = argparse.ArgumentParser(
        prog="kotlin-llm-mcp",
        description="An MCP server running Kotlin in one session (started with the server, in the background), over "
        "stdio by default.",
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
    parser.add_argument(
        "--no-spare",
        action="store_true",
        help="prepare no session ahead: the session starts on the first call, and after restart() on the next call "
        "(default: it starts with the server, and a spare session waits for restart(); an idle spare costs memory)",
    )
    parser.add_argument("--http", type=int, metavar="PORT", help=f"serve streamable HTTP on {LOOPBACK}:PORT/mcp")
    parser.add_argument(
        "--sandbox",
        action="store_true",
        help="run the session in a sandbox (bubblewrap): system read-only, only the workspace writable, an empty "
        "home, no host processes or secrets, the network as --network says",
    )
    parser.add_argument(
        "--workspace", metavar="DIR", help="with --sandbox: the writable working directory (default: a fresh one)"
    )
    parser.add_argument(
        "--network",
        choices=NETWORKS,
        default=None,
        help="with --sandbox: maven (default; only the session's Maven repositories, through a proxy), none, or all "
        "(the host's network: everything open)",
    )
    args = parser.parse_args(argv)
    if args.max_output_chars < 1:
        parser.error("--max-output-chars must be 1 or more")
    sandbox = None
    if args.sandbox:
        if args.http is not None:
            parser.error("--http is not available with --sandbox: use stdio")
        sandbox = SandboxOptions(
            workspace=Path(args.workspace) if args.workspace else None,
            network=args.network or "maven",
            repositories=tuple(args.repository),
        )
    elif args.workspace is not None or args.network is not None:
        parser.error("--workspace and --network apply to --sandbox only")
    options = SessionOptions(
        local_repository=args.local_repository,
        repositories=tuple(args.repository),
        cell_time_limit=args.cell_time_limit,
        echo=False,  # the process's stdout may be the MCP channel; what a snippet prints is in its result
    )
    jvm = JvmSettings(max_heap=args.max_heap, jvm_options=tuple(args.jvm_option))
    return ServerSettings(options, jvm, args.max_output_chars, args.http, sandbox, spare=not args.no_spare)


def main(argv: list[str] | None = None) -> None:
    arguments = sys.argv[1:] if argv is None else argv
    settings = parse(arguments)
    if settings.sandbox is not None:
        from .sandboxed import main_sandboxed

        main_sandboxed(arguments, settings.sandbox)
    from .kotlin_session import KotlinSession, log_to_stderr

    # Started before the SDK is imported, whose import it overlaps; the server answers while it goes on.
    kotlin = KotlinSession(settings.options, settings.jvm, ahead=settings.spare)
    kotlin.start()
    try:
        from .server import build_server
    except ModuleNotFoundError as error:
        if error.name is None or error.name.split(".")[0] not in ("mcp", "mcp_types"):
            raise
        print("kotlin-llm-mcp: the MCP SDK is not installed: pip install 'kotlin-llm-kernel[mcp]'", file=sys.stderr)
        exit_now(1)
    server = build_server(kotlin, settings.text_limit)
    if settings.http_port is None:
        server.run("stdio")
    else:
        server.run("streamable-http", host=LOOPBACK, port=settings.http_port)
    kotlin.close()
    log_to_stderr("the server ends")
    # At once: a session still starting (a JVM thread inside JPype) must not race Python's finalization.
    exit_now(0)


if __name__ == "__main__":
    main()
