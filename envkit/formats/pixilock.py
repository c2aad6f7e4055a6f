"""pixi.lock (versions 1 to 7): read one environment into a Lock.

Versions 1 to 3 are conda-lock shaped, with one environment, "default" (envkit.formats.pixilegacy).
Versions 4 and 5 have the layout of version 6, but a `packages:` entry
says `kind: conda`/`kind: pypi` and gives its location as `url:` (or `path:`), where version 6
writes `conda: URL`/`pypi: URL`.  (rattler_lock reads the same three families:
crates/rattler_lock/src/parse/v3.rs, models/v5, models/v6.)

Layout from version 4: `environments.<env>.packages.<platform>` lists references (`- conda: URL`,
`- pypi: URL or path`), and a top-level `packages:` list holds each package's data once
(`conda:`/`pypi:` location, hashes, depends, ...).  Version 7 adds a top-level `platforms:` list and
per-environment `indexes:`; everything envkit reads is otherwise the same.  Name, version and build
of a conda package come from its file name unless the entry states them (envkit.formats.pixientry
reads an entry).  The document is read by envkit.formats._fastyaml.load_yaml (envkit's one YAML path).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from envkit.errors import EnvironmentNotFound, ParseError, Remedy, UnsupportedVersionError, Where
from envkit.formats._util import lock_version
from envkit.formats._yaml import YamlMap
from envkit.formats.pixientry import KINDS, ONLY_STR, READERS, is_path, required
from envkit.formats.pixilegacy import DEFAULT_ENVIRONMENT, read_conda_lock_shaped
from envkit.model import Lock, LockedPackage

if TYPE_CHECKING:
    from envkit.formats._util import Fields

SUPPORTED_VERSIONS = (1, 2, 3, 4, 5, 6, 7)
#: the versions shaped like conda-lock.yml (no `environments:`)
CONDA_LOCK_SHAPED = (1, 2, 3)

#: the top-level `packages:` list by (kind, location) -> [(entry, its index, its line)] (see _index)
Index = dict[tuple[str, str], list[tuple[Any, int, int | None]]]


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
    """The document, as a mapping of a pixi.lock version envkit reads; ParseError otherwise."""
    from envkit.formats._fastyaml import load_yaml

    data = load_yaml(text, filename=filename)
    if not isinstance(data, YamlMap):
        raise ParseError("not a pixi.lock: the document is not a mapping", where=Where(file=filename))
    check_version(data.get("version"), filename, data.line_of("version"))
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
    """The top-level `packages:` list indexed by (kind, location) -> [(entry, its index, its line)]
    (a Where is made of those only for an entry that is wrong); a location can carry several
    variants (rare), told apart by the name/version an environment's reference gives."""
    from envkit.formats._util import Fields

    index: Index = {}
    top = Fields(data, filename, "")
    raw_pkgs = top.get("packages")
    if raw_pkgs is not None and not isinstance(raw_pkgs, list):
        top.items("packages")  # raises the error naming the key
    line_of = getattr(raw_pkgs, "line_of", None)
    for i, raw in enumerate(raw_pkgs or ()):
        line = line_of(i) if line_of else None
        key = _location(raw) or _entry_location(raw, _entry_where(filename, i, line))
        index.setdefault(key, []).append((raw, i, line))
    return index


def _entry_where(filename: str | None, i: int, line: int | None) -> Where:
    """Where the `packages:` entry `i`, on line `line`, is."""
    return Where(file=filename, line=line, key=f"packages[{i}]")


