"""Helpers shared by the format modules: conda package file names and URLs, header comments."""

from __future__ import annotations

import re
from functools import lru_cache
from typing import TYPE_CHECKING

from envkit.errors import EnvkitError, ParseError, Where

if TYPE_CHECKING:  # pragma: no cover
    from typing import Literal, overload

    from envkit.model import Lock, LockedPackage


def split_filename(fn: str) -> tuple[str, str, str] | None:
    """`numpy-1.26.4-py311h0_0.conda` -> ("numpy", "1.26.4", "py311h0_0"); None when not a conda
    package file name."""
    if fn.endswith(".conda"):
        stem = fn[:-6]
    elif fn.endswith(".tar.bz2"):
        stem = fn[:-8]
    else:
        return None
    parts = stem.rsplit("-", 2)
    if len(parts) != 3 or not (parts[0] and parts[1] and parts[2]):
        return None
    return parts[0], parts[1], parts[2]


# a file name that cannot change how credentials are stripped from the URL it ends (no `@`, `?`,
# `&` or white space): its channel and subdir depend on the directory alone
_PLAIN_FILENAME = re.compile(r"[A-Za-z0-9_.+=!~-]*").fullmatch


def url_parts_uncached(url: str) -> tuple[str | None, str | None, tuple[str, str, str] | None]:
    """A conda package URL -> (canonical channel name, subdir, (name, version, build)); `url_parts`
    without its cache, for a caller that sees each URL once (a lock's reader)."""
    base = url.split("#", 1)[0]
    directory, _, fn = base.rpartition("/")
    if fn and _PLAIN_FILENAME(fn):
        # thousands of packages share a few directories: channel and subdir once per directory
        chan, subdir = _directory_parts(directory)
        return chan, subdir, split_filename(fn)
    fn = base.rstrip("/").rpartition("/")[2]
    return (*_channel_parts(base), split_filename(fn))


#: `url_parts_uncached`, remembered (explicit files, diffs and checks ask about one URL many times)
url_parts = lru_cache(maxsize=65536)(url_parts_uncached)


@lru_cache(maxsize=4096)
def _directory_parts(directory: str) -> tuple[str | None, str | None]:
    """(channel, subdir) of any package file directly in `directory` (see `url_parts`)."""
    return _channel_parts(directory + "/x")


def _channel_parts(url: str) -> tuple[str | None, str | None]:
    from envkit.conda.channels import channel_of_url

    try:
        channel, subdir = channel_of_url(url)
        return channel.name or None, subdir
    except Exception:  # an odd URL is not a reason to refuse a lock
        return None, None


def comment_block(text: str) -> str:
    """A header string -> `# ...` lines (each line of `text` prefixed with `# ` unless it already is a
    comment), ending with a newline."""
    out = [(line if line.startswith("#") else "# " + line).rstrip() for line in text.splitlines()]
    return "\n".join(out) + "\n" if out else ""


def leading_comments(text: str) -> str | None:
    """The comment block a file starts with (its `#` lines before the first other line), or None."""
    out = []
    for line in text.splitlines():
        s = line.strip()
        if s.startswith("#"):
            out.append(s)
        elif s:
            break
        elif out:
            out.append("#")
    while out and out[-1] == "#":
        out.pop()
    return "\n".join(out) if out else None


def need_mapping(data, what: str, where: Where):
    if not isinstance(data, dict):
        raise ParseError(f"{what} must be a mapping, got {type_name(data)}", where=where)
    return data


def need_list(data, what: str, where: Where):
    if not isinstance(data, list):
        raise ParseError(f"{what} must be a list, got {type_name(data)}", where=where)
    return data


def type_name(value) -> str:
    if value is None:
        return "nothing"
    if isinstance(value, dict):
        return "a mapping"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, str):
        return f"text {value!r}"
    return f"{type(value).__name__} {value!r}"


def lock_version(value: object) -> int | None:
    """The version number a lock file's `version:` holds, or None when it holds no version.

    Only an int is a version: YAML reads `version: true` as True, which Python takes for 1 (`True == 1`,
    `True in (1, 2)`), and text such as `"1"` is not what a lock tool writes."""
    return value if type(value) is int else None


def to_json(value) -> str:
    """Canonical JSON text of a YAML value (for keeping unknown keys in a model)."""
    import json  # here: a small file seldom needs it

    return json.dumps(value, sort_keys=False, ensure_ascii=False, separators=(",", ":"), default=str)


def int_too_long(value: int) -> bool:
    """Whether `value` has more decimal digits than Python converts to or from text
    (sys.get_int_max_str_digits()): a YAML hex or base-60 number reads as one, then no writer can
    print it."""
    import sys

    limit = sys.get_int_max_str_digits()
    # fewer than 3 bits a digit: certainly within the limit, without building 10**limit
    return limit > 0 and value.bit_length() > 3 * limit and abs(value) >= 10**limit


