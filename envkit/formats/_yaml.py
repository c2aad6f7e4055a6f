"""Safe, fast YAML loading with line numbers (the scalar emitter is in envkit.formats._yamlcore).

Why not `yaml.safe_load`: PyYAML silently keeps the last of two equal keys (a second
`dependencies:` would hide the first), forgets where things were, and lets an alias bomb expand
into a graph that costs minutes and gigabytes to walk.  This loader uses libyaml's C parser and
composer when present, then builds plain Python values itself:

* mappings are `YamlMap` (a dict with `.line` and `.lines[key]`), sequences `YamlList` (a list with
  `.line` and `.lines[i]`), lines 1-based;
* a key given twice is a ParseError naming both lines;
* only the standard tags are accepted (no `!!python/...`); timestamps stay strings;
* aliases are allowed, but a document that would expand beyond MAX_NODES values, or beyond
  MAX_EXPANDED_CHARS characters of text, is refused before any expansion happens (a
  billion-laughs file is rejected in milliseconds);
* nesting deeper than MAX_DEPTH is refused.
"""

from __future__ import annotations

import sys

from envkit.errors import ParseError, Where, clip
from envkit.formats._depth import MAX_DEPTH
from envkit.formats._util import int_too_long, long_int_error

# what the fast reader and the writers share lives in _yamlcore (no YAML engine); YamlMap,
# YamlList and scalar are this module's too
from envkit.formats._yamlcore import _STR, MAX_NODES, check_lines
from envkit.formats._yamlcore import YamlList as YamlList
from envkit.formats._yamlcore import YamlMap as YamlMap
from envkit.formats._yamlcore import scalar as scalar

#: Most characters of scalar text a document may expand to with its aliases resolved: as much as
#: the largest file envkit reads (64 MiB) could hold without aliases.  One 1 MB string aliased 1,000
#: times is few values but a gigabyte for whatever writes it out.
MAX_EXPANDED_CHARS = 64 * 1024 * 1024
#: Above this size the nodes are counted from libyaml's event stream (constant memory, about a fifth
#: of the cost of building them) before any node is built: composing an 8 MiB flow list of 4 million
#: items costs tens of seconds and gigabytes before a node count can refuse it; 64 MiB exhausts memory.
PRECOUNT_BYTES = 1 << 20

_MAP = "tag:yaml.org,2002:map"
_SEQ = "tag:yaml.org,2002:seq"
_MERGE = "tag:yaml.org,2002:merge"
_INT = "tag:yaml.org,2002:int"
_FLOAT = "tag:yaml.org,2002:float"


def _loader_class():
    import yaml

    return getattr(yaml, "CSafeLoader", None) or yaml.SafeLoader


def load(text: str, *, filename: str | None = None, numbers: list | None = None):
    """Parse one YAML document from `text` and return plain Python values (YamlMap/YamlList/str/...).

    `numbers`, when a list, receives (line, source text, value) for each plain scalar YAML read as
    a number that does not print as written (`3.10` is the float 3.1, `010` the int 8): the values
    no longer say where they came from, and a reader that turns them into text gets '3.1'.

    Raises ParseError (with file and line) for malformed YAML, duplicate keys, unsupported tags,
    documents that expand too much, and multi-document streams.
    """
    check_lines(text, filename=filename)
    if len(text) > PRECOUNT_BYTES:
        _refuse_if_too_many_nodes(text, filename)
    node = _compose(text, filename)
    if node is None:
        return None
    builder = _Builder(filename, numbers)
    builder.refuse_expansion(node)
    return builder.build(node, 0)


def _compose(text: str, filename: str | None):
    """libyaml's node graph of the one document in `text` (None when empty); ParseError naming the
    file and line for anything it cannot parse."""
    import yaml

    try:
        loader = _loader_class()(text)
    except UnicodeEncodeError as exc:  # a lone surrogate: only reachable from a str, never a file
        line: int | None = text.count("\n", 0, exc.start) + 1
        raise ParseError(
            f"invalid text: a lone surrogate U+{ord(text[exc.start]):04X} is not a character",
            where=Where(file=filename, line=line),
        ) from None
    try:
        return loader.get_single_node()
    except yaml.reader.ReaderError as exc:
        # libyaml reports a character offset: turn it into a line
        line = text.count("\n", 0, exc.position) + 1 if exc.position is not None else None
        char = exc.character if isinstance(exc.character, int) else ord(str(exc.character)[:1] or "\0")
        raise ParseError(
            f"invalid YAML: character U+{char:04X} is not allowed in a YAML file",
            where=Where(file=filename, line=line),
            text=_line_text(text, line),
        ) from None
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line = mark.line + 1 if mark is not None else None
        problem = exc.problem or exc.context or "invalid YAML"
        bad = _line_text(text, line)
        raise ParseError(
            f"invalid YAML: {problem}", where=Where(file=filename, line=line), text=bad
        ) from None
    except yaml.YAMLError as exc:
        raise ParseError(f"invalid YAML: {exc}", where=Where(file=filename)) from None
    finally:
        loader.dispose()


