"""The engine of `envkit check`: runs the registered rules on targets and applies configuration
(select/ignore, severity overrides) and inline suppressions (`# envkit: ignore[rule]`)."""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import TYPE_CHECKING

from envkit.checks.core import _SUPPRESS, Context, Finding, Target, suppressions
from envkit.checks.registry import all_rules, known_hint

if TYPE_CHECKING:  # pragma: no cover
    from envkit.checks.core import Rule
    from envkit.config import Config
    from envkit.machine.profile import MachineProfile


def check_suppressions(target: Target) -> None:
    """Raise UsageError (with file and line) for an inline suppression naming an unknown rule."""
    if not target.text or "envkit" not in target.text:
        return
    from envkit.errors import UsageError, Where

    for m in re.finditer(_SUPPRESS, target.text):
        i = target.text.count("\n", 0, m.start()) + 1
        names = suppressions(target.line_text(i))
        for n in sorted(names or ()):
            if n not in all_rules():
                raise UsageError(
                    f"unknown rule {n!r} in an inline suppression",
                    where=Where(file=target.path, line=i),
                    hint=known_hint(n),
                )


def run_checks(
    targets: Iterable[Target], config: Config, *, machine: MachineProfile | None = None
) -> list[Finding]:
    """Run every selected rule on every target; return the findings, sorted.

    Findings are sorted by target (in the order given), line, rule, the rule's rank and message.
    Rules the config does not select are skipped; severities are overridden per config; findings on
    a line carrying `# envkit: ignore[rule]` are dropped.  `machine` (a MachineProfile) is what
    the machine-* rules judge the targets against (`check --machine`); without one they find
    nothing.  Raises UsageError for an unknown rule in an inline suppression.
    """
    from envkit.checks.fix import can_fix

    targets = list(targets)
    ctx = Context(config=config, machine=machine)
    active = _active_rules(targets, config, machine)
    out: list[tuple[tuple, Finding]] = []
    # the environments of one pixi.lock are targets sharing one text: what depends on the text
    # alone is done once for it
    files_seen: set[int] = set()
    ran: set[tuple[str, int]] = set()
    for index, target in enumerate(targets):
        if id(target.text) not in files_seen:
            files_seen.add(id(target.text))
            check_suppressions(target)
        for r in active:
            if target.kind not in r.applies_to:
                continue
            if target.parse_error is not None and not r.raw_text:
                continue
            if r.per_file and target.text is not None:
                if (r.name, id(target.text)) in ran:
                    continue
                ran.add((r.name, id(target.text)))
            override = config.severity.get(r.name)
            for hit in r.fn(target, ctx):
                severity = override or hit.severity or r.severity
                if hit.line and target.text:
                    sup = suppressions(target.line_text(hit.line))
                    if sup is not None and (not sup or r.name in sup):
                        continue
                # `numpy` from conda and `numpy` from pip is one name: listed once (the
                # message says which manager is which)
                f = Finding(
                    rule=r.name,
                    severity=severity,
                    file=target.path,
                    line=hit.line,
                    message=hit.message,
                    packages=tuple(dict.fromkeys(hit.packages)),
                    fixable=r.fixable and can_fix(r.name, target, hit),
                )
                out.append(((index, hit.line or 0, r.name, hit.rank, hit.message), f))
    return _once(out)


def _once(out: list[tuple[tuple, Finding]]) -> list[Finding]:
    """The findings in sort-key order, each once: one file can hold several targets (the
    environments of a pixi.lock) that find the same thing."""
    out.sort(key=lambda kv: kv[0])
    first: dict[tuple, Finding] = {}
    for _, f in out:
        first.setdefault((f.file, f.line, f.rule, f.message), f)
    return list(first.values())


def _active_rules(targets: list[Target], config: Config, machine: MachineProfile | None) -> list[Rule]:
    """The rules to run, in order: those selected that can find something in one of these
    targets (a machine rule only with a machine)."""
    kinds = {t.kind for t in targets}
    return [
        r
        for name, r in all_rules().items()
        if config.is_selected(name)
        and kinds.intersection(r.applies_to)
        and (machine is not None or not r.needs_machine)
    ]
