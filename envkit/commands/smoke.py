"""`envkit smoke`: does this environment really work on this machine, and does it feed the GPU?"""

from __future__ import annotations

import click

from envkit.commands._options import text_or_json
from envkit.commands.progress import stderr_is_terminal
from envkit.output import cli_hint, echo, warn
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
    from envkit.ops.smoke import smoke as smoke_op
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
    progress = _Progress(enabled=stderr_is_terminal() and not quiet)
    try:
        report = smoke_op(
            name=name,
            prefix=prefix,
            python=python,
            create_file=create_file,
            require_cuda=require_cuda,
            mode=mode,
            timeout=timeout,
            keep=keep,
            on_event=progress,
            on_warning=warn,
        ).report
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
        echo(render("smoke", "json", report))
        raise
    return _print_report(report, as_json)


def _print_report(report: dict, as_json: bool) -> int:
    """Print the smoke report (and why it could not run, on stderr); return the exit code."""
    from envkit.smoke import runner

    why = next((c["detail"] for c in report.get("checks") or [] if c["status"] == "fail"), "unknown reason")
    if report.get("could_not_run"):
        report.setdefault("reason", why)
    echo(render("smoke", "json" if as_json else "text", report), nl=as_json)
    if report.get("could_not_run"):
        echo(f"error: the smoke test could not run in {report['target'].get('python')}: {why}", err=True)
        hint = next((d["hint"] for d in report.get("diagnoses") or []), None)
        if hint:
            echo(f"hint: {hint}", err=True)
    if report.get("scratch"):
        warn(f"kept the probe's scratch directory: {report['scratch']}")
    return runner.exit_code(report)


class _Progress:
    """One stderr line per finished check (and per sweep point) while the probe runs, on a terminal."""

    def __init__(self, enabled: bool) -> None:
        self.enabled = enabled
        self.total = 0
        self.done_count = 0

    def __call__(self, ev: dict) -> None:
        line = progress_line(ev, self)
        if self.enabled and line:
            echo(line, err=True)
