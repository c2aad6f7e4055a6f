"""A fast reader for the plain block-style YAML subset that lockfile generators write.

conda-lock.yml and pixi.lock files are machine-written: block mappings and sequences, plain or
single-quoted scalars, `{}`/`[]` for empty collections, whole-line comments.  For that subset a
line-by-line reader in Python is about 5x faster than libyaml's C parser plus PyYAML's constructor
(the constructor, not the parser, is most of libyaml's cost), and it needs no `import yaml` at all.

`load(text)` returns exactly what `envkit._yaml.load` returns (YamlMap/YamlList with the same values,
`.line` and `.lines`; a test proves it on the corpus and on generated files) or raises `Unsupported`
as soon as it meets anything outside the subset (flow collections, anchors and aliases, tags, block
scalars, double quotes with escapes, multi-line scalars, inline comments, duplicate keys, a plain
scalar that YAML would read as a number, bool or null other than `true`/`false`/small integers).
Callers then use the full loader, which also produces the proper error for a malformed file.
"""
from __future__ import annotations

import re

from envkit._yaml import YamlList, YamlMap


class Unsupported(Exception):
    """The text uses YAML this reader does not handle; use envkit._yaml.load."""


_LINE = re.compile(r"( *)(- +)?(?:([A-Za-z0-9_][A-Za-z0-9_.\-/]*):(?: +(.*?))?|(.*?)) *")
_INT = re.compile(r"0|[1-9][0-9]*")
# YAML 1.1 implicit types (PyYAML's resolver): a plain scalar matching one of these is not a string.
_NOT_STR = re.compile(
    r"(?:yes|Yes|YES|no|No|NO|true|True|TRUE|false|False|FALSE|on|On|ON|off|Off|OFF"
    r"|~|null|Null|NULL|<<|="
    r"|[-+]?(?:[0-9][0-9_]*)\.[0-9_]*(?:[eE][-+][0-9]+)?|\.[0-9_]+(?:[eE][-+][0-9]+)?"
    r"|[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+\.[0-9_]*|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN)"
    r"|[-+]?0b[0-1_]+|[-+]?0[0-7_]+|[-+]?(?:0|[1-9][0-9_]*)|[-+]?0x[0-9a-fA-F_]+"
    r"|[-+]?[1-9][0-9_]*(?::[0-5]?[0-9])+"
    r"|[0-9][0-9][0-9][0-9]-[0-9][0-9]?-[0-9][0-9]?.*)"
)
_BAD_START = frozenset("&*!|>{}[]%@`,?\"#")

_SEQ, _MAP = 0, 1


def _scalar(v: str):
    c = v[0]
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
    if ": " in v or " #" in v or v[-1] == ":" or v.startswith(("- ", "-\t")) or "\t" in v:
        raise Unsupported
    if _NOT_STR.fullmatch(v):
        if v == "true":
            return True
        if v == "false":
            return False
        if _INT.fullmatch(v):
            return int(v)
        raise Unsupported
    return v


def _tokens(text: str) -> list:
    """(line, indent, kind, key, value) per YAML line; `- key: value` gives a sequence token and a
    mapping token on the same line."""
    out = []
    append = out.append
    match = _LINE.fullmatch
    for no, raw in enumerate(text.split("\n"), 1):
        line = raw[:-1] if raw.endswith("\r") else raw
        s = line.lstrip(" ")
        if not s or s[0] == "#":
            if "\t" in line and s:
                raise Unsupported
            continue
        m = match(line)
        if m is None:
            raise Unsupported
        indent = len(m.group(1))
        dash = m.group(2)
        if dash:
            append((no, indent, _SEQ, None, None))
            indent += len(dash)
        key = m.group(3)
        if key is not None:
            if _NOT_STR.fullmatch(key):
                raise Unsupported
            append((no, indent, _MAP, key, m.group(4)))
        else:
            value = m.group(5)
            if not value:
                if not dash:
                    raise Unsupported
                continue  # `-` alone: the item's content follows on deeper lines
            if value.startswith("- ") or value == "-" or value.startswith("---") or value.startswith("..."):
                raise Unsupported
            append((no, indent, _SEQ + 2, None, value))  # a scalar sequence item's value
    return out


def load(text: str):
    """Parse `text` (the subset above) into YamlMap/YamlList values; raise Unsupported otherwise."""
    toks = _tokens(text)
    if not toks:
        raise Unsupported
    value, pos = _node(toks, 0, toks[0][1])
    if pos != len(toks):
        raise Unsupported
    return value


def _node(toks: list, pos: int, indent: int):
    kind = toks[pos][2]
    if toks[pos][1] != indent:
        raise Unsupported
    if kind == _MAP:
        return _mapping(toks, pos, indent)
    if kind == _SEQ:
        return _sequence(toks, pos, indent)
    raise Unsupported  # a bare scalar document, or a scalar where a collection was expected


def _mapping(toks: list, pos: int, indent: int):
    out = YamlMap()
    out.line = toks[pos][0]
    lines = out.lines
    n = len(toks)
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
            v = _scalar(value)
            if type(v) is YamlMap or type(v) is YamlList:
                v.line = no
            out[key] = v
            continue
        if pos < n:
            nxt = toks[pos]
            if nxt[1] > indent or (nxt[1] == indent and nxt[2] == _SEQ):
                out[key], pos = _node(toks, pos, nxt[1])
                continue
        out[key] = None
    return out, pos


def _sequence(toks: list, pos: int, indent: int):
    out = YamlList()
    out.line = toks[pos][0]
    lines = out.lines
    n = len(toks)
    while pos < n:
        no, ind, kind, _key, _value = toks[pos]
        if ind != indent or kind != _SEQ:
            if ind > indent:
                raise Unsupported
            break
        pos += 1
        if pos >= n:
            raise Unsupported  # `-` with nothing: null item, rare; let the full loader do it
        nxt = toks[pos]
        if nxt[2] == _SEQ + 2 and nxt[0] == no:
            out.append(_scalar_item(nxt))
            lines.append(no)
            pos += 1
            continue
        if nxt[1] <= indent:
            raise Unsupported
        child, pos = _node(toks, pos, nxt[1])
        out.append(child)
        lines.append(child.line)
    return out, pos


def _scalar_item(tok):
    v = _scalar(tok[4])
    if type(v) is YamlMap or type(v) is YamlList:
        v.line = tok[0]
    return v


def load_yaml(text: str, *, filename: str | None = None):
    """The fast reader when the text is in its subset, else `envkit._yaml.load` (same result)."""
    try:
        return load(text)
    except (Unsupported, RecursionError):
        from envkit import _yaml

        return _yaml.load(text, filename=filename)
