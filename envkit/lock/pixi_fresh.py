"""pixi's definition of a fresh pixi.lock (its satisfiability check, prefix-dev/pixi
crates/pixi_core/src/lock_file/satisfiability): for every environment of the manifest, the lock
has that environment; its channels, solve options, PyPI indexes and platforms (with their virtual
packages) are the manifest's; and on each platform every conda and PyPI request is satisfied by a
locked record (conda match semantics; PEP 440 for PyPI; a path, git or url source by a source
record from there), and so is every requirement of the records they reach (envkit.lock.pixi_graph).
An environment or platform the lock has and the manifest does not is stale too: pixi's check fails
on it and `pixi lock` prunes it.  Unlike `pixi lock --check`, a lock missing an environment is stale.
"""

from __future__ import annotations

from envkit.conda.channels import ANACONDA_ORG
from envkit.conda.names import pep503
from envkit.formats._manifest import Entry, conda_dep
from envkit.formats.pixitoml import PixiManifest, read_manifest
from envkit.lock.changes import Change, stale
from envkit.lock.packages import accepts, pip_accepts
from envkit.model import Lock


def channel_url(name: str) -> str:
    """A channel as pixi.lock records it: its URL, without the trailing slash."""
    return (name if "://" in name else f"{ANACONDA_ORG}/{name}").rstrip("/")


def pixi_changes(
    manifest_text: str, manifest_path: str, lock_text: str, lock_path: str, only: str | None
) -> tuple[list[str], list[Change]]:
    """(the environments judged, the Changes) of a pixi manifest against its pixi.lock."""
    from envkit.formats.pixilock import platform_subdirs, read_pixi_environments
    from envkit.lock.pixi_graph import lock_details

    m = read_manifest(manifest_text, manifest_path)
    locked = read_pixi_environments(lock_text, lock_path)
    subdirs = platform_subdirs(lock_text, lock_path)
    details = lock_details(lock_text, lock_path)
    envs = [m.environment(only)] if only else list(m.environments.values())
    out: list[Change] = []
    # (solve group, platform) -> the conda names conda / PyPI requests reach (pixi_graph.conda_for_pypi)
    reached: dict[tuple[str, str], tuple[set[str], set[str]]] = {}
    for env in envs:
        lk = locked.get(env.name)
        if lk is None:
            out.append(
                stale(
                    what="missing-environment",
                    environment=env.name,
                    line=env.line or m.line_of("environments"),
                    message=f"environment {env.name!r} is declared but not locked",
                )
            )
            continue
        out.extend(_environment(m, env, lk, subdirs, details, reached))
    out += _solve_groups(m, envs, reached, judged_whole=not only)
    if not only:
        for name in locked:
            if name not in m.environments:
                # pixi's satisfiability fails on it, and `pixi lock` rewrites the lock without it
                out.append(
                    stale(
                        what="extra-environment",
                        environment=name,
                        message=f"the lock has environment {name!r}, which the manifest no longer declares",
                    )
                )
    return [e.name for e in envs], out


def _solve_groups(m: PixiManifest, envs, reached: dict, judged_whole: bool) -> list[Change]:
    from envkit.lock.pixi_graph import conda_for_pypi

    out: list[Change] = []
    for (group, platform), sets in reached.items():
        alone = group in m.environments and m.environments[group].solve_group is None
        if judged_whole or alone:  # one environment of a group is not the group
            name = group if alone else next(e.name for e in envs if e.solve_group == group)
            out += conda_for_pypi(name, platform, sets)
    return out


def _environment(
    m: PixiManifest, env, lk: Lock, subdirs: dict[str, str], details, reached: dict
) -> list[Change]:
    out: list[Change] = []
    plats = m.platforms_of(env)
    plat_line = m.line_of("workspace", "platforms") or m.line_of("project", "platforms")
    # a version 7 lock names its platforms: one whose subdir a declared platform has is that one
    keys = {p: _lock_key(p, m.subdir(p), lk.platforms, subdirs) for p in plats}
    missing = [p for p, k in keys.items() if k is None and m.requested(env, p)]
    declared = {m.subdir(p) for p in plats} | set(plats)
    extra = [q for q in lk.platforms if q not in declared and subdirs.get(q, q) not in declared]
    found: list[tuple[str, str, str]] = []  # (what, platform, message)
    for p, k in keys.items():
        if k == p and subdirs.get(p, m.subdir(p)) != m.subdir(p):
            found.append(
                ("changed-platform", p, f"platform {p} is {m.subdir(p)}; the lock has it as {subdirs[p]}")
            )
            keys[p] = None  # its packages are another subdir's: not compared
    found += [("missing-platform", p, f"platform {p} is declared but not locked") for p in missing]
    says = "the lock has platform {}, which the environment no longer declares"
    found += [("extra-platform", p, says.format(p)) for p in extra]
    out += [
        stale(what=w, environment=env.name, platform=p, line=plat_line, message=msg) for w, p, msg in found
    ]
    out += _virtual_packages(m, env, keys, details, plat_line)
    out += _options(m, env, lk)
    out += _indexes(m, env, lk)
    out += _no_build(m, env, lk)
    out += _channels(m, env, lk)
    for p, key in keys.items():
        if key is not None:
            sets = reached.setdefault((env.solve_group or env.name, p), (set(), set()))
            out.extend(_platform(m, env, p, lk, key, details, sets))
    return out


