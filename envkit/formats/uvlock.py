"""uv.lock (uv's own universal lock, `version = 1`): read into a pip-only Lock.

Each `[[package]]` becomes a LockedPackage with manager "pip" and no platform: its first wheel (else
its sdist) is `url`/`sha256`, the other artifacts `other_files`, `source.registry` its `index`;
`source.editable` / `source.path` / `source.directory` become a path (editable for `editable`),
`source.git` a `git+URL@commit` URL.  A `virtual` project is left out: `uv sync` does not install it.
Lock-level `requires-python`, `resolution-markers` and `conflicts` (the extras and groups that
`[tool.uv] conflicts` says cannot be installed together) go to `Lock.metadata`.  envkit does not write
uv.lock: uv owns it (write pylock.toml instead).
"""

from __future__ import annotations

import json
import re
from dataclasses import replace

from envkit.errors import ParseError, UnsupportedVersionError, Where
from envkit.formats._toml import load_toml
from envkit.formats.pylock import META_REQUIRES_PYTHON, header_lines, json_metadata, line_of_key
from envkit.model import Lock, LockedPackage

SUPPORTED_VERSIONS = (1,)
META_RESOLUTION_MARKERS = "resolution-markers"
META_CONFLICTS = "conflicts"

_PKG_HEADER = re.compile(r"^\[\[package\]\][ \t]*(?:#.*)?$", re.MULTILINE)


def read_uv_lock(
    text: str,
    filename: str | None = None,
    *,
    extras: tuple[str, ...] = (),
    all_extras: bool = False,
    groups: tuple[str, ...] = (),
    all_groups: bool = False,
    no_default_groups: bool = False,
    frozen: bool = False,
) -> Lock:
    """Parse a uv.lock into Lock(kind="uv-lock") of the pip packages it installs (no platform),
    each with the marker it is installed under: what `uv sync` and `uv export` select
    (envkit.formats.uvselect) with the same options: `extras`, `all_extras`, `groups` (added to the
    default groups, which the pyproject.toml beside the lock sets, `dev` otherwise), `all_groups`,
    `no_default_groups`.  A lock without a project of its own (no `editable = "."` or
    `virtual = "."` package) keeps every package.  Raises UsageError for extras or groups the lock
    declares in conflict (`[tool.uv] conflicts`) chosen together, as uv does, and, with `frozen`,
    for a lock whose pyproject.toml names another project (`uv export --frozen` refuses it).

    Raises ParseError naming the file, line and key of a malformed entry, and
    UnsupportedVersionError for a lock version other than 1.
    """
    data = load_toml(text, filename, "uv.lock")
    _check_version(data.get("version"), text, filename)
    raw = data.get("package") or []
    lines = header_lines(text, _PKG_HEADER)
    out: list[LockedPackage] = []
    forks: list = []
    index: list[int] = []
    if type(raw) is not list:
        raise ParseError(
            "`package` must be an array of tables ([[package]])", where=Where(file=filename, key="package")
        )
    for i, p in enumerate(raw):
        try:
            pkg = _package(p, lines[i] if i < len(lines) else None)
        except _Bad as exc:
            raise ParseError(
                f"a uv.lock package entry {exc.args[0]}",
                where=Where(
                    file=filename,
                    line=lines[i] if i < len(lines) else None,
                    key=f"package[{i}]" + (f".{exc.args[1]}" if len(exc.args) > 1 else ""),
                ),
            ) from None
        if pkg is not None:
            out.append(pkg)
            forks.append(p.get("resolution-markers"))
            index.append(i)
    options = (extras, all_extras, groups, all_groups, no_default_groups, frozen)
    out = _selected(raw, out, index, filename, data.get(META_CONFLICTS), options) or _fork_markers(out, forks)
    _check_conflicts(data.get(META_CONFLICTS), text, filename)
    meta = json_metadata(data, (META_REQUIRES_PYTHON, META_RESOLUTION_MARKERS, META_CONFLICTS))
    return Lock(kind="uv-lock", platforms=(), packages=tuple(out), metadata=meta, source=filename)


