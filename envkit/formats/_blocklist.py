"""A lock's top-level list of package entries loaded without a YAML token stream.

Nearly all of a conda-lock.yml (`package:`) or a pixi.lock (`packages:`) is one list of flat
mappings, in the layout every lock tool writes: each entry a `- key: value` line followed by
`key: value` lines at indent 2, where a key without a value is followed by its block: `- item` lines
at indent 2 or 4 (a list), or `key: value` lines at indent 4 (a mapping), nothing deeper.  Key order
is free (older conda-lock sorts the keys, newer writes them in schema order).

`load_entries` reads that list with one regular expression per entry and gives exactly what the YAML
loaders give for it (YamlMap/YamlList values, `.line` and `.lines`), each scalar converted by the
fast YAML reader's rules (envkit.formats._fastyaml) and remembered (versions, specs, licenses
repeat).  A reader may ask for some keys only (`kept`): the others are checked as the YAML reader
would check them, and dropped.  Anything outside the layout (a comment or blank line among the
entries, a multi-line scalar, deeper nesting, a duplicate key, CR LF line ends) raises Unsupported,
and the caller loads the whole document as YAML: the values are the same either way
(tests/formats/test_formats_fastyaml.py proves it on the corpus and on generated variants).
"""

from __future__ import annotations

import re
from typing import Any

from envkit.formats import _fastyaml
from envkit.formats._fastyaml import Unsupported
from envkit.formats._yaml import _NOT_STR, _NOT_STR_FIRST, YamlList, YamlMap, check_lines

_KEY = r"[A-Za-z0-9_][A-Za-z0-9_.\-/]*"
#: one entry: its first line and the lines indented under it
_ENTRY = re.compile(r"- [^\n]*\n(?:  [^\n]*\n)*")
#: a key of the entry (the first after its `- `, the others at indent 2), its one-line value, and
#: the block of a key without a value (indent-2 `- item` lines, or lines at indent 4)
_KEYS = re.compile(
    rf"^(?:- |  )({_KEY}):(?: ([^ \n][^\n]*))?\n((?:  - [^\n]*\n|    [^\n]*\n)*)", re.MULTILINE
).findall
_MAP4 = re.compile(rf"^    ({_KEY}): ([^ \n][^\n]*)$", re.MULTILINE).findall

#: an item the fast YAML reader refuses (envkit.formats._fastyaml._tokens): a nested item, a marker
_NOT_AN_ITEM = re.compile(r"- .*|-|---.*|\.\.\..*|- *", re.DOTALL).fullmatch

#: a top-level key: the rest of the document may follow the list
_KEY_START = re.compile(r"[A-Za-z0-9_]").match

_new_map = dict.__new__
_new_list = list.__new__


def load_document(text: str, section: str, filename: str | None, kept: frozenset[str] | None = None):
    """The document `text` as the YAML readers give it, its top-level `section:` list loaded by
    `load_entries` (each entry holding only the `kept` keys when given) and the rest of it (before
    and after the list) by the fast YAML reader; Unsupported for text outside the layout (then the
    caller loads it with envkit.formats._fastyaml.load_yaml).  The text is checked as the YAML
    reader checks it first (size, characters)."""
    check_lines(text, filename=filename)
    _fastyaml._check_chars(text)
    if "\r" in text:
        raise Unsupported
    start = text.find(f"\n{section}:\n- ") + 1  # str.find: a MULTILINE ^ is tried at every character
    if start == 0:
        raise Unsupported
    if text[-1] != "\n":
        text += "\n"
    first = start + len(section) + 2
    entries, stop = load_entries(text, first, kept)
    if stop < len(text) and not _KEY_START(text, stop) and text[stop:].strip(" \n"):
        # not a top-level key after the list (a comment, a blank or less indented line within it):
        # with the list's lines left out, what follows could read as part of what came before
        raise Unsupported
    # the rest of the document, the list's lines left blank: its lines keep their numbers
    rest = _fastyaml.load(text[:start] + "\n" * text.count("\n", start, stop) + text[stop:])
    if type(rest) is not YamlMap or section in rest:
        raise Unsupported  # the key twice: the YAML reader reports it
    line = text.count("\n", 0, start) + 1
    data: YamlMap = _new_map(YamlMap)
    data.line = rest.line if rest.line < line else line
    data.lines = lines = {}
    for key, value in rest.items():  # the keys in file order, the list among them
        if section not in lines and rest.lines[key] > line:
            data[section], lines[section] = entries, line
        data[key], lines[key] = value, rest.lines[key]
    if section not in lines:
        data[section], lines[section] = entries, line
    return data


