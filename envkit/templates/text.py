"""A template plan -> the environment.yml text (byte-stable) or the same environment as a model."""

from __future__ import annotations

import re
import textwrap
from collections.abc import Mapping, Sequence
from functools import lru_cache, partial
from typing import TYPE_CHECKING, cast

from envkit.errors import EnvkitError, Where
from envkit.formats.canonical import normalize_spec, normalize_text
from envkit.templates.matrix import COMPANIONS, templates_dir
from envkit.templates.plan import TemplatePlan

if TYPE_CHECKING:  # pragma: no cover
    from envkit.model import EnvSpec


_PLACEHOLDER = re.compile(r"\{\{\s*([a-z_]+)(\|raw)?\s*\}\}")


def render_template(text: str, values: Mapping[str, object], *, filename: str = "<template>") -> str:
    """Fill a template: `{{key}}` is a YAML scalar, `{{key|raw}}` is inserted as is.

    A line whose placeholder value is a list is repeated once per item (an empty list or None
    drops the line).  Raises EnvkitError for an unknown key or two list keys on one line.
    """
    out: list[str] = []
    for n, line in enumerate(text.splitlines(), 1):
        found = _PLACEHOLDER.findall(line)
        if not found:
            out.append(line)
            continue
        for key, _ in found:
            if key not in values:
                raise EnvkitError(
                    f"template placeholder {{{{{key}}}}} has no value", where=Where(file=filename, line=n)
                )
        lists = {k for k, _ in found if isinstance(values[k], (list, tuple))}
        if len(lists) > 1:
            raise EnvkitError(
                "a template line may hold one list placeholder", where=Where(file=filename, line=n)
            )
        if any(values[k] is None for k, _ in found):
            continue
        items = list(cast("Sequence[object]", values[next(iter(lists))])) if lists else [None]

        for item in items:
            out.append(_PLACEHOLDER.sub(partial(_fill, values, lists, item), line))
    return "\n".join(out) + "\n"


def _fill(values: Mapping[str, object], lists: set[str], item: object, m: re.Match[str]) -> str:
    """The text of placeholder `m`: `item` for the line's list key, else its value."""
    from envkit.formats._yamlcore import scalar

    key, raw = m.group(1), m.group(2)
    value = item if key in lists else values[key]
    return str(value) if raw else scalar(str(value))


@lru_cache(maxsize=8)
def _template_text(style: str) -> tuple[str, str]:
    from envkit.io import read_text

    path = templates_dir() / "pytorch" / f"{style}.yml.in"
    return read_text(path), str(path)


def render(plan: TemplatePlan) -> str:
    """The environment.yml text for `plan` (same plan, same bytes)."""
    text, filename = _template_text(plan.style)
    where = {
        "conda-forge": "conda-forge",
        "pip": "the PyTorch wheel index",
        "pytorch-channel": "the pytorch channel",
    }[plan.style]
    variant = f"CUDA {plan.cuda}" if plan.cuda else "CPU"
    comps = [c for c in COMPANIONS if c in plan.with_]
    values = {
        "title": f"PyTorch {plan.torch} ({variant}), Python {plan.python}, from {where}.",
        "command": plan.command,
        "notes": [f"# {line}" for n in plan.notes for line in textwrap.wrap(n, width=96)],
        "name": plan.name,
        "channels": list(plan.channels),
        "conda": list(plan.conda),
        "pip": list(plan.pip),
        "wheels": "torch comes" if not comps else f"torch, {' and '.join(comps)} come",
        "last": plan.last_pytorch_channel,
    }
    rendered = render_template(text, values, filename=filename)
    # Generated files are already in `envkit normalize` form (comments kept), so a pre-commit
    # `envkit normalize --check` never fights the generator.
    return normalize_text(rendered, filename=filename, format="env")


def to_envspec(plan: TemplatePlan) -> EnvSpec:
    """The plan as an EnvSpec (what reading `render(plan)` back gives)."""
    from envkit.conda.channels import parse_channel
    from envkit.conda.matchspec import parse_spec
    from envkit.formats.pipreq import parse_pip_entry
    from envkit.model import EnvSpec

    return normalize_spec(
        EnvSpec(
            name=plan.name,
            channels=tuple(parse_channel(c) for c in plan.channels),
            conda=tuple(parse_spec(s) for s in plan.conda),
            pip=tuple(parse_pip_entry(line) for line in plan.pip),
            kind="spec",
            has_pip_section=bool(plan.pip),
        )
    )
