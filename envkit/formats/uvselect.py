"""What a uv.lock installs: the packages `uv sync` (and `uv export`) select, each with the
environment marker under which it is installed.

uv.lock is universal: it locks every package any extra, dependency group or platform may need.  What
gets installed is what the workspace's projects reach through their dependencies: the project's own
`dependencies`, its `optional-dependencies` for the extras chosen (none by default), its
`dev-dependencies` for the groups chosen (the default groups: `dev`, or `[tool.uv] default-groups`
of the pyproject.toml beside the lock), and, through an edge naming `extra = [...]`, a dependency's
extras.  A package's marker is the `or` of every path to it, each path the `and` of its edges'
markers (`sys_platform == 'linux'` on an `nvidia-*` edge); uv's conflict markers on such edges
(`extra == 'extra-7-project-cpu'`) are decided by the extras and groups chosen.

Markers are kept in disjunctive normal form (a set of conjunctions of PEP 508 atoms) with
contradictions (`sys_platform == 'linux' and sys_platform == 'win32'`) and absorbed conjunctions
removed, so a lock's markers stay the size of its platform and Python conditions.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping

from envkit.errors import ParseError, UsageError, Where
from envkit.model import pep503

#: one PEP 508 comparison: (variable, operator, value), as written (`python_full_version`, `<`,
#: `3.11`); a conjunction is a frozenset of atoms, a marker (DNF) a frozenset of conjunctions
Atom = tuple[str, str, str]
Conj = frozenset[Atom]
DNF = frozenset[Conj]

TRUE: DNF = frozenset({frozenset()})
FALSE: DNF = frozenset()

#: uv's names for a project's extra or group in its conflict markers: extra-<len>-<project>-<name>
_CONFLICT = re.compile(r"^(extra|group)-(\d+)-(.+)$")


def parse(marker: str | None) -> DNF:
    """The DNF of a PEP 508 marker (TRUE for None or empty)."""
    if not marker or not marker.strip():
        return TRUE
    from packaging.markers import Marker

    return _simplify(_dnf(Marker(marker)._markers))


def _side(x) -> str:
    """A marker operand as uv writes it: a variable by name, a value in single quotes."""
    from packaging.markers import Value

    if isinstance(x, Value) and "'" not in x.value:
        return f"'{x.value}'"
    return x.serialize()


def _atom(item) -> Atom:
    lhs, op, rhs = item
    return (_side(lhs), str(op.value), _side(rhs))


def _dnf(items) -> DNF:
    groups: list[list] = [[]]
    for item in items:
        if item == "or":
            groups.append([])
        elif item != "and":
            groups[-1].append(item)
    out: set[Conj] = set()
    for group in groups:
        conj: set[Conj] = {frozenset()}
        for factor in group:
            fd = _dnf(factor) if isinstance(factor, list) else frozenset({frozenset({_atom(factor)})})
            conj = {a | b for a in conj for b in fd}
        out |= conj
    return frozenset(out)


def both(a: DNF, b: DNF) -> DNF:
    """a and b."""
    return _simplify(frozenset(x | y for x in a for y in b))


def either(a: DNF, b: DNF) -> DNF:
    """a or b."""
    return _simplify(a | b)


def _contradicts(conj: Conj) -> bool:
    eq: dict[str, str] = {}
    for var, op, val in conj:
        if op == "==" and not var.startswith(("'", '"')):
            if eq.setdefault(var, val) != val:
                return True
    return any(op == "!=" and eq.get(var) == val for var, op, val in conj)


def _simplify(d: Iterable[Conj]) -> DNF:
    conjs = [c for c in set(d) if not _contradicts(c)]
    conjs.sort(key=len)
    kept: list[Conj] = []
    for c in conjs:
        if not any(k <= c for k in kept):
            kept.append(c)
    return frozenset(kept)


def decide_conflicts(d: DNF, chosen: set[tuple[str, str, str]]) -> DNF:
    """`d` with uv's conflict atoms (`extra == 'extra-7-project-cpu'`) decided: true when that
    (kind, project, name) is in `chosen`, false otherwise."""
    out: set[Conj] = set()
    for conj in d:
        keep, ok = set(), True
        for atom in conj:
            var, op, val = atom
            m = _CONFLICT.match(val.strip("'\"")) if var == "extra" and op in ("==", "!=") else None
            if m is None:
                keep.add(atom)
                continue
            kind, n, rest = m.group(1), int(m.group(2)), m.group(3)
            hit = (kind, rest[:n], rest[n + 1 :]) in chosen
            if hit != (op == "=="):
                ok = False
                break
        if ok:
            out.add(frozenset(keep))
    return _simplify(out)


def text(d: DNF) -> str | None:
    """The marker text of `d`: None for TRUE (installed everywhere)."""
    if d == TRUE:
        return None
    if d == FALSE:
        return "python_version < '0'"  # never: a package no selected path reaches is not kept
    conjs = sorted(" and ".join(f"{v} {o} {x}" for v, o, x in sorted(c)) for c in d)
    return " or ".join(f"({c})" if " and " in c and len(conjs) > 1 else c for c in conjs)


# -- the selection -------------------------------------------------------------------------------


def select(
    packages: list,
    *,
    extras: Iterable[str] = (),
    all_extras: bool = False,
    groups: Iterable[str] = (),
    all_groups: bool = False,
    conflicts=None,
    filename: str | None = None,
) -> dict[int, DNF]:
    """Index in `packages` (uv.lock's `[[package]]` tables) -> the marker it is installed under,
    for every package the workspace's projects reach with these extras and groups; UsageError for
    two of them the lock declares in `conflicts` (`[tool.uv] conflicts`), as `uv export` refuses."""
    by_name: dict[str, list[int]] = {}
    for i, p in enumerate(packages):
        by_name.setdefault(canon(p.get("name", "")), []).append(i)
    roots = [i for i, p in enumerate(packages) if is_root(p)]
    chosen_groups = set(groups)
    chosen: set[tuple[str, str, str]] = set()
    start: list[tuple[int, str | None, DNF, list]] = []
    for i in roots:
        p = packages[i]
        name = p.get("name", "")
        opt = p.get("optional-dependencies") or {}
        dev = p.get("dev-dependencies") or {}
        want_x = set(opt) if all_extras else set(extras) & set(opt)
        want_g = set(dev) if all_groups else chosen_groups & set(dev)
        chosen |= {("extra", name, x) for x in want_x} | {("group", name, g) for g in want_g}
        edges = list(p.get("dependencies") or [])
        edges += [e for x in sorted(want_x) for e in opt[x]]
        edges += [e for g in sorted(want_g) for e in dev[g]]
        start.append((i, None, TRUE, edges))
    _refuse_conflicting(conflicts or (), chosen, filename)
    marker: dict[tuple[int, str | None], DNF] = {(i, None): TRUE for i in roots}
    work = list(start)
    while work:
        i, _x, m, edges = work.pop()
        for e in edges:
            if not isinstance(e, Mapping):
                continue
            j = _target(e, by_name, packages)
            if j is None:
                continue
            em = both(m, decide_conflicts(parse(e.get("marker")), chosen))
            if em == FALSE:
                continue
            for x in [None, *(e.get("extra") or [])]:
                old = marker.get((j, x), FALSE)
                new = either(old, em)
                if new != old:
                    marker[(j, x)] = new
                    q = packages[j]
                    nxt = (
                        q.get("dependencies") if x is None else (q.get("optional-dependencies") or {}).get(x)
                    )
                    work.append((j, x, new, list(nxt or [])))
    out: dict[int, DNF] = {}
    for (j, _x), m in marker.items():
        out[j] = either(out.get(j, FALSE), m)
    return out


def canon(name: str) -> str:
    """A package, extra or group name normalized as uv compares them (PEP 503, PEP 685)."""
    return pep503(str(name))


def is_root(p) -> bool:
    src = p.get("source") or {}
    return isinstance(src, Mapping) and (src.get("editable") == "." or src.get("virtual") == ".")


def _target(edge: Mapping, by_name: Mapping[str, list[int]], packages: list) -> int | None:
    cands = by_name.get(canon(edge.get("name", "")), [])
    if len(cands) > 1 and edge.get("version") is not None:
        cands = [i for i in cands if packages[i].get("version") == edge["version"]] or cands
    if len(cands) > 1 and edge.get("source") is not None:
        cands = [i for i in cands if packages[i].get("source") == edge["source"]] or cands
    return cands[0] if cands else None


def pyproject_beside(filename: str | None) -> Mapping | None:
    """The pyproject.toml beside a uv.lock (uv reads the project there), None when there is none or
    it does not read as one (not TOML, or a key of the wrong type: the lock alone is then what is
    read)."""
    import os

    if not filename:
        return None
    path = os.path.join(os.path.dirname(os.path.abspath(filename)), "pyproject.toml")
    if not os.path.isfile(path):
        return None
    from envkit.formats.pyproject import load

    try:
        with open(path, "rb") as f:
            return load(f.read().decode(), path)[0]
    except (OSError, UnicodeDecodeError, ParseError):
        return None


def default_groups(pyproject: Mapping | None) -> tuple[str, ...] | None:
    """`[tool.uv] default-groups` of a pyproject.toml (as `pyproject_beside` reads it): None when it
    says nothing (uv's default is `dev`), () for `[]`; every group for `"all"` is the caller's
    (`("*",)`)."""
    value = (((pyproject or {}).get("tool") or {}).get("uv") or {}).get("default-groups")
    if value is None:
        return None
    return ("*",) if value == "all" else tuple(value)


def refuse_missing_project(pyproject: Mapping | None, roots: list, filename: str | None) -> None:
    """Raise UsageError when the pyproject.toml beside the lock (as `pyproject_beside` reads it)
    names a project the lock does not hold as its own (`roots`, renamed since the lock was
    written): `uv export --frozen` and `uv sync --frozen` refuse such a lock ("Missing workspace
    member")."""
    name = ((pyproject or {}).get("project") or {}).get("name")
    names = [p.get("name", "") for p in roots]
    if name is None or canon(name) in {canon(r) for r in names}:
        return
    raise UsageError(
        f"the pyproject.toml beside the uv.lock names the project `{name}`, which the lock does not "
        f"hold (its project is `{'`, `'.join(names)}`): the lock is stale, and uv refuses to install it",
        where=Where(file=filename),
        hint="run `uv lock`, then convert again",
    )


def refuse_undefined(roots: list, extras: Iterable[str], groups: Iterable[str], filename: str | None) -> None:
    """Raise UsageError for an extra or a dependency group (given by name) that no project of the
    lock (`roots`) defines, as `uv export` refuses it ("Extra `x` is not defined"): installing
    without it would not be what was asked."""
    known: dict[str, set[str]] = {"extra": set(), "group": set()}
    for p in roots:
        meta = p.get("metadata")
        meta = meta if isinstance(meta, Mapping) else {}
        known["extra"] |= set(p.get("optional-dependencies") or ()) | set(meta.get("provides-extras") or ())
        known["group"] |= set(p.get("dev-dependencies") or ()) | set(meta.get("requires-dev") or ())
    for kind, names in (("extra", extras), ("group", groups)):
        missing = sorted(set(names) - known[kind])
        if missing:
            table = "optional-dependencies" if kind == "extra" else "dependency-groups"
            raise UsageError(
                f"{kind} `{missing[0]}` is not defined in the `{table}` of the uv.lock's project "
                f"(it defines: {', '.join(sorted(known[kind])) or 'none'})",
                where=Where(file=filename),
                hint=f"choose one the project defines (--{kind} NAME)",
            )


def _refuse_conflicting(conflicts, chosen: set[tuple[str, str, str]], filename: str | None) -> None:
    for s in conflicts:
        hit = [
            i
            for i in s
            if ("extra" if "extra" in i else "group", i.get("package"), i.get("extra") or i.get("group"))
            in chosen
        ]
        if len(hit) > 1:
            names = ", ".join(f"`{i.get('extra') or i.get('group')}`" for i in hit)
            raise UsageError(
                f"the uv.lock declares {names} in conflict (`[tool.uv] conflicts`): they cannot be "
                "installed together",
                where=Where(file=filename),
                hint="choose one of them (--extra NAME or --group NAME)",
            )
