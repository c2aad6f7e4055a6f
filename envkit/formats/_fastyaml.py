"""envkit's one YAML path: the block-style subset that lock tools and people write, read here;
everything else by libyaml (envkit.formats._yaml).

conda-lock.yml, pixi.lock and most environment files are block mappings and sequences, plain,
single-quoted or double-quoted scalars, `{}`/`[]` for empty collections, whole-line comments.  A
double-quoted scalar is taken when it is a valid JSON string (what `envkit.formats._yamlcore.scalar`
writes) whose escapes mean the same in YAML; JSON's escapes are a subset of YAML's, except `\\u`
surrogates, which JSON pairs up and libyaml refuses, so those are left to libyaml.  For that subset
one pass over the lines in Python is several times faster than libyaml's parser plus the Python
objects PyYAML builds for every node, and it needs no `import yaml` at all.

`load(text)` gives YamlMap/YamlList values with `.line` and `.lines`, or raises `Unsupported` as soon
as it meets anything outside the subset (flow collections, anchors and aliases, tags, block scalars,
quoted keys, double quotes that are not a JSON string, multi-line scalars, inline comments, duplicate
keys, a plain scalar that YAML 1.1 would read as a number, bool or null other than `true`/`false`/
small integers, YAML's other line breaks: a lone CR, NEL, U+2028, U+2029, nesting near the depth
limit).  `load_yaml` then asks libyaml, which also gives the proper error for a malformed file.  A
character YAML forbids anywhere in a stream (a control character, a lone surrogate, U+FFFE) raises
`BadChar`, an `Unsupported` that knows where: `load_yaml` reports it with its line, where libyaml
would name only a character offset.
"""

from __future__ import annotations

import re
from itertools import chain

from envkit.formats._depth import MAX_DEPTH
from envkit.formats._yamlcore import _BOOL_NULL, _NOT_STR_FIRST, YamlList, YamlMap, implicit


class Unsupported(Exception):
    """The text uses YAML this reader does not handle; use envkit.formats._yaml.load."""


class BadChar(Unsupported):
    """The text holds a character no YAML stream may hold, at `offset`."""

    def __init__(self, offset: int) -> None:
        super().__init__(offset)
        self.offset = offset


# a decimal integer of up to 100 digits; a longer one is left to the YAML loader, which refuses one
# with more digits than Python reads
_INT = re.compile(r"0|[1-9][0-9]{0,99}")
_BAD_START = frozenset('&*!|>{}[]%@`,?"#')
# ASCII bytes a YAML stream may hold (libyaml's reader refuses the other C0 controls and DEL)
_ASCII_OK = bytes(range(0x20, 0x7F)) + b"\t\n\r"
# what YAML 1.1 forbids in a stream (C0/C1 controls, surrogates, U+FFFE/U+FFFF) ...
# (the forbidden characters listed, not the allowed ones negated: the same set, far cheaper to
# compile)
_NOT_PRINTABLE = "[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x84\x86-\x9f\ud800-\udfff\ufffe\uffff]"
# ... and the line breaks it knows besides LF and CRLF, which this reader does not split on
_OTHER_BREAK = "\r(?!\n)|[\x85\u2028\u2029]"
# a \\u escape of a UTF-16 surrogate (may also match after an escaped backslash: then the string
# merely goes to the full loader)
_SURROGATE_ESCAPE = r"\\u[dD][89a-fA-F]"


def _check_chars(text: str) -> None:
    """Raise BadChar at a character YAML forbids, Unsupported at a line break this reader does not
    split on; do nothing for ordinary text (checked byte-level, not with a regex: cheap on a big lock)."""
    if text.isascii():
        if text.encode("ascii").translate(None, _ASCII_OK):
            bad = re.search(_NOT_PRINTABLE, text)
            assert bad is not None  # in ASCII it matches exactly the bytes _ASCII_OK leaves out
            raise BadChar(bad.start())
    else:
        m = re.search(_NOT_PRINTABLE, text)
        if m is not None:
            raise BadChar(m.start())
        if re.search(_OTHER_BREAK, text):
            raise Unsupported
    if "\r" in text and text.count("\r") != text.count("\r\n"):
        raise Unsupported


