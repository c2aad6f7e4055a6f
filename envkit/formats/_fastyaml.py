"""A fast reader for the plain block-style YAML subset that lockfile generators write.

conda-lock.yml and pixi.lock files are machine-written: block mappings and sequences, plain,
single-quoted or double-quoted scalars, `{}`/`[]` for empty collections, whole-line comments.  A
double-quoted scalar is taken when it is a valid JSON string (what `envkit.formats._yaml.scalar` writes) whose
escapes mean the same in YAML; JSON's escapes are a subset of YAML's, except `\\u` surrogates, which
JSON pairs up and libyaml refuses, so those are left to the full loader.  For that subset a
line-by-line reader in Python is several times faster than libyaml's C parser plus PyYAML's constructor
(the constructor, not the parser, is most of libyaml's cost), and it needs no `import yaml` at all.

`load(text)` returns exactly what `envkit.formats._yaml.load` returns (YamlMap/YamlList with the same values,
`.line` and `.lines`; a test proves it on the corpus and on generated files) or raises `Unsupported`
as soon as it meets anything outside the subset (flow collections, anchors and aliases, tags, block
scalars, quoted keys, double quotes that are not a JSON string, multi-line scalars, inline comments,
duplicate keys, a plain scalar that YAML would read as a number, bool or null other than
`true`/`false`/small integers, YAML's other line breaks: a lone CR, NEL, U+2028, U+2029).  Callers
then use the full loader, which also produces the proper error for a malformed file.  A character
YAML forbids anywhere in a stream (a control character, a lone surrogate, U+FFFE) raises `BadChar`,
an `Unsupported` that knows where: `load_yaml` reports it with its line, where libyaml would name
only a character offset.
"""

from __future__ import annotations

import re

from envkit.formats._yamlcore import _NOT_STR_FIRST, YamlList, YamlMap, implicit


class Unsupported(Exception):
    """The text uses YAML this reader does not handle; use envkit.formats._yaml.load."""


class BadChar(Unsupported):
    """The text holds a character no YAML stream may hold, at `offset`."""

    def __init__(self, offset: int) -> None:
        super().__init__(offset)
        self.offset = offset


_LINE = re.compile(r"( *)(- +)?(?:([A-Za-z0-9_][A-Za-z0-9_.\-/]*):(?: +(.*?))?|(.*?)) *")
_INT = re.compile(r"0|[1-9][0-9]*")
_BAD_START = frozenset('&*!|>{}[]%@`,?"#')
# ASCII bytes a YAML stream may hold (libyaml's reader refuses the other C0 controls and DEL)
_ASCII_OK = bytes(range(0x20, 0x7F)) + b"\t\n\r"
# what YAML 1.1 forbids in a stream (C0/C1 controls, surrogates, U+FFFE/U+FFFF) ...
# (the forbidden characters listed, not the allowed ones negated: the same set, far cheaper to
# compile, which every `import` pays)
_NOT_PRINTABLE = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x84\x86-\x9f\ud800-\udfff\ufffe\uffff]")
# ... and the line breaks it knows besides LF and CRLF, which this reader does not split on
_OTHER_BREAK = re.compile("\r(?!\n)|[\x85\u2028\u2029]")
# a \\u escape of a UTF-16 surrogate (may also match after an escaped backslash: then the string
# merely goes to the full loader)
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")

_SEQ, _MAP = 0, 1
#: a token standing for a run of plain-text sequence items (see _tokens), a sequence start too
_RUN = 4
#: a token standing for a run of one-key mapping items (see _tokens), a sequence start too
_MAP_RUN = 5


def _check_chars(text: str) -> None:
    """Raise BadChar at a character YAML forbids, Unsupported at a line break this reader does not
    split on; do nothing for ordinary text (checked byte-level, not with a regex: cheap on a big lock)."""
    if text.isascii():
        if text.encode("ascii").translate(None, _ASCII_OK):
            bad = _NOT_PRINTABLE.search(text)
            assert bad is not None  # in ASCII it matches exactly the bytes _ASCII_OK leaves out
            raise BadChar(bad.start())
    else:
        m = _NOT_PRINTABLE.search(text)
        if m is not None:
            raise BadChar(m.start())
        if _OTHER_BREAK.search(text):
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
    if _SURROGATE_ESCAPE.search(inner):
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


#: A one-line plain scalar that is text for certain, checked at C speed (what `_scalar` would take
#: as itself): a word starting with `_` or a letter that cannot spell one of YAML 1.1's true/false/
#: yes/no/on/off/null words (those are letters only, at most 5), no white space, not ending in `:`;
#: or a hex digest (md5, sha256) with a letter other than b (never an int, nor 0b binary).
plain_text = re.compile(
    r"(?:_|[A-Za-z](?=\S*[^A-Za-z\s]|\S{5}))\S*[^\s:]|(?=[0-9a-f]*[ac-f])[0-9a-f]+"
).fullmatch


