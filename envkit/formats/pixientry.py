"""The fields of one entry of pixi.lock's `packages:` list (versions 4 to 7), and the helpers the
readers of every pixi.lock version share (envkit.formats.pixilock, envkit.formats.pixilegacy).

An entry names its package file (`conda: URL`), a conda package pixi builds from source
(`conda_source: NAME[ID] @ LOCATION`, version 7) or a PyPI artifact (`pypi: URL or path`).  Name,
version and build of a conda package come from its file name unless the entry states them.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import TYPE_CHECKING, cast

from envkit.errors import ParseError
from envkit.formats._digest import DIGESTS, HEX32, HEX64
from envkit.formats._util import Fields, url_parts
from envkit.formats._yamlcore import YamlList, YamlMap
from envkit.model import split_depend

if TYPE_CHECKING:
    #: where a `packages:` entry is: (file, its index, its line); a reader makes a Where of it only
    #: when it has something to say about the entry
    At = tuple[str | None, int, int | None]


#: what a `packages:` entry or reference names its location with: a conda archive, a conda package
#: built from source (pixi-build, version 7: `conda_source: NAME[ID] @ PATH`), a PyPI artifact
KINDS = ("conda", "conda_source", "pypi")


def required(fields: Fields, key: str, what: str) -> str:
    """The text of `key`, which must be there (Fields.text raises ParseError when it is not)."""
    return cast(str, fields.text(key, required=True, what=what))


def checked_hash(fields, key: str) -> str | None:
    """The `md5:` / `sha256:` of an entry, checked: hex digits of the length the hash has (an
    unquoted hash of digits only is a YAML number, and no hash at all)."""
    value = fields.data.get(key)
    if value is None:
        return None
    pattern, n = DIGESTS[key]
    if type(value) is str and pattern.fullmatch(value):
        return value
    if value == 0 and type(value) is int:  # the placeholder of zeros, unquoted: YAML's number 0
        return "0" * n
    raise ParseError(
        f"`{key}:` must be {n} hex digits, got {value!r}",
        where=fields.where(key),
        hint="quote a hash written by hand: YAML reads one of digits only as a number",
    )


def entry_fields(entry, at: At) -> Fields:
    """The entry at `at` as Fields (its key `packages[i]`)."""
    file, i, line = at
    return Fields(entry, file, f"packages[{i}]", line=line, what="a package entry")


#: the types of a collection of text only: `{*map(type, items)} == ONLY_STR` checks them in C
ONLY_STR = {str}


def conda_fields(entry, loc: str, at: At) -> tuple:
    """(name, version, build, build_number, channel, subdir, md5, sha256, depends) of a conda entry;
    name, version and build come from the file name unless the entry states them."""
    chan, subdir, nvb = url_parts(loc)
    if nvb is not None and type(entry) is YamlMap:
        # the fast path: the shape pixi writes (name etc. from the file name, plain types)
        get = entry.get
        name, version, build, bn = get("name"), get("version"), get("build"), get("build_number")
        sub, md5, sha256, deps = get("subdir"), get("md5"), get("sha256"), get("depends")
        if (
            (name is None or type(name) is str)
            and (version is None or type(version) is str)
            and (build is None or type(build) is str)
            and (bn is None or type(bn) is int)
            and (sub is None or type(sub) is str)
            and (md5 is None or (type(md5) is str and HEX32.fullmatch(md5) is not None))
            and (sha256 is None or (type(sha256) is str and HEX64.fullmatch(sha256) is not None))
            and (deps is None or type(deps) is YamlList)
        ):
            depends: tuple[tuple[str, str], ...] = ()
            if deps and {*map(type, deps)} == ONLY_STR:  # (the types, in C)
                depends = tuple(map(_split_text, deps))
            if len(depends) == len(deps or ()):
                return (
                    name or nvb[0],
                    version or nvb[1],
                    build or nvb[2],
                    bn or 0,
                    chan,
                    sub or subdir or None,
                    md5,
                    sha256,
                    depends,
                )
    p = entry_fields(entry, at)
    name = p.text("name") or (nvb[0] if nvb else None)
    version = p.text("version") or (nvb[1] if nvb else None)
    build = p.text("build") or (nvb[2] if nvb else None)
    if name is None or version is None:
        raise ParseError(
            f"cannot tell name and version of {loc!r}",
            where=p.where("conda"),
            hint="the entry needs `name:` and `version:`, or a conda package file name",
        )
    depends = tuple(split_depend(d) for d in p.texts("depends"))
    sub = p.text("subdir") or subdir
    return (
        name,
        version,
        build,
        p.integer("build_number") or 0,
        chan,
        sub or None,
        checked_hash(p, "md5"),
        checked_hash(p, "sha256"),
        depends,
    )


#: `conda_source:` of a version 7 entry: the package name, the id of its build variant, the path or
#: URL of the source (https://pixi.sh/latest/build/getting_started/)
_SOURCE = re.compile(r"([^\s\[@]+)(?:\[[^\]\s]*\])?\s+@\s+(\S.*)")


def source_fields(entry, loc: str, at: At) -> tuple:
    """conda_fields of a `conda_source:` entry (a package pixi builds from source: no archive, so
    no URL and no hash, and no version until it is built), then the source's location."""
    p = entry_fields(entry, at)
    m = _SOURCE.fullmatch(loc.strip())
    if m is None:
        raise ParseError(
            f"`conda_source:` must be `NAME[ID] @ LOCATION`, got {loc!r}", where=p.where("conda_source")
        )
    return (
        p.text("name") or m.group(1),
        p.text("version") or "",
        p.text("build"),
        p.integer("build_number") or 0,
        None,
        p.text("subdir"),
        checked_hash(p, "md5"),
        checked_hash(p, "sha256"),
        tuple(split_depend(d) for d in p.texts("depends")),
        m.group(2),
    )


def pypi_fields(entry, loc: str, at: At) -> tuple:
    """(name, version, md5, sha256, requires_dist, editable) of a pypi entry."""
    p = entry_fields(entry, at)
    name = p.text("name")
    if not name:
        raise ParseError(f"pypi package {loc!r} has no name", where=p.where("pypi"))
    depends = tuple(split_req(d) for d in p.texts("requires_dist"))
    editable = p.flag("editable") or is_path(loc)
    return name, p.text("version") or "", checked_hash(p, "md5"), checked_hash(p, "sha256"), depends, editable


#: an entry's fields by its kind
READERS = {"conda": conda_fields, "conda_source": source_fields, "pypi": pypi_fields}


def is_path(loc: str) -> bool:
    return "://" not in loc


#: split_depend of text, remembered: a lock's entries repeat the same few hundred depends
_split_text = lru_cache(maxsize=16384)(split_depend)


def split_req(text) -> tuple[str, str]:
    s = str(text).strip()
    m = re.match(r"^([A-Za-z0-9][A-Za-z0-9._-]*)(.*)$", s)
    if not m:
        return s, ""
    return m.group(1), m.group(2).strip()
