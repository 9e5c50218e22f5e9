"""papermill's parameter translator for Kotlin: what ``papermill -p n 5`` injects into a notebook on ``kotlin-llm``
(or on any kernel whose language is ``kotlin``). Only papermill imports this module (through
:mod:`.papermill_engine`, the entry point it loads); the kernel never does, so papermill stays optional."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from papermill.exceptions import PapermillException
from papermill.models import Parameter
from papermill.translators import Translator, papermill_translators

from .kotlin_literals import (
    KotlinParameterError,
    comment,
    declarations,
    declared_parameters,
    kotlin_literal,
    kotlin_name,
)

#: The names papermill looks the translator up by: the kernel's name first (so ``-k kotlin-llm`` on a notebook saved
#: with another language still gets Kotlin), then the notebook's language.
KERNEL_NAME = "kotlin-llm"
LANGUAGE = "kotlin"


class KotlinParameterException(PapermillException, KotlinParameterError):
    """A parameter without a Kotlin declaration, as papermill's own error, so its CLI ends with the message."""


class KotlinTranslator(Translator):
    """``val n = 5L``, ``val name = "x"``, ``val flags = listOf(1L, 2L)``, ``val cfg = mapOf("a" to 1L)`` after a
    ``// Parameters`` comment; :func:`.kotlin_literals.kotlin_literal` says how each type is written."""

    @classmethod
    def translate(cls, val: Any) -> str:
        return _translated(lambda: kotlin_literal(val).code)

    # The base class's translate dispatches to these by type; each is the whole translation here.
    translate_none = translate_str = translate_bool = translate_int = translate_float = translate
    translate_list = translate_dict = translate_escaped_str = translate

    @classmethod
    def comment(cls, cmt_str: str) -> str:
        return comment(cmt_str)

    @classmethod
    def assign(cls, name: str, str_val: str) -> str:
        return f"val {_translated(lambda: kotlin_name(name))} = {str_val}"

    @classmethod
    def codify(cls, parameters: dict[str, Any], comment: str = "Parameters") -> str:
        return _translated(lambda: declarations(parameters, comment))

    @classmethod
    def inspect(cls, parameters_cell: Any) -> list[Parameter]:
        """The parameters the notebook's ``parameters`` cell declares, for ``papermill --help-notebook`` and the
        "Passed unknown parameter" warnings."""
        return [Parameter(*declared) for declared in declared_parameters(parameters_cell["source"])]


def _translated(make: Callable[[], str]) -> str:
    try:
        return make()
    except KotlinParameterError as error:
        raise KotlinParameterException(str(error)) from None


papermill_translators.register(KERNEL_NAME, KotlinTranslator)
papermill_translators.register(LANGUAGE, KotlinTranslator)