def text_value(raw: str) -> str:
    """The text a one-line scalar `raw` (as a `key: raw` line holds it: no leading space) stands for;
    Unsupported when it is not text (a number, bool, null, {} or []) or not in the subset."""
    if raw[-1] == " ":
        raw = raw.rstrip(" ")
    value = _scalar(raw)
    if type(value) is not str:
        raise Unsupported
    return value


def is_not_text(key: str) -> bool:
    """True when the plain mapping key `key` would be read as something other than text."""
    return implicit(key)


# _LINE for every line at once (findall: one tuple per line, in C, on LF line ends).  Values are
# captured greedily up to their last non-space character: the same text as _LINE's lazy `(.*?) *`,
# much faster (a lazy group tries ` *$` after every character).
_LINES = re.compile(
    r"^( *)(- +)?(?:([A-Za-z0-9_][A-Za-z0-9_.\-/]*):(?: +([^\n]*[^ \n]))?|([^\n]*[^ \n])?) *$", re.MULTILINE
)


#: (line, indent, kind, key, value) of one YAML line (see `_tokens`; a _RUN's value is a list)
_Token = tuple[int, int, int, str | None, str | list[str] | None]


def _tokens(text: str) -> list[_Token]:
    """(line, indent, kind, key, value) per YAML line; `- key: value` gives a sequence token and a
    mapping token on the same line; a run of `- text` items gives one _RUN token whose value is the
    list of their texts."""
    out: list[_Token] = []
    if "\r" in text:
        text = text.replace("\r\n", "\n")  # _check_chars has refused a CR that is not in CR LF
    no = pos = 0
    # (a small file is read line by line: compiling _RUNS would cost more than it saves there)
    for run in _RUNS.finditer(text) if len(text) >= _RUNS_FROM else ():
        start = run.start() + 1
        if start > pos:  # the lines before the run (without the break that ends the last one)
            no = _line_tokens(text[pos : start - 1], no, out)
        items = text[start : run.end()]
        indent = len(run.group(1))
        if run.group("map") is None:
            values = items[indent + 2 : -1].split("\n" + items[: indent + 2])
            out.append((no + 1, indent, _RUN, None, values))
            no += len(values)
        else:
            pairs = _ONE_KEY(items)
            out.append((no + 1, indent, _MAP_RUN, None, pairs))
            no += len(pairs)
        pos = run.end()
    if pos < len(text):
        _line_tokens(text[pos:] if pos else text, no, out)
    return out


# A long run of sequence items at one indent, each plain text for certain (a word that starts with a
# letter or _, is not one of YAML 1.1's bool/null words, and has no tab, no `: `, no ` #`, no two
# spaces and no trailing `:` or space; `conda-forge::numpy` is text): what `_scalar` gives back as
# it is.  An environment file's dependencies, 100,000 of them near envkit's limit, are then one
# token (one split, no loop per line).
_WORDS = "yes|Yes|YES|no|No|NO|true|True|TRUE|false|False|FALSE|on|On|ON|off|Off|OFF|null|Null|NULL"
_RUN_ITEM = rf"(?!(?:{_WORDS})\n)[A-Za-z_](?:[^\n: \t]++|:(?=[^ \n])| (?=[^ \n#]))*+\n"
# (found after a line break: a literal first character is searched for at C speed, where a
# MULTILINE `^` is tried at every character)
# A run of one-key mappings, `- key: text` (a pixi.lock environment's `- conda: URL` references),
# is one _MAP_RUN token whose value is the (key, text) pairs.
_RUN_KEY = rf"(?!(?:{_WORDS}):)[A-Za-z_][A-Za-z0-9_.\-/]*+"
# (their text without white space, as references are: a class scan, not a check per character)
_RUN_WORD = rf"(?!(?:{_WORDS})\n)[A-Za-z_]\S*+(?<!:)\n"
_RUNS = re.compile(
    rf"\n( *)- (?:{_RUN_ITEM}(?:\1- {_RUN_ITEM}){{7,}}|(?P<map>){_RUN_KEY}: {_RUN_WORD}"
    rf"(?:\1- {_RUN_KEY}: {_RUN_WORD}){{7,}})"
)
_RUNS_FROM = 8192  # characters
_ONE_KEY = re.compile(r"^ *- ([^:\n]+): ([^\n]*)$", re.MULTILINE).findall


def _line_tokens(text: str, no: int, out: list) -> int:
    """Append the tokens of `text`'s lines, the first of which is line `no + 1`; the last line's number."""
    append = out.append
    for spaces, dash, key, kvalue, value in _LINES.findall(text):
        no += 1
        indent = len(spaces)
        if dash:
            append((no, indent, _SEQ, None, None))
            indent += len(dash)
        elif not key and (not value or value[0] == "#"):  # blank, or a comment
            if "\t" in value:
                raise Unsupported
            continue
        if key:
            if key[0] in _NOT_STR_FIRST and implicit(key):
                raise Unsupported
            append((no, indent, _MAP, key, kvalue))
        elif value == "-" and not dash:
            append((no, indent, _SEQ, None, None))  # `-` alone: the item's content follows deeper
        elif not value:
            continue  # `-` alone (a dash is there): the item's content follows on deeper lines
        elif value.startswith(("- ", "---", "...")) or value == "-":
            raise Unsupported
        else:
            append((no, indent, _SEQ + 2, None, value))  # a scalar sequence item's value
    return no


