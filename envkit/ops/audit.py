"""The audit operation: read each source, match its packages against an OSV database on disk,
apply the ignores and VEX statements, judge the licences, and return everything as an AuditResult.

Nothing here touches the network (`envkit.audit.fetch` is the one download, and only its own
command runs it)."""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

from envkit.audit.config import FAIL_ON, AuditConfig
from envkit.audit.match import AuditTarget, Unknown, Vulnerability

if TYPE_CHECKING:  # pragma: no cover
    from envkit.audit.index import Index
    from envkit.audit.licences import Licence
    from envkit.audit.vex import VexStatement
    from envkit.model import LiveEnv, LockedPackage, PipDist

_SEVERITY_RANK = {"low": 2, "medium": 3, "high": 4, "critical": 5}


@dataclass(frozen=True, slots=True, kw_only=True)
class AuditResult:
    """What an audit found.  `vulnerabilities` count; `ignored` are silenced (their `ignored`
    says why); `lapsed` are the ignores past their date (their advisories count again);
    `clean`: packages with a PyPI identity that no advisory affects."""

    sources: tuple[str, ...]
    db: str
    records: int
    index_path: str | None
    index_built: bool
    audited: int
    clean: int
    vulnerabilities: tuple[Vulnerability, ...]
    ignored: tuple[Vulnerability, ...] = ()
    unknown: tuple[Unknown, ...] = ()
    licences: tuple[Licence, ...] = ()
    lapsed: tuple[str, ...] = ()
    fail_on: str = "any"

    @property
    def vulnerable(self) -> int:
        """The number of packages with at least one counted advisory."""
        return len({(v.source, v.manager, v.package, v.version) for v in self.vulnerabilities})

    def failing(self, v: Vulnerability) -> bool:
        """Whether vulnerability `v` reaches the fail-on level (an unscored one reaches every level)."""
        if self.fail_on == "never":
            return False
        if self.fail_on in ("unknown", "any") or v.advisory.severity == "unknown":
            return True
        return _SEVERITY_RANK.get(v.advisory.severity, 0) >= _SEVERITY_RANK[self.fail_on]

    @property
    def failed(self) -> bool:
        """Whether anything reaches the fail-on level: a vulnerability, a licence not allowed, or
        (fail-on `unknown`) anything that cannot be known."""
        if self.fail_on == "never":
            return False
        if any(self.failing(v) for v in self.vulnerabilities):
            return True
        if any(lic.status in ("denied", "not-allowed") for lic in self.licences):
            return True
        if self.fail_on == "unknown":
            return bool(self.unknown) or any(lic.status == "unknown" for lic in self.licences)
        return False


@dataclass(slots=True)
class _Read:
    targets: list[AuditTarget] = field(default_factory=list)
    unknown: list[Unknown] = field(default_factory=list)
    #: label -> (prefix, pip dists) of a live environment
    dists: dict[str, tuple[str, tuple[PipDist, ...]]] = field(default_factory=dict)


def audit(
    sources: Sequence[str],
    *,
    live: LiveEnv | None = None,
    db: str | None = None,
    vex: str | None = None,
    license_allow: Sequence[str] = (),
    license_deny: Sequence[str] = (),
    fail_on: str | None = None,
    config: AuditConfig | None = None,
    today: dt.date | None = None,
) -> AuditResult:
    """Audit the environments `sources` (SOURCE strings: files, prefixes, env:NAME) and `live`
    against the OSV database `db` (None: the configuration's, then $ENVKIT_AUDIT_DB).  Raises
    AuditDbError when there is no database, UsageError for an unknown fail-on level, and the
    readers' errors for a source that cannot be read."""
    from envkit.audit.index import open_index
    from envkit.audit.match import scan
    from envkit.errors import UsageError

    config = config or AuditConfig()
    level = fail_on or config.fail_on or "any"
    if level not in FAIL_ON:
        raise UsageError(f"unknown fail-on level {level!r}: one of {', '.join(FAIL_ON)}")
    read = _read_sources(sources, live)
    index = open_index(db or config.db)
    found = scan(read.targets, index)
    statements = _vex(vex)
    counted, ignored, lapsed = _apply_ignores(
        found.vulnerabilities, config, statements, today or dt.date.today()
    )
    allow = tuple(license_allow) or config.license_allow
    deny = tuple(license_deny) or config.license_deny
    return AuditResult(
        sources=tuple(t.label for t in read.targets),
        db=str(db or config.db or ""),
        records=index.records,
        index_path=index.path,
        index_built=index.built,
        audited=found.audited + len(read.unknown),
        clean=found.clean,
        vulnerabilities=tuple(counted),
        ignored=tuple(ignored),
        unknown=tuple(read.unknown + found.unknown),
        licences=tuple(_licences(read, allow, deny)),
        lapsed=tuple(lapsed),
        fail_on=level,
    )