def _entry_location(raw, where: Where) -> tuple[str, str]:
    """(kind, location) of a package entry not in the plain shape pixi writes, or the ParseError
    saying what is wrong."""
    from envkit.formats._util import Fields

    p = Fields(raw, where.file, where.key or "", line=where.line, what="a package entry")
    kind = next((k for k in KINDS if k in p), None)
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
    return (kind, required(p, kind, "a package entry"))


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
    data: YamlMap,
    env: Fields,
    env_name: str,
    filename: str | None,
    index: Index,
    parsed: dict | None = None,
) -> Lock:
    from envkit.formats._util import read_channels, to_json

    channels = read_channels(env, filename)
    pip_options = _pip_options(env, filename)
    per_platform = env.mapping("packages")
    platforms = tuple(str(k) for k in per_platform.data)
    _check_platforms(data, per_platform)
    out: list[LockedPackage] = []
    if parsed is None:
        parsed = {}  # id(entry) -> its fields (an entry serves many references), and see below
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


def _check_platforms(data: YamlMap, per_platform: Fields) -> None:
    """ParseError naming an environment's platform key that is not a conda subdir (`noarch` is one;
    in version 7 a platform the lock's `platforms:` list names is one too): py-rattler refuses the
    file."""
    from envkit.conda.channels import KNOWN_SUBDIRS
    from envkit.formats.condalockcheck import unknown_platform

    named = _named_platforms(data)
    for key in per_platform.data:
        if str(key) in named or str(key) in KNOWN_SUBDIRS:
            continue
        raise ParseError(
            unknown_platform(str(key)),
            where=per_platform.where(key),
            hint="an environment's packages are listed by platform: linux-64, osx-arm64, win-64, ...",
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


def _maker(kind: str, loc: str, fields: tuple, entry=None):
    """(platform, line) -> the package at `loc` of kind `kind`, whose entry's fields are `fields`
    (a conda package also keeps the `license:` and `purls:` of its `entry`)."""
    # the entry's fields in one dict, unpacked for each reference (an entry serves many): one
    # mapping to unpack costs less than a dozen keywords a call
    if kind == "conda":
        name, version, build, build_number, channel, subdir, md5, sha256, depends = fields
        license, purls = _license_and_purls(entry)
        known = dict(
            manager="conda", name=name, version=version, build=build, build_number=build_number,
            channel=channel, subdir=subdir, url=loc, md5=md5, sha256=sha256, depends=depends,
            license=license, purls=purls,
        )  # fmt: skip
    else:
        name, version, md5, sha256, depends, editable = fields
        known = dict(
            manager="pip", name=name, version=version, url=loc, sha256=sha256, md5=md5, depends=depends,
            editable=editable,
        )  # fmt: skip

    def package(platform: str, line: int | None) -> LockedPackage:
        return LockedPackage(**known, platform=platform, line=line)

    return package


def _license_and_purls(entry) -> tuple[str | None, tuple[str, ...]]:
    """The `license:` and `purls:` pixi records for a conda package (its PyPI identity: the package
    URLs of conda-forge's mapping); a value of another shape is left out, not an error: only the
    audit reads them."""
    if type(entry) is not YamlMap:
        return None, ()
    license, purls = entry.get("license"), entry.get("purls")
    if type(license) is not str:
        license = None
    if purls and isinstance(purls, list):
        if {*map(type, purls)} == ONLY_STR:  # (the types, in C)
            return license, tuple(purls)
        return license, tuple(p for p in purls if type(p) is str)
    return license, ()


def _platform_packages(
    per_platform: Fields, key, platform: str, filename: str | None, index: Index, parsed: dict
) -> list[LockedPackage]:
    """The packages an environment's `packages.<platform>` list refers to, in order."""
    refs = per_platform.data[key]
    if refs is not None and not isinstance(refs, list):
        per_platform.items(key)  # raises the error naming the key
    if not refs:
        return []
    out: list[LockedPackage] = []
    append = out.append
    # kind -> location -> the maker of its package, for plain references to a one-entry location
    # (kept in `parsed` under a key no id() can be: shared by the environments as the fields are)
    plain = parsed.setdefault("plain references", {})
    conda = plain.setdefault("conda", {})
    for i, (raw, line) in enumerate(zip(refs, refs.lines, strict=True)):  # (a YamlList: a line an item)
        if type(raw) is YamlMap and len(raw) == 1:
            # `- conda: URL` to a location of one entry, read before: the common case
            ((kind, loc),) = raw.items()
            if type(loc) is str:
                done = conda.get(loc) if kind == "conda" else plain.get(kind, {}).get(loc)
                if done is not None:
                    append(done(platform, line))
                    continue
        ref = None
        loc_key = _location(raw)
        if loc_key is None or len(raw) > 1:
            ref, loc_key = _reference(raw, f"{per_platform.key(key)}[{i}]", line, filename)
        kind, loc = loc_key
        candidates = index.get(loc_key)
        if not candidates:
            path = f"{per_platform.key(key)}[{i}]"
            where = ref.where(kind) if ref else Where(file=filename, line=line, key=f"{path}.{kind}")
            raise ParseError(f"package {loc!r} is referenced but not listed under `packages:`", where=where)
        append(_resolve(kind, loc, candidates, raw, ref, line, platform, filename, parsed))
    return out


def _resolve(
    kind: str,
    loc: str,
    candidates: list,
    raw,
    ref: Fields | None,
    line: int | None,
    platform: str,
    filename: str | None,
    parsed: dict,
) -> LockedPackage:
    """The package a reference to (kind, loc) means (`raw`, `ref`: the reference when it says more
    than its location, else None), read from its entry among the `candidates` the index has for
    (kind, loc), whose maker is remembered for the plain references to it that follow (see
    _platform_packages)."""
    entry, i, entry_line = _pick(candidates, raw or {}, platform)
    fields = parsed.get(id(entry))
    if fields is None:
        fields = parsed[id(entry)] = READERS[kind](entry, loc, (filename, i, entry_line))
        if len(candidates) == 1 and kind != "conda_source":
            maker = _maker(kind, loc, fields, entry)
            parsed.setdefault("plain references", {}).setdefault(kind, {})[loc] = maker
            if ref is None:
                return maker(platform, line)
    if kind == "conda_source":
        kind, loc = "conda", fields[-1]
        fields = fields[:-1]
    if kind == "pypi" and ref is not None and "editable" in ref:
        fields = (*fields[:-1], ref.flag("editable") or is_path(loc))
    return _maker(kind, loc, fields, entry)(platform, line)


def _reference(raw, path: str, line: int | None, filename: str | None) -> tuple[Fields, tuple[str, str]]:
    """(the reference as Fields, its (kind, location)) for a reference not in the plain shape pixi
    writes, or the ParseError saying what is wrong."""
    from envkit.formats._util import Fields

    ref = Fields(raw, filename, path, line=line, what="a package reference")
    kind = next((k for k in KINDS if k in ref), None)
    if kind is None:
        raise ParseError("a package reference needs `conda:`, `conda_source:` or `pypi:`", where=ref.where())
    return ref, (kind, required(ref, kind, "a package reference"))


def _pick(candidates: list, ref, platform: str):
    """The (entry, its index, its line) a reference means among the entries at its location."""
    if len(candidates) == 1:
        return candidates[0]
    for candidate in candidates:
        c = candidate[0]
        if all(c.get(k) == ref.get(k) for k in ("name", "version", "build", "subdir") if k in ref):
            if c.get("subdir") in (None, platform, "noarch"):
                return candidate
    return candidates[0]


def platform_subdirs(text: str, filename: str | None = None) -> dict[str, str]:
    """A version 7 lock's named platforms (`platforms: [{name, subdir}]`): name -> subdir.  Empty
    for earlier versions, whose platform keys are subdirs."""
    return _named_platforms(_load(text, filename))


def _named_platforms(data: YamlMap) -> dict[str, str]:
    """platform_subdirs of the loaded document `data`."""
    out: dict[str, str] = {}
    for p in data.get("platforms") or ():
        if isinstance(p, dict) and isinstance(p.get("name"), str):
            out[p["name"]] = str(p.get("subdir") or p["name"])
    return out
