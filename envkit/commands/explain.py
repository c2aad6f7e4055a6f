"""`envkit explain RULE`: a check rule described, with an example."""

from __future__ import annotations

import click

from envkit.output import echo


@click.command(context_settings={"help_option_names": ["-h", "--help"]})
@click.argument("rule_name", metavar="RULE")
def explain(rule_name: str) -> int:
    """Explain a check rule: what it finds, why it matters, how to fix it, with an example.

    `envkit check --list-rules` lists the rules.
    """
    from envkit.checks.registry import get_rule
    from envkit.render.rule_docs import render_explain

    echo(render_explain(get_rule(rule_name)), nl=False)
    return 0
