"""`envkit check`'s rules and engine.

    from envkit.checks import all_rules, load_targets, run_checks
    targets = load_targets(["environment.yml", "conda-lock.yml"])
    findings = run_checks(targets, config)      # list[Finding], sorted

Each rule (envkit/checks/rules_*.py) has a stable name, a default severity, a description and an
example, and a function (target, context) -> hits; see envkit.checks.core.
"""
from envkit.checks.core import (RULES, SEVERITIES, Finding, Hit, Rule, Target, all_rules, get_rule,
                                run_checks, severity_at_least, summarize)
from envkit.checks.targets import discover, load_targets, live_target

__all__ = ["RULES", "SEVERITIES", "Finding", "Hit", "Rule", "Target", "all_rules", "discover",
           "get_rule", "live_target", "load_targets", "run_checks", "severity_at_least", "summarize"]
