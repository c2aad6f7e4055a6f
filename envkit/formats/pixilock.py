"""pixi.lock (versions 1 to 7): read one environment into a Lock.

Versions 1 to 3 are conda-lock shaped (`metadata:` and a `package:` list, one entry per platform,
`dependencies:` a list or a mapping, `manager: conda`/`pypi`), with one environment, "default"; see
`read_conda_lock_shaped`.  Versions 4 and 5 have the layout of version 6, but a `packages:` entry
says `kind: conda`/`kind: pypi` and gives its location as `url:` (or `path:`), where version 6
writes `conda: URL`/`pypi: URL`.  (rattler_lock reads the same three families:
crates/rattler_lock/src/parse/v3.rs, models/v5, models/v6.)

Layout from version 4: `environments.<env>.packages.<platform>` lists references (`- conda: URL`,
`- pypi: URL or path`), and a top-level `packages:` list holds each package's data once
(`conda:`/`pypi:` location, hashes, depends, ...).  Version 7 adds a top-level `platforms:` list and
per-environment `indexes:`; everything envkit reads is otherwise the same.  Name, version and build
of a conda package come from its file name unless the entry states them.  That `packages:` list is
read without a YAML tree when it is in the layout pixi writes (envkit.formats.pixilayout).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any, cast

from envkit.errors import EnvironmentNotFound, ParseError, Remedy, UnsupportedVersionError, Where
from envkit.formats._util import lock_version
from envkit.formats._yaml import YamlList, YamlMap
from envkit.model import Lock, LockedPackage

if TYPE_CHECKING:
    from envkit.formats._util import Fields

SUPPORTED_VERSIONS = (1, 2, 3, 4, 5, 6, 7)
#: the versions shaped like conda-lock.yml (no `environments:`)
CONDA_LOCK_SHAPED = (1, 2, 3)
DEFAULT_ENVIRONMENT = "default"

#: what a `packages:` entry or reference names its location with: a conda archive, a conda package
#: built from source (pixi-build, version 7: `conda_source: NAME[ID] @ PATH`), a PyPI artifact
_KINDS = ("conda", "conda_source", "pypi")

#: the top-level `packages:` list by (kind, location) -> [(entry, its Where)] (see _index)
Index = dict[tuple[str, str], list[tuple[Any, Where]]]


#: `version: 2` / `version: 3` at the start of a line (conda-lock only ever wrote version 1)
_PIXI_SHAPED_VERSION = re.compile(r"^version:[ \t]*[23][ \t]*(?:#.*)?\r?$", re.MULTILINE)
#: keys rattler writes in each `package:` entry of a conda-lock shaped pixi.lock and conda-lock
#: never does (conda-lock's LockedDependency has no arch, subdir or timestamp)
_PIXI_ENTRY_KEYS = ("\n  arch: ", "\n  subdir: ", "\n  timestamp: ")


def conda_lock_shaped(text: str) -> bool:
    """Whether `text`, a document shaped like conda-lock.yml (`metadata:`, `package:`, no
    `environments:`), is a pixi.lock version 1 to 3: its version says 2 or 3, or its entries carry
    the keys only rattler writes (version 1 is conda-lock's own number, and pixi's first locks
    used it)."""
    return _PIXI_SHAPED_VERSION.search(text) is not None or any(k in text for k in _PIXI_ENTRY_KEYS)


def _shaped(data) -> bool:
    """Whether the document is a version shaped like conda-lock.yml (an int: YAML's `true` is no version)."""
    return lock_version(data.get("version")) in CONDA_LOCK_SHAPED


def check_version(version, filename: str | None, line: int | None = None) -> None:
    """Raise unless `version` is a pixi.lock version envkit reads (1 to 7)."""
    if lock_version(version) in SUPPORTED_VERSIONS:
        return
    where = Where(file=filename, line=line)
    if version is None:
        raise ParseError("not a pixi.lock: no `version:` key", where=where)
    newest = SUPPORTED_VERSIONS[-1]
    if isinstance(version, int) and version < SUPPORTED_VERSIONS[0]:
        raise UnsupportedVersionError(
            f"pixi.lock version {version} is too old; envkit reads versions "
            f"{SUPPORTED_VERSIONS[0]} to {newest} (newest supported: {newest})",
            where=where,
            hint="run `pixi lock` with a recent pixi to rewrite it",
        )
    raise UnsupportedVersionError(
        f"pixi.lock version {version!r} is not supported; the newest version envkit reads is {newest}",
        where=where,
        hint="upgrade envkit, or lock with a pixi that writes this version",
    )


def environments(text: str, filename: str | None = None) -> list[str]:
    """The environment names a pixi.lock defines, in file order."""
    return list(read_pixi_environments(text, filename))


def read_pixi_environments(text: str, filename: str | None = None) -> dict[str, Lock]:
    """Every environment of a pixi.lock, name -> Lock(kind="pixi"), in file order (one YAML parse)."""
    data = _load(text, filename)
    if _shaped(data):
        return {DEFAULT_ENVIRONMENT: read_conda_lock_shaped(data, text, filename)}
    envs = _environments(data, filename)
    index = _index(data, filename)
    parsed: dict = {}  # shared: environments share most of their packages
    return {
        str(name): _read_env(data, envs.mapping(name), str(name), filename, index, parsed)
        for name in envs.data
    }


def _load(text: str, filename: str | None) -> YamlMap:
    from envkit.formats._fastyaml import Unsupported, load_yaml

    try:
        data = _load_layout(text, filename)
    except (Unsupported, RecursionError):
        data = load_yaml(text, filename=filename)
    if not isinstance(data, YamlMap):  # both readers give a mapping as a YamlMap
        raise ParseError("not a pixi.lock: the document is not a mapping", where=Where(file=filename))
    check_version(data.get("version"), filename, data.line_of("version"))
    return data


# -- the fast path: the `packages:` list read without a YAML tree (envkit.formats.pixilayout); the
# rest of the document goes through the fast YAML reader.  Anything else raises Unsupported and the
# whole document is read as YAML: the Locks are the same either way.

#: the keys of a `packages:` entry that this module reads (see _index, _pick, _conda_fields, _pypi_fields)
KEPT = frozenset(
    {
        "conda",
        "pypi",
        "name",
        "version",
        "build",
        "build_number",
        "subdir",
        "md5",
        "sha256",
        "depends",
        "requires_dist",
        "editable",
    }
)


def _load_layout(text: str, filename: str | None) -> YamlMap:
    """The document as the YAML readers would give it, but each `packages:` entry holding only the
    KEPT keys; Unsupported for text outside the layout (see envkit.formats.pixilayout)."""
    from envkit.formats._fastyaml import Unsupported, split_layout
    from envkit.formats.pixilayout import read_entries

    data, start = split_layout(text, "packages", filename)
    if text[-1] != "\n":
        text += "\n"
    entries = read_entries(text, start, KEPT)
    if "packages" in data.lines:
        raise Unsupported
    data["packages"] = entries
    data.lines["packages"] = text.count("\n", 0, start) + 1
    return data


def read_pixi_lock(text: str, filename: str | None = None, environment: str | None = None) -> Lock:
    """Parse one environment (default "default") of a pixi.lock into Lock(kind="pixi").

    Conda packages keep URL, hashes, build number (0 when not written) and depends (as (name, spec)
    pairs); PyPI packages become manager "pip" (editable ones marked).  `platforms` are those the
    environment has packages for.  Raises UnsupportedVersionError for another lock version and
    EnvironmentNotFound (naming the ones there are) for an unknown environment.
    """
    data = _load(text, filename)
    env_name = environment or DEFAULT_ENVIRONMENT
    if _shaped(data):
        if env_name != DEFAULT_ENVIRONMENT:
            raise EnvironmentNotFound(
                f"pixi.lock has no environment {env_name!r} (it has: default)",
                where=Where(file=filename),
                hint="choose one with {}",
                remedy=Remedy(option="environment", metavar="NAME"),
            )
        return read_conda_lock_shaped(data, text, filename)
    envs = _environments(data, filename)
    key = next((k for k in envs.data if str(k) == env_name), None)
    if key is None:
        names = ", ".join(str(k) for k in envs.data) or "none"
        raise EnvironmentNotFound(
            f"pixi.lock has no environment {env_name!r} (it has: {names})",
            where=Where(file=filename, line=data.line_of("environments")),
            hint="choose one with {}",
            remedy=Remedy(option="environment", metavar="NAME"),
        )
    return _read_env(data, envs.mapping(key), env_name, filename, _index(data, filename))


def _environments(data, filename: str | None):
    """The `environments:` mapping as Fields."""
    from envkit.formats._util import Fields

    return Fields(data, filename, "").mapping("environments")


def _index(data, filename: str | None) -> Index:
    """The top-level `packages:` list indexed by (kind, location) -> [(entry, its Where)]; a location
    can carry several variants (rare), told apart by the name/version an environment's reference
    gives."""
    from envkit.formats._util import Fields

    index: Index = {}
    top = Fields(data, filename, "")
    raw_pkgs = top.get("packages")
    if raw_pkgs is not None and not isinstance(raw_pkgs, list):
        top.items("packages")  # raises the error naming the key
    line_of = getattr(raw_pkgs, "line_of", None)
    for i, raw in enumerate(raw_pkgs or ()):
        where = Where(file=filename, line=line_of(i) if line_of else None, key=f"packages[{i}]")
        key = _location(raw) or _entry_location(raw, where)
        index.setdefault(key, []).append((raw, where))
    return index


def _entry_location(raw, where: Where) -> tuple[str, str]:
    """(kind, location) of a package entry not in the plain shape pixi writes, or the ParseError
    saying what is wrong."""
    from envkit.formats._util import Fields

    p = Fields(raw, where.file, where.key or "", line=where.line, what="a package entry")
    kind = next((k for k in _KINDS if k in p), None)
    if kind is None and "kind" in p:  # versions 4 and 5
        kind = p.text("kind")
        if kind not in ("conda", "pypi"):
            raise ParseError(f"unknown package kind {kind!r} (expected conda or pypi)", where=p.where("kind"))
        loc = p.text("url") or p.text("path")
        if not loc:
            raise ParseError("a package entry needs `url:` or `path:`", where=where)
        return (kind, loc)
    if kind is None:
        raise ParseError("a package entry needs `conda:`, `conda_source:` or `pypi:`", where=where)
    return (kind, _required(p, kind, "a package entry"))


def _location(raw) -> tuple[str, str] | None:
    """(kind, location) of a package entry or reference written the way pixi writes it, else None."""
    if type(raw) is not YamlMap:
        return None
    loc = raw.get("conda")
    if type(loc) is str:
        return ("conda", loc)
    if loc is None and "conda_source" in raw:
        loc = raw["conda_source"]
        return ("conda_source", loc) if type(loc) is str else None
    if loc is None:
        loc = raw.get("pypi")
        if type(loc) is str:
            return ("pypi", loc)
        kind = raw.get("kind")  # a version 4 or 5 entry
        if kind == "conda" or kind == "pypi":
            loc = raw.get("url") or raw.get("path")
            if type(loc) is str:
                return (kind, loc)
    return None


def _read_env(
    data: YamlMap, env: Fields, env_name: str, filename: str | None, index: Index, parsed: dict | None = None
) -> Lock:
    from envkit.formats._util import read_channels, to_json

    channels = read_channels(env, filename)
    pip_options = _pip_options(env, filename)
    per_platform = env.mapping("packages")
    platforms = tuple(str(k) for k in per_platform.data)
    out: list[LockedPackage] = []
    if parsed is None:
        parsed = {}  # id(entry) -> its fields: an entry serves many references
    for platform, key in zip(platforms, per_platform.data, strict=False):
        out += _platform_packages(per_platform, key, platform, filename, index, parsed)
    meta = [("version", str(data.get("version")))]
    if env.get("options"):
        meta.append(("options", to_json(env.get("options"))))
    return Lock(
        kind="pixi",
        platforms=platforms,
        packages=tuple(out),
        channels=tuple(channels),
        environment=env_name,
        pip_options=tuple(pip_options),
        metadata=tuple(meta),
        source=filename,
    )


def _pip_options(env: Fields, filename: str | None) -> list[str]:
    """An environment's `indexes:` and `find-links:` as pip options, in order."""
    from envkit.formats._util import Fields, as_text

    pip_options = []
    for j, u in enumerate(env.texts("indexes")):
        pip_options.append(f"--index-url {u}" if j == 0 else f"--extra-index-url {u}")
    for _i, item, where in env.items("find-links"):
        if isinstance(item, dict):
            f = Fields(item, filename, where.key or "", line=where.line)
            target = f.text("url") or f.text("path")
        else:
            target = as_text(item, "a find-links entry", where)
        if target:
            pip_options.append(f"--find-links {target}")
    return pip_options


def _platform_packages(
    per_platform: Fields, key, platform: str, filename: str | None, index: Index, parsed: dict
) -> list[LockedPackage]:
    """The packages an environment's `packages.<platform>` list refers to, in order."""
    refs = per_platform.data[key]
    if refs is not None and not isinstance(refs, list):
        per_platform.items(key)  # raises the error naming the key
    line_of = getattr(refs, "line_of", None)
    out: list[LockedPackage] = []
    for i, raw in enumerate(refs or ()):
        line = line_of(i) if line_of else None
        loc_key = _location(raw)
        ref = None
        if loc_key is None or len(raw) > 1:
            ref, loc_key = _reference(raw, f"{per_platform.key(key)}[{i}]", line, filename)
        kind, loc = loc_key
        candidates = index.get(loc_key)
        if not candidates:
            where = (
                ref.where(kind)
                if ref
                else Where(file=filename, line=line, key=f"{per_platform.key(key)}[{i}].{kind}")
            )
            raise ParseError(f"package {loc!r} is referenced but not listed under `packages:`", where=where)
        entry, where = _pick(candidates, raw, platform)
        fields = parsed.get(id(entry))
        if fields is None:
            fields = parsed[id(entry)] = _READERS[kind](entry, loc, where)
        if kind == "conda_source":
            kind, loc = "conda", fields[-1]
            fields = fields[:-1]
        if kind == "conda":
            name, version, build, build_number, channel, subdir, md5, sha256, depends = fields
            out.append(
                LockedPackage(
                    manager="conda",
                    name=name,
                    version=version,
                    build=build,
                    build_number=build_number,
                    channel=channel,
                    platform=platform,
                    subdir=subdir,
                    url=loc,
                    md5=md5,
                    sha256=sha256,
                    depends=depends,
                    line=line,
                )
            )
        else:
            name, version, md5, sha256, depends, editable = fields
            if ref is not None and "editable" in ref:
                editable = ref.flag("editable") or _is_path(loc)
            out.append(
                LockedPackage(
                    manager="pip",
                    name=name,
                    version=version,
                    platform=platform,
                    url=loc,
                    sha256=sha256,
                    md5=md5,
                    depends=depends,
                    editable=editable,
                    line=line,
                )
            )
    return out


def _reference(raw, path: str, line: int | None, filename: str | None) -> tuple[Fields, tuple[str, str]]:
    """(the reference as Fields, its (kind, location)) for a reference not in the plain shape pixi
    writes, or the ParseError saying what is wrong."""
    from envkit.formats._util import Fields

    ref = Fields(raw, filename, path, line=line, what="a package reference")
    kind = next((k for k in _KINDS if k in ref), None)
    if kind is None:
        raise ParseError("a package reference needs `conda:`, `conda_source:` or `pypi:`", where=ref.where())
    return ref, (kind, _required(ref, kind, "a package reference"))


def _required(fields: Fields, key: str, what: str) -> str:
    """The text of `key`, which must be there (Fields.text raises ParseError when it is not)."""
    return cast(str, fields.text(key, required=True, what=what))


_HASH_RE = {"md5": re.compile(r"[0-9a-fA-F]{32}"), "sha256": re.compile(r"[0-9a-fA-F]{64}")}


def _hash(fields, key: str) -> str | None:
    """The `md5:` / `sha256:` of an entry, checked: hex digits of the length the hash has (an
    unquoted hash of digits only is a YAML number, and no hash at all)."""
    value = fields.data.get(key)
    if value is None:
        return None
    if type(value) is str and _HASH_RE[key].fullmatch(value):
        return value
    n = 32 if key == "md5" else 64
    if value == 0 and type(value) is int:  # the placeholder of zeros, unquoted: YAML's number 0
        return "0" * n
    raise ParseError(
        f"`{key}:` must be {n} hex digits, got {value!r}",
        where=fields.where(key),
        hint="quote a hash written by hand: YAML reads one of digits only as a number",
    )


def _conda_fields(entry, loc: str, where: Where) -> tuple:
    """(name, version, build, build_number, channel, subdir, md5, sha256, depends) of a conda entry;
    name, version and build come from the file name unless the entry states them."""
    from envkit.formats._util import Fields, url_parts

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
            and (md5 is None or (type(md5) is str and _HASH_RE["md5"].fullmatch(md5) is not None))
            and (sha256 is None or (type(sha256) is str and _HASH_RE["sha256"].fullmatch(sha256) is not None))
            and (deps is None or type(deps) is YamlList)
        ):
            depends: tuple[tuple[str, str], ...] = ()
            if deps:
                depends = tuple(_split_dep(d) for d in deps if type(d) is str)
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
    p = Fields(entry, where.file, where.key or "", line=where.line, what="a package entry")
    name = p.text("name") or (nvb[0] if nvb else None)
    version = p.text("version") or (nvb[1] if nvb else None)
    build = p.text("build") or (nvb[2] if nvb else None)
    if name is None or version is None:
        raise ParseError(
            f"cannot tell name and version of {loc!r}",
            where=p.where("conda"),
            hint="the entry needs `name:` and `version:`, or a conda package file name",
        )
    depends = tuple(_split_dep(d) for d in p.texts("depends"))
    sub = p.text("subdir") or subdir
    return (
        name,
        version,
        build,
        p.integer("build_number") or 0,
        chan,
        sub or None,
        _hash(p, "md5"),
        _hash(p, "sha256"),
        depends,
    )


