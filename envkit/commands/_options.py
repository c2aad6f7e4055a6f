"""Options several commands share, spelled once."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import click

#: --backend of lock and export (envkit.backends.BACKENDS, which the CLI does not import to start)
LIVE_BACKENDS = ("native", "conda", "mamba", "micromamba")


def environment_option(help: str) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """`-e/--env/--environment NAME` (parameter `environment`): the environment of a pixi.lock."""
    return click.option("-e", "--env", "--environment", "environment", metavar="NAME", help=help)


def split_commas(values: tuple[str, ...]) -> tuple[str, ...]:
    """A repeatable comma-separated option's words: `--x a,b --x " c"` -> ("a", "b", "c")."""
    return tuple(x.strip() for v in values for x in v.split(",") if x.strip())


def text_or_json(help: str) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """`--format text|json` (parameter `fmt`) and the old spelling `--json` (`as_json`, hidden)."""

    def apply(fn: Callable[..., Any]) -> Callable[..., Any]:
        fn = click.option("--json", "as_json", is_flag=True, hidden=True)(fn)
        return click.option(
            "--format",
            "fmt",
            type=click.Choice(("text", "json")),
            default="text",
            show_default=True,
            help=help,
        )(fn)

    return apply
