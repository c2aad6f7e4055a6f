"""uv's definition of a fresh uv.lock (what `uv lock --check` compares before it resolves): the
lock's root package is the project (its name, and `editable` for a package, `virtual` for a
project that is not built); its recorded `requires-dist` equals the project's dependencies and
optional dependencies with `[tool.uv.sources]` applied; its `requires-dev` equals the dependency
groups (`include-group` expanded, `tool.uv.dev-dependencies` in `dev`); `provides-extras` the
extras; `requires-python`, `conflicts` and the `[manifest]` constraints and overrides what
`[project]` and `[tool.uv]` say; and the lock's `[options]` (exclude-newer, resolution, prerelease)
are the ones `[tool.uv]` sets.  Requirements are compared as uv normalizes them: names by PEP 503,
extras sorted, specifiers and markers through `packaging`, sources by index URL, git URL or path.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

from envkit.conda.names import pep503
from envkit.conda.platform import marker_text
from envkit.formats._manifest import Entry
from envkit.lock.changes import Change, stale

Req = tuple[str, tuple[str, ...], str, str, str]
_OPTIONS: tuple[tuple[str, str], ...] = (
    *(("exclude-newer", "exclude-newer"), ("resolution-mode", "resolution")),
    *(("prerelease-mode", "prerelease"), ("fork-strategy", "fork-strategy")),
)


def _spec(s: str) -> str:
    from packaging.specifiers import InvalidSpecifier, SpecifierSet

    try:
        return ",".join(sorted(str(x) for x in SpecifierSet(s)))
    except InvalidSpecifier:
        return s.replace(" ", "")


def _locked(r: dict[str, Any]) -> Req:
    """A uv.lock requirement table as a comparable tuple."""
    source = ""
    for key in ("index", "git", "path", "editable", "directory", "url", "workspace"):
        if key in r:
            value = str(r[key]).split("?", 1)[0] if key == "git" else str(r[key])
            source = f"{key}:{value.rstrip('/')}"
            break
    extras = tuple(sorted(pep503(x) for x in r.get("extras", [])))
    return (pep503(r["name"]), extras, _spec(r.get("specifier", "")), marker_text(r.get("marker")), source)


class _Sources:
    """`[tool.uv.sources]` and `[[tool.uv.index]]`: the source each requirement gets."""

    def __init__(self, uv: dict[str, Any]) -> None:
        self.sources = uv.get("sources") or {}
        self.index = {i.get("name"): i.get("url", "") for i in uv.get("index") or [] if isinstance(i, dict)}

    def apply(self, e: Entry, extra: str | None, group: str | None) -> list[Req]:
        raw = self.sources.get(e.name) or self.sources.get(pep503(e.name))
        base = (pep503(e.name), tuple(sorted(pep503(x) for x in e.extras)), _spec(e.version or ""))
        marker = e.marker or ""
        if extra:
            marker = f"({marker}) and extra == '{extra}'" if marker else f"extra == '{extra}'"
        if e.version == "*":
            base = (base[0], base[1], "")
        if e.source:
            return [(*base, marker_text(marker), f"url:{e.source}")]
        applicable = [
            s
            for s in (raw if isinstance(raw, list) else [raw] if raw else [])
            if isinstance(s, dict) and s.get("extra") in (None, extra) and s.get("group") in (None, group)
        ]
        if not applicable:
            return [(*base, marker_text(marker), "")]
        out = []
        for s in applicable:
            m = marker
            if s.get("marker"):
                m = f"({m}) and ({s['marker']})" if m else s["marker"]
            out.append((*base, marker_text(m), self._source(s)))
        return out

    def _source(self, s: dict[str, Any]) -> str:
        if "index" in s:
            return f"index:{str(self.index.get(s['index'], s['index'])).rstrip('/')}"
        if "git" in s:
            return f"git:{s['git']}"
        if "path" in s:
            return f"{'editable' if s.get('editable') else 'path'}:{s['path']}"
        if "url" in s:
            return f"url:{s['url']}"
        if s.get("workspace"):
            return "workspace:true"
        return ""


def _show(r: Req) -> str:
    name, extras, spec, marker, source = r
    text = name + (f"[{','.join(extras)}]" if extras else "") + spec
    if source:
        text += f" ({source.replace(':', ' ', 1)})"
    return text + (f" ; {marker}" if marker else "")


def _compare(
    want: dict[Req, Entry | None], got_reqs: Iterable[Req], part: str, line: int | None, key: str
) -> list[Change]:
    """added / removed / changed Changes between the manifest's requirements and the lock's."""
    got = set(got_reqs)
    removed = sorted(r for r in got if r not in want)
    by_name = {r[0]: r for r in removed}
    out: list[Change] = []
    for r, e in want.items():
        if r in got:
            continue
        old = by_name.pop(r[0], None)
        at, at_key = (e.line, e.key) if e else (line, key)
        if old is not None:
            removed.remove(old)
            what, msg, locked = "changed", f"{_show(r)}: locked as {_show(old)}", _show(old)
        else:
            what, msg, locked = "added", f"{_show(r)}: not in the lock", None
        out.append(
            stale(
                what=what,
                message=msg,
                environment=part,
                name=r[0],
                line=at,
                key=at_key,
                locked=locked,
            )
        )
    for r in removed:
        msg = f"{_show(r)}: in the lock, no longer asked for"
        out.append(stale(what="removed", message=msg, environment=part, name=r[0], line=line, key=key))
    return out


def uv_changes(
    manifest_text: str, manifest_path: str, lock_text: str, lock_path: str
) -> tuple[list[str], list[Change]]:
    """(the parts judged: "project" and each group, the Changes) of a pyproject against its uv.lock."""
    from envkit.formats._toml import load_toml
    from envkit.formats._tomllines import line_of
    from envkit.formats.pyproject import group_entries, load, project_entries

    data, lines = load(manifest_text, manifest_path)
    lock = load_toml(lock_text, lock_path, "uv.lock")
    project = data.get("project") or {}
    uv = (data.get("tool") or {}).get("uv") or {}
    out: list[Change] = []
    if "dependencies" in (project.get("dynamic") or []) or uv.get("workspace"):
        why = "dynamic dependencies" if "dependencies" in (project.get("dynamic") or []) else "a uv workspace"
        msg = f"{why}: the root requirements cannot be read from this pyproject.toml alone"
        return ["project"], [Change(severity="note", what="not-judged", message=msg)]
    root, root_changes = _root(data, lock, lines)
    out += root_changes
    meta = (root or {}).get("metadata") or {}
    sources = _Sources(uv)
    want: dict[Req, Entry | None] = {}
    for e in project_entries(data, lines, "dependencies", filename=manifest_path):
        for r in sources.apply(e, None, None):
            want[r] = e
    extras = project.get("optional-dependencies") or {}
    for extra in extras:
        for e in project_entries(data, lines, "optional-dependencies", extra, manifest_path):
            for r in sources.apply(e, pep503(extra), None):
                want[r] = e
    locked = [_locked(r) for r in meta.get("requires-dist", [])]
    out += _compare(
        want, locked, "project", line_of(lines, ("project", "dependencies")), "project.dependencies"
    )
    groups = group_entries(data, lines, manifest_path)
    locked_groups = meta.get("requires-dev") or {}
    for g in sorted({*groups, *locked_groups}):
        gwant: dict[Req, Entry | None] = {}
        for e in groups.get(g, []):
            for r in sources.apply(e, None, g):
                gwant[r] = e
        gline = line_of(lines, ("dependency-groups", g)) or line_of(lines, ("dependency-groups",))
        out += _compare(
            gwant, [_locked(r) for r in locked_groups.get(g, [])], g, gline, f"dependency-groups.{g}"
        )
    if "provides-extras" in meta and sorted(map(pep503, extras)) != sorted(meta["provides-extras"]):
        was = ", ".join(meta["provides-extras"]) or "none"
        msg = f"extras are {', '.join(sorted(extras)) or 'none'}; locked with {was}"
        line = line_of(lines, ("project", "optional-dependencies"))
        out.append(stale(what="changed", name="provides-extras", line=line, message=msg))
    out += _top(data, lock, lines)
    return ["project", *sorted({*groups, *locked_groups})], out


def _root(data: dict, lock: dict, lines) -> tuple[dict | None, list[Change]]:
    """The lock's root package (source editable / virtual "."), and a Change when it is not the project."""
    from envkit.formats._tomllines import line_of

    project = data.get("project") or {}
    name = project.get("name")
    roots = [
        p
        for p in lock.get("package") or []
        if isinstance(p, dict)
        and (p.get("source") or {}).get("editable", (p.get("source") or {}).get("virtual")) == "."
    ]
    uv = (data.get("tool") or {}).get("uv") or {}
    packaged = uv.get("package", "build-system" in data)
    want_kind = "editable" if packaged else "virtual"
    root = next((p for p in roots if pep503(p.get("name", "")) == pep503(name or "")), None)
    line = line_of(lines, ("project", "name"))
    if name is None:
        return (roots[0] if roots else None), []
    if root is None:
        was = ", ".join(p.get("name", "?") for p in roots) or "none"
        msg = f"the project is {name}; the lock's root package is {was}"
        return None, [stale(what="project", name=name, line=line, message=msg, locked=was)]
    kind = "editable" if "editable" in root.get("source", {}) else "virtual"
    if kind != want_kind:
        how = "built (editable)" if packaged else "not built (virtual)"
        msg = f"the project is {how}; the lock has it {kind}"
        return root, [stale(what="project", name=name, line=line, message=msg, locked=kind)]
    return root, []


