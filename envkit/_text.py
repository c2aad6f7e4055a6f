"""Small wording helpers shared by renderers, rules and commands (stdlib only)."""

from __future__ import annotations


def plural(n: int, word: str, many: str | None = None) -> str:
    """`1 file` / `2 files`: the count and the word, plural (`many`, else `word + "s"`) unless n == 1."""
    return f"{n} {word}" if n == 1 else f"{n} {many or word + 's'}"
