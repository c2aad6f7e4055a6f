"""The diff operation: resolve two SOURCEs (files, prefixes, env:NAME, ssh://), compare them, and
find the two machines for the header, as a DiffResult."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from envkit.errors import Remedy, UsageError

if TYPE_CHECKING:  # pragma: no cover
    from envkit.envdiff import EnvDiff
    from envkit.machine.profile import MachineProfile
    from envkit.sources import Source


@dataclass(frozen=True, slots=True, kw_only=True)
class DiffResult:
    """The two resolved sources, their EnvDiff, the machines of the header (None: no header), and
    the warnings about the sources (conda+pip duplicates, a live env's own warnings), each named
    by the source's label."""

    a: Source
    b: Source
    diff: EnvDiff
    machines: tuple[MachineProfile | None, MachineProfile | None] | None = None
    warnings: tuple[str, ...] = ()

    @property
    def same(self) -> bool:
        return self.diff.same


def diff_sources(
    source_a: str,
    source_b: str,
    *,
    platform: str | None = None,
    format: str | None = None,
    environment: str | None = None,
    machines: bool = True,
    machine_a: str | None = None,
    machine_b: str | None = None,
) -> DiffResult:
    """Compare SOURCE strings `source_a` and `source_b` (see envkit.sources.resolve; one may be `-`,
    standard input), files read as `format` (None: detected), a pixi.lock's `environment`.
    `platform` picks the platform of multi-platform locks.  With `machines`, the sides' machines
    are found for the header (an ssh side's probe; `machine_a`/`machine_b` name a profile file,
    `host` or ssh://HOST).  Raises the ParseError family, EnvironmentNotFound, BackendError,
    UsageError."""
    from envkit.envdiff import diff
    from envkit.sources import check_stdin_once, resolve

    check_stdin_once((source_a, source_b))
    if not machines and (machine_a or machine_b):
        raise UsageError(
            "machine_a/machine_b name machines that machines=False leaves out",
            hint="pass {} to show the machines",
            remedy=Remedy(option="machines", value=True),
        )
    a = resolve(source_a, format=format, environment=environment, machine=machines)
    b = resolve(source_b, format=format, environment=environment, machine=machines)
    warnings = _source_warnings(a, b, machines)
    result = diff(a.model, b.model, platform=platform, label_a=a.label, label_b=b.label)
    sides = None
    if machines:
        from envkit.machine.sides import diff_machines

        sides = diff_machines(a, b, machine_a=machine_a, machine_b=machine_b)
    return DiffResult(a=a, b=b, diff=result, machines=sides, warnings=warnings)


def _source_warnings(a: Source, b: Source, probe: bool) -> tuple[str, ...]:
    """Each source's warnings once, named as the user wrote it (an ssh:// URL, not the remote path)."""
    from envkit.model import resolved_view
    from envkit.ops._duplicates import duplicate_messages

    out: list[str] = []
    for src in {src.label: src for src in (a, b)}.values():
        out += [f"{src.label}: {msg}" for msg in duplicate_messages(src.model)]
        view = resolved_view(src.model)
        live = view.live if view is not None else None
        if live is not None:
            out += [f"{src.label}: {w}" for w in live.warnings]
        if probe and src.origin == "ssh" and live is not None and src.machine is None:
            out.append(f"{src.label}: the remote machine probe gave no profile; the header shows no machines")
    return tuple(out)