def _virtual_packages(m: PixiManifest, env, keys: dict, details, line: int | None) -> list[Change]:
    """A platform's virtual packages (its table's, `__cuda` from system-requirements) against those a
    version 7 lock recorded for the platform of the same name."""
    out: list[Change] = []
    for p, key in keys.items():
        if key != p or p not in details.virtual_packages:
            continue
        locked = dict(v.split("=", 2)[:2] for v in details.virtual_packages[p] if "=" in v)
        want = m.virtual_packages(env, p)
        names = sorted({"__cuda", *dict(m.platform_tables.get(p, (p, ()))[1])})
        differ = [n for n in names if want.get(n) != locked.get(n)]
        if differ:
            said = ", ".join(f"{n}={want[n]}" for n in differ if n in want) or "none"
            got = ", ".join(f"{n}={locked[n]}" for n in differ if n in locked) or "none"
            msg = f"platform {p} declares virtual packages {said}; the lock was solved with {got}"
            out.append(
                stale(what="changed-platform", environment=env.name, platform=p, line=line, message=msg)
            )
    return out


def _no_build(m: PixiManifest, env, lk: Lock) -> list[Change]:
    """`pypi-options.no-build`: every locked PyPI record must be a wheel (or an editable path)."""
    import json

    opts = [dict(f.pypi_options) for f in m.features_of(env)]
    setting = next((o["no-build"] for o in opts if "no-build" in o), None)
    if setting is None or setting == "false":
        return []
    names = None if setting == "true" else {pep503(n) for n in json.loads(setting)}
    bad = sorted(
        {
            p.name
            for p in lk.packages
            if p.manager == "pip"
            and not p.editable
            and not (p.url or "").split("#", 1)[0].endswith(".whl")
            and (names is None or pep503(p.name) in names)
        }
    )
    line = m.line_of("pypi-options", "no-build") or m.line_of("workspace", "pypi-options", "no-build")
    return [
        stale(
            what="options",
            environment=env.name,
            name=n,
            line=line,
            message=f"{n} is locked as a source distribution, but pypi-options.no-build is set",
        )
        for n in bad
    ]


#: solve option: (the lock's key, pixi's default, manifest value -> the lock's spelling)
_STRATEGY = {"lowest": "lowest-version", "lowest-direct": "lowest-version-direct"}


def _channels(m: PixiManifest, env, lk: Lock) -> list[Change]:
    """The environment's channels, in order, against the lock's."""
    want = [channel_url(c) for c in m.channels_of(env)]
    got = [channel_url(c.url or c.name) for c in lk.channels]
    if want == got:
        return []
    # channels appended at a lower priority keep the locked packages valid, but pixi still calls the
    # lock out of date (EnvironmentUnsat::ChannelsExtended) and rewrites its channel list
    return [
        stale(
            what="channels",
            environment=env.name,
            line=m.line_of("workspace", "channels") or m.line_of("project", "channels"),
            message=f"channels are {', '.join(want) or 'none'}; locked with {', '.join(got) or 'none'}",
            locked=", ".join(got),
        )
    ]


def _options(m: PixiManifest, env, lk: Lock) -> list[Change]:
    """The solve options the lock records (`options:`) that the manifest no longer asks for."""
    import json

    locked = json.loads(dict(lk.metadata).get("options") or "{}")
    asked = dict(m.solve_options)
    prerelease = dict(m.features["default"].pypi_options).get("prerelease-mode")
    pairs = (
        ("channel-priority", "channel-priority", asked.get("channel-priority"), "strict"),
        (
            "solve-strategy",
            "strategy",
            _STRATEGY.get(asked.get("solve-strategy", ""), asked.get("solve-strategy")),
            "highest",
        ),
        ("pypi-options.prerelease-mode", "pypi-prerelease-mode", prerelease, "if-necessary-or-explicit"),
        ("exclude-newer", "exclude-newer", asked.get("exclude-newer"), None),
    )
    out: list[Change] = []
    for key, lkey, want, default in pairs:
        got = locked.get(lkey, default)
        want = want if want is not None else default
        same = got == want or (lkey == "exclude-newer" and want and str(got or "").startswith(str(want)))
        if not same:
            line = m.line_of("workspace", *key.split(".")) or m.line_of(*key.split("."))
            msg = f"{key} is {want or 'not set'}; the lock was solved with {got or 'none'}"
            out.append(
                stale(
                    what="options",
                    environment=env.name,
                    name=key,
                    line=line,
                    message=msg,
                    locked=str(got),
                )
            )
    return out


