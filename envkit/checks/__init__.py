"""`envkit check`'s rules and engine.

    from envkit.checks import all_rules, load_targets, run_checks
    targets = load_targets(["environment.yml", "conda-lock.yml"])
    findings = run_checks(targets, config)      # list[Finding], sorted

Each rule (envkit/checks/rules_*.py) has a stable name, a default severity, a description and an
example, and a function (target, context) -> hits; see envkit.checks.core.  The rule modules are
listed in envkit.checks.registry; envkit.checks.engine runs them.

The names load on first use (PEP 562): a command that needs only envkit.checks.core (the conda+pip
warning's inline ignores) must not import every rule module and what they import.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from envkit._lazy import lazy_exports

if TYPE_CHECKING:  # pragma: no cover
    from typing import Any

_HOME = {
    "SEVERITIES": "core",
    "Finding": "core",
    "Hit": "core",
    "Rule": "core",
    "Target": "core",
    "severity_at_least": "core",
    "summarize": "core",
    "run_checks": "engine",
    "all_rules": "registry",
    "get_rule": "registry",
    "discover": "targets",
    "live_target": "targets",
    "load_targets": "targets",
}

__all__ = list(_HOME)


_getattr, _ = lazy_exports(__name__, {n: f"envkit.checks.{m}" for n, m in _HOME.items()})


def __getattr__(name: str) -> Any:  # a def, so that type checkers see the names as Any
    return _getattr(name)