def _check_version(version, text: str, filename: str | None) -> None:
    """ParseError when the lock has no version, UnsupportedVersionError when it is not one read."""
    if version in SUPPORTED_VERSIONS:
        return
    where = Where(file=filename, line=line_of_key(text, "version"), key="version")
    if version is None:
        raise ParseError("not a uv.lock: no `version = 1`", where=where)
    raise UnsupportedVersionError(
        f"uv.lock version {version!r} is not supported; envkit reads version 1",
        where=where,
        hint="upgrade envkit, or lock with a uv that writes version 1",
    )


def _check_conflicts(raw, text: str, filename: str | None) -> None:
    """Raise ParseError unless `conflicts` (when present) is what uv writes: an array of sets, each an
    array of `{ package = ..., extra = ... }` or `{ package = ..., group = ... }` tables."""
    if raw is None:
        return
    ok = type(raw) is list and all(
        type(s) is list
        and all(
            type(i) is dict
            and type(i.get("package", "")) is str
            and sum(type(i.get(k)) is str for k in ("extra", "group")) == 1
            for i in s
        )
        for s in raw
    )
    if not ok:
        raise ParseError(
            "`conflicts` must be an array of sets of `{ package = ..., extra = ... }` "
            "(or `group = ...`) tables",
            where=Where(file=filename, line=line_of_key(text, "conflicts"), key="conflicts"),
        )


def conflict_sets(lock: Lock) -> tuple[tuple[str, ...], ...]:
    """The lock's `conflicts` (https://docs.astral.sh/uv/concepts/projects/config/#conflicting-dependencies),
    each set as uv's error messages name its members: `project[extra]` for an extra, `project:group`
    for a dependency group; () when the lock declares none."""
    raw = dict(lock.metadata).get(META_CONFLICTS)
    if not raw:
        return ()
    out = []
    for s in json.loads(raw):
        names = []
        for i in s:
            pkg = i.get("package", "")
            names.append(f"{pkg}[{i['extra']}]" if "extra" in i else f"{pkg}:{i['group']}")
        if names:
            out.append(tuple(names))
    return tuple(out)


def _fork_markers(pkgs: list[LockedPackage], forks: list) -> list[LockedPackage]:
    """A name locked at two versions (uv forks the resolution by Python or platform: `sphinx 8.1.3`
    for `python_full_version < '3.11'`, `8.2.3` above) installs each version under its package's
    `resolution-markers`, joined with `or`: without them a requirements file or pylock.toml would ask
    for both (https://docs.astral.sh/uv/concepts/resolution/#universal-resolution)."""
    from collections import Counter

    count = Counter(p.name.lower() for p in pkgs)
    out = []
    for p, markers in zip(pkgs, forks, strict=True):
        if count[p.name.lower()] > 1 and type(markers) is list and markers and p.marker is None:
            ms = [str(m) for m in markers]
            p = replace(p, marker=ms[0] if len(ms) == 1 else " or ".join(f"({m})" for m in ms))
        out.append(p)
    return out


def _selected(raw, pkgs, index, filename, conflicts, options) -> list[LockedPackage]:
    """The packages the lock's projects install, each with its marker; [] when it has no project."""
    from envkit.formats import uvselect

    extras, all_extras, groups, all_groups, no_default_groups, frozen = options
    # uv names extras and groups normalized (PEP 685): `--extra CPU` is the lock's `cpu`
    extras, groups = tuple(map(uvselect.canon, extras)), tuple(map(uvselect.canon, groups))
    roots = [p for p in raw if isinstance(p, dict) and uvselect.is_root(p)]
    if not roots:
        return []
    pyproject = uvselect.pyproject_beside(filename)
    if frozen:
        uvselect.refuse_missing_project(pyproject, roots, filename)
    beside = uvselect.default_groups(pyproject)  # `default-groups = []`: none, not `dev`
    defaults = (
        () if no_default_groups else (("dev",) if beside is None else tuple(map(uvselect.canon, beside)))
    )
    if defaults == ("*",):
        all_groups, defaults = True, ()
    uvselect.refuse_undefined(roots, extras, groups, filename)
    chosen = uvselect.select(
        raw,
        extras=extras,
        all_extras=all_extras,
        groups=(*defaults, *groups),
        all_groups=all_groups,
        conflicts=conflicts,
        filename=filename,
    )
    return [
        replace(p, marker=uvselect.text(chosen[i])) for p, i in zip(pkgs, index, strict=True) if i in chosen
    ]