def long_int_error(where: Where, error: type[EnvkitError] = ParseError) -> EnvkitError:
    """The error (`error`) for an integer of more digits than Python reads (`int_too_long`), at `where`."""
    import sys

    return error(
        f"an integer of more than {sys.get_int_max_str_digits()} digits; refused",
        where=where,
        hint="no environment file or lock holds a number that long; quote it if it is text",
    )


# a JSON or TOML number (its sign, digits, fraction, exponent), after what may hold digits without
# being one: strings and comments (envkit.formats._depth's)
_NUMBER = r"(?<![\w.+-])[+-]?[0-9][0-9_]*(\.[0-9_]+)?([eE][+-]?[0-9_]+)?"


def refuse_long_int(text: str, filename: str | None, error: type[EnvkitError] = ParseError) -> None:
    """Raise `long_int_error` at the line of the first integer in JSON or TOML `text` with more
    digits than Python reads (their parsers' int() says only that one has); return when there is none."""
    import sys

    from envkit.formats._depth import _SKIP

    limit = sys.get_int_max_str_digits()
    for m in re.finditer(rf"{_SKIP}|{_NUMBER}", text):
        token = m.group()
        if len(token) > limit and m.group(1) is None and m.group(2) is None and token[0] not in "\"'#":
            if sum(c.isdigit() for c in token) > limit:
                line = text.count("\n", 0, m.start()) + 1
                raise long_int_error(Where(file=filename, line=line), error) from None


class Fields:
    """A mapping read from a file, with typed lookups whose errors name the file, the line and the key
    path (`package[3].platform`).  Works on YamlMap (lines known) and plain dicts (JSON: no lines).

    Text fields accept what YAML may have typed as a number (`version: 1.0`) and give it as text;
    booleans, lists and mappings where text belongs are errors.
    """

    __slots__ = ("data", "file", "path", "line")

    def __init__(
        self, data, file: str | None, path: str, line: int | None = None, what: str | None = None
    ) -> None:
        if not isinstance(data, dict):
            raise ParseError(
                f"{what or _label(path)} must be a mapping, got {type_name(data)}",
                where=Where(file=file, line=line or _line(data), key=path or None),
            )
        self.data = data
        self.file = file
        self.path = path
        self.line = _line(data) or line

    def key(self, key: str) -> str:
        return f"{self.path}.{key}" if self.path else key

    def where(self, key: str | None = None) -> Where:
        line = None
        if key is not None and hasattr(self.data, "line_of"):
            line = self.data.line_of(key)
        return Where(file=self.file, line=line or self.line, key=self.key(key) if key else self.path or None)

    def __contains__(self, key: str) -> bool:
        return key in self.data

    def get(self, key: str, default=None):
        return self.data.get(key, default)

    def missing(self, key: str, what: str | None = None) -> ParseError:
        return ParseError(f"{what or _label(self.path)} has no `{key}:`", where=self.where())

    if TYPE_CHECKING:  # pragma: no cover

        @overload
        def text(self, key: str, *, required: Literal[True], what: str | None = None) -> str: ...

        @overload
        def text(self, key: str, *, required: bool = False, what: str | None = None) -> str | None: ...

    def text(self, key: str, *, required: bool = False, what: str | None = None) -> str | None:
        """The text of `key`; None when absent or null (an error when `required`)."""
        value = self.data.get(key)
        if type(value) is str:
            return value
        if value is None:
            if required:
                raise self.missing(key, what)
            return None
        return as_text(value, f"`{key}:`", self.where(key))

    def mapping(self, key: str) -> Fields:
        """`key`'s mapping as Fields (an empty one when absent or null)."""
        value = self.data.get(key)
        if value is None:
            return Fields({}, self.file, self.key(key), line=self.where(key).line)
        return Fields(value, self.file, self.key(key), line=self.where(key).line, what=f"`{key}:`")

    def items(self, key: str) -> list[tuple[int, object, Where]]:
        """(index, item, where) for each item of the list at `key` (none when absent or null)."""
        value = self.data.get(key)
        if value is None:
            return []
        where = self.where(key)
        need_list(value, f"`{key}:`", where)
        path = self.key(key)
        line_of = getattr(value, "line_of", None)
        return [
            (
                i,
                v,
                Where(
                    file=self.file, line=(line_of(i) if line_of else None) or where.line, key=f"{path}[{i}]"
                ),
            )
            for i, v in enumerate(value)
        ]

    def texts(self, key: str) -> list[str]:
        """The list of text at `key` (empty when absent or null)."""
        value = self.data.get(key)
        if isinstance(value, list) and all(type(v) is str for v in value):
            return list(value)
        return [as_text(v, f"an item of `{key}:`", w) for _i, v, w in self.items(key)]

    def flag(self, key: str, default: bool = False) -> bool:
        value = self.data.get(key)
        if value is None:
            return default
        if not isinstance(value, bool):
            raise ParseError(f"`{key}:` must be true or false, got {type_name(value)}", where=self.where(key))
        return value

    def integer(self, key: str) -> int | None:
        value = self.data.get(key)
        if value is None:
            return None
        if isinstance(value, bool) or not isinstance(value, int):
            if isinstance(value, str) and value.strip().isdigit():
                return int(value)
            raise ParseError(
                f"`{key}:` must be a whole number, got {type_name(value)}", where=self.where(key)
            )
        return value