def load(text: str):
    """Parse `text` (the subset above) into YamlMap/YamlList values; raise Unsupported otherwise."""
    _check_chars(text)
    toks = _tokens(text)
    if not toks:
        raise Unsupported
    value, pos = _node(toks, 0, toks[0][1], {})
    if pos != len(toks):
        raise Unsupported
    return value


_MISSING = object()
_new = dict.__new__
_new_list = list.__new__


def _node(toks: list, pos: int, indent: int, memo: dict):
    """The collection starting at token `pos`, and the position after it.  `memo` maps each scalar
    text already read to its value (text, int or bool: immutable, shared): lock files repeat the
    same versions, specs, licenses and platforms thousands of times."""
    kind = toks[pos][2]
    if toks[pos][1] != indent:
        raise Unsupported
    if kind == _MAP:
        return _mapping(toks, pos, indent, memo)
    if kind == _SEQ or kind >= _RUN:
        return _sequence(toks, pos, indent, memo)
    raise Unsupported  # a bare scalar document, or a scalar where a collection was expected


def _leaf(value: str, no: int, memo: dict):
    """The value of scalar text `value` on line `no` ({} and [] are new collections each time)."""
    v = _scalar(value)
    if type(v) is YamlMap or type(v) is YamlList:
        v.line = no
    else:
        memo[value] = v
    return v


def _mapping(toks: list, pos: int, indent: int, memo: dict):
    out = _new(YamlMap)  # YamlMap() without its __init__ (a Python call): the same object
    out.line = toks[pos][0]
    out.lines = lines = {}
    n = len(toks)
    get = memo.get
    while pos < n:
        no, ind, kind, key, value = toks[pos]
        if ind != indent or kind != _MAP:
            if ind >= indent:
                raise Unsupported
            break
        if key in lines:
            raise Unsupported  # a duplicate key: the full loader reports it
        lines[key] = no
        pos += 1
        if value:
            v = get(value, _MISSING)
            out[key] = _leaf(value, no, memo) if v is _MISSING else v
            continue
        if pos < n:
            nxt = toks[pos]
            if nxt[1] > indent or (nxt[1] == indent and (nxt[2] == _SEQ or nxt[2] >= _RUN)):
                out[key], pos = _node(toks, pos, nxt[1], memo)
                continue
        out[key] = None
    return out, pos


def _sequence(toks: list, pos: int, indent: int, memo: dict):
    out = _new_list(YamlList)
    out.line = toks[pos][0]
    lines: list[int] = []
    out.lines = lines
    n = len(toks)
    get = memo.get
    append = out.append
    while pos < n:
        no, ind, kind, _key, _value = toks[pos]
        if ind != indent or kind != _SEQ:
            if kind == _RUN and ind == indent:
                out.extend(_value)
                lines.extend(range(no, no + len(_value)))
                pos += 1
                continue
            if kind == _MAP_RUN and ind == indent:
                for key, value in _value:  # as the one-key mapping items below are made
                    child = _new(YamlMap)
                    child.line = no
                    child.lines = {key: no}
                    child[key] = value
                    append(child)
                    lines.append(no)
                    no += 1
                pos += 1
                continue
            if ind > indent:
                raise Unsupported
            break
        pos += 1
        if pos >= n:
            raise Unsupported  # `-` with nothing: null item, rare; let the full loader do it
        nxt = toks[pos]
        if nxt[2] == _SEQ + 2 and nxt[0] == no:
            value = nxt[4]
            v = get(value, _MISSING)
            append(_leaf(value, no, memo) if v is _MISSING else v)
            lines.append(no)
            pos += 1
            continue
        if nxt[1] <= indent:
            raise Unsupported
        if nxt[0] == no and nxt[4] and (pos + 1 == n or toks[pos + 1][1] < nxt[1]):
            # `- key: value` alone: a one-key mapping (pixi.lock's package references), made here
            # as _mapping would make it
            child = _new(YamlMap)
            child.line = no
            key, value = nxt[3], nxt[4]
            child.lines = {key: no}
            v = get(value, _MISSING)
            child[key] = _leaf(value, no, memo) if v is _MISSING else v
            append(child)
            lines.append(no)
            pos += 1
            continue
        child, pos = _node(toks, pos, nxt[1], memo)
        append(child)
        lines.append(child.line)
    return out, pos


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
    except (Unsupported, RecursionError):
        from envkit.formats import _yaml

        return _yaml.load(text, filename=filename)
