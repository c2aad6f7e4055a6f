"""`envkit audit` as check rules: known vulnerabilities, licences not allowed, and what no advisory
source can speak for, in a lock or a live environment.

They run only where an advisory database is configured: `db` in the audit table of the
configuration check reads (`[tool.envkit.audit]`, `.envkit.toml [audit]`), else $ENVKIT_AUDIT_DB.
Without one they find nothing, except that a configuration with an audit table but no database
gets one note saying so (`check --audit` makes a missing database an error instead).  The audit
itself is envkit.audit's (the same index, ignores, licence lists and fail-on as `envkit audit`);
nothing here touches the network.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING

from envkit._text import plural
from envkit.checks.core import Context, Hit, Target, rule

if TYPE_CHECKING:  # pragma: no cover
    from envkit.audit.config import AuditConfig
    from envkit.audit.index import Index
    from envkit.audit.result import AuditResult
    from envkit.config import Config

#: the rules of this module (`check --audit` selects them)
AUDIT_RULES = ("known-vulnerability", "licence-not-allowed", "no-advisory-source")
_EXAMPLE = """
    $ export ENVKIT_AUDIT_DB=/srv/osv/PyPI/all.zip      # or db = ... in [tool.envkit.audit]
    $ envkit check pixi.lock
"""


@dataclass(slots=True)
class AuditSetup:
    """The audit configuration and, when a database is configured, its path and index; `noted`:
    the run has said that its audit table names no database (it says so once)."""

    config: AuditConfig
    db: str | None
    index: Index | None
    has_table: bool
    noted: bool = False


def audit_config(config: Config) -> tuple[AuditConfig, bool, str | None]:
    """(the audit table of the file `config` came from, whether the file has one, the advisory
    database the audit rules use: the table's `db`, else $ENVKIT_AUDIT_DB; None when neither
    names one)."""
    from envkit.audit.config import AuditConfig, load_audit_config
    from envkit.audit.index import ENV_DB

    audit = load_audit_config(config.source) if config.source is not None else AuditConfig()
    has_table = config.source is not None and audit != AuditConfig(source=audit.source)
    return audit, has_table, audit.db or os.environ.get(ENV_DB) or None


def configured_db(config: Config) -> str | None:
    """The advisory database check's audit rules use (see `audit_config`)."""
    return audit_config(config)[2]


def _setup(ctx: Context) -> AuditSetup:
    """The audit setup of this check run, made once (the index is opened once for every target)."""
    if "audit" not in ctx.cache:
        from envkit.audit.index import open_index

        config, has_table, db = audit_config(ctx.config)
        ctx.cache["audit"] = AuditSetup(config, db, open_index(db) if db else None, has_table)
    return ctx.cache["audit"]


def _result(target: Target, ctx: Context) -> AuditResult | None:
    """The audit of `target` (a lock or a live environment), shared by the rules; None without a
    database."""
    if "audit" in target.cache:
        return target.cache["audit"]
    setup, view, result = _setup(ctx), target.view, None
    if setup.index is not None and view is not None:
        from envkit.audit.result import assess, view_target

        dists = {target.path: (view.live.prefix, view.live.pip_dists)} if view.live is not None else None
        result = assess(
            [view_target(target.path, view)],
            setup.index,
            db=setup.db or "",
            config=setup.config,
            level=setup.config.fail_on or "any",
            dists=dists,
        )
    target.cache["audit"] = result
    return result


@rule(
    "known-vulnerability",
    order=38,
    severity="error",
    summary="(audit) A package that a known advisory affects (OSV database on disk).",
    description="""
        The lock's or environment's packages matched against the OSV advisory database that is
        configured (`db` in `[tool.envkit.audit]`, or $ENVKIT_AUDIT_DB), as `envkit audit` matches
        them: pip packages by name, conda packages by their PyPI identity (pixi.lock's `purls`,
        a live prefix's dist-info, envkit's name map).  An error when the advisory reaches the
        audit's `fail-on` rating (default: any), else a warning; the audit's ignores (with a
        reason and an expiry) silence it.  The message names the advisory, its aliases, its CVSS
        rating and the smallest change that fixes it.  Runs only where a database is configured.
        """,
    example=_EXAMPLE,
    example_fixed="$ pixi update aiohttp\n$ envkit check pixi.lock\nno findings (1 file checked)\n",
    applies_to=("lock", "live"),
    example_kind="text",
)
def known_vulnerability(target: Target, ctx: Context) -> Iterator[Hit]:
    result = _result(target, ctx)
    if result is None:
        return
    for v in result.vulnerabilities:
        yield Hit(v.line, v.describe(), (v.package,), None if result.failing(v) else "warning")


@rule(
    "licence-not-allowed",
    order=39,
    severity="error",
    summary="(audit) A package whose licence is denied (`license-deny`) or not on `license-allow`.",
    description="""
        Licences as the records give them (a conda package's `license`, a pixi.lock's `license:`,
        a live environment's wheel METADATA), normalised to SPDX and judged by the `license-allow`
        and `license-deny` lists of `[tool.envkit.audit]`: an `OR` is as good as its best choice,
        an `AND` as bad as its worst.  Runs only where an advisory database is configured (the
        audit runs as one); `envkit audit` lists the licences it cannot tell.
        """,
    example=_EXAMPLE,
    example_fixed='$ # license-deny = ["AGPL-3.0-only"]: no package is AGPL\nno findings (1 file checked)\n',
    applies_to=("lock", "live"),
    example_kind="text",
)
def licence_not_allowed(target: Target, ctx: Context) -> Iterator[Hit]:
    result = _result(target, ctx)
    if result is None:
        return
    lines = {(p.manager, p.name, p.version): p.line for p in reversed(target.view.packages())}  # type: ignore[union-attr]
    why = {"denied": "denied (license-deny)", "not-allowed": "not in license-allow"}
    for lic in result.licences:
        if lic.status in why:
            text = f"{lic.package} {lic.version} ({lic.manager}) is licensed {lic.spdx}: {why[lic.status]}"
            yield Hit(lines.get((lic.manager, lic.package, lic.version)), text, (lic.package,))


@rule(
    "no-advisory-source",
    order=40,
    severity="info",
    summary="(audit) Packages no advisory source speaks for (native libraries): unknown, not clean.",
    description="""
        OSV has no conda ecosystem: a conda package is audited through its PyPI identity, and one
        without any (openssl, libcurl, the CUDA libraries) cannot be said to be free of known
        vulnerabilities.  Listed once per lock, with the reason.  Also the one note that a
        configuration with an audit table names no database (the audit rules then find nothing).
        """,
    example=_EXAMPLE,
    example_fixed="$ envkit check environment.yml   # a spec: no packages to audit\n",
    applies_to=("lock", "live"),
    example_kind="text",
)
def no_advisory_source(target: Target, ctx: Context) -> Iterator[Hit]:
    setup = _setup(ctx)
    if setup.index is None:
        if setup.has_table and not setup.noted:
            setup.noted = True
            yield Hit(
                None,
                f"{setup.config.source}: the audit table names no advisory database (db) and "
                "$ENVKIT_AUDIT_DB is not set: the audit rules did not run",
            )
        return
    result = _result(target, ctx)
    by_reason: dict[str, list[str]] = {}
    for u in result.unknown if result is not None else ():
        by_reason.setdefault(u.reason, []).append(f"{u.package} {u.version}".strip())
    for reason, names in by_reason.items():
        yield Hit(
            None, f"unknown, {reason}: {plural(len(names), 'package')}: {', '.join(names)}", tuple(names)
        )
