"""Which cells are an ``exit``/``quit`` request."""

from __future__ import annotations

import pytest
from kotlin_llm_kernel.jupyter.console_exit import ask_exit_payload, exit_word


@pytest.mark.parametrize(
    ("code", "word"),
    [("exit", "exit"), ("quit", "quit"), ("exit()", "exit"), ("  quit()\n", "quit"), ("\nexit ( )", None)],
)
def test_exit_words(code: str, word: str | None) -> None:
    assert exit_word(code) == word


@pytest.mark.parametrize("code", ["exit(0)", "exitProcess(0)", "val exit = 1", "exit\nexit", "quit;", "EXIT", ""])
def test_other_code_is_no_exit(code: str) -> None:
    assert exit_word(code) is None


def test_payload_as_ipython_sends_it() -> None:
    assert ask_exit_payload() == {"source": "ask_exit", "keepkernel": False}
