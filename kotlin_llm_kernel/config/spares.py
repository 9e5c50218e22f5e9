"""How many warm spares a kernel start keeps ready, and for how long: read by the kernel's start
(:mod:`kotlin_llm_kernel.spares`) from the ``KotlinKernel.spares*`` settings, whose defaults come from the
environment."""

from __future__ import annotations

import os
from dataclasses import dataclass

#: The number of spares kept for each kind of start when no setting says it (0 turns them off).
ENV_SPARES = "KOTLIN_LLM_SPARES"
#: The pool's directory when no setting says it (else ``kotlin-llm-spares`` in the Jupyter runtime directory).
ENV_SPARES_DIR = "KOTLIN_LLM_SPARES_DIR"


@dataclass(frozen=True)
class SpareSettings:
    #: Spares kept ready for each kind of start (argv, environment, working directory); 0: none.
    size: int = 1
    #: Seconds an unclaimed spare waits before it ends itself.
    idle_timeout: float = 600.0
    #: MB that all of the pool's spares may take together; no spare is started past it.
    memory_ceiling: int = 2048
    #: Seconds after a start before the next spare starts (the new kernel's first cells go first).
    refill_delay: float = 5.0
    #: The pool's directory; empty: :data:`ENV_SPARES_DIR`, else ``kotlin-llm-spares`` in the Jupyter runtime dir.
    pool: str = ""


def default_size() -> int:
    """:data:`ENV_SPARES` as a number, else 1; a value that is no number is an error said in one line."""
    text = os.environ.get(ENV_SPARES, "").strip()
    if not text:
        return 1
    try:
        return max(0, int(text))
    except ValueError:
        raise ValueError(f"{ENV_SPARES}={text!r} is not a number of spares (0 turns them off)") from None


def default_pool() -> str:
    return os.environ.get(ENV_SPARES_DIR, "")
