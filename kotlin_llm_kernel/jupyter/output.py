"""Coalescing a cell's output into few stream messages, and cutting it visibly past a limit."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass


def coalesce(chunks: Iterable[tuple[str, str]]) -> list[tuple[str, str]]:
    """Adjacent chunks of the same stream joined, order kept."""
    merged: list[tuple[str, str]] = []
    for stream, text in chunks:
        if not text:
            continue
        if merged and merged[-1][0] == stream:
            merged[-1] = (stream, merged[-1][1] + text)
        else:
            merged.append((stream, text))
    return merged


@dataclass
class OutputBudget:
    """At most ``limit`` characters of a cell's output are shown; the rest is counted and reported."""

    limit: int
    shown: int = 0
    cut_chars: int = 0
    cut_lines: int = 0

    def admit(self, text: str) -> str:
        """The part of ``text`` that is still within the limit."""
        room = max(self.limit - self.shown, 0) if self.limit > 0 else len(text)
        if len(text) <= room:
            self.shown += len(text)
            return text
        kept, dropped = text[:room], text[room:]
        self.shown += len(kept)
        self.cut_chars += len(dropped)
        self.cut_lines += dropped.count("\n")
        return kept

    def notice(self) -> str | None:
        """The line telling what was cut, or None when nothing was."""
        if not self.cut_chars:
            return None
        return (
            f"\n[kotlin-llm] output cut: the last {self.cut_chars:,} characters ({self.cut_lines:,} lines) of this "
            f"cell were not shown, past the limit of {self.limit:,} characters (KotlinKernel.max_output_chars).\n"
        )
