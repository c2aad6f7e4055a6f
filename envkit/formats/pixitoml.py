"""pixi's manifest: pixi.toml, or a pyproject.toml with `[tool.pixi.*]` tables, read as a spec
(`read_manifest`; `read_pixi_manifest` gives one environment as the EnvSpec check, diff and
validate read).

An environment's requests are those of its features, the first listed winning, the default feature
last (unless `no-default-feature`); a `target.<selector>` entry wins over the feature's plain one on
the platforms the selector names.  A key close to a known one is a typo and an error, as pixi's
own parser makes it; pixi solves and locks the manifest (envkit reads it and its pixi.lock).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from envkit.formats._manifest import Entry, bad, check_keys, conda_dep, pip_dep
from envkit.formats._tomllines import Path, dotted, key_lines, line_of
from envkit.formats.pyproject import check_types, group_entries, project_entries

DEFAULT = "default"
_DEPS = ("dependencies", "host-dependencies", "build-dependencies", "run-dependencies")
TARGET_KEYS = (*_DEPS, "pypi-dependencies", "tasks", "activation", "dev", "constraints")
FEATURE_KEYS = (
    *TARGET_KEYS,
    *("channels", "channel-priority", "platforms", "system-requirements", "pypi-options", "target"),
)
TOP_KEYS = (*FEATURE_KEYS, "workspace", "project", "package", "feature", "environments", "tool", "$schema")
WORKSPACE_KEYS = (
    *("name", "version", "description", "authors", "channels", "platforms", "license", "license-file"),
    *("readme", "homepage", "repository", "documentation", "channel-priority", "solve-strategy"),
    *("conda-pypi-map", "pypi-options", "preview", "requires-pixi", "build-variants"),
    *("build-variants-files", "exclude-newer", "s3-options", "target", "system-requirements"),
)
ENVIRONMENT_KEYS = ("features", "solve-group", "no-default-feature")
#: system-requirements and platform-table keys -> the virtual package they set
_SYSREQ = {"cuda": "__cuda", "glibc": "__glibc", "libc": "__glibc", "macos": "__osx", "linux": "__linux"}
#: Target selectors that name several platforms (pixi's `target.unix`, `target.linux`, ...).
_FAMILIES = {"unix": ("linux", "osx", "freebsd"), "linux": ("linux",), "osx": ("osx",), "win": ("win",)}


@dataclass(frozen=True, slots=True, kw_only=True)
class Feature:
    """One feature (the default one is the manifest's top level).  `entries` are (target selector or
    None, Entry) in file order; `channels` (name, priority) and `platforms` None when not set."""

    name: str
    entries: tuple[tuple[str | None, Entry], ...] = ()
    channels: tuple[tuple[str, int], ...] | None = None
    platforms: tuple[str, ...] | None = None
    system_requirements: tuple[tuple[str, str], ...] = ()
    pypi_options: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True, slots=True, kw_only=True)
class Environment:
    name: str
    features: tuple[str, ...] = ()
    solve_group: str | None = None
    no_default_feature: bool = False
    line: int | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class PixiManifest:
    """A pixi manifest: `features` by name (DEFAULT first), `environments` by name (DEFAULT always)."""

    path: str | None
    name: str | None
    features: dict[str, Feature]
    environments: dict[str, Environment]
    lines: dict[Path, int] = field(default_factory=dict)
    prefix: Path = ()
    #: a named platform (`{ name = "linux-64-cuda", platform = "linux-64", cuda = "12" }`) -> its
    #: subdir and virtual packages (`__cuda` -> "12"); a plain platform is its own subdir
    platform_tables: dict[str, tuple[str, tuple[tuple[str, str], ...]]] = field(default_factory=dict)
    #: the workspace's solve options as written (channel-priority, solve-strategy, exclude-newer)
    solve_options: tuple[tuple[str, str], ...] = ()

    def subdir(self, platform: str) -> str:
        return self.platform_tables.get(platform, (platform, ()))[0]

    def virtual_packages(self, env: Environment, platform: str) -> dict[str, str]:
        """`__name` -> version on `platform`: its table's, then the environment's system-requirements."""
        out = dict(self.platform_tables.get(platform, (platform, ()))[1])
        for f in reversed(self.features_of(env)):
            for key, value in f.system_requirements:
                vp = _SYSREQ.get(key)
                if vp and vp not in out:
                    out[vp] = value.strip('"')
        return out

    def environment(self, name: str | None) -> Environment:
        """The environment `name` (DEFAULT when None); EnvironmentNotFound naming the others."""
        from envkit.errors import EnvironmentNotFound

        env = self.environments.get(name or DEFAULT)
        if env is None:
            raise EnvironmentNotFound(
                f"no environment {name!r} in the manifest",
                hint=f"one of: {', '.join(self.environments)}",
            )
        return env

    def features_of(self, env: Environment) -> list[Feature]:
        """The features of `env` in priority order: as listed, then the default one."""
        names = list(env.features) + ([] if env.no_default_feature else [DEFAULT])
        return [self.features[n] for n in names if n in self.features]

    def platforms_of(self, env: Environment) -> tuple[str, ...]:
        """The platforms `env` is solved for: the workspace's, narrowed by each feature that sets some."""
        plats = list(self.features[DEFAULT].platforms or ())
        for f in self.features_of(env):
            if f.platforms is not None and f.name != DEFAULT:
                plats = [p for p in plats if p in f.platforms] if plats else list(f.platforms)
        return tuple(plats)

    def channels_of(self, env: Environment) -> tuple[str, ...]:
        """The channels of `env` in pixi's order: by priority (highest first), then by feature
        (listed ones before the default), then as written."""
        seen: dict[str, tuple[int, int, int]] = {}
        for fi, f in enumerate(self.features_of(env)):
            for ci, (name, prio) in enumerate(f.channels or ()):
                seen.setdefault(name, (-prio, fi, ci))
        return tuple(sorted(seen, key=lambda n: seen[n]))

    def requested(self, env: Environment, platform: str) -> dict[tuple[str, str], Entry]:
        """(manager, name) -> the Entry `env` asks for on `platform` (the winning one)."""
        out: dict[tuple[str, str], Entry] = {}
        subdir = self.subdir(platform)
        virtual = self.virtual_packages(env, platform)
        for f in reversed(self.features_of(env)):  # the default first: later (higher) features win
            mine: dict[tuple[str, str], Entry] = {}
            for target, e in f.entries:  # plain entries come first: a target's entry wins
                if (target is None or applies(target, subdir)) and (
                    e.when is None or _holds(e.when, virtual)
                ):
                    mine[(e.manager, e.name)] = e
            out.update(mine)
        return out

    def line_of(self, *path: str | int) -> int | None:
        return line_of(self.lines, (*self.prefix, *path))