#: `conda_source:` of a version 7 entry: the package name, the id of its build variant, the path or
#: URL of the source (https://pixi.sh/latest/build/getting_started/)
_SOURCE = re.compile(r"([^\s\[@]+)(?:\[[^\]\s]*\])?\s+@\s+(\S.*)")


def _source_fields(entry, loc: str, where: Where) -> tuple:
    """_conda_fields of a `conda_source:` entry (a package pixi builds from source: no archive, so
    no URL and no hash, and no version until it is built), then the source's location."""
    from envkit.formats._util import Fields

    p = Fields(entry, where.file, where.key or "", line=where.line, what="a package entry")
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
        _hash(p, "md5"),
        _hash(p, "sha256"),
        tuple(_split_dep(d) for d in p.texts("depends")),
        m.group(2),
    )


def _pypi_fields(entry, loc: str, where: Where) -> tuple:
    """(name, version, md5, sha256, requires_dist, editable) of a pypi entry."""
    from envkit.formats._util import Fields

    p = Fields(entry, where.file, where.key or "", line=where.line, what="a package entry")
    name = p.text("name")
    if not name:
        raise ParseError(f"pypi package {loc!r} has no name", where=p.where("pypi"))
    depends = tuple(_split_req(d) for d in p.texts("requires_dist"))
    editable = p.flag("editable") or _is_path(loc)
    return name, p.text("version") or "", _hash(p, "md5"), _hash(p, "sha256"), depends, editable


