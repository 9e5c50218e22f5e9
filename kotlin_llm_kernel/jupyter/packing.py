"""The Jupyter session's message packer, made to pack lone surrogates too (what they are:
:mod:`kotlin_llm_kernel.session.surrogates`)."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from jupyter_client.jsonutil import json_default


def packing_lone_surrogates(pack: Callable[[Any], bytes]) -> Callable[[Any], bytes]:
    """A Jupyter session's message packer that also packs lone surrogates, which ``pack`` (UTF-8 JSON) cannot.

    A client may send one in a request's header (its ``msg_id``), which every reply and output repeats as their
    parent header: such a message is packed as JSON with each non-ASCII char escaped (``"\\ud800"`` is valid JSON),
    so that the client reads back the msg_id it sent.
    """

    def packed(message: Any) -> bytes:
        try:
            return pack(message)
        except UnicodeEncodeError:
            return json.dumps(message, default=json_default, ensure_ascii=True, allow_nan=False).encode("ascii")

    return packed
