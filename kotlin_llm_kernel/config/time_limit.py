"""The time limit per cell (setting ``cell_time_limit``, variable ``KERNEL_CELL_TIME_LIMIT``): reading it.

What counts and what a cell past it gets: :mod:`.time_limit_error`.
"""

from __future__ import annotations

import math

#: Set per kernel by Jupyter gateways from the start request (Enterprise Gateway and Kernel Gateway pass the client's
#: ``KERNEL_`` variables through): the default of the setting, which wins over it when given.
ENV_CELL_TIME_LIMIT = "KERNEL_CELL_TIME_LIMIT"
SETTING = "cell_time_limit"

_EXPECTED = "a number of seconds, 0 or more (e.g. 30 or 2.5; 0: no limit)"


class TimeLimitError(ValueError):
    """A time limit that cannot be used."""


def checked_limit(value: object, source: str = SETTING, given: str | None = None) -> float:
    """``value`` as seconds of a time limit (0: none); :class:`TimeLimitError` naming ``source`` and the value as
    ``given`` (default: its repr) otherwise."""
    shown = repr(value) if given is None else repr(given)
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise TimeLimitError(f"{source}: {shown} is not a number; give {_EXPECTED}")
    if math.isnan(value) or math.isinf(value):
        raise TimeLimitError(f"{source}: {shown} is not a finite number; give {_EXPECTED}")
    if value < 0:
        raise TimeLimitError(f"{source}: {shown} is negative; give {_EXPECTED}")
    return float(value)


def parse_limit(text: str, source: str = ENV_CELL_TIME_LIMIT) -> float:
    """The seconds a variable such as ``KERNEL_CELL_TIME_LIMIT`` gives (empty: no limit)."""
    if not text.strip():
        return 0.0
    try:
        value = float(text)
    except ValueError:
        raise TimeLimitError(f"{source}: {text!r} is not a number; give {_EXPECTED}") from None
    return checked_limit(value, source, given=text)


def describe(limit: float) -> str:
    """``5 s``, ``2.5 s``, ``0.25 s``."""
    return f"{limit:g} s"
