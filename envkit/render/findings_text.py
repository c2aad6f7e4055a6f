"""`envkit check` findings as text: one `file:line: severity rule: message` line each, then a summary."""

from __future__ import annotations

from collections.abc import Sequence

from envkit._text import plural
from envkit.checks.core import SEVERITIES, Finding, summarize


def location(f: Finding) -> str:
    return f"{f.file}:{f.line}" if f.line else f.file


def finding_line(f: Finding) -> str:
    """`file:line: severity rule: message`."""
    return f"{location(f)}: {f.severity} {f.rule}: {f.message}"


def render_findings_text(findings: Sequence[Finding], *, fixed: Sequence = (), **summary: Sequence) -> str:
    """The text report: fixes applied (if any), one line per finding, and a summary line.

    `summary`: the summary line's other keywords, `checked` (the files checked) and `environments`
    (the live environments)."""
    out: list[str] = []
    for x in fixed:
        out.append(f"{location(x)}: fixed {x.rule}: {x.description}")
    out += [finding_line(f) for f in findings]
    out.append(summary_line(findings, fixed=fixed, **summary))
    return "\n".join(out) + "\n"


def summary_line(
    findings: Sequence[Finding],
    *,
    checked: Sequence[str] = (),
    fixed: Sequence = (),
    environments: Sequence[str] = (),
) -> str:
    """`2 findings (1 error, 1 warning) in 2 files checked` / `no findings (1 file and 1 environment
    checked)`."""
    parts_checked = [
        plural(k, noun) for k, noun in ((len(checked), "file"), (len(environments), "environment")) if k
    ]
    what = f"{' and '.join(parts_checked)} checked" if parts_checked else "nothing checked"
    fix = f", {len(fixed)} fixed" if fixed else ""
    if not findings:
        return f"no findings ({what}{fix})"
    counts = summarize(findings)
    parts = [plural(counts[s], s, "info" if s == "info" else None) for s in SEVERITIES if counts[s]]
    return f"{plural(len(findings), 'finding')} ({', '.join(parts)}) in {what}{fix}"