def _top(data: dict, lock: dict, lines: dict) -> list[Change]:
    """requires-python, conflicts, [manifest] constraints/overrides and [options]."""
    from envkit.formats._tomllines import line_of

    project = data.get("project") or {}
    uv = (data.get("tool") or {}).get("uv") or {}
    out: list[Change] = []
    want_py, got_py = project.get("requires-python"), lock.get("requires-python")
    if want_py and got_py and _spec(want_py) != _spec(got_py):
        line = line_of(lines, ("project", "requires-python"))
        msg = f"requires-python is {want_py}; locked for {got_py}"
        out.append(stale(what="requires-python", line=line, message=msg, locked=got_py))
    if _conflicts(uv.get("conflicts"), pep503(project.get("name") or "")) != _conflicts(
        lock.get("conflicts"), ""
    ):
        line = line_of(lines, ("tool", "uv", "conflicts"))
        msg = "tool.uv.conflicts differ from the lock's conflicts"
        out.append(stale(what="changed", name="conflicts", line=line, message=msg))
    manifest = lock.get("manifest") or {}
    for lkey, ukey in (("constraints", "constraint-dependencies"), ("overrides", "override-dependencies")):
        if sorted(_spec_req(r) for r in uv.get(ukey) or []) != sorted(
            _locked(r) for r in manifest.get(lkey) or []
        ):
            line = line_of(lines, ("tool", "uv", ukey))
            msg = f"tool.uv.{ukey} differ from the lock's [manifest] {lkey}"
            out.append(stale(what="changed", name=ukey, line=line, message=msg))
    if len(manifest.get("members") or ()) > 1:
        msg = "a uv workspace lock: members' pyproject.toml files are not read"
        out.append(Change(severity="note", what="not-judged", message=msg))
    return out + _options(uv, lock.get("options") or {}, lines)


