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
from envkit.formats._manifest import Entry
from envkit.lock.manifest_check import Change

Req = tuple[str, tuple[str, ...], str, str, str]
_OPTIONS = (("exclude-newer", "exclude-newer"), ("resolution-mode", "resolution"))
_OPTIONS += (("prerelease-mode", "prerelease"), ("fork-strategy", "fork-strategy"))


def _spec(s: str) -> str:
    from packaging.specifiers import InvalidSpecifier, SpecifierSet

    try:
        return ",".join(sorted(str(x) for x in SpecifierSet(s)))
    except InvalidSpecifier:
        return s.replace(" ", "")


def _marker(m: str | None) -> str:
    if not m:
        return ""
    from packaging.markers import InvalidMarker, Marker

    try:
        return str(Marker(m))
    except InvalidMarker:
        return m


def _locked(r: dict[str, Any]) -> Req:
    """A uv.lock requirement table as a comparable tuple."""
    source = ""
    for key in ("index", "git", "path", "editable", "directory", "url", "workspace"):
        if key in r:
            value = str(r[key]).split("?", 1)[0] if key == "git" else str(r[key])
            source = f"{key}:{value.rstrip('/')}"
            break
    extras = tuple(sorted(pep503(x) for x in r.get("extras", [])))
    return (pep503(r["name"]), extras, _spec(r.get("specifier", "")), _marker(r.get("marker")), source)


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
            return [(*base, _marker(marker), f"url:{e.source}")]
        applicable = [
            s
            for s in (raw if isinstance(raw, list) else [raw] if raw else [])
            if isinstance(s, dict) and s.get("extra") in (None, extra) and s.get("group") in (None, group)
        ]
        if not applicable:
            return [(*base, _marker(marker), "")]
        out = []
        for s in applicable:
            m = marker
            if s.get("marker"):
                m = f"({m}) and ({s['marker']})" if m else s["marker"]
            out.append((*base, _marker(m), self._source(s)))
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
    want: dict[Req, Entry | None], got: Iterable[Req], what: str, line: int | None, key: str
) -> list[Change]:
    """added / removed / changed Changes between the manifest's requirements and the lock's."""
    got = set(got)
    added = [r for r in want if r not in got]
    removed = sorted(r for r in got if r not in want)
    out: list[Change] = []
    removed_names = {r[0]: r for r in removed}
    for r in added:
        e = want[r]
        old = removed_names.pop(r[0], None)
        where = {"name": r[0], "line": e.line if e else line, "key": e.key if e else key, "environment": what}
        if old is not None:
            removed.remove(old)
            msg = f"{_show(r)}: locked as {_show(old)}"
            out.append(Change(severity="stale", what="changed", message=msg, locked=_show(old), **where))
        else:
            out.append(
                Change(severity="stale", what="added", message=f"{_show(r)}: not in the lock", **where)
            )
    for r in removed:
        msg = f"{_show(r)}: in the lock, no longer asked for"
        out.append(
            Change(
                severity="stale", what="removed", name=r[0], line=line, key=key, environment=what, message=msg
            )
        )
    return out


def uv_changes(
    manifest_text: str, manifest_path: str, lock_text: str, lock_path: str
) -> tuple[list[str], list[Change]]:
    """(the parts judged: "project" and each group, the Changes) of a pyproject against its uv.lock."""
    from envkit.formats._tomllines import line_of
    from envkit.formats.pylock import load_toml
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
    got = [_locked(r) for r in meta.get("requires-dist", [])]
    out += _compare(want, got, "project", line_of(lines, ("project", "dependencies")), "project.dependencies")
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
        msg = f"extras are {', '.join(sorted(extras)) or 'none'}; locked with {', '.join(meta['provides-extras'])}"
        line = line_of(lines, ("project", "optional-dependencies"))
        out.append(Change(severity="stale", what="changed", name="provides-extras", line=line, message=msg))
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
        return None, [Change(severity="stale", what="project", name=name, line=line, message=msg, locked=was)]
    kind = "editable" if "editable" in root.get("source", {}) else "virtual"
    if kind != want_kind:
        msg = f"the project is {'built (editable)' if packaged else 'not built (virtual)'}; the lock has it {kind}"
        return root, [
            Change(severity="stale", what="project", name=name, line=line, message=msg, locked=kind)
        ]
    return root, []


