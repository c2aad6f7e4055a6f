"""pixi.lock (versions 6 and 7): read one environment into a Lock.

Layout: `environments.<env>.packages.<platform>` lists references (`- conda: URL`, `- pypi: URL or
path`), and a top-level `packages:` list holds each package's data once (`conda:`/`pypi:` location,
hashes, depends, ...).  Version 7 adds a top-level `platforms:` list and per-environment `indexes:`;
everything envkit reads is otherwise the same.  Name, version and build of a conda package come from
its file name unless the entry states them.
"""
from __future__ import annotations

from envkit._yaml import YamlList, YamlMap
from envkit.errors import EnvironmentNotFound, ParseError, UnsupportedVersionError, Where
from envkit.model import Lock, LockedPackage

SUPPORTED_VERSIONS = (6, 7)
DEFAULT_ENVIRONMENT = "default"


def check_version(version, filename: str | None, line: int | None = None) -> None:
    """Raise unless `version` is a pixi.lock version envkit reads (6 or 7)."""
    if version in SUPPORTED_VERSIONS:
        return
    where = Where(file=filename, line=line)
    if version is None:
        raise ParseError("not a pixi.lock: no `version:` key", where=where)
    newest = SUPPORTED_VERSIONS[-1]
    if isinstance(version, int) and version < SUPPORTED_VERSIONS[0]:
        raise UnsupportedVersionError(
            f"pixi.lock version {version} is too old; envkit reads versions "
            f"{SUPPORTED_VERSIONS[0]} to {newest} (newest supported: {newest})", where=where,
            hint="run `pixi lock` with a recent pixi to rewrite it")
    raise UnsupportedVersionError(
        f"pixi.lock version {version!r} is not supported; the newest version envkit reads is {newest}",
        where=where, hint="upgrade envkit, or lock with a pixi that writes this version")


def environments(text: str, filename: str | None = None) -> list[str]:
    """The environment names a pixi.lock defines, in file order."""
    return list(read_pixi_environments(text, filename))


def read_pixi_environments(text: str, filename: str | None = None) -> dict[str, Lock]:
    """Every environment of a pixi.lock, name -> Lock(kind="pixi"), in file order (one YAML parse)."""
    data = _load(text, filename)
    envs = _environments(data, filename)
    index = _index(data, filename)
    parsed: dict = {}  # shared: environments share most of their packages
    return {str(name): _read_env(data, envs.mapping(name), str(name), filename, index, parsed)
            for name in envs.data}


def _load(text: str, filename: str | None):
    from envkit.formats._fastyaml import load_yaml

    data = load_yaml(text, filename=filename)
    if not isinstance(data, dict):
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
    envs = _environments(data, filename)
    key = next((k for k in envs.data if str(k) == env_name), None)
    if key is None:
        names = ", ".join(str(k) for k in envs.data) or "none"
        raise EnvironmentNotFound(f"pixi.lock has no environment {env_name!r} (it has: {names})",
                                  where=Where(file=filename, line=data.line_of("environments")),
                                  hint="choose one with --env NAME")
    return _read_env(data, envs.mapping(key), env_name, filename, _index(data, filename))


def _environments(data, filename: str | None):
    """The `environments:` mapping as Fields."""
    from envkit.formats._util import Fields

    return Fields(data, filename, "").mapping("environments")


def _index(data, filename: str | None) -> dict[tuple[str, str], list]:
    """The top-level `packages:` list indexed by (kind, location) -> [(entry, its Where)]; a location
    can carry several variants (rare), told apart by the name/version an environment's reference
    gives."""
    from envkit.formats._util import Fields

    index: dict[tuple[str, str], list] = {}
    top = Fields(data, filename, "")
    raw_pkgs = top.get("packages")
    if raw_pkgs is not None and not isinstance(raw_pkgs, list):
        top.items("packages")  # raises the error naming the key
    line_of = getattr(raw_pkgs, "line_of", None)
    for i, raw in enumerate(raw_pkgs or ()):
        where = Where(file=filename, line=line_of(i) if line_of else None, key=f"packages[{i}]")
        key = _location(raw)
        if key is None:  # not the plain shape pixi writes: say what is wrong
            p = Fields(raw, filename, where.key, line=where.line, what="a package entry")
            kind = "conda" if "conda" in p else "pypi" if "pypi" in p else None
            if kind is None:
                raise ParseError("a package entry needs `conda:` or `pypi:`", where=where)
            key = (kind, p.text(kind, required=True, what="a package entry"))
        index.setdefault(key, []).append((raw, where))
    return index


def _location(raw) -> tuple[str, str] | None:
    """(kind, location) of a package entry or reference written the way pixi writes it, else None."""
    if type(raw) is not YamlMap:
        return None
    loc = raw.get("conda")
    if type(loc) is str:
        return ("conda", loc)
    if loc is None:
        loc = raw.get("pypi")
        if type(loc) is str:
            return ("pypi", loc)
    return None