def _double_quoted(v: str) -> str:
    """A one-line double-quoted scalar that is a JSON string -> its value; else Unsupported."""
    if len(v) < 2 or v[-1] != '"':
        raise Unsupported
    inner = v[1:-1]
    if "\\" not in inner:
        # no escapes: the value is the text between the quotes (a tab or control character is not
        # JSON, and a `"` inside would end the scalar early)
        if '"' in inner or "\t" in inner:
            raise Unsupported
        return inner
    if re.search(_SURROGATE_ESCAPE, inner):
        raise Unsupported
    import json  # here: most files never need it (its import compiles five regexes)

    try:
        value = json.loads(v)
    except ValueError:
        raise Unsupported from None
    if type(value) is not str:
        raise Unsupported
    return value


def _scalar(v: str):
    c = v[0]
    if c == '"':
        return _double_quoted(v)
    if c == "'":
        if len(v) < 2 or v[-1] != "'":
            raise Unsupported
        inner = v[1:-1]
        if "'" in inner.replace("''", ""):
            raise Unsupported
        return inner.replace("''", "'")
    if c in _BAD_START:
        if v == "{}":
            return YamlMap()
        if v == "[]":
            return YamlList()
        raise Unsupported
    if ": " in v or " #" in v or v[-1] == ":" or v == "-" or v.startswith(("- ", "-\t")) or "\t" in v:
        raise Unsupported
    if v[0] in _NOT_STR_FIRST and implicit(v):
        if v == "true":
            return True
        if v == "false":
            return False
        if _INT.fullmatch(v):
            return int(v)
        raise Unsupported
    return v


# One tuple per line, in C, on LF line ends: (indentation, `- ` marker, key, text, other): the value
# (of the key, else of the line) is in `text` when it is a one-line plain scalar that is text for
# certain but for YAML 1.1's bool and null words (what `_scalar` would take as itself), else in
# `other`, up to its last non-space character.  Text for certain: words starting with `_` or a
# letter, single spaces between them, none starting with `#` nor ending with `:`; or a hex digest
# (md5, sha256) starting with a digit, whose first letter is not b (never an int, nor 0b binary).
# Possessive `*+`/`++`: nothing is retried shorter (no shorter one fits).
_LINES = re.compile(
    r"^( *+)(- ++)?(?:([A-Za-z0-9_][A-Za-z0-9_.\-/]*+):(?: ++|(?= *$)))?"
    r"(?:([A-Za-z_]\S*+(?<!:)(?: (?!#)\S++(?<!:))*+|[0-9]++[ac-f][0-9a-f]*+)|([^\n]*[^ \n]))? *$",
    re.MULTILINE,
)

#: characters of text per block of lines (_blocks)
BLOCK = 1 << 14
_MISSING = object()
_new = dict.__new__
_new_list = list.__new__


TYPE_CHECKING = False  # not typing's: a small file's read does not import typing
if TYPE_CHECKING:  # pragma: no cover
    from typing import Any

    #: a collection waiting for the value of `key` (None: a `-` item): (owner, key, column, line)
    _Pending = tuple[Any, str | None, int, int]


def load(text: str):
    """Parse `text` (the subset above) into YamlMap/YamlList values; raise Unsupported otherwise."""
    root, pending = _parse(chain.from_iterable(_blocks(_checked(text))))
    if root is None or (pending is not None and pending[1] is None):
        raise Unsupported  # no collection; a `-` with nothing under it (a null item, rare)
    if pending is not None:
        pending[0][pending[1]] = None
    return root


def _blocks(text: str):
    """_LINES's groups of each line of `text`, a list for each block of lines: one block's tuples are
    freed before the next block's are made (fewer objects alive at once, fewer garbage collections).
    No match spans a line break, so a block ending before one reads its lines as the whole text would."""
    findall = _LINES.findall
    start = 0
    end = text.find("\n", BLOCK)
    while end != -1:
        yield findall(text, start, end)
        start = end + 1
        end = text.find("\n", start + BLOCK)
    yield findall(text, start)


