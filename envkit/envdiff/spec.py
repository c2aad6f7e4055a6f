"""A spec against a concrete environment (satisfied / not satisfied / missing per entry), and two
specs entry by entry."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace

from envkit.conda.platform import marker_holds
from envkit.envdiff.categories import category_of
from envkit.envdiff.compare import _state
from envkit.envdiff.highlights import _python_of
from envkit.envdiff.keys import _index, _key, _pep503
from envkit.envdiff.pip_origin import (
    _dist,
    _from,
    _installed_from,
    _parse_origin,
    _revs_differ,
    _short,
    entry_source,
    name_from_source,
    pip_origin,
)
from envkit.envdiff.records import Change, PackageState, SpecCheck
from envkit.envdiff.sides import _base_dir, _Side
from envkit.envdiff.versions import _split_local
from envkit.model import CondaDep, EnvSpec, LockedPackage, PipDep

_Index = dict[tuple[str, str], LockedPackage]


def a_file(kind: str) -> str:
    """`an explicit file`, `a conda-lock file`."""
    return f"{'an' if kind[:1] in 'aeiou' else 'a'} {kind} file"


def _check_spec(spec: EnvSpec, conc: _Side) -> tuple[tuple[SpecCheck, ...], tuple[PackageState, ...]]:
    index = _index(conc.packages)
    mentioned: set[tuple[str, str]] = set()
    checks = [_check_conda(dep, index, mentioned, conc) for dep in spec.conda]
    marker_env = _marker_env(conc)
    spec_dir = _base_dir(spec.source)
    for pd in spec.pip:
        if pd.kind == "option":
            continue
        check = _check_pip(pd, index, mentioned, marker_env, conc, spec_dir)
        if check.status == "missing" and not conc.info.records_pip:
            check = replace(
                check, status="skipped", note=f"{a_file(conc.info.kind)} cannot record pip packages"
            )
        checks.append(check)
    unmentioned = tuple(_state(p, labels=False) for k, p in index.items() if k not in mentioned)
    return tuple(checks), tuple(sorted(unmentioned, key=lambda s: (s.name.lower(), s.manager)))


def _check_conda(dep: CondaDep, index: _Index, mentioned: set[tuple[str, str]], conc: _Side) -> SpecCheck:
    """One conda spec entry against the concrete side; the packages it names go into `mentioned`."""
    text = dep.spec()
    if dep.name.startswith("__"):
        return SpecCheck(
            spec=text,
            name=dep.name,
            manager="conda",
            status="skipped",
            note="virtual package (a property of the machine)",
            line=dep.line,
        )
    pip_keys = (("pip", n) for n in _owned_pypi_names(dep.name, conc))
    p, note = _provider(index, dep.name, ("conda", dep.name.lower()), pip_keys)
    if p is None:
        return SpecCheck(spec=text, name=dep.name, manager="conda", status="missing", line=dep.line)
    mentioned.add(_key(p))
    if p.manager == "conda":
        ok, shadow_note = _conda_satisfied(dep, p, index, mentioned, conc)
        note = shadow_note or note
    else:
        ok = _version_matches(dep, p.version)
    return SpecCheck(
        spec=text,
        name=dep.name,
        manager="conda",
        status="satisfied" if ok else "not-satisfied",
        found=_state(p),
        note=note,
        line=dep.line,
    )


def _owned_pypi_names(name: str, conc: _Side) -> Iterable[str]:
    """The PyPI names a conda package `name` provides: what the live prefix says it owns, else the
    name map's."""
    from envkit.conda.names import pypi_names_for_conda

    return (conc.owned or {}).get(name) or pypi_names_for_conda(name)


def _provider(
    index: _Index, name: str, key: tuple[str, str], others: Iterable[tuple[str, str]]
) -> tuple[LockedPackage | None, str]:
    """The package that provides `name`: the one of `key`, else the first of `others` (its project
    under the other manager), and a note when that manager installed it."""
    p = index.get(key)
    if p is not None:
        return p, ""
    for k in others:
        p = index.get(k)
        if p is not None:
            return p, _installed_by(k[0], p.name, name)
    return None, ""


