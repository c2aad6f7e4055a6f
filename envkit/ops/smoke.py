"""The smoke operation: run envkit's probe (torch, CUDA, the DataLoader, torch.distributed) in the
environment named by a conda name, a prefix, a Python interpreter, or created from a file first.

The warnings about the environment (conda+pip duplicates, records that cannot be read, activation
scripts not evaluated) are known before the probe runs, which takes minutes: they go to `on_warning`
as they are found, and are in the result too."""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from envkit.errors import EnvkitError


@dataclass(frozen=True, slots=True, kw_only=True)
class SmokeResult:
    """The probe's report (the JSON schema of docs/commands/smoke.md) and the warnings."""

    report: dict[str, Any]
    warnings: tuple[str, ...] = ()


def smoke(
    *,
    name: str | None = None,
    prefix: str | os.PathLike[str] | None = None,
    python: str | os.PathLike[str] | None = None,
    create_file: str | os.PathLike[str] | None = None,
    require_cuda: bool = False,
    mode: str = "default",
    timeout: float | None = None,
    keep: bool = False,
    on_event: Callable[[dict[str, Any]], None] | None = None,
    on_warning: Callable[[str], None] | None = None,
) -> SmokeResult:
    """Smoke-test the environment `name`, at `prefix`, of the interpreter `python` (none: the
    current one), or a temporary one created from `create_file` (removed after, unless `keep`).
    `on_event` sees each check as it finishes.  Raises EnvironmentNotFound, UsageError,
    SmokeError when the probe cannot run at all."""
    from envkit.ops._inputs import opt_path

    prefix, python, create_file = opt_path(prefix), opt_path(python), opt_path(create_file)
    warnings: list[str] = []

    def warn(text: str) -> None:
        warnings.append(text)
        if on_warning is not None:
            on_warning(text)

    if create_file:
        report = _smoke_created(create_file, warn, require_cuda, mode, timeout, keep, on_event)
    else:
        from envkit.smoke import runner
        from envkit.smoke.target import resolve_target

        target = resolve_target(name=name, prefix=prefix, python=python)
        if target.prefix:
            _record_warnings(target.prefix, warn)
        for script in target.skipped_scripts:
            warn(f"activation script not evaluated (only plain `export NAME=VALUE` lines are): {script}")
        report = runner.run_smoke(
            target, require_cuda=require_cuda, mode=mode, timeout=timeout, keep=keep, on_event=on_event
        )
    return SmokeResult(report=report, warnings=tuple(warnings))


def _smoke_created(
    create_file: str,
    warn: Callable[[str], None],
    require_cuda: bool,
    mode: str,
    timeout: float | None,
    keep: bool,
    on_event: Callable[[dict[str, Any]], None] | None,
) -> dict[str, Any]:
    """`smoke` of a temporary environment created from `create_file`: the report."""
    from envkit.formats import detect_format, read_text
    from envkit.io import read_text as read_path
    from envkit.ops._duplicates import duplicate_messages
    from envkit.smoke.temp_env import smoke_created

    text = read_path(create_file)  # read once: detected, then parsed as that format
    fmt = detect_format(text, create_file)
    model = read_text(text, filename=create_file, format=fmt)
    for msg in duplicate_messages(model):
        warn(msg)
    report: dict[str, Any] = smoke_created(
        create_file,
        model=model,
        fmt=fmt,
        require_cuda=require_cuda,
        mode=mode,
        timeout=timeout,
        keep=keep,
        on_event=on_event,
    )
    if keep:
        warn(f"kept the temporary environment: {report['target']['prefix']}")
    return report


def _record_warnings(prefix: str, warn: Callable[[str], None]) -> None:
    """What every command that reads an environment warns about, from the prefix's package records
    (cheap: no solve, no subprocess): pip installed a project conda also installed, pip overwrote a
    conda package's files, a record could not be read.  A prefix envkit cannot read is a warning
    too: the smoke test runs the interpreter, not the records."""
    from envkit.backends import open_env
    from envkit.ops._duplicates import duplicate_messages

    try:
        env = open_env(prefix=prefix, strict=False)
    except Exception as e:  # a reader bug on an odd prefix must not stop the smoke test itself
        why = str(e) if isinstance(e, EnvkitError) else f"{type(e).__name__}: {e}"
        warn(f"could not read the package records of {prefix} ({why}); no conda+pip duplicate check")
        return
    for w in env.warnings:
        warn(w)
    for msg in duplicate_messages(env):
        warn(msg)