def _parse(rows) -> tuple:
    """The document of `rows` (_LINES's groups of each line) and what waits for a value at its end.

    A stack of the open collections (column, collection), innermost last, the innermost also in
    `top_col`/`top`; `pending`: the collection and key (None: a `-` item) whose value the next line's
    indentation decides (a nested collection or null); `memo`: see _leaf."""
    stack: list[tuple[int, Any]] = []
    pending: _Pending | None = None
    root: Any = None
    top: Any = None
    top_col = -1
    memo: dict = {}
    keys_ok: set[str] = set()
    for no, (spaces, dash, key, text, other) in enumerate(rows, 1):
        col = len(spaces)
        if text and len(text) < 6 and text in _BOOL_NULL:
            text, other = "", text  # YAML's true, false, null, ...: not text
        if key:
            if key not in keys_ok:
                _new_key(key, keys_ok)
        elif not dash:
            if _skipped(text or other):
                continue
            dash, other = "-", ""  # a lone `-`
        if pending is not None:
            _open(pending, bool(dash), col, no, stack)
            pending = None
            top_col, top = stack[-1]
        elif root is None:
            root = top = _collection(bool(dash), no)
            top_col = col
            stack.append((col, root))
        if top_col > col:
            top_col, top = _dedent(stack, col)
        if dash:
            if top_col != col or type(top) is not YamlList:
                raise Unsupported  # an item that does not continue a list
            if not key:
                if text:  # `- value`, the commonest item
                    top.append(text)
                    top.lines.append(no)
                else:
                    pending = _bare_item(top, other, col, no, memo)
                continue
            top_col = col = col + len(dash)
            top = _map_item(top, no, stack, col)  # `- key: ...`: the key goes into a new map
        else:
            if top_col != col or type(top) is not YamlMap or top.lines is None:
                top_col, top = _key_owner(stack, top, top_col, col)
            if top.lines.setdefault(key, no) != no:
                raise Unsupported  # a duplicate key: the YAML loader reports it
        if text:
            top[key] = text
        elif other:
            top[key] = _leaf(other, no, memo)
        else:
            pending = (top, key, col, no)
    return root, pending


def _dedent(stack: list, col: int) -> tuple[int, Any]:
    """Close the collections right of column `col`; the one that is then innermost."""
    stack.pop()
    while stack and stack[-1][0] > col:
        stack.pop()
    if not stack:
        raise Unsupported  # a line left of the document's first
    return stack[-1]


def _key_owner(stack: list, top, top_col: int, col: int) -> tuple[int, Any]:
    """The map a `key:` line at column `col` goes into (column, map), after `top`, a list that ends
    at the key's column, is closed; Unsupported when there is none.  The map of a `- key:` item
    gets its `lines` when its second key comes (see _map_item)."""
    if type(top) is YamlList and top_col == col:  # a key after a list at its key's column
        top_col, top = _dedent(stack, col)
    if top_col != col or type(top) is not YamlMap:
        raise Unsupported
    if top.lines is None:
        top.lines = {next(iter(top)): top.line}
    return top_col, top


def _new_key(key: str, keys_ok: set[str]) -> None:
    """Add `key` to the keys seen; Unsupported for one YAML 1.1 reads as a number, bool or null."""
    if key[0] in _NOT_STR_FIRST and implicit(key):
        raise Unsupported
    keys_ok.add(key)


def _checked(text: str) -> str:
    """`text` with LF line ends, after refusing characters outside the subset."""
    _check_chars(text)
    if "\r" in text:
        text = text.replace("\r\n", "\n")  # _check_chars has refused a CR that is not in CR LF
    return text


