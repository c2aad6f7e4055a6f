"""`envkit lock -f`: solve the environment file (over the previous lock), write the lock, report what
moved."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from envkit.commands._lock_files import (
    header_for,
    lock_target,
    note_pypi_for_conda,
    pixi_target_args,
    refuse_overwrite,
    regen,
)
from envkit.errors import UsageError
from envkit.output import echo

if TYPE_CHECKING:  # pragma: no cover
    from envkit.commands._lock_run import LockOptions
    from envkit.model import Lock


def run_spec(o: LockOptions) -> int:
    from envkit.commands._common import note_named_format, warn_duplicates
    from envkit.commands._lock_check import read_spec
    from envkit.commands._options import split_commas
    from envkit.commands.progress import reporter
    from envkit.io import file_identity
    from envkit.lock import parse_virtual_package, rebase_pip_options
    from envkit.lock.cutoff import parse_exclude_newer
    from envkit.ops.lock import lock_spec
    from envkit.output import warn

    # -o's identity, before anything reads it: a file another process writes there from now on (or
    # wrote since this run started) is not overwritten
    before = file_identity(o.output, since_start=True) if o.output != "-" else None
    spec_file = o.spec_file or ""  # mode() sends only -f here
    spec = read_spec(spec_file)
    target, named = _target(o)
    refuse_overwrite(o.output, "conda-lock" if target == "conda-lock" else "pixi", "-o")
    warn_duplicates(spec)
    given = o.exclude_newer or o.exclude_newer_package
    cutoffs = parse_exclude_newer(o.exclude_newer, o.exclude_newer_package) if given else None
    result = lock_spec(
        spec,
        platforms=o.platforms,
        previous=_previous(o),
        update=split_commas(o.update),
        update_all=o.update_all,
        exclude_newer=cutoffs,
        channel_priority=o.channel_priority,
        virtual_packages=[parse_virtual_package(v) for v in o.virtual_packages],
        solver=o.solver,
        lock_pip_section=not o.no_pip,
        progress=reporter(o.quiet),
    )
    lk = result.lock
    if lk.pip_options and o.output != "-":
        from dataclasses import replace

        here, there = (os.path.dirname(os.path.abspath(p)) for p in (spec_file, o.output))
        lk = replace(lk, pip_options=rebase_pip_options(lk.pip_options, here, there))
    _write(o, lk, target, _regen_args(o, spec_file, result), before)
    if named:
        note_named_format(o.output, target, "--to")
    warn_duplicates(lk)
    from envkit.render import render
    from envkit.render.lock_text import lock_warnings

    if o.output_format == "json":
        echo(render("lock", "json", result, spec_file=spec_file, output=o.output, target=target), nl=False)
        return 0
    for w in lock_warnings(result):
        warn(w)
    echo(render("lock", "text", result, spec_file=spec_file, output=o.output), err=True, nl=False)
    return 0


def _write(
    o: LockOptions, lk: Lock, target: str, args: list[str], before: tuple[int, int, int, int] | None
) -> None:
    """Write lock `lk` to -o as `target`, its header the command that makes it again."""
    from envkit.formats.condalock import write_conda_lock
    from envkit.io import emit

    if target == "conda-lock":
        emit(write_conda_lock(lk, header=header_for(regen(*args, "-o", o.output))), o.output, before)
        return
    from envkit.lock.pixi_out import PIXI_TARGETS, write_pixi

    args = [*args, *pixi_target_args(o.output, PIXI_TARGETS[target])]
    emit(write_pixi(lk, target, header=header_for(regen(*args, "-o", o.output))), o.output, before)
    note_pypi_for_conda(target, lk)


def _target(o: LockOptions) -> tuple[str, bool]:
    """lock_target of -o, a file already there refused for its content before its name."""
    try:
        return lock_target(o.output, o.target)
    except UsageError:
        refuse_overwrite(o.output, "conda-lock", "-o")  # a file there says more than its name
        raise


def _previous(o: LockOptions):
    """The previous lock the solve starts from: --lock, else the file -o replaces (None when it is
    missing, or is no lock envkit reads)."""
    from envkit.commands._lock_check import LOCK_FORMATS_HINT
    from envkit.errors import ParseError
    from envkit.ops.lock import read_previous
    from envkit.output import warn

    if o.lock_file:
        return read_previous(o.lock_file, environment=o.environment, format_hint=LOCK_FORMATS_HINT)
    try:
        return read_previous(o.output)
    except ParseError as exc:  # the file -o replaces is no lock to start from: solve afresh
        warn(f"{o.output} is not a lock envkit can read ({exc.message}); solving afresh")
        return None


def _regen_args(o: LockOptions, spec_file: str, result) -> list[str]:
    """The `envkit lock` arguments that solve `spec_file` again as this run did (before `-o`)."""
    args = ["-f", spec_file, *[a for p in o.platforms for a in ("--platform", p)]]
    args += ["--channel-priority", o.channel_priority] if o.channel_priority != "strict" else []
    args += [a for v in result.virtual_packages for a in ("--virtual-package", str(v).removesuffix("=0"))]
    args += ["--solver", o.solver] if o.solver != "rattler" else []
    args += ["--no-pip"] if o.no_pip else []
    args += result.exclude_newer.args() if result.exclude_newer else []
    return args
