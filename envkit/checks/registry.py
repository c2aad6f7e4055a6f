"""The rule registry, built in one place from an explicit list of rule modules.

Rule modules only describe rules (`@rule` attaches a Rule to its function); nothing registers on
import.  This module imports them (downward) and orders them by envkit.rule_names.RULE_ORDER.
"""

from __future__ import annotations

import functools
import types

from envkit.checks import (
    rules_builds,
    rules_channels,
    rules_cuda,
    rules_deps,
    rules_index,
    rules_lock,
    rules_machine,
    rules_pairing,
    rules_piplocks,
    rules_portability,
    rules_secrets,
)
from envkit.checks.core import Rule
from envkit.rule_names import RULE_ORDER

#: Every module that defines rules.
RULE_MODULES: tuple[types.ModuleType, ...] = (
    rules_deps,
    rules_channels,
    rules_lock,
    rules_builds,
    rules_cuda,
    rules_index,
    rules_pairing,
    rules_secrets,
    rules_portability,
    rules_piplocks,
    rules_machine,
)


def _rules_of(module: types.ModuleType) -> list[Rule]:
    found = (getattr(v, "envkit_rule", None) for v in vars(module).values())
    return [r for r in found if isinstance(r, Rule) and r.fn.__module__ == module.__name__]


@functools.cache
def _registry() -> dict[str, Rule]:
    rules: dict[str, Rule] = {}
    for module in RULE_MODULES:
        for r in _rules_of(module):
            if r.name in rules:
                raise ValueError(f"rule {r.name!r} defined twice")
            rules[r.name] = r
    if set(rules) != set(RULE_ORDER):
        # a rule must be named in RULE_ORDER (config validation and docs order rely on it)
        raise ValueError(f"rules and RULE_ORDER differ: {sorted(set(rules) ^ set(RULE_ORDER))}")
    return {name: rules[name] for name in RULE_ORDER}


def all_rules() -> dict[str, Rule]:
    """Every rule, name -> Rule, in documentation order."""
    return _registry()


def get_rule(name: str) -> Rule:
    """The rule called `name`; raises UsageError naming the known rules when there is none."""
    rules = all_rules()
    if name not in rules:
        from envkit.errors import UsageError

        raise UsageError(f"unknown rule {name!r}", hint=known_hint(name, rules))
    return rules[name]


def known_hint(name: str, rules: dict[str, Rule]) -> str:
    """The hint for an unknown rule name: the closest known name, if any."""
    import difflib

    close = difflib.get_close_matches(name, list(rules), n=1)
    if close:
        return f"did you mean {close[0]!r}? (`envkit check --list-rules` lists them all)"
    return "`envkit check --list-rules` lists the rules"