def load_entries(text: str, pos: int, kept: frozenset[str] | None = None) -> tuple[YamlList, int]:
    """(the list whose first entry starts at offset `pos` of `text`, which ends in a newline; the
    offset where it ends: the end of the text or a line at indent 0 that is not an entry); Unsupported
    for text outside the layout (see the module doc)."""
    line = text.count("\n", 0, pos) + 1
    memo: dict[str, Any] = {}
    scalar = _fastyaml._scalar

    def value_of(raw: str, no: int) -> Any:
        v = memo.get(raw)
        if v is None:
            v = scalar(raw.rstrip(" ") if raw[-1] == " " else raw)
            if type(v) is YamlMap or type(v) is YamlList:
                v.line = no  # {} or []: a new one each time, as the YAML reader makes it
                return v
            memo[raw] = v
        return v

    entries: YamlList = _new_list(YamlList)
    entries.line = line
    entries.lines = entry_lines = []
    match, keys_of, end = _ENTRY.match, _KEYS, len(text)
    while pos < end:
        m = match(text, pos)
        if m is None:
            break
        stop = m.end()
        entry = _new_map(YamlMap)
        entry.line = line
        entry.lines = lines = {}
        seen = lines if kept is None else set()
        no = line
        for key, raw, block in keys_of(text, pos, stop):
            if key in seen or (key[0] in _NOT_STR_FIRST and _NOT_STR.fullmatch(key)):
                raise Unsupported  # a duplicate key (the YAML reader reports it), or not text
            key_line = no
            if raw:
                if block:
                    raise Unsupported  # a multi-line scalar, or a block after a value
                value = value_of(raw, no)
            elif block:
                value = _block(block, no + 1, value_of)
                no += block.count("\n")
            else:
                value = None
            no += 1
            if kept is None or key in kept:
                entry[key] = value
                lines[key] = key_line
            if seen is not lines:
                seen.add(key)
        n = text.count("\n", pos, stop)
        if no - line != n:
            raise Unsupported  # a line that is none of the above (a comment, deeper nesting)
        entries.append(entry)
        entry_lines.append(line)
        line += n
        pos = stop
    if not entries:
        raise Unsupported
    return entries, pos


def _block(block: str, no: int, value_of) -> YamlMap | YamlList:
    """The value of a key's block, whose first line is line `no`: a list of scalars (`- item` at
    indent 2 or 4) or a mapping of scalars (`key: value` at indent 4)."""
    n = block.count("\n")
    if block[2] == "-" or block.startswith("    - "):
        cut = 4 if block[2] == "-" else 6
        items: YamlList = _new_list(YamlList)
        items.line = no
        items.lines = list(range(no, no + n))
        prefix = block[:cut]
        for i, item in enumerate(block[cut:-1].split("\n" + prefix)):
            if not item or item[0] == " " or item[0] in "-." and _NOT_AN_ITEM(item):
                raise Unsupported  # what the YAML reader takes for a nested item or a marker
            items.append(value_of(item, no + i))
        if len(items) != n:
            raise Unsupported  # lines of another indent among the items
        return items
    pairs = _MAP4(block)
    if len(pairs) != n:
        raise Unsupported  # a line that is not `key: value` at indent 4
    out = _new_map(YamlMap)
    out.line = no
    out.lines = lines = {}
    for key, raw in pairs:
        if key in lines or (key[0] in _NOT_STR_FIRST and _NOT_STR.fullmatch(key)):
            raise Unsupported
        lines[key] = no
        out[key] = value_of(raw, no)
        no += 1
    return out