def _indexes(m: PixiManifest, env, lk: Lock) -> list[Change]:
    """The PyPI indexes and find-links the environment's pypi-options name, against those the lock
    records (only a lock with PyPI packages records them)."""
    import json

    if not lk.pip_options:
        return []
    index, extra, links = None, [], []
    for f in m.features_of(env):
        opts = dict(f.pypi_options)
        index = index or opts.get("index-url")
        extra += [u for u in json.loads(opts.get("extra-index-urls", "[]")) if u not in extra]
        for link in json.loads(opts.get("find-links", "[]")):
            value = link.get("path") or link.get("url") if isinstance(link, dict) else link
            if value not in links:
                links.append(value)
    want = [f"--index-url {(index or 'https://pypi.org/simple').rstrip('/')}"]
    want += [f"--extra-index-url {u.rstrip('/')}" for u in extra] + [f"--find-links {v}" for v in links]
    got = [o.rstrip("/") for o in lk.pip_options]
    if sorted(want) == sorted(got):
        return []
    line = m.line_of("workspace", "pypi-options") or m.line_of("pypi-options")
    msg = f"pypi-options are {' '.join(want)}; the lock was solved with {' '.join(got)}"
    return [
        stale(
            what="options",
            environment=env.name,
            name="pypi-options",
            line=line,
            message=msg,
        )
    ]


def _lock_key(platform: str, subdir: str, locked: tuple[str, ...], subdirs: dict[str, str]) -> str | None:
    """The lock's name for a declared platform: the same name, else the one of the same subdir."""
    if platform in locked:
        return platform
    return next((q for q in locked if subdirs.get(q, q) == subdir), None)


def _platform(m: PixiManifest, env, platform: str, lk: Lock, key: str, details, reached) -> list[Change]:
    """Each request that applies on `platform` met by a locked record, then pixi's walk of the
    records it reaches (envkit.lock.pixi_graph)."""
    from envkit.conda.platform import marker_holds, target_markers
    from envkit.lock.pixi_graph import walk, wheel_tags

    subdir, pkgs = m.subdir(platform), lk.for_platform(key)
    conda = {p.name: p for p in pkgs if p.manager == "conda"}
    pip = {pep503(p.name): p for p in pkgs if p.manager == "pip"}
    out: list[Change] = []
    python = conda.get("python")
    applied = []
    for (manager, name), e in m.requested(env, platform).items():
        if e.marker and not marker_holds(e.marker, target_markers(subdir, python.version if python else "3")):
            continue
        applied.append(e)
        if manager == "conda":
            pkg = conda.get(name)
            ok = pkg is not None and (e.source is not None or accepts(conda_dep(e), pkg))
        else:
            pkg = pip.get(pep503(name)) or conda.get(pep503(name))
            ok = pkg is not None and (
                e.source is not None
                or pkg.manager == "conda"
                or not e.version
                or e.version == "*"
                or pip_accepts(e.version, pkg.version)
            )
            if ok and pkg is not None and pkg.manager == "pip":
                out += _index(env.name, platform, e, details.index.get(pkg.url or ""), lk)
        if ok:
            continue
        if pkg is None:
            what, msg, locked = "added", f"{e.spec}: not locked", None
        else:
            locked = f"{pkg.name} {pkg.version}" + (f" {pkg.build}" if pkg.build else "")
            what, msg = "changed", f"{e.spec}: locked {locked} does not match"
        out.append(
            stale(
                what=what,
                message=msg,
                environment=env.name,
                platform=platform,
                name=name,
                line=e.line,
                key=e.key,
                locked=locked,
            )
        )
    import json

    vps = m.virtual_packages(env, platform)
    overrides: dict[str, str] = {}
    for f in reversed(m.features_of(env)):
        table = json.loads(dict(f.pypi_options).get("dependency-overrides", "{}"))
        overrides.update({k: v for k, v in table.items() if isinstance(v, str)})
    sysreq = m.line_of("system-requirements") or m.line_of("workspace", "platforms")
    out += wheel_tags(env.name, platform, pkgs, vps, sysreq)
    return out + walk(env.name, platform, subdir, applied, pkgs, details, vps, overrides, reached)


def _index(env: str, platform: str, e: Entry, locked: str | None, lk: Lock) -> list[Change]:
    """A PyPI request's index (its own, else one of the environment's) against the one its record
    was locked from (a version 7 lock records it)."""
    if locked is None:
        return []
    # pixi accepts the environment's indexes and find-links URLs (collect_locked_indexes)
    envs = [o.split(" ", 1)[1].rstrip("/") for o in lk.pip_options if " " in o]
    want = [e.index.rstrip("/")] if e.index else envs or ["https://pypi.org/simple"]
    if locked.rstrip("/") in want:
        return []
    return [
        stale(
            what="index",
            environment=env,
            platform=platform,
            name=e.name,
            line=e.line,
            key=e.key,
            message=f"{e.spec} asks for index {want[0]}; it is locked from {locked}",
            locked=locked,
        )
    ]
