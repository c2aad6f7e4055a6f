"""`envkit smoke`: does this environment really work on this machine, and does it feed the GPU?"""

from __future__ import annotations

import sys

import click

from envkit.commands._options import text_or_json
from envkit.output import cli_hint, warn
from envkit.render import render
from envkit.render.smoke import progress_line


@click.command("smoke")
@click.option("-n", "--name", "name", metavar="NAME", help="Conda environment by name.")
@click.option("-p", "--prefix", "prefix", metavar="PREFIX", help="Conda environment by prefix path.")
@click.option("--python", "python", metavar="EXE", help="Any Python interpreter (a venv's bin/python).")
@click.option(
    "--create",
    "create_file",
    metavar="FILE",
    type=click.Path(dir_okay=False),
    help="Create a temporary env from an environment.yml or a lock, test it, remove it.",
)
@click.option(
    "--require-cuda", is_flag=True, help="Fail unless CUDA works (also implied by a GPU or CUDA pins)."
)
@click.option("--quick", is_flag=True, help="Small checks; adaptive DataLoader search.")
@click.option("--full", is_flag=True, help="Larger workloads; sweep up to 2x the cores.")
@text_or_json("Output format (json: the schema in docs/commands/smoke.md).")
@click.option("-q", "--quiet", is_flag=True, help="No progress on stderr (it is shown only on a terminal).")
@click.option(
    "--timeout",
    type=click.FloatRange(min=1.0),
    metavar="SECONDS",
    help="Overall limit (default 600 quick, 900, 1800 full); each check also has its own.",
)
@click.option(
    "--keep", is_flag=True, help="Keep the temporary env (--create) and the probe's scratch directory."
)
def smoke(
    name, prefix, python, create_file, require_cuda, quick, full, fmt, as_json, quiet, timeout, keep
) -> int:
    """Smoke-test torch, CUDA, the DataLoader and torch.distributed inside an environment.

    Exit status: 0 every check passed (or was rightly skipped), 1 a check failed, 2 the smoke test
    could not run (no interpreter, torch missing, the env could not be created).
    """
    from envkit.errors import EnvkitError, UsageError
    from envkit.smoke import runner

    if quick and full:
        raise UsageError("give only one of --quick and --full")
    mode = "quick" if quick else "full" if full else "default"
    chosen = [
        flag
        for flag, v in (("-n", name), ("-p", prefix), ("--python", python), ("--create", create_file))
        if v
    ]
    if len(chosen) > 1:
        raise UsageError(f"give only one of -n, -p, --python, --create (got {' '.join(chosen)})")
    as_json = as_json or fmt == "json"
    progress = _Progress(enabled=_isatty() and not quiet)
    try:
        report = _run(runner, name, prefix, python, create_file, require_cuda, mode, timeout, keep, progress)
    except EnvkitError as e:
        if not as_json:
            raise
        # --json always prints the documented report, also when the probe never ran
        where = (
            {"kind": "create", "source": create_file}
            if create_file
            else {
                "kind": "name" if name else "prefix" if prefix else "python",
                "python": python,
                "prefix": prefix,
                "name": name,
            }
        )
        report = runner.could_not_run_report(
            {k: v for k, v in where.items() if v}, str(e), cli_hint(e), mode=mode, require_cuda=require_cuda
        )
        click.echo(render("smoke", "json", report))
        raise
    progress.done()
    why = next((c["detail"] for c in report.get("checks") or [] if c["status"] == "fail"), "unknown reason")
    if report.get("could_not_run"):
        report.setdefault("reason", why)
    click.echo(render("smoke", "json" if as_json else "text", report), nl=as_json)
    if report.get("could_not_run"):
        click.echo(
            f"error: the smoke test could not run in {report['target'].get('python')}: {why}", err=True
        )
        hint = next((d["hint"] for d in report.get("diagnoses") or []), None)
        if hint:
            click.echo(f"hint: {hint}", err=True)
    if report.get("scratch"):
        warn(f"kept the probe's scratch directory: {report['scratch']}")
    return runner.exit_code(report)


def _run(runner, name, prefix, python, create_file, require_cuda, mode, timeout, keep, progress) -> dict:
    """The smoke report of the chosen target (creating it first for --create)."""
    if create_file:
        from envkit.commands._common import warn_duplicates
        from envkit.formats import detect_format, read_file
        from envkit.io import read_text
        from envkit.smoke.temp_env import smoke_created

        fmt = detect_format(read_text(create_file), create_file)
        model = read_file(create_file)
        warn_duplicates([model])
        report = smoke_created(
            create_file,
            model=model,
            fmt=fmt,
            require_cuda=require_cuda,
            mode=mode,
            timeout=timeout,
            keep=keep,
            on_event=progress,
        )
        if keep:
            warn(f"kept the temporary environment: {report['target']['prefix']}")
    else:
        target = runner.resolve_target(name=name, prefix=prefix, python=python)
        if target.prefix:
            warn_env_records(target.prefix)
        for script in target.skipped_scripts:
            warn(f"activation script not evaluated (only plain `export NAME=VALUE` lines are): {script}")
        report = runner.run_smoke(
            target, require_cuda=require_cuda, mode=mode, timeout=timeout, keep=keep, on_event=progress
        )
    return report


def warn_env_records(prefix: str) -> None:
    """Read the target prefix's package records (cheap: no solve, no subprocess) and warn on stderr
    about what every command that reads an environment warns about: pip installed a project conda
    also installed, pip overwrote a conda package's files, a record could not be read.  A prefix
    envkit cannot read is a warning too: the smoke test runs the interpreter, not the records."""
    from envkit.backends import open_env
    from envkit.commands._common import warn_duplicates
    from envkit.errors import EnvkitError

    try:
        env = open_env(prefix=prefix, strict=False)
    except EnvkitError as e:
        warn(f"could not read the package records of {prefix} ({e}); no conda+pip duplicate check")
        return
    except Exception as e:  # a reader bug on an odd prefix must not stop the smoke test itself
        warn(
            f"could not read the package records of {prefix} ({type(e).__name__}: {e}); "
            "no conda+pip duplicate check"
        )
        return
    for w in env.warnings:
        warn(w)
    warn_duplicates([env])


def _isatty() -> bool:
    try:
        return sys.stderr.isatty()
    except (AttributeError, ValueError):
        return False


class _Progress:
    """One stderr line per finished check (and per sweep point) while the probe runs, on a terminal."""

    def __init__(self, enabled: bool) -> None:
        self.enabled = enabled
        self.total = 0
        self.done_count = 0

    def __call__(self, ev: dict) -> None:
        line = progress_line(ev, self)
        if self.enabled and line:
            click.echo(line, err=True)

    def done(self) -> None:
        pass
