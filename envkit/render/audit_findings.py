"""`envkit audit` in `check`'s formats for CI: SARIF 2.1.0 and GitHub annotations.

An audit's vulnerabilities and licences not allowed become check Findings (rule: the advisory id,
or `licence-denied` / `licence-not-allowed`; severity `error` when it reaches --fail-on, else
`warning`), and check's own renderers write them: one SARIF writer, one annotation writer.  In
SARIF each advisory is a rule (its summary, aliases and CVSS in the rule's help), so code scanning
groups the alerts by advisory.
"""

from __future__ import annotations

from dataclasses import dataclass

from envkit.checks.core import Finding


@dataclass(frozen=True, slots=True)
class AuditRule:
    """A SARIF rule as render_findings_sarif reads one."""

    name: str
    summary: str
    description: str
    severity: str
    fixable: bool = False


_LICENCE_RULES = {
    "licence-denied": AuditRule(
        "licence-denied", "A package's licence is denied", "The licence is in license-deny.", "error"
    ),
    "licence-not-allowed": AuditRule(
        "licence-not-allowed",
        "A package's licence is not allowed",
        "An allow list is configured (license-allow) and the licence is not on it.",
        "error",
    ),
}


def audit_findings(result) -> tuple[list[Finding], dict[str, AuditRule]]:
    """The findings of `result` and the rules they name, in report order."""
    from envkit.render.audit_text import vulnerability_line

    findings: list[Finding] = []
    rules: dict[str, AuditRule] = {}
    for v in result.vulnerabilities:
        a = v.advisory
        severity = "error" if result.failing(v) else "warning"
        cvss = f" CVSS {a.score} ({a.vector})." if a.score is not None else ""
        aliases = f" Aliases: {', '.join(a.aliases)}." if a.aliases else ""
        fixed = f" Fixed in {', '.join(a.fixed)}." if a.fixed else " No fixed version is recorded."
        rules.setdefault(
            a.id, AuditRule(a.id, a.summary or a.id, f"{a.summary}{aliases}{cvss}{fixed}".strip(), severity)
        )
        findings.append(
            Finding(
                rule=a.id,
                severity=severity,
                file=v.source,
                line=v.line,
                message=vulnerability_line(v).split(": ", 1)[1],
                packages=(v.package,),
            )
        )
    for lic in result.licences:
        if lic.status in ("denied", "not-allowed"):
            rule = f"licence-{lic.status}"
            rules.setdefault(rule, _LICENCE_RULES[rule])
            text = f"{lic.package} {lic.version} ({lic.manager}) is licensed {lic.spdx}: {lic.status}"
            findings.append(
                Finding(
                    rule=rule,
                    severity="error",
                    file=lic.source,
                    line=None,
                    message=text,
                    packages=(lic.package,),
                )
            )
    return findings, rules


def render_audit_sarif(result) -> str:
    """The SARIF 2.1.0 log (check's writer), ending with a newline."""
    from envkit.render.findings_sarif import render_findings_sarif

    findings, rules = audit_findings(result)
    return render_findings_sarif(findings, rules=rules)


def render_audit_github(result) -> str:
    """One workflow command per finding (check's writer's escaping), then the audit summary."""
    from envkit.render.audit_text import summary_line
    from envkit.render.findings_github import render_findings_github

    findings, _rules = audit_findings(result)
    lines = render_findings_github(findings).splitlines()[:-1]  # all but check's summary line
    return "\n".join([*lines, summary_line(result)]) + "\n"
