"""pixi.lock (versions 6 and 7): read one environment into a Lock.

Layout: `environments.<env>.packages.<platform>` lists references (`- conda: URL`, `- pypi: URL or
path`), and a top-level `packages:` list holds each package's data once (`conda:`/`pypi:` location,
hashes, depends, ...).  Version 7 adds a top-level `platforms:` list and per-environment `indexes:`;
everything envkit reads is otherwise the same.  Name, version and build of a conda package come from
its file name unless the entry states them.
"""
from __future__ import annotations

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
    envs = data.get("environments") or {}
    return {str(name): _read_env(data, envs[name] or {}, str(name), filename) for name in envs}


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
    envs = data.get("environments") or {}
    if env_name not in envs:
        names = ", ".join(str(k) for k in envs) or "none"
        raise EnvironmentNotFound(f"pixi.lock has no environment {env_name!r} (it has: {names})",
                                  where=Where(file=filename, line=data.line_of("environments")),
                                  hint="choose one with --environment")
    env = envs[env_name] or {}
    return _read_env(data, env, env_name, filename)


def _read_env(data, env, env_name: str, filename: str | None) -> Lock:
    from envkit.conda.channels import parse_channel
    from envkit.formats._util import to_json, url_parts

    # index the package data by (kind, location); a location can carry several variants (rare),
    # told apart by the name/version an environment's reference gives
    index: dict[tuple[str, str], list] = {}
    raw_pkgs = data.get("packages") or []
    for i, p in enumerate(raw_pkgs):
        if not isinstance(p, dict):
            raise ParseError("a package entry must be a mapping", where=Where(file=filename, line=raw_pkgs.line_of(i)))
        kind = "conda" if "conda" in p else "pypi" if "pypi" in p else None
        if kind is None:
            raise ParseError("a package entry needs `conda:` or `pypi:`", where=Where(file=filename, line=p.line))
        index.setdefault((kind, str(p[kind])), []).append(p)

    channels = []
    for c in env.get("channels") or ():
        url = c.get("url") if isinstance(c, dict) else c
        if isinstance(url, str):
            channels.append(parse_channel(url))
    pip_options = []
    indexes = env.get("indexes") or ()
    for j, u in enumerate(indexes):
        pip_options.append(f"--index-url {u}" if j == 0 else f"--extra-index-url {u}")
    for u in env.get("find-links") or ():
        target = u.get("url") or u.get("path") if isinstance(u, dict) else u
        if target:
            pip_options.append(f"--find-links {target}")
    per_platform = env.get("packages") or {}
    platforms = tuple(str(k) for k in per_platform)
    out: list[LockedPackage] = []
    for platform in platforms:
        refs = per_platform[platform] or []
        for i, ref in enumerate(refs):
            line = refs.line_of(i)
            if not isinstance(ref, dict):
                raise ParseError("a package reference must be a mapping", where=Where(file=filename, line=line))
            kind = "conda" if "conda" in ref else "pypi" if "pypi" in ref else None
            if kind is None:
                raise ParseError("a package reference needs `conda:` or `pypi:`", where=Where(file=filename, line=line))
            loc = str(ref[kind])
            candidates = index.get((kind, loc))
            if not candidates:
                raise ParseError(f"package {loc!r} is referenced but not listed under `packages:`",
                                 where=Where(file=filename, line=line))
            p = _pick(candidates, ref, platform)
            if kind == "conda":
                chan, subdir, nvb = url_parts(loc)
                name = p.get("name") or (nvb[0] if nvb else None)
                version = p.get("version") or (nvb[1] if nvb else None)
                build = p.get("build") or (nvb[2] if nvb else None)
                if name is None or version is None:
                    raise ParseError(f"cannot tell name and version of {loc!r}", where=Where(file=filename, line=p.line))
                depends = tuple(_split_dep(d) for d in (p.get("depends") or ()))
                out.append(LockedPackage(
                    manager="conda", name=str(name), version=str(version), build=None if build is None else str(build),
                    build_number=int(p.get("build_number", 0) or 0), channel=chan,
                    platform=platform, subdir=str(p.get("subdir") or subdir) if (p.get("subdir") or subdir) else None,
                    url=loc, md5=p.get("md5"), sha256=p.get("sha256"), depends=depends, line=line))
            else:
                name = p.get("name")
                if not name:
                    raise ParseError(f"pypi package {loc!r} has no name", where=Where(file=filename, line=p.line))
                depends = tuple(_split_req(d) for d in (p.get("requires_dist") or ()))
                editable = bool(ref.get("editable", p.get("editable", False))) or _is_path(loc)
                out.append(LockedPackage(
                    manager="pip", name=str(name), version=str(p.get("version") or ""), platform=platform,
                    url=loc, sha256=p.get("sha256"), md5=p.get("md5"), depends=depends, editable=editable,
                    line=line))
    meta = [("version", str(data.get("version")))]
    if env.get("options"):
        meta.append(("options", to_json(env.get("options"))))
    return Lock(kind="pixi", platforms=platforms, packages=tuple(out), channels=tuple(channels),
                environment=env_name, pip_options=tuple(pip_options), metadata=tuple(meta), source=filename)


def _pick(candidates: list, ref: dict, platform: str):
    if len(candidates) == 1:
        return candidates[0]
    for c in candidates:
        if all(c.get(k) == ref[k] for k in ("name", "version", "build", "subdir") if k in ref):
            if c.get("subdir") in (None, platform, "noarch"):
                return c
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