def _holds(when: str, virtual: dict[str, str]) -> bool:
    """Whether a conditional dependency's `when` (a virtual-package match spec) holds."""
    from envkit.conda.matchspec import matches, parse_spec

    dep = parse_spec(when)
    version = virtual.get(dep.name)
    return version is not None and matches(dep, name=dep.name, version=version)


def applies(selector: str, platform: str) -> bool:
    """Whether `target.<selector>` applies to `platform` (a platform name or a family)."""
    if selector == platform:
        return True
    os_name = platform.split("-", 1)[0]
    return os_name in _FAMILIES.get(selector, ())


def read_manifest(text: str, filename: str | None = None) -> PixiManifest:
    """Parse a pixi.toml (or a pyproject.toml's `[tool.pixi]`) into a PixiManifest.

    Raises ParseError naming file, line and key for invalid TOML, a value of the wrong kind, or a
    key that is a typo of a known one."""
    from envkit.formats._toml import load_toml

    data = load_toml(text, filename, "pixi manifest")
    lines = key_lines(text)
    tool = data.get("tool")
    if isinstance(tool, dict) and "pixi" in tool:
        if not isinstance(tool["pixi"], dict):
            raise bad("`tool.pixi` must be a table", ("tool", "pixi"), lines, filename)
        check_types(data, lines, filename)  # the pyproject.toml's own tables, which pixi reads too
        return _Reader(filename, lines, ("tool", "pixi")).manifest(tool["pixi"], data)
    return _Reader(filename, lines, ()).manifest(data, None)


