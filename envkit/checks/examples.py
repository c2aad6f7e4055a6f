"""The data behind the rule documentation: what `envkit check` reports on each rule's example.

The documentation itself (`--list-rules`, `envkit explain`, docs/rules.md) is rendered by
envkit.render.rule_docs, which shows these findings under each example, so an example can never
drift from the rule.
"""

from __future__ import annotations

from envkit.checks.core import Finding, Rule


def example_findings(r: Rule, *, fixed: bool = False) -> list[Finding]:
    """What `envkit check` reports for rule `r` on its example file (or its fixed example)."""
    from envkit.checks.engine import run_checks
    from envkit.checks.targets import pair, targets_from_text
    from envkit.config import Config

    text = r.example_fixed if fixed else r.example
    targets = targets_from_text(text, r.example_file)
    pair(targets)
    return [f for f in run_checks(targets, Config(select=(r.name,))) if f.rule == r.name]