def _conda_satisfied(
    dep: CondaDep, p: LockedPackage, index: _Index, mentioned: set[tuple[str, str]], conc: _Side
) -> tuple[bool, str]:
    """Whether conda package `p` satisfies `dep`, and a note when pip installed the same project
    over it: that copy decides what is imported, so it has to satisfy the version too."""
    ok = _conda_accepts(
        dep,
        name=p.name,
        version=p.version,
        build=p.build,
        build_number=p.build_number,
        channel=p.channel,  # matches() compares channels by name
    )
    shadow = next((index[("pip", n)] for n in _owned_pypi_names(dep.name, conc) if ("pip", n) in index), None)
    if shadow is None:
        return ok, ""
    mentioned.add(_key(shadow))
    ok = ok and _version_matches(dep, shadow.version)
    return ok, f"pip's {shadow.name} {shadow.version} is installed over it"


def _version_matches(dep: CondaDep, pip_version: str) -> bool:
    """Whether a pip package's version (its local part dropped) satisfies a conda entry's version."""
    return _conda_accepts(
        CondaDep(name=dep.name, version=dep.version), name=dep.name, version=_split_local(pip_version)[0]
    )


def _conda_accepts(dep: CondaDep, *, name: str, version: str, **record) -> bool:
    """conda's `matches`, for a package of the concrete side whose version may be unrecorded ("": a
    loose line of an export, an unpinned pip line): such a package satisfies only an entry that asks
    for no version, judged on its name, build and channel, as an unpinned pip package satisfies
    only an entry without a specifier."""
    from envkit.conda.matchspec import matches

    if not version:
        if dep.version is not None:
            return False
        version = "0"  # any version: the entry asks for none
    return matches(dep, name=name, version=version, **record)


def _check_pip(
    pd: PipDep,
    index: _Index,
    mentioned: set[tuple[str, str]],
    marker_env: dict[str, str] | None,
    conc: _Side,
    spec_dir: str | None = None,
) -> SpecCheck:
    """One pip spec entry against the concrete side; the package it names goes into `mentioned`."""
    name, source = _pip_entry_name(pd, conc, spec_dir)
    if not name:
        return _pip_check(pd, pd.text, "skipped", "names no project (a local path or URL without #egg=)")
    if pd.marker and marker_env is not None and not marker_holds(pd.marker, marker_env):
        return _pip_check(pd, name, "skipped", f"marker is false there: {pd.marker}")
    from envkit.conda.names import conda_names_for_pypi

    p, note = _provider(
        index, name, ("pip", _pep503(name)), (("conda", n) for n in conda_names_for_pypi(name))
    )
    if p is None:
        return _pip_check(pd, name, "missing", "")
    mentioned.add(_key(p))
    if pd.kind != "requirement" or not pd.specifier:
        ok = True
        if source is not None:
            ok, why = _source_satisfies(source, pd.editable, p, conc)
            note = (note + "; " if note else "") + why if why else note
        return _pip_check(pd, name, "satisfied" if ok else "not-satisfied", note, _state(p, side=conc))
    from packaging.specifiers import InvalidSpecifier, SpecifierSet

    try:
        spec_set = SpecifierSet(pd.specifier)
    except InvalidSpecifier:
        return _pip_check(pd, name, "skipped", f"invalid version specifier {pd.specifier!r}", found=_state(p))
    from envkit.formats.pipreq import pip_version_satisfies

    ok = pip_version_satisfies(spec_set, p.version)
    return _pip_check(pd, name, "satisfied" if ok else "not-satisfied", note, _state(p))


def _pip_entry_name(pd: PipDep, conc: _Side, spec_dir: str | None) -> tuple[str | None, str | None]:
    """(project name, source) of a pip entry: a URL, VCS or path entry that names no project is
    named by the package installed from that source, else by the source's last part."""
    source = None
    if pd.kind in ("url", "vcs", "path"):
        source = pd.url or entry_source(pd.text, spec_dir)
    name = pd.name
    if not name and source:
        # `-e /home/me/src/tool`: the package installed from that path, else the path's last part
        found = _installed_from(source, conc)
        name = found.name if found is not None else name_from_source(source)
    return name, source


def _pip_check(pd: PipDep, name: str, status: str, note: str, found: PackageState | None = None) -> SpecCheck:
    return SpecCheck(
        spec=pd.text, name=name, manager="pip", status=status, found=found, note=note, line=pd.line
    )


