"""`envkit smoke`: does this environment really work on this machine, and does it feed the GPU?"""

from __future__ import annotations

import json
import sys

import click

from envkit.output import warn

STATUS_WORD = {"pass": "pass", "fail": "FAIL", "warn": "warn", "skip": "skip"}


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
@click.option(
    "--json", "as_json", is_flag=True, help="Print the report as JSON (schema in docs/commands/smoke.md)."
)
@click.option(
    "--timeout",
    type=click.FloatRange(min=1.0),
    metavar="SECONDS",
    help="Overall limit (default 600 quick, 900, 1800 full); each check also has its own.",
)
@click.option(
    "--keep", is_flag=True, help="Keep the temporary env (--create) and the probe's scratch directory."
)
def smoke(name, prefix, python, create_file, require_cuda, quick, full, as_json, timeout, keep) -> int:
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
    progress = _Progress(enabled=_isatty())
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
            {k: v for k, v in where.items() if v}, str(e), e.hint, mode=mode, require_cuda=require_cuda
        )
        click.echo(json.dumps(report, indent=2, sort_keys=True, default=str))
        raise
    progress.done()
    why = next((c["detail"] for c in report.get("checks") or [] if c["status"] == "fail"), "unknown reason")
    if report.get("could_not_run"):
        report.setdefault("reason", why)
    if as_json:
        click.echo(json.dumps(report, indent=2, sort_keys=True, default=str))
    else:
        click.echo(render_text(report), nl=False)
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

        fmt = detect_format(read_text(create_file), create_file)
        model = read_file(create_file)
        warn_duplicates([model])
        report = runner.smoke_created(
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


def progress_line(ev: dict, state: _Progress) -> str | None:
    """The progress text for one probe event (None for events that show nothing)."""
    kind = ev.get("event")
    if kind == "creating":
        return f"smoke: creating a temporary environment from {ev.get('source')}"
    if kind == "hello":
        state.total = len(ev.get("plan") or [])
        return f"smoke: {state.total} checks ({ev.get('mode')} mode), probe pid {ev.get('pid')}"
    if kind == "start" and ev.get("check") == "dataloader.throughput":
        return "  ... dataloader.throughput: sweeping DataLoader settings"
    if kind == "progress":
        return f"      {ev.get('detail')}"
    if kind == "result":
        c = ev["check"]
        state.done_count += 1
        width = len(str(state.total or 0))
        return (
            f"  [{state.done_count:>{width}}/{state.total}] {STATUS_WORD.get(c['status'], c['status']):4} "
            f"{c['name']} ({c['seconds']:.1f} s)"
        )
    if kind == "hung":
        if ev.get("cause") == "overall_timeout":
            return (
                f"  !! the overall time limit ({ev.get('limit_s'):g} s) ran out during {ev.get('check')}; "
                "killed the probe and its workers"
            )
        return f"  !! {ev.get('check')} hung; killed the probe and its workers"
    return None


def _mib(n) -> str:
    return f"{n / 2**20:.1f} MiB" if isinstance(n, (int, float)) else "?"


def render_text(report: dict) -> str:
    """The human-readable report: environment summary, the checks table, the DataLoader sweep,
    diagnoses with hints, and a summary line."""
    lines: list[str] = []
    env = report.get("environment") or {}
    t = env.get("torch") or {}
    py = env.get("python") or {}
    plat = env.get("platform") or {}
    cuda = env.get("cuda") or {}
    target = report.get("target") or {}
    where = target.get("prefix") or target.get("python") or "?"
    lines.append(f"envkit smoke: {where}")
    if t:
        build = {"cuda": f"CUDA {t.get('cuda')}", "rocm": f"ROCm {t.get('hip')}", "cpu": "CPU-only"}.get(
            t.get("build"), t.get("build")
        )
        lines.append(
            f"  torch {t.get('version')} ({build}), Python {py.get('version')}, "
            f"{plat.get('system')} {plat.get('machine')}, {plat.get('usable_cores')} usable cores"
        )
        cfg = t.get("config") or {}
        cudnn = t.get("cudnn") or {}
        extra = [
            f"BLAS {cfg.get('blas_info') or '?'}",
            f"OpenMP {'yes' if cfg.get('openmp_available') else 'no'}",
            f"MKL {'yes' if cfg.get('mkl_available') else 'no'}",
        ]
        if cudnn.get("runtime"):
            extra.append(f"cuDNN {cudnn.get('runtime')}")
        if t.get("nccl"):
            extra.append(f"NCCL {t.get('nccl')}")
        if cuda.get("driver_version"):
            extra.append(f"driver {cuda.get('driver_version')}")
        lines.append("  " + ", ".join(extra))
        for d in cuda.get("devices") or []:
            lines.append(f"  GPU {d['index']}: {d['name']} ({d['sm']}, {_mib(d['total_memory'])})")
    if report.get("machine"):
        from envkit.machine.profile import MachineProfile
        from envkit.render.machine import machine_line

        lines.append("  machine: " + machine_line(MachineProfile.from_dict(report["machine"])))
    lines.append("")
    checks = report.get("checks") or []
    nw = max([len("CHECK")] + [len(c["name"]) for c in checks])
    lines.append(f"  {'STATUS':6}  {'CHECK':{nw}}  {'TIME':>7}  DETAIL")
    for c in checks:
        lines.append(
            f"  {STATUS_WORD.get(c['status'], c['status']):6}  {c['name']:{nw}}  "
            f"{c['seconds']:>6.1f}s  {c['detail']}"
        )
    dl = report.get("dataloader")
    if dl and dl.get("sweep"):
        w = dl.get("workload") or {}
        lines.append("")
        lines.append(
            f"DataLoader sweep ({dl.get('search')}): {w.get('samples')} samples x {w.get('epochs')} epochs, "
            f"batch {w.get('batch_size')}, {w.get('latency_ms')} ms I/O + {w.get('decode_ms')} ms decode "
            f"per sample, sample {'x'.join(map(str, w.get('sample_shape') or []))} float32"
        )
        lines.append(
            f"  {'num_workers':>11}  {'pin_memory':>10}  {'persistent':>10}  {'samples/s':>10}  {'speed-up':>8}"
        )
        for p in dl["sweep"]:
            pers = str(p["persistent_workers"]) if p["num_workers"] else "-"
            sp = f"{p['speedup']:.2f}x" if p.get("speedup") else "-"
            tp = f"{p['samples_per_s']:.0f}" if p.get("samples_per_s") else "-"
            how = "  estimated" if p.get("estimated") else ("  extrapolated" if p.get("extrapolated") else "")
            lines.append(
                f"  {p['num_workers']:>11}  {str(p['pin_memory']):>10}  {pers:>10}  {tp:>10}  {sp:>8}{how}"
            )
        if any(p.get("extrapolated") for p in dl["sweep"]):
            lines.append(
                "  (extrapolated: measured on a shorter run and scaled to the full workload; "
                "estimated: computed from the measured worker start-up, not run)"
            )
        if dl.get("recommended_kwargs"):
            sp = f" ({dl['speedup']:.1f}x over num_workers=0)" if dl.get("speedup") else ""
            lines.append(f"recommended: {dl['recommended_kwargs']}{sp}")
    diags = report.get("diagnoses") or []
    if diags:
        lines.append("")
        for d in diags:
            on = f" [{d['check']}]" if d.get("check") else ""
            lines.append(f"problem{on}: {d['problem']}")
            lines.append(f"  hint: {d['hint']}")
    if report.get("hung"):
        h = report["hung"]
        if h.get("cause") == "overall_timeout":
            lines.append(
                f"stopped: the overall time limit ({h.get('limit_s'):g} s) ran out during {h['check']}; "
                f"killed probe pid {h.get('probe_pid')} and workers {h.get('pids') or []}"
            )
        else:
            lines.append(
                f"hung: {h['check']}; killed probe pid {h.get('probe_pid')} and workers {h.get('pids') or []}"
            )
    if report.get("stderr_tail") and not diags:
        lines.append("")
        lines.append("probe stderr (last lines):")
        lines += ["  " + ln for ln in report["stderr_tail"].splitlines()]
    counts = {s: sum(1 for c in checks if c["status"] == s) for s in ("pass", "warn", "skip", "fail")}
    if report.get("could_not_run"):
        verdict = "COULD NOT RUN"
    else:
        verdict = "ok" if report.get("ok") else "FAILED"
    lines.append("")
    lines.append(
        f"{verdict}: {counts['pass']} passed, {counts['warn']} warned, {counts['skip']} skipped, "
        f"{counts['fail']} failed in {report.get('seconds', 0):.1f} s"
    )
    return "\n".join(lines) + "\n"
