"""papermill's parameter translator for Kotlin: what ``papermill -p n 5`` injects into a notebook on ``kotlin-llm``
(or on any kernel whose language is ``kotlin``). Only papermill imports this module (through
:mod:`.engine`, the entry point it loads); the kernel never does, so papermill stays optional."""

from __future__ import annotations

from collections.abc import Callable
from inspect import currentframe
from typing import Any

import yaml
from papermill.exceptions import PapermillException
from papermill.iorw import NoDatesSafeLoader
from papermill.models import Parameter
from papermill.translators import Translator, papermill_translators

from .kotlin_literals import KotlinParameterError, comment, kotlin_literal, kotlin_name
from .parameters_cell import declarations, declared_parameters

#: The names papermill looks the translator up by: the kernel's name first (so ``-k kotlin-llm`` on a notebook saved
#: with another language still gets Kotlin), then the notebook's language.
KERNEL_NAME = "kotlin-llm"
#: The Kubernetes kernelspec deploy/make-kernelspec.sh makes: its language is "python" (the tool's only choice for
#: our launcher), so papermill would pick the Python translator by language.
REMOTE_KERNEL_NAME = "kotlin_llm_k8s"
LANGUAGE = "kotlin"


class KotlinParameterException(PapermillException, KotlinParameterError):
    """A parameter without a Kotlin declaration, as papermill's own error, so its CLI ends with the message."""


class KotlinTranslator(Translator):
    """``val n = 5L``, ``val name = "x"``, ``val flags = listOf(1L, 2L)``, ``val cfg = mapOf("a" to 1L)`` after a
    ``// Parameters`` comment; :func:`.kotlin_literals.kotlin_literal` says how each type is written. A parameter
    the notebook's parameters cell declares gets that declaration's type (``val n = 10`` → ``val n = 5``; a str for
    ``val flags = listOf(0)`` read as YAML → ``listOf(1, 2)``): see :func:`.parameters_cell.declarations`."""

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
        declared = declared_parameters(_parameters_cell())
        return _translated(lambda: declarations(parameters, comment, declared, _read_yaml))

    @classmethod
    def inspect(cls, parameters_cell: Any) -> list[Parameter]:
        """The parameters the notebook's ``parameters`` cell declares, for ``papermill --help-notebook`` and the
        "Passed unknown parameter" warnings."""
        found = declared_parameters(_source(parameters_cell))
        return [Parameter(d.name, d.type, d.default, d.help) for d in found]


def _parameters_cell() -> str:
    """The source of the ``parameters`` cell of the notebook papermill is injecting parameters into ("" when there
    is none, or when papermill's ``translate_parameters`` was called on its own). ``translate_parameters(kernel_name,
    language, parameters, comment)`` is given no notebook, and papermill has no hook that is; its one caller,
    ``parameterize_notebook(nb, parameters, …)`` (papermill's CLI, ``execute_notebook`` and direct calls alike), has
    it as its first argument, unchanged until the translated cell is inserted, so it is read from that call."""
    from papermill.parameterize import parameterize_notebook
    from papermill.utils import find_first_tagged_cell_index

    frame = currentframe()
    while frame is not None and frame.f_code is not parameterize_notebook.__code__:
        frame = frame.f_back
    nb = frame.f_locals.get("nb") if frame is not None else None
    if nb is None:
        return ""
    index = find_first_tagged_cell_index(nb, "parameters")
    return _source(nb.cells[index]) if index >= 0 else ""


def _source(cell: Any) -> str:
    source = cell["source"]
    return "".join(source) if isinstance(source, list) else str(source)


def _read_yaml(text: str) -> object:
    """``text`` as papermill reads ``-y`` (dates stay strings); a ValueError naming the problem if it is no YAML."""
    try:
        return yaml.load(text, Loader=NoDatesSafeLoader)
    except yaml.YAMLError as error:
        raise ValueError(getattr(error, "problem", None) or str(error)) from None


def _translated(make: Callable[[], str]) -> str:
    try:
        return make()
    except KotlinParameterError as error:
        raise KotlinParameterException(str(error)) from None


papermill_translators.register(KERNEL_NAME, KotlinTranslator)
papermill_translators.register(REMOTE_KERNEL_NAME, KotlinTranslator)
papermill_translators.register(LANGUAGE, KotlinTranslator)