class _Reader:
    def __init__(self, filename: str | None, lines: dict[Path, int], prefix: Path) -> None:
        self.filename, self.lines, self.prefix = filename, lines, prefix

    def bad(self, message: str, *path: str | int) -> Exception:
        return bad(message, (*self.prefix, *path), self.lines, self.filename)

    def table(self, value: Any, *path: str | int) -> dict:
        if value is None:
            return {}
        if not isinstance(value, dict):
            raise self.bad(f"`{dotted(path)}` must be a table", *path)
        return value

    def manifest(self, root: dict, pyproject: dict | None) -> PixiManifest:
        check_keys(root, TOP_KEYS, self.prefix, self.lines, self.filename)
        ws_key = "workspace" if "workspace" in root else "project"
        ws = self.table(root.get(ws_key), ws_key)
        check_keys(ws, WORKSPACE_KEYS, (*self.prefix, ws_key), self.lines, self.filename)
        default = self.feature(
            DEFAULT, {**root, **{k: ws[k] for k in ("channels", "platforms", "pypi-options") if k in ws}}, ()
        )
        default = _with_pyproject(default, pyproject, self) if pyproject is not None else default
        features = {DEFAULT: default}
        for name, body in self.table(root.get("feature"), "feature").items():
            path = ("feature", name)
            check_keys(
                self.table(body, *path), FEATURE_KEYS, (*self.prefix, *path), self.lines, self.filename
            )
            features[name] = self.feature(name, body, path)
        if pyproject is not None:
            for name, f in _pyproject_features(pyproject, self).items():
                features.setdefault(name, f)
        envs = {DEFAULT: Environment(name=DEFAULT)}
        for name, body in self.table(root.get("environments"), "environments").items():
            envs[name] = self.environment(name, body, features)
        name = ws.get("name") or ((pyproject or {}).get("project") or {}).get("name")
        tables = {}
        for p in ws.get("platforms") or ():
            if isinstance(p, dict) and isinstance(p.get("name"), str):
                vps = tuple((_SYSREQ[k], str(v)) for k, v in p.items() if k in _SYSREQ)
                tables[p["name"]] = (str(p.get("platform") or p["name"]), vps)
        opts = tuple(
            (k, str(ws[k])) for k in ("channel-priority", "solve-strategy", "exclude-newer") if k in ws
        )
        return PixiManifest(
            solve_options=opts,
            platform_tables=tables,
            path=self.filename,
            name=name if isinstance(name, str) else None,
            features=features,
            environments=envs,
            lines=self.lines,
            prefix=self.prefix,
        )

    def environment(self, name: str, body: Any, features: dict[str, Feature]) -> Environment:
        path = ("environments", name)
        at = (*self.prefix, *path)
        # an inline environment is written as its sub-tables only (`[environments.py312.dependencies]`)
        line = min((ln for k, ln in self.lines.items() if k[: len(at)] == at), default=None)
        if isinstance(body, list):
            body = {"features": body}
        body = self.table(body, *path)
        inline = {k: v for k, v in body.items() if k not in ENVIRONMENT_KEYS}
        check_keys(
            inline, (*ENVIRONMENT_KEYS, *FEATURE_KEYS), (*self.prefix, *path), self.lines, self.filename
        )
        listed = body.get("features", [])
        if not isinstance(listed, list) or not all(isinstance(f, str) for f in listed):
            raise self.bad("`features` must be a list of feature names", *path, "features")
        for f in listed:
            if f not in features:
                raise self.bad(f"environment {name!r} names no such feature {f!r}", *path, "features")
        own: tuple[str, ...] = ()
        if inline:
            # an inline environment (`[environments.py312.dependencies]`) is its own first feature
            features[f"environments.{name}"] = self.feature(name, inline, path)
            own = (f"environments.{name}",)
        group = body.get("solve-group")
        return Environment(
            name=name,
            features=own + tuple(listed),
            solve_group=group if isinstance(group, str) else None,
            no_default_feature=bool(body.get("no-default-feature", False)),
            line=line,
        )

    def feature(self, name: str, body: dict, path: Path) -> Feature:
        entries: list[tuple[str | None, Entry]] = list(self.entries(body, path, None))
        for target, tbody in self.table(body.get("target"), *path, "target").items():
            tpath = (*path, "target", target)
            tbody = self.table(tbody, *tpath)
            check_keys(tbody, TARGET_KEYS, (*self.prefix, *tpath), self.lines, self.filename)
            entries.extend(self.entries(tbody, tpath, target))
        return Feature(
            name=name,
            entries=tuple(entries),
            channels=self.channels(body["channels"], (*path, "channels")) if "channels" in body else None,
            platforms=self.platforms(body["platforms"], (*path, "platforms"))
            if "platforms" in body
            else None,
            system_requirements=_flat(
                self.table(body.get("system-requirements"), *path, "system-requirements")
            ),
            pypi_options=_flat(self.table(body.get("pypi-options"), *path, "pypi-options")),
        )

    def entries(self, body: dict, path: Path, target: str | None):
        from envkit.formats._pixispecs import conda_entry, pypi_entry

        for key in (*_DEPS[:1], "pypi-dependencies"):
            for name, value in self.table(body.get(key), *path, key).items():
                at = (*self.prefix, *path, key, name)
                where = (dotted(at), line_of(self.lines, at))
                try:
                    e = (
                        conda_entry(name, value, where)
                        if key == "dependencies"
                        else pypi_entry(name, value, where)
                    )
                except ValueError as exc:
                    raise self.bad(str(exc), *path, key, name) from None
                yield target, e

    def channels(self, value: Any, path: Path) -> tuple[tuple[str, int], ...]:
        if not isinstance(value, list):
            raise self.bad("`channels` must be a list", *path)
        out = []
        for i, c in enumerate(value):
            if isinstance(c, str):
                out.append((c, 0))
            elif isinstance(c, dict) and isinstance(c.get("channel"), str):
                prio = c.get("priority", 0)
                out.append((c["channel"], prio if isinstance(prio, int) else 0))
            else:
                raise self.bad("a channel is a name or { channel = ..., priority = N }", *path, i)
        return tuple(out)

    def platforms(self, value: Any, path: Path) -> tuple[str, ...]:
        if not isinstance(value, list):
            raise self.bad("`platforms` must be a list", *path)
        out = []
        for i, p in enumerate(value):
            name = p.get("name") if isinstance(p, dict) else p
            if not isinstance(name, str):
                raise self.bad("a platform is a name (linux-64, osx-arm64, win-64, ...)", *path, i)
            out.append(name)
        return tuple(out)


