"""``python -m kotlin_llm_kernel [-f CONNECTION_FILE]`` runs the kernel; ``python -m kotlin_llm_kernel install``
installs its kernelspec; ``python -m kotlin_llm_kernel pool [list | stop]`` shows or stops the warm spares.

A start is served by a warm spare when one is ready (:mod:`.spares`), else it starts the kernel here."""

from __future__ import annotations

import sys


def main(argv: list[str] | None = None) -> None:
    args = sys.argv[1:] if argv is None else argv
    if args and args[0] == "install":
        from .install import main as install

        install(args[1:])
        return
    if args and args[0] == "pool":
        from .spares.command import main as pool

        pool(args[1:])
        return
    from .jvm.malloc_arenas import limit_arenas

    limit_arenas()  # first: the threads started from here on share the arenas
    from traitlets import TraitError

    from .config.kernel_config import load
    from .session import early

    try:
        loaded = load(args)
    except TraitError as error:  # a setting that cannot be used: said in one line, and nothing starts
        sys.exit(f"kotlin-llm kernel: not started: {error}")
    from .spares.spare import run_as_spare, spare_id

    spare = spare_id()
    if spare is not None:
        run_as_spare(loaded, spare)  # ends the process
    from .spares.claim import serve_from_spare

    served = serve_from_spare(args, loaded.spares)  # a warm spare serves this start, if one is ready
    if served is not None:
        sys.exit(served)
    if early.enabled():
        early.begin(loaded.request)  # the JVM and the compiler start while ipykernel is imported and set up
    from .jupyter.app import launch
    from .jvm.jvm import exit_now

    launch(loaded)
    exit_now(0)


if __name__ == "__main__":
    main()
