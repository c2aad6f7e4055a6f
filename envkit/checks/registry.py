"""The rule registry: every rule, collected from the modules that define it.

A rule is declared once, where it lives: `@rule(name, order=..., severity=..., applies_to=...)` in
an `envkit.checks.rules_*` module attaches a Rule to its function.  Nothing registers on import:
this module imports every rule module (they keep their heavy imports inside the rule functions,
so an environment file pays only for the modules themselves) and collects the Rules, in their
`order`.
"""

from __future__ import annotations

import functools
import importlib
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # pragma: no cover
    from envkit.checks.core import Rule


def rule_modules() -> tuple[str, ...]:
    """The modules of envkit.checks that define rules (`rules_*`), by name."""
    import pkgutil

    import envkit.checks

    return tuple(
        sorted(m.name for m in pkgutil.iter_modules(envkit.checks.__path__) if m.name.startswith("rules_"))
    )


def _rules_of(module_name: str) -> list[Rule]:
    """The Rules module `envkit.checks.<module_name>` defines (imports it)."""
    from envkit.checks.core import Rule

    module = importlib.import_module(f"envkit.checks.{module_name}")
    found = (getattr(v, "envkit_rule", None) for v in vars(module).values() if callable(v))
    return [r for r in found if isinstance(r, Rule) and r.fn.__module__ == module.__name__]


@functools.cache
def all_rules() -> dict[str, Rule]:
    """Every rule, name -> Rule, in their `order` (the listing and documentation order)."""
    rules: dict[str, Rule] = {}
    orders: dict[int, str] = {}
    for module in rule_modules():
        for r in _rules_of(module):
            if r.name in rules:
                raise ValueError(f"rule {r.name!r} defined twice")
            if r.order in orders:
                raise ValueError(f"rules {orders[r.order]!r} and {r.name!r} share order {r.order}")
            rules[r.name], orders[r.order] = r, r.name
    return {name: rules[name] for _, name in sorted(orders.items())}


def rule_names() -> tuple[str, ...]:
    """Every rule's name, in order (imports every rule module)."""
    return tuple(all_rules())


def get_rule(name: str) -> Rule:
    """The rule called `name`; raises UsageError naming the known rules when there is none."""
    rules = all_rules()
    if name not in rules:
        from envkit.errors import UsageError

        raise UsageError(f"unknown rule {name!r}", hint=known_hint(name))
    return rules[name]


def known_hint(name: str) -> str:
    """The hint for an unknown rule name: the closest known name, if any."""
    import difflib

    close = difflib.get_close_matches(name, rule_names(), n=1)
    if close:
        return f"did you mean {close[0]!r}? (`envkit check --list-rules` lists them all)"
    return "`envkit check --list-rules` lists the rules"
