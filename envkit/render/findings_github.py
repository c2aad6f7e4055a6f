"""`envkit check --format github`: GitHub Actions workflow commands, one per finding.

    ::error file=environment.yml,line=12,title=conda-pip-duplicate::numpy is installed by ...

Severities map to `error`, `warning` and `notice`.  Values are escaped as the Actions runner
expects (`%`, CR, LF everywhere; also `:` and `,` in properties), so a message can never end the
command early or inject another one.
"""

from __future__ import annotations

from collections.abc import Sequence

from envkit.checks.core import Finding

LEVEL = {"error": "error", "warning": "warning", "info": "notice"}


def escape_data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(text: str) -> str:
    return escape_data(text).replace(":", "%3A").replace(",", "%2C")


def render_findings_github(findings: Sequence[Finding], **summary: Sequence) -> str:
    """One workflow command per finding, then the text summary line (plain output; `summary`:
    its keywords, checked/fixed/environments)."""
    from envkit.render.findings_text import summary_line

    out = []
    for f in findings:
        props = [f"file={escape_property(f.file)}"]
        if f.line:
            props.append(f"line={f.line}")
        props.append(f"title={escape_property(f'envkit {f.rule} ({f.severity})')}")
        out.append(f"::{LEVEL[f.severity]} {','.join(props)}::{escape_data(f.message)}")
    out.append(summary_line(findings, **summary))
    return "\n".join(out) + "\n"
