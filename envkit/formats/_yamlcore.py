"""What every YAML reader and writer of envkit shares, without the YAML engine: the line-aware
`YamlMap`/`YamlList` values, the line limit, YAML 1.1's implicit non-string scalars, and the scalar
emitter.  The fast reader (envkit.formats._fastyaml) and the writers import only this;
envkit.formats._yaml, the libyaml loader, is imported when a document needs it (start-up pays only
for what a command uses).
"""

from __future__ import annotations

import re
from functools import cache, lru_cache
from typing import TYPE_CHECKING

from envkit.errors import ParseError, Where

if TYPE_CHECKING:  # pragma: no cover
    from typing import Any

#: Most values (and lines) a document may have; see envkit.formats._yaml.
MAX_NODES = 2_000_000

_STR = "tag:yaml.org,2002:str"
# YAML 1.1 implicit types (PyYAML's resolver): a plain scalar matching one of these is not a string.
_NOT_STR = (
    r"(?:yes|Yes|YES|no|No|NO|true|True|TRUE|false|False|FALSE|on|On|ON|off|Off|OFF"
    r"|~|null|Null|NULL|<<|="
    r"|[-+]?(?:[0-9][0-9_]*)\.[0-9_]*(?:[eE][-+][0-9]+)?|\.[0-9_]+(?:[eE][-+][0-9]+)?"
    r"|[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+\.[0-9_]*|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN)"
    r"|[-+]?0b[0-1_]+|[-+]?0[0-7_]+|[-+]?(?:0|[1-9][0-9_]*)|[-+]?0x[0-9a-fA-F_]+"
    r"|[-+]?[1-9][0-9_]*(?::[0-5]?[0-9])+"
    r"|[0-9][0-9][0-9][0-9]-[0-9][0-9]?-[0-9][0-9]?.*)"
)
# the first characters of what _NOT_STR matches: a plain scalar starting otherwise is text
_NOT_STR_FIRST = frozenset("yYnNtTfFoO~<=+-.0123456789")
#: what _NOT_STR matches that starts with a letter: YAML 1.1's bool and null words (a set lookup,
#: so that a small file's `name:` and `numpy` need no compiled _NOT_STR)
_BOOL_NULL = frozenset(
    "yes Yes YES no No NO true True TRUE false False FALSE on On ON off Off OFF null Null NULL".split()
)


def implicit(value: str) -> bool:
    """Whether the plain scalar `value` (not empty) is not text but one of YAML 1.1's implicit
    types (a bool, null, number, date, `~`, `<<`, `=`): `_NOT_STR.fullmatch(value)`."""
    c = value[0]
    if c not in _NOT_STR_FIRST:
        return False
    if c.isalpha():
        return value in _BOOL_NULL
    if c in "+-" and value[1:2] not in _AFTER_SIGN:  # (`-e git+...`, `--index-url`: text)
        return False
    return _not_str().fullmatch(value) is not None


@cache
def _not_str() -> re.Pattern[str]:
    """_NOT_STR compiled, when a value first needs it (a small file's values rarely do)."""
    return re.compile(_NOT_STR)


#: what follows a sign in every signed form _NOT_STR matches (a number, `.inf`)
_AFTER_SIGN = frozenset("0123456789.")


class YamlMap(dict):
    """A dict that remembers the line of each key (`lines`) and of itself (`line`).  `lines` is None
    for a map of one key on the map's own line (a `- key: value` item, as the fast reader makes
    it): ask `line_of`."""

    __slots__ = ("line", "lines")

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.line = 0
        self.lines: dict | None = {}

    def line_of(self, key, default: int | None = None) -> int | None:
        if self.lines is None:
            return self.line if key in self else default or self.line or None
        return self.lines.get(key, default or self.line or None)


class YamlList(list):
    """A list that remembers the line of each item (`lines`) and of itself (`line`)."""

    __slots__ = ("line", "lines")

    def __init__(self, *args: Any) -> None:
        super().__init__(*args)
        self.line = 0
        self.lines: list[int] = []

    def line_of(self, index: int) -> int | None:
        if 0 <= index < len(self.lines):
            return self.lines[index]
        return self.line or None


