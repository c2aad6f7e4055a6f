"""The audit operation: read each source, match its packages against an OSV database on disk,
apply the ignores and VEX statements, judge the licences, and return everything as an AuditResult.

Nothing here touches the network (`envkit.audit.fetch` is the one download, and only its own
command runs it)."""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from envkit.audit.config import FAIL_ON, AuditConfig
from envkit.audit.match import AuditTarget, Unknown
from envkit.audit.result import AuditResult

if TYPE_CHECKING:  # pragma: no cover
    from envkit.audit.index import Index
    from envkit.model import LiveEnv, LockedPackage, PipDist

__all__ = ["AuditResult", "audit", "fetch"]


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
    from envkit.audit.result import assess
    from envkit.audit.vex import read_vex
    from envkit.errors import UsageError

    config = config or AuditConfig()
    level = fail_on or config.fail_on or "any"
    if level not in FAIL_ON:
        raise UsageError(f"unknown fail-on level {level!r}: one of {', '.join(FAIL_ON)}")
    read = _read_sources(sources, live)
    index = open_index(db or config.db)
    return assess(
        read.targets,
        index,
        db=str(db or config.db or ""),
        config=config,
        level=level,
        unknown=read.unknown,
        dists=read.dists,
        statements=read_vex(vex) if vex is not None else [],
        license_allow=license_allow,
        license_deny=license_deny,
        today=today,
    )


def _read_sources(sources: Sequence[str], live: LiveEnv | None) -> _Read:
    from envkit.audit.result import view_target
    from envkit.model import resolved_view
    from envkit.sources import resolve

    out = _Read()
    models: list[tuple[str, object]] = [(s.label, s.model) for s in map(resolve, sources)]
    if live is not None:
        models.append((live.prefix, live))
    for label, model in models:
        view = resolved_view(model)  # type: ignore[arg-type]
        if view is not None:
            out.targets.append(view_target(label, view))
            if view.live is not None:
                out.dists[label] = (view.live.prefix, view.live.pip_dists)
            continue
        pinned, loose = _spec_packages(model)
        out.targets.append(AuditTarget(label=label, kind="spec", packages=tuple(pinned)))
        out.unknown += [
            Unknown(
                source=label, manager=manager, package=name, version="", reason="not pinned to one version"
            )
            for name, manager in loose
        ]
    return out


def _spec_packages(model) -> tuple[list[LockedPackage], list[tuple[str, str]]]:
    """A loose spec's packages pinned to one version, and (name, manager) of the others."""
    from envkit.checks.rules_machine import _spec_packages as pinned_packages

    pinned = [p for p in pinned_packages(model) if p.version]
    names = {(p.manager, p.name) for p in pinned}
    loose = [(d.name, "conda") for d in model.conda if ("conda", d.name) not in names and d.name != "pip"]
    loose += [(p.name, "pip") for p in model.pip if p.name and ("pip", p.name) not in names]
    return pinned, loose


def fetch(directory: str) -> tuple[str, Index]:
    """Download OSV's PyPI dump into `directory` and build its index: (the dump's path, the index).
    The one operation of envkit that reaches the network."""
    from envkit.audit.fetch import fetch_db
    from envkit.audit.index import open_index

    path = fetch_db(directory)
    return path, open_index(path)