def _read_env(data, env, env_name: str, filename: str | None, index: dict, parsed: dict | None = None) -> Lock:
    from envkit.conda.channels import parse_channel
    from envkit.formats._util import Fields, as_text, to_json

    channels = []
    for _i, c, where in env.items("channels"):
        if isinstance(c, dict):
            chan = Fields(c, filename, where.key, line=where.line, what="a channel")
            url = chan.text("url", required=True, what="a channel")
        else:
            url = as_text(c, "a channel", where)
        if not url.strip():
            raise ParseError("a channel must be a name or URL, got empty text", where=where)
        channels.append(parse_channel(url))
    pip_options = []
    for j, u in enumerate(env.texts("indexes")):
        pip_options.append(f"--index-url {u}" if j == 0 else f"--extra-index-url {u}")
    for _i, u, where in env.items("find-links"):
        if isinstance(u, dict):
            f = Fields(u, filename, where.key, line=where.line)
            target = f.text("url") or f.text("path")
        else:
            target = as_text(u, "a find-links entry", where)
        if target:
            pip_options.append(f"--find-links {target}")
    per_platform = env.mapping("packages")
    platforms = tuple(str(k) for k in per_platform.data)
    out: list[LockedPackage] = []
    if parsed is None:
        parsed = {}  # id(entry) -> its fields: an entry serves many references
    for platform, key in zip(platforms, per_platform.data):
        refs = per_platform.data[key]
        if refs is not None and not isinstance(refs, list):
            per_platform.items(key)  # raises the error naming the key
        line_of = getattr(refs, "line_of", None)
        for i, raw in enumerate(refs or ()):
            line = line_of(i) if line_of else None
            loc_key = _location(raw)
            ref = None
            if loc_key is None or len(raw) > 1:
                ref = Fields(raw, filename, f"{per_platform.key(key)}[{i}]", line=line,
                             what="a package reference")
                kind = "conda" if "conda" in ref else "pypi" if "pypi" in ref else None
                if kind is None:
                    raise ParseError("a package reference needs `conda:` or `pypi:`", where=ref.where())
                loc_key = (kind, ref.text(kind, required=True, what="a package reference"))
            kind, loc = loc_key
            candidates = index.get(loc_key)
            if not candidates:
                where = ref.where(kind) if ref else Where(file=filename, line=line,
                                                          key=f"{per_platform.key(key)}[{i}].{kind}")
                raise ParseError(f"package {loc!r} is referenced but not listed under `packages:`", where=where)
            entry, where = _pick(candidates, raw, platform)
            fields = parsed.get(id(entry))
            if fields is None:
                fields = parsed[id(entry)] = (_conda_fields if kind == "conda" else _pypi_fields)(entry, loc, where)
            if kind == "conda":
                name, version, build, build_number, channel, subdir, md5, sha256, depends = fields
                out.append(LockedPackage(
                    manager="conda", name=name, version=version, build=build, build_number=build_number,
                    channel=channel, platform=platform, subdir=subdir, url=loc, md5=md5, sha256=sha256,
                    depends=depends, line=line))
            else:
                name, version, md5, sha256, depends, editable = fields
                if ref is not None and "editable" in ref:
                    editable = ref.flag("editable") or _is_path(loc)
                out.append(LockedPackage(
                    manager="pip", name=name, version=version, platform=platform, url=loc, sha256=sha256,
                    md5=md5, depends=depends, editable=editable, line=line))
    meta = [("version", str(data.get("version")))]
    if env.get("options"):
        meta.append(("options", to_json(env.get("options"))))
    return Lock(kind="pixi", platforms=platforms, packages=tuple(out), channels=tuple(channels),
                environment=env_name, pip_options=tuple(pip_options), metadata=tuple(meta), source=filename)


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
        if ((name is None or type(name) is str) and (version is None or type(version) is str)
                and (build is None or type(build) is str) and (bn is None or type(bn) is int)
                and (sub is None or type(sub) is str) and (md5 is None or type(md5) is str)
                and (sha256 is None or type(sha256) is str) and (deps is None or type(deps) is YamlList)):
            depends = ()
            if deps:
                depends = tuple(_split_dep(d) for d in deps if type(d) is str)
            if len(depends) == len(deps or ()):
                return (name or nvb[0], version or nvb[1], build or nvb[2], bn or 0, chan, sub or subdir or None,
                        md5, sha256, depends)
    p = Fields(entry, where.file, where.key, line=where.line, what="a package entry")
    name = p.text("name") or (nvb[0] if nvb else None)
    version = p.text("version") or (nvb[1] if nvb else None)
    build = p.text("build") or (nvb[2] if nvb else None)
    if name is None or version is None:
        raise ParseError(f"cannot tell name and version of {loc!r}", where=p.where("conda"),
                         hint="the entry needs `name:` and `version:`, or a conda package file name")
    depends = tuple(_split_dep(d) for d in p.texts("depends"))
    sub = p.text("subdir") or subdir
    return (name, version, build, p.integer("build_number") or 0, chan, sub or None, p.text("md5"),
            p.text("sha256"), depends)


def _pypi_fields(entry, loc: str, where: Where) -> tuple:
    """(name, version, md5, sha256, requires_dist, editable) of a pypi entry."""
    from envkit.formats._util import Fields

    p = Fields(entry, where.file, where.key, line=where.line, what="a package entry")
    name = p.text("name")
    if not name:
        raise ParseError(f"pypi package {loc!r} has no name", where=p.where("pypi"))
    depends = tuple(_split_req(d) for d in p.texts("requires_dist"))
    editable = p.flag("editable") or _is_path(loc)
    return name, p.text("version") or "", p.text("md5"), p.text("sha256"), depends, editable


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
    import re

    s = str(text).strip()
    m = re.match(r"^([A-Za-z0-9][A-Za-z0-9._-]*)(.*)$", s)
    if not m:
        return s, ""
    return m.group(1), m.group(2).strip()