def as_text(value, what: str, where: Where) -> str:
    """`value` as text: strings as they are, numbers as YAML wrote them; else ParseError."""
    if isinstance(value, str):
        return value
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return str(value)
    raise ParseError(f"{what} must be text, got {type_name(value)}", where=where)


def _line(data) -> int | None:
    return getattr(data, "line", None) or None


def _label(path: str) -> str:
    return f"`{path}`" if path else "the document"


# --------------------------------------------------------------------------------------------
# YAML writing


def pip_packages_for(lock: Lock, platform: str | None) -> tuple[LockedPackage, ...]:
    """The pip packages of `lock` to write as one pip lock.

    A lock with several platforms needs `platform` unless every platform locks the same pip set."""
    from envkit.errors import Remedy, UsageError

    pip = [p for p in lock.packages if p.manager == "pip"]
    plats = tuple(dict.fromkeys(p.platform for p in pip if p.platform))
    if platform is None and len(plats) > 1:
        sets = {tuple((p.name, p.version, p.url) for p in pip if p.platform == pl) for pl in plats}
        if len(sets) > 1:
            raise UsageError(
                f"the lock's pip packages differ between platforms ({', '.join(plats)}); "
                "a pylock.toml written by envkit holds one set",
                hint="choose one with {}",
                remedy=Remedy(option="platform"),
            )
        platform = plats[0]
    if platform is not None:
        pip = [p for p in pip if p.platform in (platform, None)]
    return tuple(pip)


# The YAML scalar writer (escapes what a YAML file cannot hold raw); keys are written as values are.
from envkit.formats._yamlcore import scalar as yscalar  # noqa: E402


def block_yaml(key: str, value, indent: str = "", seq_indent: str = "") -> list[str]:
    """`key: value` (a JSON-like value) as block-style YAML lines that read back as the same value.

    Mappings nest two spaces deeper; sequence items are `seq_indent` deeper than their key (conda-lock
    writes them level with the key, environment.yml files two spaces in)."""
    if isinstance(value, (dict, list)) and value:
        inner = indent + ("  " if isinstance(value, dict) else seq_indent)
        return [f"{indent}{yscalar(str(key))}:"] + _block_body(value, inner, seq_indent)
    return [f"{indent}{yscalar(str(key))}: {yaml_leaf(value)}"]


def _block_body(value, indent: str, seq_indent: str) -> list[str]:
    if isinstance(value, dict):
        out: list[str] = []
        for k, v in value.items():
            out += block_yaml(k, v, indent, seq_indent)
        return out
    out = []
    for v in value:
        if isinstance(v, dict) and v:
            sub = _block_body(v, indent + "  ", seq_indent)
            out += [f"{indent}- {sub[0].lstrip()}"] + sub[1:]
        elif isinstance(v, list) and v:
            out += [f"{indent}-"] + _block_body(v, indent + "  ", seq_indent)
        else:
            out.append(f"{indent}- {yaml_leaf(v)}")
    return out


def yaml_leaf(value) -> str:
    """A scalar (or empty collection) as YAML text that reads back as the same value."""
    if isinstance(value, str):
        return yscalar(value)
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, dict):
        return "{}"
    if isinstance(value, list):
        return "[]"
    if isinstance(value, float):
        # YAML 1.1 reads a float only with a dot (1e+20 would be text) and spells inf/nan its own way
        if value != value:
            return ".nan"
        if value in (float("inf"), float("-inf")):
            return ".inf" if value > 0 else "-.inf"
        text = repr(value)
        if "." not in text:
            mant, e, exp = text.partition("e")
            text = f"{mant}.0{e}{exp}"
        return text
    if value is None:
        return "null"
    if isinstance(value, int):
        return int.__repr__(value)  # as json.dumps writes it
    import json

    return json.dumps(value)


def read_channels(fields, filename: str | None) -> list:
    """The channels listed under `channels` of a lock's Fields (conda-lock's `metadata.channels`, a pixi
    environment's `channels`): each a name/URL or a `{url: ...}` mapping, parsed in order."""
    from envkit.conda.channels import parse_channel

    channels = []
    for _i, c, where in fields.items("channels"):
        if isinstance(c, dict):
            chan = Fields(c, filename, where.key, line=where.line, what="a channel")
            url = chan.text("url", required=True, what="a channel")
        else:
            url = as_text(c, "a channel", where)
        if not url.strip():
            raise ParseError("a channel must be a name or URL, got empty text", where=where)
        channels.append(parse_channel(url))
    return channels
