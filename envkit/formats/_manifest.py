"""What the manifest readers share: one requested package (`Entry`), the keys a table may hold
(an unknown one close to a known one is a typo, named with a "did you mean"), and the EnvSpec
entries an Entry becomes."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, Literal

from envkit.errors import ParseError, Where
from envkit.formats._tomllines import Path, dotted, line_of

if TYPE_CHECKING:
    from envkit.model import CondaDep, PipDep


@dataclass(frozen=True, slots=True, kw_only=True)
class Entry:
    """One package a manifest asks for.  `spec` is how envkit shows it (`numpy >=1.26`,
    `requests[socks]>=2`); `source` a path / git / url / index source when the entry has one;
    `key` the TOML key path it is written at, `line` its line."""

    manager: Literal["conda", "pypi"]
    name: str
    spec: str
    version: str | None = None
    extras: tuple[str, ...] = ()
    marker: str | None = None
    source: str | None = None
    editable: bool = False
    #: a conditional dependency's virtual-package condition (pixi's `when = "__cuda>=12"`)
    when: str | None = None
    #: a PyPI request's own index (pixi's `index = "https://..."`)
    index: str | None = None
    key: str = ""
    line: int | None = None


def check_keys(
    table: Mapping[str, Any], known: Iterable[str], path: Path, lines: dict[Path, int], filename: str | None
) -> None:
    """ParseError for a key of `table` that is not `known` but close to one (a typo: pixi and uv
    reject it too); a key far from every known one is left alone (a newer tool's key)."""
    import difflib

    known = tuple(known)
    for key in table:
        if key in known:
            continue
        close = difflib.get_close_matches(key, known, n=1, cutoff=0.75)
        if close:
            at = (*path, key)
            raise ParseError(
                f"unknown key {key!r}",
                where=Where(file=filename, line=line_of(lines, at), key=dotted(at)),
                hint=f"did you mean {close[0]!r}?",
            )


def bad(message: str, path: Path, lines: dict[Path, int], filename: str | None) -> ParseError:
    """A ParseError at `path` (file, line, key)."""
    return ParseError(message, where=Where(file=filename, line=line_of(lines, path), key=dotted(path)))


def conda_dep(e: Entry) -> CondaDep:
    """The EnvSpec entry of a conda Entry (a source-built one names the package only)."""
    from envkit.conda.matchspec import parse_spec

    text = e.spec if e.source is None else e.name
    return replace(parse_spec(text, where=Where(line=e.line, key=e.key)), line=e.line)


def pip_dep(e: Entry) -> PipDep:
    """The EnvSpec entry of a PyPI Entry."""
    from envkit.model import PipDep

    if e.source is not None:
        kind: Literal["vcs", "path", "url"] = (
            "vcs" if e.source.startswith("git+") else "url" if "://" in e.source else "path"
        )
        return PipDep(
            kind=kind, text=e.spec, name=e.name, url=e.source, editable=e.editable, raw=e.spec, line=e.line
        )
    from envkit.formats.pipreq import parse_pip_entry

    return replace(parse_pip_entry(e.spec, Where(line=e.line, key=e.key)), line=e.line)
