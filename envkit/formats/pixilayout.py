"""pixi.lock's top-level `packages:` list read without a YAML tree: the fast path of pixilock.

Most of a pixi.lock is that list, in one layout: each entry a `- conda: URL` or `- pypi: URL` line
followed by `key: value` lines and `- item` lines (a list under the key before them) at indent 2,
nothing deeper.  `read_entries` reads it with one regular expression per entry and keeps of each
entry only the keys the reader asks for, each value converted as the fast YAML reader converts it,
with its line; every other value is checked as that reader would check it, and dropped (licenses,
purls, sizes, timestamps, constrains: half the text).  Anything else raises Unsupported and the
whole document is read as YAML: the Locks are the same either way, lines and errors included
(tests/formats/test_formats_fastyaml.py proves it).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any, Literal

from envkit.formats import _fastyaml
from envkit.formats._fastyaml import Unsupported, is_not_text
from envkit.formats._yaml import YamlList, YamlMap

#: a converter of one raw scalar, given its line, to the value the fast YAML reader gives
ValueOf = Callable[[str, int], Any]

_NOT_TEXT_FIRST = frozenset("yYnNtTfFoO~<=+-.0123456789")  # a key starting otherwise is text
_ENTRY = re.compile(r"- (conda|pypi): ([^ \n][^\n]*)\n((?:  [^ \n][^\n]*\n)*)")
_BODY_LINE = re.compile(
    r"^  (?:([A-Za-z0-9_][A-Za-z0-9_.\-/]*):(?: ([^ \n][^\n]*))?|- ([^ \n][^\n]*))$", re.MULTILINE
)

# The lines of an entry body that are certainly in the fast YAML reader's subset, one match per key
# (C speed): `key: value`, or `key:` followed by `- value` items, at indent 2, where each key and
# value is one the reader takes without a doubt (a plain word that is text, an integer, a hex
# digest, '...' or "..." without escapes, [] or {}).  When the matches cover the whole body, only
# the kept values need reading; any other body is read line by line.
_WORDS = "yes|Yes|YES|no|No|NO|true|True|TRUE|false|False|FALSE|on|On|ON|off|Off|OFF|null|Null|NULL"
_SAFE_KEY = rf"(?!(?:{_WORDS}):)[A-Za-z_][A-Za-z0-9_.\-/]*+"
# text: starts with a letter or _, is not one of YAML 1.1's bool/null words, and has no tab, no
# `: `, no ` #`, no two spaces and no trailing `:` or space
_SAFE_WORD = rf"(?!(?:{_WORDS})\n)[A-Za-z_][^\n: \t]*+(?:[: ][^\n:# \t][^\n: \t]*+)*+"
_SAFE_VALUE = (
    rf"(?:{_SAFE_WORD}|0|[1-9][0-9]*+|[0-9a-f]*[ac-f][0-9a-f]*+|\[\]|\{{\}}|'[^'\n]*+'"
    rf"|\"[^\"\\\t\n]*+\")"
)
_SAFE_KEY_LINES = re.compile(
    rf"^  ({_SAFE_KEY}):(?: ({_SAFE_VALUE})\n|\n((?:  - {_SAFE_VALUE}\n)*+))", re.MULTILINE
).findall


def read_entries(text: str, start: int, kept: frozenset[str]) -> YamlList:
    """The entries of the `packages:` list whose key line starts at offset `start` of `text` (which
    ends in a newline), as the YAML readers would give them but each holding only the `kept` keys;
    Unsupported for text outside the layout (see above)."""
    line = text.count("\n", 0, start) + 2  # the line after `packages:`
    pos, end = start + len("packages:\n"), len(text)
    memo: dict[str, Any] = {}
    scalar = _fastyaml._scalar
    match, safe_lines = _ENTRY.match, _SAFE_KEY_LINES

    def value_of(raw: str, no: int) -> Any:
        v = memo.get(raw)
        if v is None:
            v = scalar(raw.rstrip(" ") if raw[-1] == " " else raw)
            if type(v) is YamlMap or type(v) is YamlList:
                v.line = no  # {} or []: a new one each time, as the tree reader makes it
                return v
            memo[raw] = v
        return v

    entries = YamlList()
    entries.line = line
    entry_lines = entries.lines
    while pos < end:
        m = match(text, pos)
        if m is None:
            if text[pos:].strip(" \n"):
                raise Unsupported
            break
        kind, loc, body = m.groups()
        location = value_of(loc, line)
        entry = _new_entry(kind, location, line)
        safe = safe_lines(body)
        if not (safe and _read_safe_body(entry, kind, safe, body, line, kept, value_of)):
            # some line is none of the certainly safe ones: read the entry again, line by line
            entry = _new_entry(kind, location, line)
            _read_body(entry, kind, body, line, kept, value_of)
        entries.append(entry)
        entry_lines.append(line)
        line += body.count("\n") + 1
        pos = m.end()
    return entries


def _new_entry(kind: str, location: Any, line: int) -> YamlMap:
    entry = dict.__new__(YamlMap)  # as _fastyaml builds it
    entry.line = line
    entry.lines = {kind: line}
    entry[kind] = location
    return entry


def _read_safe_body(
    entry: YamlMap,
    kind: str,
    safe: list[tuple[str, str, str]],
    body: str,
    line: int,
    kept: frozenset[str],
    value_of: ValueOf,
) -> bool:
    """Fill `entry` from the certainly safe lines `safe` of its `body`; False when they do not cover
    the whole body (then the body is read line by line)."""
    lines = entry.lines
    seen = {kind}
    no = line
    for key, raw, block in safe:
        no += 1
        if key in seen:
            raise Unsupported  # a duplicate key: the tree reader reports it
        seen.add(key)
        if key in kept:
            lines[key] = no
            if raw:
                entry[key] = value_of(raw, no)
            elif block:
                items: YamlList = list.__new__(YamlList)
                items.line = no + 1
                items.lines = list(range(no + 1, no + 1 + block.count("\n")))
                for item in block[4:-1].split("\n  - "):
                    no += 1
                    items.append(value_of(item, no))
                entry[key] = items
            else:
                entry[key] = None
        elif block:
            no += block.count("\n")
    return no - line == body.count("\n")


def _read_body(
    entry: YamlMap, kind: str, body: str, line: int, kept: frozenset[str], value_of: ValueOf
) -> None:
    """Fill `entry` from its `body` line by line; Unsupported for a line outside the layout."""
    lines = entry.lines
    seen = {kind}
    no = line
    # where `- item` lines go: a kept list, False (a list not kept), None (no list open)
    items: YamlList | Literal[False] | None = None
    open_key = None  # a key without a value whose list has not begun
    for key, raw, item in _BODY_LINE.findall(body):
        no += 1
        if key:
            if open_key is not None:
                if open_key in kept:
                    entry[open_key] = None
                open_key = None
            items = None
            if key in seen or (key[0] in _NOT_TEXT_FIRST and is_not_text(key)):
                raise Unsupported  # a duplicate key (the tree reader reports it), or not text
            seen.add(key)
            if key in kept:
                lines[key] = no
                if raw:
                    entry[key] = value_of(raw, no)
                else:
                    open_key = key
            elif raw:
                value_of(raw, no)  # checked as the tree reader would, not kept
            else:
                open_key = key
            continue
        if item[0] in "-." and (item.startswith(("- ", "---", "...")) or item.rstrip(" ") == "-"):
            raise Unsupported  # what _fastyaml._tokens refuses in a sequence item
        if open_key is not None:  # the first item of a list
            if open_key in kept:
                new_items: YamlList = list.__new__(YamlList)
                new_items.line = no
                new_items.lines = []
                entry[open_key] = items = new_items
            else:
                items = False
            open_key = None
        if items is None:
            raise Unsupported  # an item where the tree reader finds no list
        if items is False:
            value_of(item, no)
        else:
            items.append(value_of(item, no))
            items.lines.append(no)
    if no - line != body.count("\n"):
        raise Unsupported  # a line that is neither `key: value` nor `- item` at indent 2
    if open_key is not None and open_key in kept:
        entry[open_key] = None