def _flat(table: Mapping[str, Any]) -> tuple[tuple[str, str], ...]:
    import json

    return tuple((k, v if isinstance(v, str) else json.dumps(v, sort_keys=True)) for k, v in table.items())


def _with_pyproject(default: Feature, pyproject: dict, reader: _Reader) -> Feature:
    """The default feature of a pyproject.toml's pixi manifest: `[project] dependencies` are its
    PyPI requests (pixi adds them so), after the `[tool.pixi]` ones."""
    extra = [(None, e) for e in project_entries(pyproject, reader.lines, "dependencies")]
    written = {e.name for _t, e in default.entries if e.manager == "pypi"}
    extra = [(t, e) for t, e in extra if e.name not in written]
    return replace(default, entries=default.entries + tuple(extra))


def _pyproject_features(pyproject: dict, reader: _Reader) -> dict[str, Feature]:
    """`[project.optional-dependencies]` and `[dependency-groups]` are features to pixi, by name."""
    out: dict[str, Feature] = {}
    extras = (pyproject.get("project") or {}).get("optional-dependencies") or {}
    for extra in extras if isinstance(extras, dict) else ():
        es = project_entries(pyproject, reader.lines, "optional-dependencies", extra)
        out[extra] = Feature(name=extra, entries=tuple((None, e) for e in es))
    for group, es in group_entries(pyproject, reader.lines, reader.filename).items():
        out.setdefault(group, Feature(name=group, entries=tuple((None, e) for e in es)))
    return out


def read_pixi_manifest(text: str, filename: str | None = None, *, environment: str | None = None):
    """One environment (DEFAULT when None) of a pixi manifest as an EnvSpec: its channels and
    platforms, and the conda and PyPI requests every platform shares (target-specific ones are
    judged per platform by the lock check).  Raises ParseError / EnvironmentNotFound."""
    from envkit.conda.channels import parse_channel
    from envkit.model import EnvSpec

    m = read_manifest(text, filename)
    env = m.environment(environment)
    plats = m.platforms_of(env)
    # the requests that are the same on every platform (all of them when it has none)
    per = [m.requested(env, p) for p in plats] or [m.requested(env, "")]
    shared = [e for k, e in per[0].items() if all(other.get(k) == e for other in per[1:])]
    conda = tuple(conda_dep(e) for e in shared if e.manager == "conda")
    pip = tuple(pip_dep(e) for e in shared if e.manager == "pypi")
    ws = "workspace" if (*m.prefix, "workspace") in m.lines else "project"
    lines = [(k, ln) for k, ln in ((ws, m.line_of(ws)), ("dependencies", m.line_of("dependencies"))) if ln]
    lines += [(k, ln) for k in ("channels", "platforms") if (ln := m.line_of(ws, k))]
    return EnvSpec(
        name=m.name if env.name == DEFAULT else env.name,
        channels=tuple(parse_channel(c) for c in m.channels_of(env)),
        conda=conda,
        pip=pip,
        platforms=plats,
        # pixi installs its pypi-dependencies itself (with uv), not with a conda `pip`
        has_pip_section=False,
        source=filename,
        lines=tuple(lines),
    )