def _refuse_if_too_many_nodes(text: str, filename: str | None) -> None:
    """Raise ParseError when `text` has more than MAX_NODES nodes (aliases counted once), counting
    libyaml's events without building anything; stop counting at the limit.  Malformed YAML is left
    to the real load, which reports it properly."""
    import yaml

    node_events = (yaml.ScalarEvent, yaml.AliasEvent, yaml.SequenceStartEvent, yaml.MappingStartEvent)
    try:
        loader = _loader_class()(text)
    except UnicodeEncodeError:
        return
    n = 0
    try:
        check, get = loader.check_event, loader.get_event
        while check():
            if type(get()) in node_events:
                n += 1
                if n > MAX_NODES:
                    raise ParseError(
                        f"YAML document has more than {MAX_NODES:,} values; refused",
                        where=Where(file=filename),
                        hint="envkit reads environment files and locks, not data dumps",
                    )
    except yaml.YAMLError:
        return
    finally:
        loader.dispose()


def _line_text(text: str, line: int | None) -> str | None:
    if not line:
        return None
    lines = text.splitlines()
    if 0 < line <= len(lines):
        return lines[line - 1].strip() or None
    return None


class _Builder:
    __slots__ = ("filename", "_built", "_scalar", "numbers")

    def __init__(self, filename: str | None, numbers: list | None) -> None:
        import yaml

        self.filename = filename
        self.numbers = numbers
        self._built: dict[int, object] = {}
        ctor = yaml.SafeLoader("")  # only its scalar constructors are used
        self._scalar = {
            "tag:yaml.org,2002:null": lambda n: None,
            "tag:yaml.org,2002:bool": ctor.construct_yaml_bool,
            "tag:yaml.org,2002:int": ctor.construct_yaml_int,
            "tag:yaml.org,2002:float": ctor.construct_yaml_float,
            "tag:yaml.org,2002:timestamp": lambda n: n.value,
            "tag:yaml.org,2002:binary": lambda n: n.value,
        }

    def expanded_size(self, root) -> tuple[int, int]:
        """(values, characters of scalar text) the document has once every alias is expanded
        (memoized, linear; each count stops growing past its limit).  Raises ParseError for an
        alias inside the collection it names (`a: &x [*x]`), which no expansion ends."""
        sizes: dict[int, int] = {}
        chars: dict[int, int] = {}
        open_: set[int] = set()  # the collections being counted: the path from the root
        stack = [(root, False)]
        while stack:
            node, done = stack.pop()
            nid = id(node)
            if nid in sizes:
                continue
            kind = node.id
            if kind == "scalar":
                sizes[nid] = 1
                chars[nid] = len(node.value)
                continue
            children = [c for kv in node.value for c in kv] if kind == "mapping" else node.value
            if done:
                open_.discard(nid)
                total = 1
                text = 0
                for c in children:
                    cid = id(c)
                    total += sizes.get(cid, 1)
                    text += chars.get(cid, 0)
                    if total > MAX_NODES or text > MAX_EXPANDED_CHARS:
                        break
                sizes[nid] = total
                chars[nid] = text
                continue
            if nid in open_:
                raise ParseError(
                    f"YAML alias refers to the {kind} that holds it, which would never end; refused",
                    where=self._where(node),
                    hint="write the values out instead of the alias",
                )
            open_.add(nid)
            stack.append((node, True))
            for c in children:
                if id(c) not in sizes:
                    stack.append((c, False))
        return sizes[id(root)], chars[id(root)]

    def refuse_expansion(self, root) -> None:
        """ParseError when the document expands, aliases resolved, beyond MAX_NODES values or
        MAX_EXPANDED_CHARS characters of text."""
        size, chars = self.expanded_size(root)
        where = Where(file=self.filename, line=root.start_mark.line + 1)
        if size > MAX_NODES:
            raise ParseError(
                f"YAML document expands to more than {MAX_NODES:,} values (alias bomb?); refused", where=where
            )
        if chars > MAX_EXPANDED_CHARS:
            raise ParseError(
                f"YAML document expands to more than {MAX_EXPANDED_CHARS // 2**20} MiB of text through its "
                f"aliases (alias bomb?); refused",
                where=where,
                hint="write the repeated values out, or use fewer aliases of long text",
            )

    def _where(self, node, key: str | None = None) -> Where:
        return Where(file=self.filename, line=node.start_mark.line + 1, key=key)

    def build(self, node, depth: int):
        kind = node.id
        if kind == "scalar":
            tag = node.tag
            if tag == _STR:
                return node.value
            fn = self._scalar.get(tag)
            if fn is None:
                raise ParseError(
                    f"unsupported YAML tag {tag!r}",
                    where=self._where(node),
                    hint="envkit reads plain YAML only; remove the tag",
                )
            value = self._construct(fn, node)
            if self.numbers is not None and tag in (_INT, _FLOAT) and str(value) != node.value:
                self.numbers.append((node.start_mark.line + 1, node.value, value))
            return value
        if depth >= MAX_DEPTH:
            raise ParseError(
                f"YAML nested more than {MAX_DEPTH} levels deep; refused", where=self._where(node)
            )
        nid = id(node)
        if nid in self._built:  # an alias: share the value, like PyYAML
            return self._built[nid]
        if kind == "sequence":
            return self._sequence(node, depth)
        return self._mapping(node, depth)

    def _construct(self, fn, node):
        """The value `fn`, PyYAML's constructor of `node`'s tag, reads from it; ParseError for an
        explicit tag on text that is not of its type (`!!int abc`), and for an integer of more digits
        than Python converts to or from text (int() refuses the decimal ones, str() any other)."""
        try:
            value = fn(node)
        except (ValueError, KeyError):  # KeyError: `!!bool` on a word that is not one
            limit = sys.get_int_max_str_digits()
            if node.tag == _INT and limit and sum(c.isdigit() for c in node.value) > limit:
                raise long_int_error(self._where(node)) from None
            kind = node.tag.rsplit(":", 1)[-1]
            raise ParseError(
                f"YAML {kind} {clip(node.value)!r} is not a valid {kind}", where=self._where(node)
            ) from None
        if type(value) is int and int_too_long(value):
            raise long_int_error(self._where(node))
        return value

    def _sequence(self, node, depth: int) -> YamlList:
        out = self._start(node, _SEQ, YamlList())
        lines = out.lines
        for item in node.value:
            out.append(self.build(item, depth + 1))
            lines.append(item.start_mark.line + 1)
        return out

    def _mapping(self, node, depth: int) -> YamlMap:
        out = self._start(node, _MAP, YamlMap())
        lines: dict = {}
        out.lines = lines
        for knode, vnode in node.value:
            if knode.tag == _MERGE:
                self._merge(out, lines, vnode, depth)
                continue
            if knode.id != "scalar":
                raise ParseError("a mapping key must be a plain value", where=self._where(knode))
            key = self.build(knode, depth + 1)
            kline = knode.start_mark.line + 1
            if key in lines:
                raise ParseError(
                    f"duplicate key {key!r}: first at line {lines[key]}, again at line {kline}",
                    where=self._where(knode, str(key)),
                    hint="YAML keeps only one of them; merge the two into one key",
                )
            out[key] = self.build(vnode, depth + 1)
            lines[key] = kline
        return out

    def _start(self, node, tag: str, out):
        """`out`, the empty collection `node` becomes, registered for the aliases of `node`
        (ParseError for a tag other than the standard `tag`)."""
        if node.tag != tag:
            raise ParseError(f"unsupported YAML tag {node.tag!r}", where=self._where(node))
        out.line = node.start_mark.line + 1
        self._built[id(node)] = out
        return out

    def _merge(self, out: YamlMap, lines: dict, vnode, depth: int) -> None:
        sources = vnode.value if vnode.id == "sequence" else [vnode]
        for src in sources:
            if src.id != "mapping":
                raise ParseError("a YAML merge key (<<) needs a mapping", where=self._where(src))
            value = self.build(src, depth + 1)
            for k, v in value.items():
                if k not in lines:
                    out[k] = v
                    lines[k] = value.line_of(k) or out.line
