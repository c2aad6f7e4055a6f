"""`envkit check --format json`: a stable document (version 1, written out in docs/commands/check.md).
Keys are always present and in this order; findings are in the order of the text output."""

from __future__ import annotations

import json
from collections.abc import Sequence

from envkit.checks.core import Finding, severity_at_least, summarize

JSON_VERSION = 1


def render_findings_json(
    findings: Sequence[Finding],
    *,
    checked: Sequence[str] = (),
    fixed: Sequence = (),
    fail_on: str = "error",
    environments: Sequence[str] = (),
) -> str:
    """The JSON report (docs/commands/check.md), ending with a newline."""
    counts = summarize(findings)
    doc = {
        "version": JSON_VERSION,
        "findings": [f.as_dict() for f in findings],
        "fixed": [x.as_dict() for x in fixed],
        "summary": {
            "checked": list(checked),
            "environments": list(environments),
            "findings": len(findings),
            **counts,
            "fixed": len(fixed),
            "fail_on": fail_on,
            "failed": any(severity_at_least(f.severity, fail_on) for f in findings),
        },
    }
    return json.dumps(doc, indent=2, ensure_ascii=False) + "\n"
