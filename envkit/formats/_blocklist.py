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
from collections.abc import Callable, Iterable
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

# A value the fast YAML reader certainly takes (checked at C speed): a plain word that is text (it
# starts with a letter or _, is not one of YAML 1.1's bool/null words, and has no tab, no `: `, no
# ` #`, no two spaces and no trailing `:` or space), an integer, a hex digest, '...' or "..."
# without escapes, [] or {}.  A key the reader does not keep needs no more than that check.
_WORDS = "yes|Yes|YES|no|No|NO|true|True|TRUE|false|False|FALSE|on|On|ON|off|Off|OFF|null|Null|NULL"


def _safe_value(end: str) -> str:
    """The pattern of such a value followed by `end` (not consumed by the word's lookahead)."""
    word = rf"(?!(?:{_WORDS}){end})[A-Za-z_][^\n: \t]*+(?:[: ][^\n:# \t][^\n: \t]*+)*+"
    return (
        rf"(?:{word}|0|[1-9][0-9]*+|[0-9a-f]*[ac-f][0-9a-f]*+|\[\]|\{{\}}|'[^'\n]*+'"
        rf"|\"[^\"\\\t\n]*+\")"
    )


_SAFE = re.compile(_safe_value("$")).fullmatch
#: a block of such items (`- value` at indent 2)
_SAFE_ITEMS = re.compile(rf"(?:  - {_safe_value(chr(10))}\n)++").fullmatch

_WORD_ITEM = rf"(?!(?:{_WORDS})\n)[A-Za-z_][^\n: \t]*+(?:[: ][^\n:# \t][^\n: \t]*+)*+"
#: a block whose values are plain text for certain (safe words, hex digests): each value is its text
_TEXT_ITEMS = re.compile(rf"(?:  - {_WORD_ITEM}\n)++").fullmatch
_TEXT_MAP4 = re.compile(
    rf"(?:    (?!(?:{_WORDS}):)[A-Za-z_][A-Za-z0-9_.\-/]*+: (?:{_WORD_ITEM}|[0-9a-f]*[ac-f][0-9a-f]*+)\n)++"
).fullmatch

#: a top-level key: the rest of the document may follow the list
_KEY_START = re.compile(r"[A-Za-z0-9_]").match

_new_map = dict.__new__
_new_list = list.__new__


def load_document(
    text: str,
    section: str,
    filename: str | None,
    kept: frozenset[str] | None = None,
    read_list: Callable[[str, int], tuple[YamlList, int]] | None = None,
    read_head: Callable[[str], YamlMap] | None = None,
):
    """The document `text` as the YAML readers give it, its top-level `section:` list loaded by
    `load_entries` (each entry holding only the `kept` keys when given) and the rest of it (before
    and after the list) by the fast YAML reader; Unsupported for text outside the layout (then the
    caller loads it with envkit.formats._fastyaml.load_yaml).  The text is checked as the YAML
    reader checks it first (size, characters).

    `read_list(text, offset of the first entry)`, when given, loads the list in place of
    `load_entries`, giving (the list, the offset where it ends) as load_entries does: a format's
    reader may turn the entries it knows the layout of into its records there (conda-lock's,
    envkit.formats.condalocklayout).  `read_head(the text before the list)`, when given, loads that
    part in place of the fast YAML reader (giving what `load_part(text, 0)` gives: pixi.lock's
    environments, envkit.formats.pixilock)."""
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
    entries, stop = load_entries(text, first, kept) if read_list is None else read_list(text, first)
    if stop < len(text) and not _KEY_START(text, stop) and text[stop:].strip(" \n"):
        # not a top-level key after the list (a comment, a blank or less indented line within it):
        # with the list's lines left out, what follows could read as part of what came before
        raise Unsupported
    line = text.count("\n", 0, start) + 1
    head = load_part(text[:start], 0) if read_head is None else read_head(text[:start])
    tail = load_part(text[stop:], line + text.count("\n", start, stop) - 1)
    if section in head or section in tail or any(k in head for k in tail):
        raise Unsupported  # a key twice: the YAML reader reports it
    data: YamlMap = _new_map(YamlMap)
    data.line = head.line if head else line
    data.lines = lines = {}
    for part in (head, None, tail):
        if part is None:
            data[section], lines[section] = entries, line
            continue
        for key, value in part.items():
            data[key], lines[key] = value, part.lines[key]
    return data


#: a line that is not blank and not a comment
_CONTENT = re.compile(r"^ *[^ #\n]", re.MULTILINE).search


def load_part(text: str, shift: int) -> YamlMap:
    """The top-level mapping of `text` (the document before or after the list), its lines moved
    down by `shift`; an empty one when `text` holds no YAML."""
    if not _CONTENT(text):
        out = _new_map(YamlMap)
        out.line, out.lines = 0, {}
        return out
    part = _fastyaml.load(text)
    if type(part) is not YamlMap:
        raise Unsupported
    if shift:
        _shift(part, shift)
    return part


def _shift(value, by: int) -> None:
    """Add `by` to every line of `value` and of what it holds (a few top-level keys after a list)."""
    children: Iterable[Any]
    if type(value) is YamlMap:
        value.line += by
        value.lines = {k: n + by for k, n in value.lines.items()}
        children = value.values()
    elif type(value) is YamlList:
        value.line += by
        value.lines = [n + by for n in value.lines]
        children = value
    else:
        return
    for child in children:
        _shift(child, by)


