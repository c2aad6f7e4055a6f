"""Where a TOML key is written: the 1-based line of each table, key and array item of a manifest.

tomllib parses without positions; the manifests' errors and staleness reasons name `file:line`, so
this scan maps key paths (`("tool", "pixi", "dependencies", "numpy")`, an array item as
`("project", "dependencies", 2)`) to the line they start on.  It reads the shapes manifests are
written in (headers, `key = value`, dotted keys, arrays of one item per line, inline tables); a key
it cannot place is looked up by its nearest written parent (`line_of`).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

_BARE = r"[A-Za-z0-9_-]+"
_QUOTED = r'"(?:[^"\\]|\\.)*"|\'[^\']*\''
_KEY = rf"(?:{_BARE}|{_QUOTED})"
_DOTTED = rf"{_KEY}(?:\s*\.\s*{_KEY})*"
_HEADER = re.compile(rf"^\[(\[)?\s*({_DOTTED})\s*\]\]?\s*(?:#.*)?$")
_ASSIGN = re.compile(rf"^({_DOTTED})\s*=\s*(.*)$")
_PART = re.compile(_KEY)
_STRING = re.compile(_QUOTED)

Path = tuple[str | int, ...]


def _split(dotted: str) -> tuple[str, ...]:
    return tuple(s[1:-1] if s[:1] in "\"'" else s for s in _PART.findall(dotted))


def _depth(value: str) -> int:
    """Bracket depth a value leaves open, strings left out."""
    bare = _STRING.sub("", value.split("#", 1)[0] if "#" in _STRING.sub("", value) else value)
    return bare.count("[") + bare.count("{") - bare.count("]") - bare.count("}")


def key_lines(text: str) -> dict[Path, int]:
    """Key path -> line, for every table, key and array item `text` writes (first writing wins)."""
    out: dict[Path, int] = {}
    table: tuple[str, ...] = ()
    array: Path | None = None
    depth = items = 0
    in_string = False
    for n, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        if in_string:
            in_string = line.count('"""') % 2 == 0
            continue
        if not line or line.startswith("#"):
            continue
        if array is not None:
            if line[:1] in "\"'{" and depth == 1:
                out.setdefault((*array, items), n)
                items += 1
            depth += _depth(line)
            if depth <= 0:
                array = None
            continue
        m = _HEADER.match(line)
        if m:
            table = _split(m.group(2))
            out.setdefault(table, n)
            continue
        m = _ASSIGN.match(line)
        if not m:
            continue
        path = (*table, *_split(m.group(1)))
        out.setdefault(path, n)
        value = m.group(2)
        if value.count('"""') == 1:
            in_string = True
        elif value.startswith("["):
            for i, _ in enumerate(_STRING.finditer(value.split("]", 1)[0])):
                out.setdefault((*path, i), n)
            depth = _depth(value)
            if depth > 0:
                array, items = path, len(_STRING.findall(value))
    return out


def line_of(lines: dict[Path, int], path: Sequence[str | int]) -> int | None:
    """The line of `path`, else of its nearest written parent; None when no part is written."""
    p = tuple(path)
    while p:
        if p in lines:
            return lines[p]
        p = p[:-1]
    return None


def dotted(path: Sequence[str | int]) -> str:
    """A key path as TOML writes it (`tool.pixi.dependencies.numpy`, an item `dependencies[2]`)."""
    out = ""
    for part in path:
        if isinstance(part, int):
            out += f"[{part}]"
        else:
            word = part if re.fullmatch(_BARE, part) else f'"{part}"'
            out += f".{word}" if out else word
    return out


__all__ = ["key_lines", "line_of", "dotted"]