def _source_satisfies(source: str, editable: bool, p: LockedPackage, conc: _Side) -> tuple[bool, str]:
    """Whether package `p` was installed from a spec entry's `source` (a path, URL or VCS URL,
    with a commit or not), and a note: (True, "") when it was, (False, why) when it is known not to
    be, (True, "source not compared") when the concrete side does not record pip sources."""
    if p.manager != "pip":
        return True, "source not compared"
    want = _parse_origin(source, None, None)
    have = pip_origin(p, _dist(conc, p))
    if have is None and not p.editable and not conc.pip_sources:
        return True, "source not compared"
    if have is None or (have.kind, have.base) != (want.kind, want.base):
        return False, f"installed from {_from(have, p.editable)}"
    if want.kind == "vcs" and have.rev and _revs_differ(want.rev, have.rev):
        return False, f"installed at {have.vcs} commit {_short(have.rev)}"
    if editable and not p.editable:
        return False, "installed as a regular copy, not editable"
    return True, ""


def _installed_by(manager: str, found: str, wanted: str) -> str:
    """`installed by conda as pytorch` for `torch`; `installed by conda` when the names agree."""
    if _pep503(found) == _pep503(wanted):
        return f"installed by {manager}"
    return f"installed by {manager} as {found}"


def _marker_env(side: _Side) -> dict | None:
    """PEP 508 marker variables for the concrete side's platform and Python, or None if unknown."""
    from envkit.conda.platform import target_markers

    plat = side.info.platform
    py = _python_of(side)
    if not plat or plat.partition("-")[0] not in ("linux", "osx", "win") or not py:
        return None
    return target_markers(plat, py)


def _spec_entries(spec: EnvSpec) -> dict[tuple[str, str], PackageState]:
    out: dict[tuple[str, str], PackageState] = {}
    for d in spec.conda:
        ver = d.version or ""
        st = PackageState(name=d.name, manager="conda", version=ver, build=d.build, channel=d.channel)
        out[("conda", d.name.lower())] = st
    for p in spec.pip:
        if p.kind == "option":
            continue
        if p.kind == "requirement" and p.name:
            extras = f"[{','.join(p.extras)}]" if p.extras else ""
            marker = f"; {p.marker}" if p.marker else ""
            st = PackageState(name=p.name, manager="pip", version=f"{extras}{p.specifier}{marker}")
            out[("pip", _pep503(p.name))] = st
        else:
            # a URL, path or editable entry: its text is the spec (once: an entry that names no
            # project is named by its text, and has no separate "version")
            st = PackageState(name=p.name or p.text, manager="pip", version=p.text if p.name else "")
            out[("pip", _pep503(p.name) if p.name else p.text)] = st
    return out


def _diff_specs(a: EnvSpec, b: EnvSpec) -> tuple[list[Change], list[PackageState]]:
    ea, eb = _spec_entries(a), _spec_entries(b)
    changes: list[Change] = []
    unchanged: list[PackageState] = []
    for k, sa in ea.items():
        sb = eb.get(k)
        if sb is None:
            changes.append(_spec_change(sa.name, "removed", sa, None))
        elif sb == sa:
            unchanged.append(sa)
        else:
            tags = ["version"] if (sa.version, sa.build) != (sb.version, sb.build) else []
            if sa.channel != sb.channel:
                tags.append("channel")
            changes.append(_spec_change(sa.name, "changed", sa, sb, tags))
    for k, sb in eb.items():
        if k not in ea:
            changes.append(_spec_change(sb.name, "added", None, sb))
    return changes, unchanged


def _spec_change(
    name: str, kind: str, a: PackageState | None, b: PackageState | None, tags: list[str] | None = None
) -> Change:
    cat = category_of(name)
    tags = list(tags or [])
    if cat:
        tags.append(cat)
    if a and b:
        reason = f"spec changed: {_spec_text(a)} → {_spec_text(b)}"
    elif b:
        reason = "only in B's spec"
    else:
        reason = "only in A's spec"
    return Change(
        name=name,
        kind=kind,
        a=a,
        b=b,
        tags=tuple(tags),
        impact="medium" if cat else "low",
        reason=reason,
        group="matter" if cat else "other",
        category=cat,
    )


def _spec_text(s: PackageState) -> str:
    if s.manager == "pip":
        v = s.version
        # a specifier, extras or marker follows the name; anything else (`-e git+...#egg=x`, a
        # URL) is the entry's whole text
        return f"{s.name}{v}" if not v or v[0] in "[<>=!~;" else v
    dep = CondaDep(name=s.name, version=s.version or None, build=s.build, channel=s.channel)
    return dep.spec()
