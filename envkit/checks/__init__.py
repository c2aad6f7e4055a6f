"""`envkit check`'s rules and engine.

    from envkit.checks import all_rules, load_targets, run_checks
    targets = load_targets(["environment.yml", "conda-lock.yml"])
    findings = run_checks(targets, config)      # list[Finding], sorted

Each rule (envkit/checks/rules_*.py) has a stable name, a default severity, a description and an
example, and a function (target, context) -> hits; see envkit.checks.core.  The rule modules are
listed in envkit.checks.registry; envkit.checks.engine runs them.
"""
from envkit.checks.core import SEVERITIES, Finding, Hit, Rule, Target, severity_at_least, summarize
from envkit.checks.engine import run_checks
from envkit.checks.registry import all_rules, get_rule
from envkit.checks.targets import discover, live_target, load_targets

__all__ = ["RULES", "SEVERITIES", "Finding", "Hit", "Rule", "Target", "all_rules", "discover",
           "get_rule", "live_target", "load_targets", "run_checks", "severity_at_least", "summarize"]


def __getattr__(name: str):
    if name == "RULES":  # name -> Rule, in documentation order
        return all_rules()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