class _Bad(Exception):
    """(message, key) of a malformed entry; the caller adds file and line."""


def _artifact(d, key: str) -> tuple[str, str | None]:
    if type(d) is not dict:
        raise _Bad("has an artifact that is not a table", key)
    loc = d.get("url") or d.get("path") or d.get("filename")
    if type(loc) is not str:
        raise _Bad("has an artifact without `url` or `path`", key)
    h = d.get("hash")
    if h is not None and type(h) is not str:
        raise _Bad("has a `hash` that is not a string", key)
    sha = h[7:] if h and h.startswith("sha256:") else None
    return loc, sha


def _git_url(git: str) -> str:
    """uv.lock's `source.git` (`https://host/repo?rev=v1&subdirectory=pkg#<commit>`) as the pip URL
    `uv export` writes of it: `git+https://host/repo@<commit>#subdirectory=pkg`.  The commit is what
    gets installed; the branch, tag or rev that led to it is not."""
    from urllib.parse import parse_qs, urlsplit, urlunsplit

    base, _, commit = git.partition("#")
    parts = urlsplit(base)
    sub = parse_qs(parts.query).get("subdirectory", [""])[0]
    url = urlunsplit(parts._replace(query=""))
    url = url if url.startswith("git+") else f"git+{url}"
    return url + (f"@{commit}" if commit else "") + (f"#subdirectory={sub}" if sub else "")


def _package(p, line: int | None) -> LockedPackage | None:
    if type(p) is not dict:
        raise _Bad("is not a table")
    name, version = p.get("name"), p.get("version")
    if type(name) is not str or not name:
        raise _Bad("has no `name`", "name")
    if version is not None and type(version) is not str:
        raise _Bad("has a `version` that is not a string", "version")
    source = p.get("source") or {}
    if type(source) is not dict:
        raise _Bad("has a `source` that is not a table", "source")
    wheels = p.get("wheels") or []
    if type(wheels) is not list:
        raise _Bad("has `wheels` that is not an array", "wheels")
    files = [_artifact(w, f"wheels[{j}]") for j, w in enumerate(wheels)]
    if p.get("sdist") is not None:
        files.append(_artifact(p["sdist"], "sdist"))
    index = source.get("registry")
    editable = False
    direct = None
    if "git" in source:
        direct = _git_url(str(source["git"]))
    elif "editable" in source:
        direct, editable = str(source["editable"]), True
    elif "virtual" in source:
        return None  # the project itself, not installed (`uv sync` installs its dependencies only)
    for k in ("path", "directory", "url"):
        if k in source and not files:
            direct = str(source[k])
    if direct is not None:
        files.insert(0, (direct, None))
    if index is not None and type(index) is not str:
        raise _Bad("has a `source.registry` that is not a string", "source.registry")
    if index and "://" not in index:
        # a find-links directory, relative to the lock: its artifacts are relative to it
        files = [(f if "://" in f or f.startswith("/") else f"{index.rstrip('/')}/{f}", h) for f, h in files]
    deps = p.get("dependencies") or []
    if type(deps) is not list:
        raise _Bad("has `dependencies` that is not an array", "dependencies")
    depends = tuple((str(d.get("name", "")), str(d.get("marker", ""))) for d in deps if type(d) is dict)
    url, sha = files[0] if files else (None, None)
    return LockedPackage(
        manager="pip",
        name=name,
        version=version or "",
        url=url,
        sha256=sha,
        depends=depends,
        editable=editable,
        index=index,
        other_files=tuple(files[1:]),
        line=line,
    )
