"""The Python API for agents that do not use Jupyter::

    from kotlin_llm_kernel import ScriptSession, Value

    with ScriptSession(greeting="Hello") as session:
        session.execute('val names = mutableListOf("Alice")')
        result = session.execute('"$greeting ${names.joinToString()}"')
        if isinstance(result, Value):
            print(result.value)          # Hello Alice
        else:
            print(result.message)        # the engine's report, written for an LLM

Keyword arguments are the provided properties (``str``, ``int`` → Long, ``float`` → Double, ``bool``, ``list``,
``dict``, ``None``); a property named like a parameter of the constructor goes in the positional dict.
The JVM starts on first use, once per process; call :func:`start_jvm` first to choose its classpath or options.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping
from dataclasses import dataclass, field
from types import TracebackType
from typing import Any

from .engine import EngineSession, SessionSettings, with_output
from .jvm import DEFAULT_JVM_OPTIONS, JvmSettings, StartedJvm
from .jvm import start_jvm as _start_jvm
from .results import Error, Outcome, Value

__all__ = ["Error", "ScriptSession", "SessionOptions", "Value", "start_jvm"]


def start_jvm(
    classpath: list[str] | tuple[str, ...] = (),
    jvm_options: list[str] | tuple[str, ...] = (),
    default_jvm_options: list[str] | tuple[str, ...] = DEFAULT_JVM_OPTIONS,
    java_home: str | None = None,
) -> StartedJvm:
    """Starts the JVM with extra ``classpath`` entries and options (no effect once it runs)."""
    return _start_jvm(JvmSettings(tuple(classpath), tuple(jvm_options), tuple(default_jvm_options), java_home))


@dataclass(frozen=True)
class SessionOptions:
    """Settings of one session: Maven resolution, and whether printed output is echoed to ``sys.stdout``/``stderr``
    while a snippet runs (it is always collected in the result's ``stdout``/``stderr``)."""

    local_repository: str | None = None
    repositories: tuple[str, ...] = field(default_factory=tuple)
    resolution_timeout: float | None = None
    echo: bool = True


class ScriptSession:
    """A stateful Kotlin session: each :meth:`execute` sees the declarations of the snippets before it."""

    def __init__(
        self, properties: Mapping[str, Any] | None = None, /, *, options: SessionOptions | None = None, **named: Any
    ) -> None:
        start_jvm()
        self._options = options or SessionOptions()
        settings = SessionSettings(
            local_repository=self._options.local_repository,
            repositories=tuple(self._options.repositories),
            resolution_timeout=self._options.resolution_timeout,
            capture_output=True,
        )
        self._engine = EngineSession({**(properties or {}), **named}, settings)

    @property
    def last_snippet_number(self) -> int:
        return self._engine.last_snippet_number

    def execute(self, code: str) -> Value | Error:
        """Runs ``code`` as the next snippet and returns its :class:`Value` or :class:`Error`.

        Ctrl-C (KeyboardInterrupt) cancels the snippet as the engine's cancellation does, then is re-raised.
        """
        collected: dict[str, list[str]] = {"stdout": [], "stderr": []}

        def on_output(stream: str, text: str) -> None:
            collected.setdefault(stream, []).append(text)
            if self._options.echo:
                target = sys.stderr if stream == "stderr" else sys.stdout
                target.write(text)
                target.flush()

        execution = self._engine.submit(code)
        try:
            outcome: Outcome = self._engine.run(execution, on_output)
        except KeyboardInterrupt:
            execution.cancel()
            self._engine.run(execution, on_output)
            raise
        return with_output(outcome, "".join(collected["stdout"]), "".join(collected["stderr"]))

    def close(self) -> None:
        """Cancels the coroutines launched by the snippets and releases the compiler."""
        self._engine.close()

    def __enter__(self) -> ScriptSession:
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, traceback: TracebackType | None
    ) -> None:
        self.close()