def load_entries(
    text: str, pos: int, kept: frozenset[str] | None = None, line: int = 0, limit: int = 0
) -> tuple[YamlList, int]:
    """(the list whose first entry starts at offset `pos` of `text`, which ends in a newline; the
    offset where it ends: the end of the text or a line at indent 0 that is not an entry); Unsupported
    for text outside the layout (see the module doc).  `line`: the line `pos` is on, when the caller
    knows it; `limit`: at most that many entries (a list reader reading some entries itself)."""
    if not line:
        line = text.count("\n", 0, pos) + 1
    memo: dict[str, Any] = {}
    scalar, plain = _fastyaml._scalar, _fastyaml.plain_text

    def value_of(raw: str, no: int) -> Any:
        v = memo.get(raw)
        if v is None:
            if plain(raw):
                return raw  # text for certain (names, URLs, hashes: mostly unique, not remembered)
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
    get = memo.get
    plain = _fastyaml.plain_text
    safe, safe_items = _SAFE, _SAFE_ITEMS
    text_items, text_map4, map4 = _TEXT_ITEMS, _TEXT_MAP4, _MAP4
    blocks: dict[str, tuple] = {}  # a block's text -> its keys (None: a list) and values
    text_keys: set[str] = set()  # keys checked to be text
    limit = limit or end  # (no more entries than characters)
    while pos < end and len(entries) < limit:
        m = match(text, pos)
        if m is None:
            break
        stop = m.end()
        entry = _new_map(YamlMap)
        entry.line = line
        entry.lines = lines = {}
        skipped: set[str] = set()  # keys not kept (each only once, as any other)
        no = line
        for key, raw, block in keys_of(text, pos, stop):
            if key not in text_keys:
                if key[0] in _NOT_STR_FIRST and _NOT_STR.fullmatch(key):
                    raise Unsupported  # a key that is not text
                text_keys.add(key)
            if key in lines or key in skipped:
                raise Unsupported  # a duplicate key: the YAML reader reports it
            if kept is not None and key not in kept:
                # checked as the YAML reader would read it, not kept
                skipped.add(key)
                if raw:
                    if block:
                        raise Unsupported
                    if not safe(raw):
                        value_of(raw, no)
                elif block:
                    n = block.count("\n")
                    if not safe_items(block) and block not in blocks:
                        _block(block, n, value_of, blocks, text_keys)
                    no += n
                no += 1
                continue
            if raw:
                if block:
                    raise Unsupported  # a multi-line scalar, or a block after a value
                value = get(raw)
                if value is None:
                    value = raw if plain(raw) else value_of(raw, no)
                n = 0
            elif block:
                n = block.count("\n")
                shape = blocks.get(block)
                if shape is not None:
                    value = _instance(shape, no + 1, n)
                elif block[2] == "-" and text_items(block):
                    value = _new_list(YamlList)
                    value.extend(block[4:-1].split("\n  - "))
                    value.line = no + 1
                    value.lines = list(range(no + 1, no + 1 + n))
                elif block[2] == " " and text_map4(block):
                    pairs = map4(block)
                    value = _new_map(YamlMap)
                    value.update(pairs)
                    if len(value) != n:
                        raise Unsupported  # a duplicate key: the YAML reader reports it
                    value.line = no + 1
                    value.lines = {k: no + 1 + j for j, (k, _) in enumerate(pairs)}
                else:
                    value = _instance(_block(block, n, value_of, blocks, text_keys), no + 1, n)
            else:
                value, n = None, 0
            entry[key] = value
            lines[key] = no
            no += n + 1
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


def _block(block: str, n: int, value_of, blocks: dict[str, tuple], text_keys: set[str]) -> tuple:
    """(its keys, or None for a list; its values) of a key's block of `n` lines: a list of scalars
    (`- item` at indent 2 or 4) or a mapping of scalars (`key: value` at indent 4); remembered in
    `blocks` unless a value is an empty collection (those are new objects each time)."""
    keys: tuple[str, ...] | None
    if block[2] == "-" or block.startswith("    - "):
        cut = 4 if block[2] == "-" else 6
        raws = block[cut:-1].split("\n" + block[:cut])
        for item in raws:
            if not item or item[0] == " " or item[0] in "-." and _NOT_AN_ITEM(item):
                raise Unsupported  # what the YAML reader takes for a nested item or a marker
        if len(raws) != n:
            raise Unsupported  # lines of another indent among the items
        keys = None
    else:
        pairs = _MAP4(block)
        if len(pairs) != n:
            raise Unsupported  # a line that is not `key: value` at indent 4
        keys = tuple(k for k, _ in pairs)
        if len(set(keys)) != n:
            raise Unsupported  # a duplicate key: the YAML reader reports it
        for k in keys:
            if k not in text_keys:
                if k[0] in _NOT_STR_FIRST and _NOT_STR.fullmatch(k):
                    raise Unsupported  # a key that is not text
                text_keys.add(k)
        raws = [v for _, v in pairs]
    values = tuple([value_of(v, 0) for v in raws])
    for v in values:
        if type(v) is YamlMap or type(v) is YamlList:
            return (keys, values, True)  # an empty collection: a new one each time
    shape = blocks[block] = (keys, values, False)
    return shape


def _instance(shape: tuple, no: int, n: int) -> YamlMap | YamlList:
    """The block `shape` (see _block) as the value the YAML reader gives, its first line `no`."""
    keys, values, new = shape
    if new:
        for i, v in enumerate(values):
            if type(v) is YamlMap or type(v) is YamlList:
                v.line = no + i  # an empty collection: this block's own (never remembered)
    if keys is None:
        items: YamlList = _new_list(YamlList)
        items.extend(values)
        items.line = no
        items.lines = list(range(no, no + n))
        return items
    out: YamlMap = _new_map(YamlMap)
    out.update(zip(keys, values, strict=True))
    out.line = no
    out.lines = dict(zip(keys, range(no, no + n), strict=True))
    return out
