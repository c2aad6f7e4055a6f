"""`envkit audit --format json`: one stable document (version 1, written out in docs/commands/audit.md)."""

from __future__ import annotations

import json
from dataclasses import asdict

JSON_VERSION = 1


def vulnerability_dict(v, result) -> dict:
    a = v.advisory
    d = {
        "id": a.id,
        "aliases": list(a.aliases),
        "summary": a.summary,
        "severity": a.severity,
        "cvss_score": a.score,
        "cvss_vector": a.vector,
        "source": v.source,
        "line": v.line,
        "manager": v.manager,
        "package": v.package,
        "pypi_name": v.pypi_name,
        "version": v.version,
        "platforms": list(v.platforms),
        "fixed": list(a.fixed),
        "fix_version": v.fix_version,
        "fix": v.fix,
    }
    if v.ignored is not None:
        d["reason"] = v.ignored
    else:
        d["fails"] = result.failing(v)
    return d


def render_audit_json(result) -> str:
    """The JSON report (docs/commands/audit.md), ending with a newline."""
    statuses = ("allowed", "not-allowed", "denied", "unknown")
    doc = {
        "version": JSON_VERSION,
        "db": {
            "path": result.db,
            "records": result.records,
            "index": result.index_path,
            "built": result.index_built,
        },
        "sources": list(result.sources),
        "vulnerabilities": [vulnerability_dict(v, result) for v in result.vulnerabilities],
        "ignored": [vulnerability_dict(v, result) for v in result.ignored],
        "unknown": [asdict(u) for u in result.unknown],  # envkit.audit.match.Unknown's fields
        "licences": [
            {
                "source": lic.source,
                "manager": lic.manager,
                "package": lic.package,
                "version": lic.version,
                "licence": lic.raw,
                "spdx": lic.spdx,
                "status": lic.status,
                "from": lic.where,
            }
            for lic in result.licences
        ],
        "lapsed_ignores": list(result.lapsed),
        "summary": {
            "audited": result.audited,
            "vulnerable": result.vulnerable,
            "vulnerabilities": len(result.vulnerabilities),
            "ignored": len(result.ignored),
            "clean": result.clean,
            "unknown": len(result.unknown),
            "licences": {s: sum(1 for lic in result.licences if lic.status == s) for s in statuses},
            "fail_on": result.fail_on,
            "failed": result.failed,
        },
    }
    return json.dumps(doc, indent=2, ensure_ascii=False) + "\n"
