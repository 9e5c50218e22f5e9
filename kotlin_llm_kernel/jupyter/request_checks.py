"""What is wrong with a shell request's content, if anything, so that it gets an error reply naming the field.

ipykernel reads the fields of a request without checking them: a missing or mistyped one raised inside its handler,
and the request got no reply at all. The kernel checks them here first (:meth:`.kernel.KotlinKernel._checked`, put
before the handler of every :data:`CHECKED_REQUESTS` type).
"""

from __future__ import annotations

from typing import Any

#: Requests whose content has a ``code``.
CODE_REQUESTS = frozenset({"execute_request", "complete_request", "inspect_request", "is_complete_request"})
#: The fields of a history_request that ipykernel passes on (``do_history``'s parameters); others are dropped.
HISTORY_FIELDS = frozenset({"hist_access_type", "output", "raw", "session", "start", "stop", "n", "pattern", "unique"})
_HISTORY_REQUIRED: dict[str, type] = {"hist_access_type": str, "output": bool, "raw": bool}
#: The requests whose content is checked before ipykernel handles them (:meth:`.kernel.KotlinKernel._checking`).
CHECKED_REQUESTS = CODE_REQUESTS | {"history_request", "comm_info_request"}
_CURSOR_REQUESTS = {"complete_request", "inspect_request"}
#: Optional fields of an execute_request and the JSON type each must have (null stands for absent).
_EXECUTE_FIELDS: dict[str, type] = {
    "silent": bool,
    "store_history": bool,
    "allow_stdin": bool,
    "stop_on_error": bool,
    "user_expressions": dict,
}


def json_type(value: Any) -> str:
    """The JSON name of a decoded value's type, as a client wrote it."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int | float):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "an array"
    return "an object"


def request_problem(msg_type: str, content: Any, metadata: Any) -> str | None:
    """What is wrong with a request's ``content`` (and, for an execute_request, its message ``metadata``), or None.

    ``cursor_pos`` may be null or any integer: :func:`cursor_in` places it inside ``code``.
    """
    if msg_type not in CHECKED_REQUESTS:
        return None
    if not isinstance(content, dict):
        return f"the content must be an object, not {json_type(content)}"
    if msg_type == "history_request":
        return _history_problem(content)
    if msg_type == "comm_info_request":
        target = content.get("target_name")
        return (
            None
            if target is None or isinstance(target, str)
            else f"`target_name` must be a string, not {json_type(target)}"
        )
    if "code" not in content:
        return "`code` is missing"
    code = content["code"]
    if not isinstance(code, str):
        return f"`code` must be a string, not {json_type(code)}"
    if msg_type in _CURSOR_REQUESTS:
        if "cursor_pos" not in content:
            return "`cursor_pos` is missing"
        cursor = content["cursor_pos"]
        if cursor is not None and (isinstance(cursor, bool) or not isinstance(cursor, int)):
            return f"`cursor_pos` must be an integer, not {json_type(cursor)}"
    if msg_type == "execute_request":
        for name, kind in _EXECUTE_FIELDS.items():
            value = content.get(name)
            if value is not None and not isinstance(value, kind):
                expected = "a boolean" if kind is bool else "an object"
                return f"`{name}` must be {expected}, not {json_type(value)}"
        if not isinstance(metadata, dict):
            return f"the message's metadata must be an object, not {json_type(metadata)}"
    return None


def _history_problem(content: dict[str, Any]) -> str | None:
    for name, kind in _HISTORY_REQUIRED.items():
        if name not in content:
            return f"`{name}` is missing"
        if not isinstance(content[name], kind):
            expected = "a boolean" if kind is bool else "a string"
            return f"`{name}` must be {expected}, not {json_type(content[name])}"
    return None


def cursor_in(code: str, cursor_pos: int | None) -> int:
    """A request's ``cursor_pos`` inside ``code`` (0 to its length, in code points): null is the end of the code,
    and a position outside it (a client counting UTF-16 units, or a stale one) is the nearest end."""
    return len(code) if cursor_pos is None else min(max(cursor_pos, 0), len(code))
