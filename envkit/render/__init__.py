"""Every renderer of envkit's output, and the one place that picks a renderer by output format.

    from envkit.render import render
    text = render("findings", "sarif", findings)
    text = render("export", "json", live_env, from_history=True)

Each (kind, format) names a function `module:name` under envkit.render, imported only when used
(so `envkit --version` loads none of them).  The keyword options are those of that function.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # pragma: no cover
    from typing import Any

#: kind -> output format -> "module:function" (module relative to envkit.render)
RENDERERS: dict[str, dict[str, str]] = {
    "findings": {
        "text": "findings_text:render_findings_text",
        "json": "findings_json:render_findings_json",
        "github": "findings_github:render_findings_github",
        "sarif": "findings_sarif:render_findings_sarif",
    },
    "diff": {
        "text": "diff_text:render_text",
        "json": "diff_json:render_json",
        "markdown": "diff_markdown:render_markdown",
    },
    "export": {
        "yaml": "export:render_export_yaml",
        "json": "export:export_json",
        "explicit": "export:render_export_explicit",
        "conda-lock": "export:render_export_conda_lock",
    },
    "machine": {"text": "machine:render_machine_text"},
    "fleet": {
        "text": "fleet_text:render_fleet_text",
        "json": "fleet_json:render_fleet_json",
        "markdown": "fleet_markdown:render_fleet_markdown",
        "html": "fleet_html:render_fleet_html",
    },
    "smoke": {"text": "smoke:render_text", "json": "smoke:render_json"},
    "rules": {
        "list": "rule_docs:render_rule_list",
        "explain": "rule_docs:render_explain",
        "markdown": "rule_docs:render_rules_markdown",
    },
    "normalize-check": {"unified-diff": "normalize_diff:unified_diff"},
    "lock": {"text": "lock_text:render_lock_text", "json": "lock_json:render_lock_json"},
    "lock-check": {"text": "lock_text:render_check_text", "json": "lock_json:render_check_json"},
    "manifest-check": {
        "text": "manifest_check:render_manifest_text",
        "json": "manifest_check:render_manifest_json",
    },
    "audit": {
        "text": "audit_text:render_audit_text",
        "json": "audit_json:render_audit_json",
        "sarif": "audit_findings:render_audit_sarif",
        "github": "audit_findings:render_audit_github",
    },
}


def renderer(kind: str, fmt: str):
    """The function that renders `kind` in output format `fmt`; ValueError for an unknown pair
    (the CLI's choices keep users from reaching it)."""
    try:
        target = RENDERERS[kind][fmt]
    except KeyError:
        raise ValueError(f"no {fmt!r} renderer for {kind!r}") from None
    module, _, name = target.partition(":")
    return getattr(importlib.import_module(f"{__name__}.{module}"), name)


def render(kind: str, fmt: str, *args: Any, **options: Any) -> Any:
    """Render `kind` (findings, diff, export, ...) in output format `fmt`."""
    return renderer(kind, fmt)(*args, **options)


def render_findings(
    fmt: str, findings, *, checked=(), fixed=(), environments=(), fail_on: str = "error"
) -> str:
    """`envkit check`'s report in `fmt`: each format takes the parts of the run it shows (SARIF the
    findings alone, JSON also the --fail-on threshold)."""
    if fmt == "sarif":
        return render("findings", fmt, findings)
    extra = {"fail_on": fail_on} if fmt == "json" else {}
    return render("findings", fmt, findings, checked=checked, fixed=fixed, environments=environments, **extra)


def render_diff(
    fmt: str, result, *, show_all: bool = False, machines=None, color: bool = False, width: int = 100
) -> str:
    """`envkit diff`'s report in `fmt`: the text report also takes colour and the terminal width."""
    extra = {"color": color, "width": width} if fmt == "text" else {}
    return render("diff", fmt, result, show_all=show_all, machines=machines, **extra)
