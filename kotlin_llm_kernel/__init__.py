"""kotlin-llm: a Jupyter kernel for Kotlin whose errors are written for LLM agents, and a Python API for the same::

    from kotlin_llm_kernel import ScriptSession
    with ScriptSession(greeting="Hello") as session:
        result = session.execute('"$greeting, Kotlin"')

The API is :mod:`kotlin_llm_kernel.api`; the Jupyter kernel is ``python -m kotlin_llm_kernel``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"

__all__ = [
    "ClearOutput",
    "Diagnostic",
    "Display",
    "Error",
    "ScriptSession",
    "SessionOptions",
    "Value",
    "__version__",
    "start_jvm",
]

if TYPE_CHECKING:
    from .api import ScriptSession, SessionOptions, start_jvm
    from .session.results import ClearOutput, Diagnostic, Display, Error, Value


def __getattr__(name: str) -> Any:
    # Lazy, so `python -m kotlin_llm_kernel` and the build hook do not import JPype before they need it.
    if name in ("ScriptSession", "SessionOptions", "start_jvm"):
        from . import api

        return getattr(api, name)
    if name in ("Value", "Error", "Diagnostic", "Display", "ClearOutput"):
        from .session import results

        return getattr(results, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
