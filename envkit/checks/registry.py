"""The rule registry: which rules exist, where each is defined, what it applies to.

Rule modules only describe rules (`@rule` attaches a Rule to its function); nothing registers on
import.  `RULE_HOMES` names each rule's module, the target kinds it applies to and whether it needs
a machine profile, so that the engine imports a rule module only when one of its rules will run
(a 30-line environment.yml must not pay for the lock, pip-lock and machine rules and what they
import).  `all_rules()` imports every module and checks the table against the Rules they define,
so the two cannot drift apart.  Order: envkit.rule_names.RULE_ORDER.
"""

from __future__ import annotations

import functools
import importlib
from collections.abc import Iterable
from typing import TYPE_CHECKING, NamedTuple

from envkit.rule_names import RULE_ORDER

if TYPE_CHECKING:  # pragma: no cover
    from envkit.checks.core import Rule

_ALL = ("spec", "lock", "live")


class RuleHome(NamedTuple):
    """Where rule `name` is defined (a module of envkit.checks) and when it can find anything."""

    module: str
    applies_to: tuple[str, ...] = _ALL
    needs_machine: bool = False  # the machine-* rules judge a target against `check --machine`


RULE_HOMES: dict[str, RuleHome] = {
    "conda-pip-duplicate": RuleHome("rules_deps"),
    "pip-overwrote-conda": RuleHome("rules_deps", ("live",)),
    "mixed-channels": RuleHome("rules_channels"),
    "channel-priority": RuleHome("rules_channels"),
    "unpinned": RuleHome("rules_deps", ("spec",)),
    "fuzzy-pin": RuleHome("rules_deps", ("spec",)),
    "listed-twice": RuleHome("rules_deps", ("spec",)),
    "vcs-unpinned": RuleHome("rules_deps", ("spec",)),
    "stale-lock": RuleHome("rules_lock", ("lock",)),
    "lock-unsatisfied": RuleHome("rules_lock", ("spec",)),
    "env-drift": RuleHome("rules_lock", ("live",)),
    "python-abi-mismatch": RuleHome("rules_builds"),
    "cuda-mismatch": RuleHome("rules_cuda"),
    "cuda-unused": RuleHome("rules_virtual", ("lock",)),
    "wheel-index": RuleHome("rules_index", ("spec", "lock")),
    "torch-pairing": RuleHome("rules_pairing"),
    "leaked-secret": RuleHome("rules_secrets", ("spec", "lock")),
    "leaked-prefix": RuleHome("rules_secrets", ("spec", "lock")),
    "insecure-url": RuleHome("rules_channels"),
    "missing-hash": RuleHome("rules_lock", ("spec", "lock")),
    "duplicate-key": RuleHome("rules_lock", ("spec", "lock")),
    "pip-without-pip": RuleHome("rules_deps", ("spec",)),
    "no-channels": RuleHome("rules_portability", ("spec",)),
    "platform-only": RuleHome("rules_portability", ("spec",)),
    "short-exact-pin": RuleHome("rules_portability", ("spec",)),
    "pypi-only-in-conda": RuleHome("rules_portability", ("spec",)),
    "legacy-url": RuleHome("rules_portability"),
    "missing-requirements-file": RuleHome("rules_portability", ("spec",)),
    "yaml-number": RuleHome("rules_portability", ("spec", "lock")),
    "pip-lock-missing-hash": RuleHome("rules_piplocks", ("lock",)),
    "lock-python-mismatch": RuleHome("rules_piplocks", ("lock",)),
    "pip-lock-one-platform": RuleHome("rules_piplocks", ("lock",)),
    "machine-platform": RuleHome("rules_machine", ("lock",), needs_machine=True),
    "machine-virtual-package": RuleHome("rules_machine", ("lock", "live"), needs_machine=True),
    "machine-cuda-driver": RuleHome("rules_machine", needs_machine=True),
    "machine-gpu-arch": RuleHome("rules_machine", needs_machine=True),
    "machine-wheel-tag": RuleHome("rules_machine", needs_machine=True),
}

#: Every module that defines rules, in the order of their first rule.
RULE_MODULES: tuple[str, ...] = tuple(dict.fromkeys(h.module for h in RULE_HOMES.values()))


@functools.cache
def _rules_of(module_name: str) -> dict[str, Rule]:
    """The Rules module `envkit.checks.<module_name>` defines, name -> Rule (imports it)."""
    from envkit.checks.core import Rule

    module = importlib.import_module(f"envkit.checks.{module_name}")
    found = (getattr(v, "envkit_rule", None) for v in vars(module).values() if callable(v))
    return {r.name: r for r in found if isinstance(r, Rule) and r.fn.__module__ == module.__name__}


def load_rule(name: str) -> Rule:
    """The Rule called `name` (a name of RULE_ORDER); imports only its module."""
    return _rules_of(RULE_HOMES[name].module)[name]


@functools.cache
def _registry() -> dict[str, Rule]:
    if list(RULE_HOMES) != list(RULE_ORDER):
        # a rule must be named in RULE_ORDER (config validation and docs order rely on it)
        raise ValueError(f"RULE_HOMES and RULE_ORDER differ: {sorted(set(RULE_HOMES) ^ set(RULE_ORDER))}")
    rules: dict[str, Rule] = {}
    for module in RULE_MODULES:
        for r in _rules_of(module).values():
            if r.name in rules:
                raise ValueError(f"rule {r.name!r} defined twice")
            home = RULE_HOMES.get(r.name)
            if home is None or home.module != module or home.applies_to != r.applies_to:
                raise ValueError(
                    f"rule {r.name!r} ({module}, {r.applies_to}) does not match RULE_HOMES: {home}"
                )
            rules[r.name] = r
    if set(rules) != set(RULE_ORDER):
        raise ValueError(f"rules and RULE_ORDER differ: {sorted(set(rules) ^ set(RULE_ORDER))}")
    return {name: rules[name] for name in RULE_ORDER}


def all_rules() -> dict[str, Rule]:
    """Every rule, name -> Rule, in documentation order (imports every rule module)."""
    return _registry()


def get_rule(name: str) -> Rule:
    """The rule called `name`; raises UsageError naming the known rules when there is none."""
    if name not in RULE_HOMES:
        from envkit.errors import UsageError

        raise UsageError(f"unknown rule {name!r}", hint=known_hint(name))
    return load_rule(name)


def known_hint(name: str, rules: Iterable[str] | None = None) -> str:
    """The hint for an unknown rule name: the closest known name, if any.  (`rules`, the names
    to choose from, defaults to every rule.)"""
    import difflib

    close = difflib.get_close_matches(name, list(rules if rules is not None else RULE_ORDER), n=1)
    if close:
        return f"did you mean {close[0]!r}? (`envkit check --list-rules` lists them all)"
    return "`envkit check --list-rules` lists the rules"
