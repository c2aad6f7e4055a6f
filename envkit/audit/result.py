"""What an audit found, and how it is reached from environments already read: match them against
an index, apply the ignores and VEX statements, judge the licences (`assess`).  `envkit audit`
(envkit.ops.audit) and `check`'s audit rules (envkit.checks.rules_audit) both end here."""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from envkit.audit.config import AuditConfig
from envkit.audit.match import AuditTarget, Unknown, Vulnerability

if TYPE_CHECKING:  # pragma: no cover
    from envkit.audit.index import Index
    from envkit.audit.licences import Licence
    from envkit.audit.vex import VexStatement
    from envkit.model import PipDist, Resolved

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


def view_target(label: str, view: Resolved) -> AuditTarget:
    """The AuditTarget of a resolved environment (a lock, an export, a live prefix)."""
    kind = "live" if view.live is not None else "lock"
    return AuditTarget(
        label=label, kind=kind, packages=view.packages(), owned=view.owned, lock_kind=view.kind
    )


def assess(
    targets: Sequence[AuditTarget],
    index: Index,
    *,
    db: str,
    config: AuditConfig,
    level: str,
    unknown: Sequence[Unknown] = (),
    dists: Mapping[str, tuple[str, tuple[PipDist, ...]]] | None = None,
    statements: Sequence[VexStatement] = (),
    license_allow: Sequence[str] = (),
    license_deny: Sequence[str] = (),
    today: dt.date | None = None,
) -> AuditResult:
    """Match `targets` against `index`, silence what the configuration's ignores and the VEX
    `statements` cover, and judge the licences (`license_allow`/`license_deny`, else the
    configuration's lists).  `unknown`: what the reader already could not know (a loose spec's
    unpinned entries); `dists`: target label -> (prefix, pip dists) of a live environment, whose
    wheel METADATA gives the pip packages' licences."""
    from envkit.audit.licences import licences
    from envkit.audit.match import scan

    found = scan(targets, index)
    counted, ignored, lapsed = apply_ignores(
        found.vulnerabilities, config, statements, today or dt.date.today()
    )
    allow = tuple(license_allow) or config.license_allow
    deny = tuple(license_deny) or config.license_deny
    judged: list[Licence] = []
    for t in targets:
        prefix, pip = (dists or {}).get(t.label, ("", ()))
        judged += licences(t.label, t.packages, pip, prefix=prefix, allow=allow, deny=deny)
    return AuditResult(
        sources=tuple(t.label for t in targets),
        db=db,
        records=index.records,
        index_path=index.path,
        index_built=index.built,
        audited=found.audited + len(unknown),
        clean=found.clean,
        vulnerabilities=tuple(counted),
        ignored=tuple(ignored),
        unknown=tuple(unknown) + tuple(found.unknown),
        licences=tuple(judged),
        lapsed=tuple(lapsed),
        fail_on=level,
    )


def apply_ignores(
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