def check_lines(text: str, *, filename: str | None = None) -> None:
    """Raise ParseError when `text` has more than MAX_NODES lines: refused at once (a count of line
    breaks, needed only in a text longer than the limit), before any reader spends time and memory on it."""
    if len(text) > MAX_NODES and text.count("\n") > MAX_NODES:
        raise ParseError(
            f"YAML document has more than {MAX_NODES:,} lines; refused",
            where=Where(file=filename),
            hint="envkit reads environment files and locks, not data dumps",
        )


# --------------------------------------------------------------------------------------------
# Emitting

_PLAIN_OK = re.compile(r"[A-Za-z0-9_./+=<>!~*()$^-][A-Za-z0-9_./+=<>!~*()$^@,:;?#%&\[\] '\"-]*")
_PLAIN_BAD_START = ("- ", "? ", ": ", "---", "...")


#: Characters a YAML file cannot hold raw (C1 controls, DEL, line/paragraph separators,
#: noncharacters): written as \\u escapes inside double quotes.
_RAW_UNSAFE = "[\x7f-\x9f\u2028\u2029\ud800-\udfff\ufffe\uffff]"


@lru_cache(maxsize=65536)
def scalar(value: str) -> str:
    """Return `value` as a YAML scalar: plain when it reads back as the same string, else double-quoted
    with JSON escapes (which are YAML escapes), so that what envkit writes always reads back as the
    same string.

    Raises ParseError for a lone surrogate, which no YAML (or UTF-8) file can hold at all.
    """
    if _plain_safe(value):
        return value
    import json  # here: most values are plain, and a small file never needs it

    out = json.dumps(value, ensure_ascii=False)
    if out.isascii() and "\x7f" not in out:
        return out
    if re.search(_RAW_UNSAFE, out) is None:
        return out
    bad = re.search("[\ud800-\udfff]", value)
    if bad is not None:
        shown = value.encode("utf-8", "backslashreplace").decode()
        raise ParseError(
            f"text {shown!r} holds a lone surrogate (U+{ord(bad.group()):04X}), which no YAML file can hold"
        )
    return re.sub(_RAW_UNSAFE, lambda m: f"\\u{ord(m.group()):04x}", out)


#: A line (of values joined by line breaks) that `scalar` writes as it is, for certain, found in C: a
#: word of letters, digits and `_./+=<>!~*,:-` starting with a letter or `_` (never a number, date
#: or `~`), not ending in `:`, and not one of YAML 1.1's bool/null words (those are letters only, at
#: most 5: a non-letter or a 6th character rules them out).  What a match spec is written as.
_NOT_CERTAIN = re.compile(
    r"\n(?![A-Za-z_](?=[^\n]*[^A-Za-z\n]|[^\n]{5})[A-Za-z0-9_./+=<>!~*,:-]*+(?<!:)(?:\n|\Z))"
)


def scalars(values: list[str]) -> list[str]:
    """`[scalar(v) for v in values]`, the values written plain for certain found in one scan (a
    100,000-entry file's match specs are written without a call per entry)."""
    joined = "\n" + "\n".join(values)
    if joined.count("\n") != len(values):  # a value holds a line break
        return [scalar(v) for v in values]
    out = list(values)
    i = pos = 0
    for m in _NOT_CERTAIN.finditer(joined):
        i += joined.count("\n", pos, m.start())  # the value after this line break (counted on: linear)
        pos = m.start()
        out[i] = scalar(values[i])
    return out


def _plain_safe(value: str) -> bool:
    if not value or value != value.strip() or _PLAIN_OK.fullmatch(value) is None:
        return False
    if value.startswith(_PLAIN_BAD_START) or value.endswith(":"):
        return False
    if ": " in value or " #" in value or value[0] in "[]{},&*!|>'\"%@`":
        return False
    if value[0] in "!*" or value.startswith(("-", "?", ":")) and (len(value) == 1 or value[1] == " "):
        return False
    # would it resolve to a non-string (true, 1.0, null, 0x1f, 2020-01-01, ~)?
    return _resolves_to_str(value)


@lru_cache(maxsize=65536)
def _resolves_to_str(value: str) -> bool:
    # the fast reader's superset of PyYAML's implicit resolvers: what it does not match is a string
    # (tests/formats/test_yaml_scalar_fast.py), so most values need no YAML engine; the rest ask PyYAML
    if not implicit(value):
        return True
    import yaml

    tag = yaml.resolver.Resolver().resolve(yaml.ScalarNode, value, (True, False))
    return tag == _STR