def _skipped(value: str) -> bool:
    """Whether a line without a key or `- ` (its text `value`) is skipped: blank or a comment.
    False for a lone `-`; Unsupported for anything else (a scalar on a line of its own)."""
    if not value or value[0] == "#":
        if "\t" in value:
            raise Unsupported
        return True
    if value != "-":
        raise Unsupported  # a multi-line scalar, ...
    return False


def _collection(is_list: bool, no: int):
    """A new YamlList (else YamlMap) starting on line `no`."""
    new = _new_list(YamlList) if is_list else _new(YamlMap)
    new.line = no
    new.lines = [] if is_list else {}
    return new


def _open(pending: _Pending, dash: bool, col: int, no: int, stack: list) -> None:
    """Give `pending` its value by the line after it (at column `col`, a `-` item when `dash`): a
    collection nested deeper (or a list at its key's column), pushed on `stack`, else null."""
    owner, key, pcol, _ = pending
    if col > pcol or (dash and col == pcol and key is not None):
        if len(stack) >= MAX_DEPTH - 1:  # near the limit: the YAML loader decides
            raise Unsupported
        new = _collection(dash, no)
        if key is None:
            owner.append(new)
            owner.lines.append(no)
        else:
            owner[key] = new
        stack.append((col, new))
    elif key is None:
        raise Unsupported  # `-` with nothing under it: a null item, rare
    else:
        owner[key] = None


def _map_item(seq: YamlList, no: int, stack: list, col: int) -> YamlMap:
    """A new map appended to `seq` for a `- key: ...` line `no`, open at column `col`.  Its key is
    on its own line, so it has no `lines` (see YamlMap) until a second key comes: most such maps
    (a pixi.lock's package references) have one key, and their dicts would be most of a read's objects."""
    if len(stack) >= MAX_DEPTH - 1:
        raise Unsupported
    item = _new(YamlMap)
    item.line = no
    item.lines = None
    seq.append(item)
    seq.lines.append(no)
    stack.append((col, item))
    return item


def _bare_item(seq: YamlList, value: str, col: int, no: int, memo: dict) -> _Pending | None:
    """The item of a `- value` line at column `col` whose value is not text for certain (none: then
    the item waits for the next line)."""
    if not value:
        return (seq, None, col, no)
    if value.startswith(("- ", "---", "...")) or value == "-":
        raise Unsupported
    seq.append(_leaf(value, no, memo))
    seq.lines.append(no)
    return None


def _leaf(value: str, no: int, memo: dict):
    """The value of scalar text `value` on line `no` that is not text for certain (_LINES tells):
    `memo`'s, read before (locks repeat versions often), else read and kept there ({} and [] are new
    collections each time)."""
    v = memo.get(value, _MISSING)
    if v is not _MISSING:
        return v
    if _INT.fullmatch(value):
        v = memo[value] = int(value)
        return v
    v = _scalar(value)
    if type(v) is YamlMap or type(v) is YamlList:
        v.line = no
    else:
        memo[value] = v
    return v


def load_yaml(text: str, *, filename: str | None = None):
    """The fast reader when the text is in its subset, else `envkit.formats._yaml.load` (same result).

    Raises ParseError (file, line) for malformed YAML, as `envkit.formats._yaml.load` does, and for a
    document over `envkit.formats._yaml`'s size limits."""
    from envkit.formats._yamlcore import check_lines

    check_lines(text, filename=filename)  # before tokenizing: millions of lines cost seconds and gigabytes
    try:
        return load(text)
    except BadChar as exc:
        from envkit.errors import ParseError, Where

        pos = exc.offset
        line = text.count("\n", 0, pos) + 1
        start = text.rfind("\n", 0, pos) + 1
        end = text.find("\n", pos)
        row = text[start : end if end >= 0 else len(text)].rstrip("\r")
        raise ParseError(
            f"invalid YAML: character U+{ord(text[pos]):04X} is not allowed in a YAML file",
            where=Where(file=filename, line=line),
            text=row,
            hint="remove the character (inside double quotes, write it as an escape)",
        ) from None
    except Unsupported:
        from envkit.formats import _yaml

        return _yaml.load(text, filename=filename)