def _vex(path: str | None) -> list[VexStatement]:
    if path is None:
        return []
    from envkit.audit.vex import read_vex

    return read_vex(path)


def _read_sources(sources: Sequence[str], live: LiveEnv | None) -> _Read:
    from envkit.model import resolved_view
    from envkit.sources import resolve

    out = _Read()
    models: list[tuple[str, object]] = [(s.label, s.model) for s in map(resolve, sources)]
    if live is not None:
        models.append((live.prefix, live))
    for label, model in models:
        view = resolved_view(model)  # type: ignore[arg-type]
        if view is not None:
            kind = "live" if view.live is not None else "lock"
            out.targets.append(
                AuditTarget(
                    label=label, kind=kind, packages=view.packages(), owned=view.owned, lock_kind=view.kind
                )
            )
            if view.live is not None:
                out.dists[label] = (view.live.prefix, view.live.pip_dists)
            continue
        pinned, loose = _spec_packages(model)
        out.targets.append(AuditTarget(label=label, kind="spec", packages=tuple(pinned)))
        for name, manager in loose:
            out.unknown.append(
                Unknown(
                    source=label,
                    manager=manager,
                    package=name,
                    version="",
                    reason="not pinned to one version",
                )
            )
    return out


def _spec_packages(model) -> tuple[list[LockedPackage], list[tuple[str, str]]]:
    """A loose spec's packages pinned to one version, and (name, manager) of the others."""
    from envkit.checks.rules_machine import _spec_packages as pinned_packages

    pinned = [p for p in pinned_packages(model) if p.version]
    names = {(p.manager, p.name) for p in pinned}
    loose = [(d.name, "conda") for d in model.conda if ("conda", d.name) not in names and d.name != "pip"]
    loose += [(p.name, "pip") for p in model.pip if p.name and ("pip", p.name) not in names]
    return pinned, loose


def _apply_ignores(
    found: Sequence[Vulnerability], config: AuditConfig, statements: Sequence[VexStatement], today: dt.date
) -> tuple[list[Vulnerability], list[Vulnerability], list[str]]:
    """(counted, ignored, lapsed ignores): an active ignore or a VEX statement silences a finding."""
    counted, ignored, lapsed = [], [], []
    for ig in config.ignore:
        if not ig.active(today):
            lapsed.append(f"the ignore of {ig.id} lapsed on {ig.until}: it counts again ({ig.reason})")
    for v in found:
        ids = (v.advisory.id, *v.advisory.aliases)
        reason = next(
            (f"ignored: {i.reason}" for i in config.ignore if i.id in ids and i.active(today)), None
        )
        if reason is None:
            reason = next(
                (
                    f"VEX {s.state}: {s.reason}"
                    for s in statements
                    if s.covers(ids, v.manager, v.package, v.version)
                ),
                None,
            )
        if reason is None:
            counted.append(v)
        else:
            ignored.append(replace(v, ignored=reason))
    return counted, ignored, lapsed


def _licences(read: _Read, allow: Sequence[str], deny: Sequence[str]) -> list[Licence]:
    from envkit.audit.licences import licences

    out: list[Licence] = []
    for t in read.targets:
        prefix, dists = read.dists.get(t.label, ("", ()))
        out += licences(t.label, t.packages, dists, prefix=prefix, allow=allow, deny=deny)
    return out


def fetch(directory: str) -> tuple[str, Index]:
    """Download OSV's PyPI dump into `directory` and build its index: (the dump's path, the index).
    The one operation of envkit that reaches the network."""
    from envkit.audit.fetch import fetch_db
    from envkit.audit.index import open_index

    path = fetch_db(directory)
    return path, open_index(path)
