"""The hook that makes papermill know Kotlin without code in the user's process. papermill has no entry-point group
for parameter translators, but it loads its ``papermill.engine`` group whenever it is imported (its CLI and its
Python API alike, with or without ``--engine``); this package's entry point there names :class:`KotlinLLMEngine`,
and loading it registers :class:`.parameters.KotlinTranslator` for the kernel ``kotlin-llm`` and the
language ``kotlin``."""

from __future__ import annotations

from typing import Any


class KotlinLLMEngine:
    """papermill's own nbclient engine under the name ``kotlin-llm`` (``--engine kotlin-llm`` runs exactly as the
    default does). It reaches papermill only when called: this class must exist before anything here imports
    papermill, which loads this entry point while it is itself being imported."""

    @classmethod
    def execute_notebook(cls, nb: Any, kernel_name: str, **kwargs: Any) -> Any:
        return _nbclient_engine().execute_notebook(nb, kernel_name, **kwargs)

    @classmethod
    def nb_kernel_name(cls, nb: Any, name: str | None = None) -> str:
        kernel: str = _nbclient_engine().nb_kernel_name(nb, name)
        return kernel

    @classmethod
    def nb_language(cls, nb: Any, language: str | None = None) -> str:
        found: str = _nbclient_engine().nb_language(nb, language)
        return found


def _nbclient_engine() -> Any:
    from papermill.engines import NBClientEngine

    return NBClientEngine


# Registers the translator; below the class, as importing papermill can load this entry point again (see above).
import kotlin_llm_kernel.papermill.parameters  # noqa: E402, F401