def _conflicts(value: object, package: str) -> list[list[str]]:
    """Conflict sets, comparable: each item with its package named (`package` when it names none)."""
    out = []
    for group in value if isinstance(value, list) else []:
        items = [
            json.dumps({**i, "package": pep503(i.get("package") or package)}, sort_keys=True)
            for i in group
            if isinstance(i, dict)
        ]
        out.append(sorted(items))
    return sorted(out)


def _options(uv: dict, options: dict, lines: dict) -> list[Change]:
    """The lock's [options] that [tool.uv] does not set the same way (uv resolves again for them)."""
    from envkit.formats._tomllines import line_of

    out: list[Change] = []
    for lkey, ukey in _OPTIONS:
        got, want = options.get(lkey), uv.get(ukey)
        if got is not None and want is None and lkey == "exclude-newer":
            span = options.get("exclude-newer-span")
            msg = f"the lock was resolved with exclude-newer {span or got}; [tool.uv] sets none"
            out.append(stale(what="options", name=lkey, message=msg, locked=str(got)))
        elif want is not None and str(got) != str(want) and not (lkey == "exclude-newer" and got):
            msg = f"tool.uv.{ukey} is {want}; the lock was resolved with {got or 'the default'}"
            line = line_of(lines, ("tool", "uv", ukey))
            out.append(stale(what="options", name=lkey, line=line, message=msg, locked=str(got)))
    return out


def _spec_req(text: str) -> Req:
    from packaging.requirements import Requirement

    r = Requirement(text)
    return (
        pep503(r.name),
        tuple(sorted(pep503(x) for x in r.extras)),
        _spec(str(r.specifier)),
        marker_text(str(r.marker) if r.marker else None),
        "",
    )