#: an entry's fields by its kind
_READERS = {"conda": _conda_fields, "conda_source": _source_fields, "pypi": _pypi_fields}


def _pick(candidates: list, ref, platform: str):
    """The (entry, where) a reference means among the entries at its location."""
    if len(candidates) == 1:
        return candidates[0]
    for c, where in candidates:
        if all(c.get(k) == ref.get(k) for k in ("name", "version", "build", "subdir") if k in ref):
            if c.get("subdir") in (None, platform, "noarch"):
                return c, where
    return candidates[0]


def _is_path(loc: str) -> bool:
    return "://" not in loc


def _split_dep(text) -> tuple[str, str]:
    name, _, rest = str(text).strip().partition(" ")
    return name, rest.strip()


def _split_req(text) -> tuple[str, str]:
    s = str(text).strip()
    m = re.match(r"^([A-Za-z0-9][A-Za-z0-9._-]*)(.*)$", s)
    if not m:
        return s, ""
    return m.group(1), m.group(2).strip()


def read_conda_lock_shaped(data, text: str, filename: str | None) -> Lock:
    """The one environment of a pixi.lock version 1 to 3 (conda-lock shaped; see the module doc) as
    Lock(kind="pixi"), checked by conda-lock's rules (digests, platforms, no entry twice)."""
    from envkit.formats._util import Fields, read_channels, url_parts
    from envkit.formats.condalockcheck import validate_packages

    top = Fields(data, filename, "")
    meta = top.mapping("metadata")
    channels = read_channels(meta, filename)
    platforms = list(meta.texts("platforms"))
    out: list[LockedPackage] = []
    for _i, raw, where in top.items("package"):
        p = Fields(raw, filename, where.key or "", line=where.line, what="a package entry")
        manager = _required(p, "manager", "a package entry")
        if manager not in ("conda", "pip", "pypi"):
            raise ParseError(
                f"unknown manager {manager!r} (expected conda or pypi)", where=p.where("manager")
            )
        name = _required(p, "name", "a package entry")
        version = _required(p, "version", "a package entry")
        platform = _required(p, "platform", "a package entry")
        url = _required(p, "url", "a package entry")
        h = p.mapping("hash")
        depends = _legacy_depends(p, manager)
        if platform not in platforms:
            platforms.append(platform)
        if manager == "conda":
            chan, subdir, nvb = url_parts(url)
            out.append(
                LockedPackage(
                    manager="conda",
                    name=name,
                    version=version,
                    build=p.text("build") or (nvb[2] if nvb else None),
                    build_number=p.integer("build_number") or 0,
                    channel=chan,
                    platform=platform,
                    subdir=p.text("subdir") or subdir,
                    url=url,
                    md5=_hash(h, "md5"),
                    sha256=_hash(h, "sha256"),
                    depends=depends,
                    category=p.text("category") or "main",
                    line=where.line,
                )
            )
        else:
            out.append(
                LockedPackage(
                    manager="pip",
                    name=name,
                    version=version,
                    platform=platform,
                    url=url,
                    md5=_hash(h, "md5"),
                    sha256=_hash(h, "sha256"),
                    depends=depends,
                    category=p.text("category") or "main",
                    editable=_is_path(url),
                    line=where.line,
                )
            )
    lock = Lock(
        kind="pixi",
        platforms=tuple(platforms),
        packages=tuple(out),
        channels=tuple(channels),
        environment=DEFAULT_ENVIRONMENT,
        metadata=(("version", str(data.get("version"))),),
        source=filename,
    )
    validate_packages(lock, text, filename)
    return lock


def _legacy_depends(p, manager: str) -> tuple[tuple[str, str], ...]:
    """`dependencies:` of a version 1-3 entry: a list of specs or a name -> constraint mapping (both
    are written, as rattler reads both); pypi entries may say `requires_dist:` instead."""
    key = "dependencies" if "dependencies" in p or manager == "conda" else "requires_dist"
    value = p.get(key)
    if isinstance(value, dict):
        deps = p.mapping(key)
        return tuple((str(k), deps.text(k) or "") for k in deps.data)
    split = _split_dep if manager == "conda" else _split_req
    return tuple(split(d) for d in p.texts(key))