def _top(data: dict, lock: dict, lines) -> list[Change]:
    """requires-python, conflicts, [manifest] constraints/overrides and [options]."""
    from envkit.formats._tomllines import line_of

    out: list[Change] = []
    project = data.get("project") or {}
    uv = (data.get("tool") or {}).get("uv") or {}
    want_py, got_py = project.get("requires-python"), lock.get("requires-python")
    if want_py and got_py and _spec(want_py) != _spec(got_py):
        line = line_of(lines, ("project", "requires-python"))
        msg = f"requires-python is {want_py}; locked for {got_py}"
        out.append(Change(severity="stale", what="requires-python", line=line, message=msg, locked=got_py))
    name = pep503(project.get("name") or "")
    want_c = sorted(
        sorted(
            json.dumps(
                {"package": pep503(i.get("package", name)), **{k: v for k, v in i.items() if k != "package"}},
                sort_keys=True,
            )
            for i in c
        )
        for c in uv.get("conflicts") or []
    )
    got_c = sorted(
        sorted(json.dumps({**i, "package": pep503(i.get("package", ""))}, sort_keys=True) for i in c)
        for c in lock.get("conflicts") or []
    )
    if want_c != got_c:
        line = line_of(lines, ("tool", "uv", "conflicts"))
        out.append(
            Change(
                severity="stale",
                what="changed",
                name="conflicts",
                line=line,
                message="tool.uv.conflicts differ from the lock's",
            )
        )
    manifest = lock.get("manifest") or {}
    for lkey, ukey in (("constraints", "constraint-dependencies"), ("overrides", "override-dependencies")):
        want = sorted(_spec_req(r) for r in uv.get(ukey) or [])
        got = sorted(_locked(r) for r in manifest.get(lkey) or [])
        if want != got:
            line = line_of(lines, ("tool", "uv", ukey))
            out.append(
                Change(
                    severity="stale",
                    what="changed",
                    name=ukey,
                    line=line,
                    message=f"tool.uv.{ukey} differ from the lock's [manifest] {lkey}",
                )
            )
    if manifest.get("members") and len(manifest["members"]) > 1:
        out.append(
            Change(
                severity="note",
                what="not-judged",
                message="a uv workspace lock: members' pyproject.toml files are not read",
            )
        )
    options = lock.get("options") or {}
    for lkey, ukey in _OPTIONS:
        got, want = options.get(lkey), uv.get(ukey)
        if got is not None and want is None and lkey == "exclude-newer":
            msg = (
                f"the lock was resolved with exclude-newer {got}"
                + (f" (span {options['exclude-newer-span']})" if "exclude-newer-span" in options else "")
                + "; [tool.uv] sets none"
            )
            out.append(Change(severity="stale", what="options", name=lkey, message=msg, locked=str(got)))
        elif want is not None and str(got) != str(want) and not (lkey == "exclude-newer" and got):
            line = line_of(lines, ("tool", "uv", ukey))
            msg = f"tool.uv.{ukey} is {want}; the lock was resolved with {got or 'the default'}"
            out.append(
                Change(severity="stale", what="options", name=lkey, line=line, message=msg, locked=str(got))
            )
    return out


def _spec_req(text: str) -> Req:
    from packaging.requirements import Requirement

    r = Requirement(text)
    return (
        pep503(r.name),
        tuple(sorted(pep503(x) for x in r.extras)),
        _spec(str(r.specifier)),
        _marker(str(r.marker) if r.marker else None),
        "",
    )
