"""Packages of an environment + an advisory index -> vulnerabilities, unknowns and clean packages.

A pip package is its PyPI project.  A conda package reaches PyPI through its PyPI identity: the
dist-info its record owns in a live prefix, the lock's purls where it records them, else envkit's
conda⇄PyPI name map -- for a conda package that is a Python package at all (it depends on
`python`, or its build string says so).  A native library (openssl, libcurl, the CUDA libraries)
has no PyPI identity and no advisory source: it is *unknown*, never clean.  The conda version is
compared as the upstream version (PEP 440).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace

from envkit.audit.index import Index
from envkit.audit.osv import Advisory, parse_version
from envkit.conda.names import NOT_THE_PYPI_PROJECT, pypi_names_for_conda
from envkit.model import LockedPackage, pep503

#: conda packages that are Python itself or its ABI marker: no PyPI project
_NOT_PYPI = frozenset({"python", "python_abi", "pypy", "pypy3.9", "pypy3.10"})


@dataclass(frozen=True, slots=True, kw_only=True)
class AuditTarget:
    """One environment to audit: `label` as given, `kind` lock / live / spec, its packages, and
    (live prefix) conda name -> PyPI projects its dist-info proves."""

    label: str
    kind: str
    packages: tuple[LockedPackage, ...]
    owned: Mapping[str, tuple[str, ...]] | None = None
    #: the lock's format (conda-lock, pixi, uv-lock, ...) when `kind` is lock
    lock_kind: str | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class Vulnerability:
    """A package that a known advisory affects.  `fix_version`: the smallest fixed version above
    the installed one (None: no fix recorded); `fix`: the change that moves to it; `ignored`:
    the reason an ignore or VEX statement gives (None: it counts)."""

    source: str
    line: int | None
    manager: str
    package: str
    pypi_name: str
    version: str
    platforms: tuple[str, ...]
    advisory: Advisory
    fix_version: str | None
    fix: str | None
    ignored: str | None = None

    def describe(self) -> str:
        """`PYSEC-... (CVE-..., GHSA-...) high 7.5: aiohttp 3.8.5 (pip): summary; fix: ...`"""
        a = self.advisory
        aliases = f" ({', '.join(a.aliases)})" if a.aliases else ""
        severity = f"{a.severity} {a.score}" if a.score is not None else a.severity
        on = f" on {', '.join(self.platforms)}" if len(self.platforms) == 1 else ""
        fix = f"; fix: {self.fix}" if self.fix else "; no fixed version recorded"
        what = f"{self.package} {self.version} ({self.manager}{on})"
        return f"{a.id}{aliases} {severity}: {what}: {a.summary}{fix}"


@dataclass(frozen=True, slots=True, kw_only=True)
class Unknown:
    """A package no advisory source can speak for, and why."""

    source: str
    manager: str
    package: str
    version: str
    reason: str


@dataclass(slots=True)
class Scan:
    """What matching found: `clean` counts the packages with a PyPI identity that no advisory
    affects; each package counts once per source (a multi-platform lock's copies are one)."""

    vulnerabilities: list[Vulnerability] = field(default_factory=list)
    unknown: list[Unknown] = field(default_factory=list)
    clean: int = 0
    audited: int = 0


def pypi_identity(pkg: LockedPackage, owned: Mapping[str, tuple[str, ...]] | None = None) -> tuple[str, ...]:
    """The PEP 503 PyPI projects `pkg` is (possibly none): a pip package its own name; a conda
    package the projects its record owns (live), else its `pkg:pypi` purls (pixi.lock), else the
    name map's when it is a Python package."""
    if pkg.manager == "pip":
        return (pep503(pkg.name),)
    purls = [p for p in pkg.purls if p.startswith("pkg:pypi/")]
    if purls:
        return tuple(sorted({pep503(p[9:].split("@", 1)[0].split("?", 1)[0]) for p in purls}))
    name = pkg.name.lower()
    if owned is not None and name in owned:
        return tuple(owned[name])
    if name in _NOT_PYPI or name in NOT_THE_PYPI_PROJECT:
        return ()
    names = pypi_names_for_conda(name)
    if names != (pep503(name),) or any(dep in ("python", "python_abi") for dep, _spec in pkg.depends):
        return names
    # not in the map under another name: a Python package only if its build says so (py311h...,
    # pyhd8ed1ab_0, np113py36_0: "py" cannot be part of a build's hex hash)
    return names if "py" in (pkg.build or "") else ()


def fix_for(adv: Advisory, version: str) -> str | None:
    """The smallest fixed version above `version`, or None."""
    v = parse_version(version)
    fixed = [(parse_version(f), f) for f in adv.fixed]
    above = sorted((p, f) for p, f in fixed if p is not None and (v is None or p > v))
    return above[0][1] if above else None


#: lock kind -> the command that moves one package of it to its newest version
_UPDATE = {
    "pixi": "pixi update {}",
    "uv-lock": "uv lock --upgrade-package {}",
    # a pylock.toml is written by several tools (uv export, pdm, pip lock): name the change itself
    "pylock": "lock again with {}>=FIX",
}


def fix_command(target: AuditTarget, pkg: LockedPackage, fix_version: str | None) -> str | None:
    """The smallest change that moves `pkg` to `fix_version`, in the words of its source: the
    lock's own update of that one package, else an install or a pin."""
    if fix_version is None:
        return None
    if target.kind == "lock":
        update = _UPDATE.get(target.lock_kind or "", "envkit lock --update {} (to FIX or later)")
        return update.format(pkg.name).replace("FIX", fix_version)
    if pkg.manager == "pip":
        return f"pip install '{pkg.name}>={fix_version}'"
    if target.kind == "live":
        return f"conda install '{pkg.name}>={fix_version}'"
    return f"pin {pkg.name}>={fix_version}"


def _unique(target: AuditTarget) -> dict[tuple[str, str, str], tuple[LockedPackage, list[str]]]:
    """(manager, name, version) -> its first package and the platforms it is locked for."""
    seen: dict[tuple[str, str, str], tuple[LockedPackage, list[str]]] = {}
    for p in target.packages:
        key = (p.manager, p.name, p.version)
        first = seen.setdefault(key, (p, []))
        if p.platform and p.platform not in first[1]:
            first[1].append(p.platform)
    return seen


def scan(targets: Sequence[AuditTarget], index: Index) -> Scan:
    """Match every package of `targets` against `index` (see the module docstring)."""
    out = Scan()
    for target in targets:
        for pkg, platforms in _unique(target).values():
            out.audited += 1
            _scan_one(target, pkg, tuple(platforms), index, out)
    return out


def _scan_one(
    target: AuditTarget,
    pkg: LockedPackage,
    platforms: tuple[str, ...],
    index: Index,
    out: Scan,
) -> None:
    def unknown(reason: str) -> None:
        out.unknown.append(
            Unknown(
                source=target.label, manager=pkg.manager, package=pkg.name, version=pkg.version, reason=reason
            )
        )

    names = pypi_identity(pkg, target.owned)
    if not names:
        if (
            pkg.manager == "conda"
            and not pkg.build
            and not pkg.depends
            and pkg.name not in NOT_THE_PYPI_PROJECT
        ):
            unknown("cannot tell whether it is a Python package (no build recorded: lock it)")
        else:
            unknown("no advisory source (no PyPI identity)")
        return
    if not pkg.version:
        unknown("no version recorded")
        return
    hits: list[tuple[str, Advisory]] = []
    for name in names:
        for adv in index.lookup(name):
            affected = adv.affects(pkg.version)
            if affected is None:
                unknown(f"version {pkg.version} is not a PEP 440 version ({adv.id} has ranges)")
                return
            if affected:
                hits.append((name, adv))
    if not hits:
        out.clean += 1
    for name, adv in merge_aliases(hits):
        fix_version = fix_for(adv, pkg.version)
        out.vulnerabilities.append(
            Vulnerability(
                source=target.label,
                line=pkg.line,
                manager=pkg.manager,
                package=pkg.name,
                pypi_name=name,
                version=pkg.version,
                platforms=platforms,
                advisory=adv,
                fix_version=fix_version,
                fix=fix_command(target, pkg, fix_version),
            )
        )


def merge_aliases(hits: Sequence[tuple[str, Advisory]]) -> list[tuple[str, Advisory]]:
    """One advisory per vulnerability: records that name each other (a PYSEC record and the GHSA
    of the same flaw, as OSV's PyPI dump holds both) become one, the scored record first (its
    id kept), with every id and alias of the group and every fixed version."""
    groups: list[list[tuple[str, Advisory]]] = []
    for hit in hits:
        ids = {hit[1].id, *hit[1].aliases}
        for g in groups:
            if any(ids & {a.id, *a.aliases} for _n, a in g):
                g.append(hit)
                break
        else:
            groups.append([hit])
    out = []
    for g in groups:
        name, lead = min(g, key=lambda h: (h[1].score is None, h[1].id))
        if len(g) > 1:
            ids = {x for _n, a in g for x in (a.id, *a.aliases)} - {lead.id}
            fixed = tuple(dict.fromkeys(f for _n, a in g for f in a.fixed))
            lead = replace(lead, aliases=tuple(sorted(ids)), fixed=fixed)
        out.append((name, lead))
    return sorted(out, key=lambda h: h[1].id)
