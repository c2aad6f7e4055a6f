"""envkit's smoke-test probe: runs INSIDE the target environment and prints one JSON report.

This folder is standalone on purpose: it uses only the standard library, torch and (when present)
numpy, and never imports envkit (its modules import each other relatively), because it is executed by
the target interpreter (a conda env, a venv, a freshly created env), which usually has no envkit
installed.  The runner (`envkit/smoke/runner.py`) copies the whole folder to a scratch directory and
runs `python FOLDER --config JSON` (`__main__.py`).

Output protocol: every line on stdout that starts with `@@envkit-smoke@@ ` carries one JSON event:

    {"event": "hello", "pid": ..., "plan": [{"name": ..., "timeout": ...}, ...]}
    {"event": "start", "check": NAME, "timeout": SECONDS}       a check (or phase) begins
    {"event": "progress", "check": NAME, "detail": TEXT}         e.g. one point of the DataLoader sweep
    {"event": "pids", "pids": [...]}                             worker processes started (diagnosis)
    {"event": "result", "check": {"name", "status", "detail", "seconds"}}
    {"event": "environment", "environment": {...}}
    {"event": "dataloader", "dataloader": {...}}
    {"event": "report", "report": {...}}                         last line: the whole report

so that the runner can show progress, enforce a per-check timeout, and say which check hung.  Anything
else on stdout (a library printing) is ignored.  Statuses: pass | fail | skip | warn.

The pure functions (`driver_verdict`, `arch_verdict`, `shm_verdict`, `cuda_pins_from_records`,
`recommend`, ...) take their facts as arguments so tests can inject a GPU that this machine lacks.
"""

from __future__ import annotations

from .core import Probe, main
from .dataset import SyntheticDataset, calibrate_spin
from .distributed import (
    dist_worker,
    launch_distributed,
    rank_device,
    script_path,
    torchrun_argv,
    torchrun_root_cause,
)
from .events import EVENT_PREFIX, SCHEMA, Fail, Skip, Warn, emit, progress
from .helpers import announce_workers, copy_gbps, device_groups, rel_err, worker_deaths
from .host import (
    conda_meta_records,
    cuda_driver_api_version,
    gpu_presence,
    nvml_driver_version,
    pip_dist_names,
    usable_cores,
)
from .settings import CHECKS, DEFAULT_CONFIG, WORKLOADS
from .sweep import (
    extrapolate,
    kwargs_text,
    loader_kwargs,
    measure_point,
    persistent_estimate,
    recommend,
    sweep_dataloader,
    worker_candidates,
)
from .verdicts import (
    DRIVER_MINIMUM,
    MINOR_COMPAT_FLOOR,
    arch_verdict,
    cuda_api_text,
    cuda_pins_from_dists,
    cuda_pins_from_records,
    cudnn_verdict,
    driver_verdict,
    min_driver_for,
    nccl_text,
    shm_verdict,
    sm_number,
    version_tuple,
)

__all__ = [
    "CHECKS",
    "DEFAULT_CONFIG",
    "DRIVER_MINIMUM",
    "EVENT_PREFIX",
    "Fail",
    "MINOR_COMPAT_FLOOR",
    "Probe",
    "SCHEMA",
    "Skip",
    "SyntheticDataset",
    "WORKLOADS",
    "Warn",
    "announce_workers",
    "arch_verdict",
    "calibrate_spin",
    "conda_meta_records",
    "copy_gbps",
    "cuda_api_text",
    "cuda_driver_api_version",
    "cuda_pins_from_dists",
    "cuda_pins_from_records",
    "cudnn_verdict",
    "device_groups",
    "dist_worker",
    "driver_verdict",
    "emit",
    "extrapolate",
    "gpu_presence",
    "kwargs_text",
    "launch_distributed",
    "loader_kwargs",
    "main",
    "measure_point",
    "min_driver_for",
    "nccl_text",
    "nvml_driver_version",
    "persistent_estimate",
    "pip_dist_names",
    "progress",
    "rank_device",
    "recommend",
    "rel_err",
    "script_path",
    "shm_verdict",
    "sm_number",
    "sweep_dataloader",
    "torchrun_argv",
    "torchrun_root_cause",
    "usable_cores",
    "version_tuple",
    "worker_candidates",
    "worker_deaths",
]
