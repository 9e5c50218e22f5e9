"""The names (``ename``) the kernel and the Python API give their errors, each with what it means.

README.md ("Error names") shows the same table; a unit test keeps the two alike. Every other ``ename`` is the class of
the exception the cell's code threw, as its report names it (``java.lang.IllegalStateException``, a class the cell
declared by its own name). ``CompilationError`` and ``EvaluationError`` are given by the engine (``HostOutcome``),
the others by this package.
"""

from __future__ import annotations

COMPILATION_ERROR = "CompilationError"
EVALUATION_ERROR = "EvaluationError"
SNIPPET_NOT_STOPPED = "SnippetNotStopped"
SESSION_BUSY = "SessionBusy"
TIME_LIMIT_EXCEEDED = "TimeLimitExceeded"
KERNEL_STARTUP_ERROR = "KernelStartupError"
KERNEL_ERROR = "KernelError"
KERNEL_EXIT = "KernelExit"
INVALID_REQUEST = "InvalidRequest"

#: Each name and its meaning in one line, as README.md's table has them.
CATALOGUE: dict[str, str] = {
    COMPILATION_ERROR: "the cell did not compile; `evalue` is the report's first line, located in the cell",
    EVALUATION_ERROR: "the engine could not run the compiled cell (no exception of the cell's code)",
    SNIPPET_NOT_STOPPED: "the cell did not stop when interrupted and runs on; later cells get `SessionBusy`",
    SESSION_BUSY: "the cell did not run: an earlier cell that did not stop when interrupted still runs",
    TIME_LIMIT_EXCEEDED: "the cell ran longer than `cell_time_limit` and was interrupted; the interrupt's report below",
    KERNEL_STARTUP_ERROR: "the cell did not run: the Kotlin session could not be started",
    KERNEL_ERROR: "the kernel failed to run the cell: a fault of the kernel, not of the cell's code",
    KERNEL_EXIT: "library code called `System.exit`: the kernel process ends now and the session's state is lost",
    INVALID_REQUEST: "a field of the request is missing or mistyped: nothing ran",
}

#: Not a name of the kernel's own but the short form of the engine's ``java.lang.InterruptedException`` for a cell
#: cancelled while it compiled, given by the kernel when the cell ends before its compilation does (as it always
#: was). Both mean the same; :attr:`.results.Error.not_run` is the fact to decide on, not either name.
NOT_RUN = "InterruptedException"
