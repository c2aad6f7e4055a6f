"""The diff operations: `diff` compares two environments (models or files), `diff_sources`
resolves two SOURCEs (files, prefixes, env:NAME, ssh://), compares them with `diff`, and finds the
two machines for the header, as a DiffResult."""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import TYPE_CHECKING

from envkit.errors import Remedy, UsageError

if TYPE_CHECKING:  # pragma: no cover
    from envkit.envdiff import EnvDiff
    from envkit.machine.profile import MachineProfile
    from envkit.model import EnvSpec, LiveEnv, Lock
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


def diff(
    a: EnvSpec | Lock | LiveEnv | str | os.PathLike[str],
    b: EnvSpec | Lock | LiveEnv | str | os.PathLike[str],
    *,
    platform: str | None = None,
    host_platform: str | None = None,
    label_a: str | None = None,
    label_b: str | None = None,
    platform_a: str | None = None,
    platform_b: str | None = None,
) -> EnvDiff:
    """Compare two environments: each an EnvSpec, a Lock, a LiveEnv or the path of a file (read
    with envkit.formats.read_file).  The labels default to the paths given, else "A" and "B";
    `platform` picks the platform of multi-platform locks, `platform_a`/`platform_b` force one
    side's (see envkit.envdiff.diff).  Returns an EnvDiff.  Raises the ParseError family for a
    file that cannot be read."""
    from envkit.envdiff import diff as compare
    from envkit.ops._inputs import is_path, model_or_path

    names = ("EnvSpec", "Lock", "LiveEnv")
    model_a = model_or_path("diff", "a", a, names)
    model_b = model_or_path("diff", "b", b, names)
    return compare(
        model_a,
        model_b,
        platform=platform,
        host_platform=host_platform,
        label_a=label_a if label_a is not None else os.fspath(a) if is_path(a) else "A",
        label_b=label_b if label_b is not None else os.fspath(b) if is_path(b) else "B",
        platform_a=platform_a,
        platform_b=platform_b,
    )


def diff_sources(
    source_a: str | os.PathLike[str],
    source_b: str | os.PathLike[str],
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
    from envkit.sources import resolve
    from envkit.stdin import check_stdin_once

    source_a, source_b = os.fspath(source_a), os.fspath(source_b)
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
