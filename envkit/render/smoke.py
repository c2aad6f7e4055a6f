"""`envkit smoke`'s report as text and JSON, and the progress line of each probe event."""

from __future__ import annotations

import json
from typing import Any, Protocol

STATUS_WORD = {"pass": "pass", "fail": "FAIL", "warn": "warn", "skip": "skip"}


class ProgressCounts(Protocol):
    """What the progress lines count: checks planned (from the hello event) and finished so far."""

    total: int
    done_count: int


def render_json(report: dict) -> str:
    """The report as `envkit smoke --json` prints it (the schema in docs/commands/smoke.md)."""
    return json.dumps(report, indent=2, sort_keys=True, default=str)


def progress_line(ev: dict, state: ProgressCounts) -> str | None:
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


def render_text(report: dict) -> str:
    """The human-readable report: environment summary, the checks table, the DataLoader sweep,
    diagnoses with hints, and a summary line."""
    checks = report.get("checks") or []
    diags = report.get("diagnoses") or []
    lines = _environment_lines(report)
    lines.append("")
    lines += _check_lines(checks)
    dl = report.get("dataloader")
    if dl and dl.get("sweep"):
        lines += _sweep_lines(dl)
    if diags:
        lines.append("")
        for d in diags:
            on = f" [{d['check']}]" if d.get("check") else ""
            lines.append(f"problem{on}: {d['problem']}")
            lines.append(f"  hint: {d['hint']}")
    if report.get("hung"):
        lines.append(_hung_line(report["hung"]))
    if report.get("stderr_tail") and not diags:
        lines.append("")
        lines.append("probe stderr (last lines):")
        lines += ["  " + ln for ln in report["stderr_tail"].splitlines()]
    lines.append("")
    lines.append(_summary_line(report, checks))
    return "\n".join(lines) + "\n"


def _mib(n: Any) -> str:
    return f"{n / 2**20:.1f} MiB" if isinstance(n, (int, float)) else "?"


def _environment_lines(report: dict) -> list[str]:
    """The heading: where the probe ran, its torch build and libraries, the GPUs, the machine."""
    env = report.get("environment") or {}
    t = env.get("torch") or {}
    py = env.get("python") or {}
    plat = env.get("platform") or {}
    cuda = env.get("cuda") or {}
    target = report.get("target") or {}
    where = target.get("prefix") or target.get("python") or "?"
    lines = [f"envkit smoke: {where}"]
    if t:
        builds = {"cuda": f"CUDA {t.get('cuda')}", "rocm": f"ROCm {t.get('hip')}", "cpu": "CPU-only"}
        build = builds.get(t.get("build") or "", t.get("build"))
        lines.append(
            f"  torch {t.get('version')} ({build}), Python {py.get('version')}, "
            f"{plat.get('system')} {plat.get('machine')}, {plat.get('usable_cores')} usable cores"
        )
        lines.append("  " + ", ".join(_library_parts(t, cuda)))
        for d in cuda.get("devices") or []:
            lines.append(f"  GPU {d['index']}: {d['name']} ({d['sm']}, {_mib(d['total_memory'])})")
    if report.get("machine"):
        from envkit.machine.profile import MachineProfile
        from envkit.render.machine import machine_line

        lines.append("  machine: " + machine_line(MachineProfile.from_dict(report["machine"])))
    return lines


def _library_parts(t: dict, cuda: dict) -> list[str]:
    """BLAS, OpenMP and MKL always; cuDNN, NCCL and the driver where there are any."""
    cfg = t.get("config") or {}
    cudnn = t.get("cudnn") or {}
    parts = [
        f"BLAS {cfg.get('blas_info') or '?'}",
        f"OpenMP {'yes' if cfg.get('openmp_available') else 'no'}",
        f"MKL {'yes' if cfg.get('mkl_available') else 'no'}",
    ]
    if cudnn.get("runtime"):
        parts.append(f"cuDNN {cudnn.get('runtime')}")
    if t.get("nccl"):
        parts.append(f"NCCL {t.get('nccl')}")
    if cuda.get("driver_version"):
        parts.append(f"driver {cuda.get('driver_version')}")
    return parts


def _check_lines(checks: list[dict]) -> list[str]:
    """The checks table: status, name, seconds, detail."""
    nw = max([len("CHECK")] + [len(c["name"]) for c in checks])
    lines = [f"  {'STATUS':6}  {'CHECK':{nw}}  {'TIME':>7}  DETAIL"]
    for c in checks:
        lines.append(
            f"  {STATUS_WORD.get(c['status'], c['status']):6}  {c['name']:{nw}}  "
            f"{c['seconds']:>6.1f}s  {c['detail']}"
        )
    return lines


def _sweep_lines(dl: dict) -> list[str]:
    """The DataLoader sweep: its workload, one row per point, and the recommended settings."""
    w = dl.get("workload") or {}
    lines = [
        "",
        f"DataLoader sweep ({dl.get('search')}): {w.get('samples')} samples x {w.get('epochs')} epochs, "
        f"batch {w.get('batch_size')}, {w.get('latency_ms')} ms I/O + {w.get('decode_ms')} ms decode "
        f"per sample, sample {'x'.join(map(str, w.get('sample_shape') or []))} float32",
        f"  {'num_workers':>11}  {'pin_memory':>10}  {'persistent':>10}  {'samples/s':>10}  {'speed-up':>8}",
    ]
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
    return lines


def _hung_line(h: dict) -> str:
    """What ran out (the overall limit, or the check's own) and which processes were killed."""
    killed = f"killed probe pid {h.get('probe_pid')} and workers {h.get('pids') or []}"
    if h.get("cause") == "overall_timeout":
        return (
            f"stopped: the overall time limit ({h.get('limit_s'):g} s) ran out during {h['check']}; {killed}"
        )
    return f"hung: {h['check']}; {killed}"


def _summary_line(report: dict, checks: list[dict]) -> str:
    """The verdict and the count of each status."""
    counts = {s: sum(1 for c in checks if c["status"] == s) for s in ("pass", "warn", "skip", "fail")}
    if report.get("could_not_run"):
        verdict = "COULD NOT RUN"
    else:
        verdict = "ok" if report.get("ok") else "FAILED"
    return (
        f"{verdict}: {counts['pass']} passed, {counts['warn']} warned, {counts['skip']} skipped, "
        f"{counts['fail']} failed in {report.get('seconds', 0):.1f} s"
    )
