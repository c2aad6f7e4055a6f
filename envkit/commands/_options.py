"""Options several commands share, spelled once (declarations: envkit.commands._decl)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from envkit.commands._decl import Choice, option


def text_or_json(help: str) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """`--format text|json` (parameter `fmt`) and the old spelling `--json` (`as_json`, hidden)."""

    def apply(fn: Callable[..., Any]) -> Callable[..., Any]:
        fn = option("--json", "as_json", is_flag=True, hidden=True)(fn)
        return option(
            "--format",
            "fmt",
            type=Choice(("text", "json")),
            default="text",
            show_default=True,
            help=help,
        )(fn)

    return apply
