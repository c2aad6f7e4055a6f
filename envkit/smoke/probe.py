#!/usr/bin/env python3
"""envkit's smoke-test probe: runs INSIDE the target environment and prints one JSON report.

This file is standalone on purpose: it uses only the standard library, torch and (when present) numpy,
and never imports envkit, because it is executed by the target interpreter (a conda env, a venv, a
freshly created env), which usually has no envkit installed.  The runner (`envkit/smoke/runner.py`)
copies it to a scratch directory and runs `python probe.py --config JSON`.

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

import glob
import json
import math
import os
import platform
import re
import shutil
import subprocess
import sys
import time
import traceback
import warnings

EVENT_PREFIX = "@@envkit-smoke@@ "
SCHEMA = 1

# Minimum Linux driver per CUDA release (CUDA release notes; ../shared/facts/pytorch.md).
DRIVER_MINIMUM = {
    "11.8": "520.61.05", "12.0": "525.60.13", "12.1": "530.30.02", "12.2": "535.54.03",
    "12.3": "545.23.06", "12.4": "550.54.14", "12.5": "555.42.02", "12.6": "560.28.03",
    "12.8": "570.26", "12.9": "575.51.03", "13.0": "580.65.06", "13.1": "590.44.01",
}
# CUDA minor-version compatibility: a toolkit of this major runs (with limited features: no PTX JIT
# of newer PTX) on any driver at least this new.
MINOR_COMPAT_FLOOR = {"11": "450.80.02", "12": "525.60.13", "13": "580.65.06"}

# Default per-check timeouts (seconds); the runner kills the whole process group when a check
# exceeds its timeout (or the overall one) and reports the check as hung.
CHECKS = [
    ("import.torch", 180), ("import.numpy", 30), ("torch.build", 30),
    ("cuda.available", 90), ("cuda.arch", 30), ("cuda.driver", 30),
    ("compute.matmul", 60), ("compute.conv2d", 60), ("compute.cudnn", 30), ("compute.sdpa", 60),
    ("compute.bandwidth", 60),
    ("dataloader.workers.default", 90), ("dataloader.workers.spawn", 120),
    ("dataloader.pin_memory", 60), ("dataloader.persistent_workers", 90),
    ("dataloader.prefetch_factor", 60), ("dataloader.shm", 15), ("dataloader.cuda_fork", 120),
    ("dataloader.throughput", 900),
    ("distributed.gloo", 120), ("distributed.nccl", 180),
]

# The synthetic DataLoader workload per mode.  latency_ms models per-sample I/O (sleep, releases the
# CPU), decode_ms models CPU work (a calibrated busy loop, so it competes for cores like real
# decoding does).  `max_workers: null` means "the usable cores" (x2 in full mode, because I/O-bound
# loaders gain from more workers than cores).
WORKLOADS = {
    "quick": {"samples": 256, "batch_size": 32, "latency_ms": 2.0, "decode_ms": 1.0,
              "sample_shape": [3, 64, 64], "epochs": 2, "max_workers": None},
    "default": {"samples": 256, "batch_size": 32, "latency_ms": 2.0, "decode_ms": 1.0,
                "sample_shape": [3, 64, 64], "epochs": 2, "max_workers": None},
    "full": {"samples": 1024, "batch_size": 32, "latency_ms": 2.0, "decode_ms": 1.0,
             "sample_shape": [3, 64, 64], "epochs": 2, "max_workers": None},
}

DEFAULT_CONFIG = {
    "mode": "default",          # quick | default | full
    "require_cuda": False,
    "only": None,               # list of check names / prefixes to run (others are not reported)
    "cuda_pins": [],            # extra CUDA pins known to the caller (e.g. from the spec)
    "prefix": None,             # where to look for conda-meta (default: sys.prefix)
    "dev_glob": "/dev/nvidia[0-9]*",
    "nvidia_smi": "nvidia-smi",
    "proc_driver": "/proc/driver/nvidia/version",
    "shm_path": "/dev/shm",
    "workload": {},             # overrides of WORKLOADS[mode]
    "check_timeout": None,      # overrides every per-check timeout but import.torch's
    "patch_file": None,         # test knob: a Python file run after `import torch` (fake torch.cuda)
    "dist_fail_rank": None,     # test knob: this distributed rank exits at once with an error
    "dist_hang_rank": None,     # test knob: this distributed rank blocks before joining
    "dist_timeout": None,       # test knob: the distributed checks' own limit (default 0.8 x the check's)
}


# ---------------------------------------------------------------------------------------------
# events


def emit(event: dict) -> None:
    sys.stdout.write(EVENT_PREFIX + json.dumps(event, sort_keys=True, default=str) + "\n")
    sys.stdout.flush()


def progress(check: str, detail: str) -> None:
    emit({"event": "progress", "check": check, "detail": detail})


class Skip(Exception):
    """Raised by a check that does not apply here (the detail says why)."""


class Warn(Exception):
    """Raised by a check that ran but found something worth a warning."""


class Fail(Exception):
    """Raised by a check that found a real problem (the detail says which)."""


# ---------------------------------------------------------------------------------------------
# pure helpers (tested directly, with injected facts)


def version_tuple(text: str | None) -> tuple[int, ...]:
    """'550.54.14' -> (550, 54, 14); non-numeric parts are dropped; None -> ()."""
    if not text:
        return ()
    return tuple(int(p) for p in re.findall(r"\d+", str(text)))


def min_driver_for(cuda: str) -> tuple[str | None, str | None]:
    """(minimum driver, table key used) for CUDA `cuda` ('12.8'); the nearest lower table entry
    when the exact release is not in the table; (None, None) when older than the table."""
    want = version_tuple(cuda)[:2]
    if not want:
        return None, None
    key = f"{want[0]}.{want[1]}"
    if key in DRIVER_MINIMUM:
        return DRIVER_MINIMUM[key], key
    lower = [k for k in DRIVER_MINIMUM if version_tuple(k) <= want]
    if not lower:
        return None, None
    best = max(lower, key=version_tuple)
    return DRIVER_MINIMUM[best], best


def driver_verdict(driver: str | None, cuda: str | None, api: str | None = None) -> tuple[str, str]:
    """(status, detail) for NVIDIA driver `driver` running a torch built with CUDA `cuda`.

    Without the driver's own version, `api` (the CUDA version the driver supports, from
    cuDriverGetVersion) decides: at least `cuda` passes, the same major warns (minor-version
    compatibility), an older major fails."""
    if not cuda:
        return "skip", "torch is not a CUDA build"
    if not driver and api:
        have, want = version_tuple(api)[:2], version_tuple(cuda)[:2]
        if have >= want:
            return "pass", f"the driver supports CUDA {api} >= {cuda}, torch's CUDA"
        if have[:1] == want[:1]:
            return "warn", (f"the driver supports CUDA {api} < {cuda}, torch's CUDA: it runs through CUDA "
                            "minor-version compatibility with limited features; update the driver")
        return "fail", (f"driver is too old: it supports CUDA {api}, torch needs CUDA {cuda}; update the "
                        "NVIDIA driver or install a torch built for an older CUDA")
    if not driver:
        return "skip", "no NVIDIA driver found (no nvidia-smi, no NVML, no /proc/driver/nvidia/version)"
    need, key = min_driver_for(cuda)
    if need is None:
        return "warn", f"CUDA {cuda} is older than the minimum-driver table; driver {driver} not checked"
    note = "" if key == ".".join(map(str, version_tuple(cuda)[:2])) else f" (table entry {key})"
    if version_tuple(driver) >= version_tuple(need):
        return "pass", f"driver {driver} >= {need}, the minimum for CUDA {cuda}{note}"
    floor = MINOR_COMPAT_FLOOR.get(str(version_tuple(cuda)[0]))
    if floor and version_tuple(driver) >= version_tuple(floor):
        return "warn", (f"driver {driver} is older than {need}, the minimum for CUDA {cuda}{note}; it runs "
                        f"through CUDA minor-version compatibility (>= {floor}) with limited features "
                        "(no JIT of newer PTX); update the driver")
    floor_txt = f"; minor-version compatibility needs >= {floor}" if floor else ""
    return "fail", (f"driver {driver} is too old for CUDA {cuda}: it needs >= {need}{floor_txt}; "
                    "update the NVIDIA driver or install a torch built for an older CUDA")


def nccl_text(v) -> str | None:
    """NCCL's version as text from what `torch.cuda.nccl.version()` returns: a tuple
    (major, minor, patch) or (major, minor, patch, suffix) in torch >= 1.13 ((2, 26, 2) ->
    '2.26.2', (2, 21, 5, '+cuda12.4') -> '2.21.5+cuda12.4'); an int in older torch (2708 ->
    '2.7.8', 21602 -> '2.16.2'); None when unknown."""
    if v is None:
        return None
    if isinstance(v, (tuple, list)):
        nums = [str(x) for x in v[:3]]
        suffix = "".join(str(x) for x in v[3:])
        return ".".join(nums) + suffix
    if isinstance(v, int):
        if v >= 10000:  # NCCL >= 2.9 encodes major*10000 + minor*100 + patch
            return f"{v // 10000}.{(v % 10000) // 100}.{v % 100}"
        return f"{v // 1000}.{(v % 1000) // 100}.{v % 100}"
    return str(v)


def cuda_api_text(v: int | None) -> str | None:
    """The CUDA version a driver supports, from cuDriverGetVersion's integer (12080 -> '12.8')."""
    if not v:
        return None
    return f"{v // 1000}.{(v % 1000) // 10}"


def cudnn_verdict(runtime, compile_, *, is_cuda: bool = True, version_int: int | None = None,
                  min_capability: tuple[int, int] | None = None) -> tuple[str, str]:
    """(status, detail) for the cuDNN torch loaded (`runtime`) against the one it was built with
    (`compile_`), both (major, minor, patch) as `torch._C._cudnn.getRuntimeVersion()` /
    `getCompileVersion()` return them.  The rule is torch's own (torch/backends/cudnn/__init__.py,
    `_init`): the major must match; from cuDNN 7 on a newer runtime minor is fine (backwards
    compatible), an older one is not; MIOpen (ROCm) must match exactly; cuDNN >= 9.11 refuses
    devices below sm_75."""
    rt, ct = tuple(runtime or ()), tuple(compile_ or ())
    if len(rt) < 2 or len(ct) < 2:
        return "skip", "cuDNN versions unknown"
    rts, cts = ".".join(map(str, rt)), ".".join(map(str, ct))
    if rt[0] != ct[0]:
        ok = False
    elif rt[0] < 7 or not is_cuda:
        ok = rt[1] == ct[1]
    else:
        ok = rt[1] >= ct[1]
    if not ok:
        return "fail", (f"cuDNN version incompatibility: torch was compiled against cuDNN {cts} but loads "
                        f"{rts}: another cuDNN (LD_LIBRARY_PATH, a conda or pip cudnn package) shadows the "
                        "one torch needs")
    if version_int and version_int >= 91100 and min_capability and tuple(min_capability) < (7, 5):
        cap = f"sm_{min_capability[0]}{min_capability[1]}"
        return "fail", f"cuDNN {rts} does not support devices below sm_75, and this machine has a {cap} device"
    if rt == ct:
        return "pass", f"cuDNN runtime {rts} == compile {cts}"
    return "pass", f"cuDNN runtime {rts}, compiled against {cts} (a newer minor of the same major is compatible)"


def sm_number(arch: str) -> int | None:
    """'sm_90a' -> 90, 'compute_120' -> 120, 'sm_120f' -> 120; None when not an arch string."""
    m = re.match(r"^(?:sm|compute)_(\d+)[a-z]?$", arch.strip())
    return int(m.group(1)) if m else None


def arch_verdict(capability: tuple[int, int], arch_list: list[str], name: str = "GPU") -> tuple[str, str]:
    """(status, detail): can a device of compute `capability` run this torch's kernels?

    An exact `sm_XY` cubin passes; a cubin of the same major and a lower-or-equal minor passes
    (binary compatible within a major); only PTX (`compute_XY`, XY <= capability) warns (JIT at
    first use); nothing usable fails with torch's own wording.
    """
    major, minor = capability
    cap = major * 10 + minor
    sms = [(a, sm_number(a)) for a in arch_list if a.startswith("sm_") and sm_number(a) is not None]
    ptx = [(a, sm_number(a)) for a in arch_list if a.startswith("compute_") and sm_number(a) is not None]
    listed = " ".join(arch_list) or "(empty)"
    if not arch_list:
        return "skip", "torch reports no compiled CUDA architectures"
    exact = [a for a, n in sms if n == cap]
    if exact:
        return "pass", f"{name} is sm_{cap}; {exact[0]} is in the arch list ({listed})"
    compatible = [a for a, n in sms if n // 10 == major and n <= cap]
    if compatible:
        return "pass", (f"{name} is sm_{cap}; runs the {compatible[-1]} cubin (binary compatible within "
                        f"major {major}); arch list: {listed}")
    jit = [a for a, n in ptx if n <= cap]
    if jit:
        return "warn", (f"{name} is sm_{cap}; no cubin for it, kernels are JIT-compiled from "
                        f"{jit[-1]} PTX on first use (slow start); arch list: {listed}")
    return "fail", (f"{name} with CUDA capability sm_{cap} is not compatible with the current PyTorch "
                    f"installation, which supports {listed}: unsupported GPU arch")


def shm_verdict(total: int, free: int, in_flight: int) -> tuple[str, str]:
    """(status, detail) for a /dev/shm of `total`/`free` bytes when `in_flight` bytes of batches are
    shared by DataLoader workers at once."""
    mib = 1024 * 1024
    fix = ("in Docker start the container with --shm-size=8g (or --ipc=host); in Kubernetes mount an "
           "emptyDir with medium: Memory at /dev/shm")
    text = (f"/dev/shm {total / mib:.0f} MiB (free {free / mib:.0f} MiB); batches in flight "
            f"{in_flight / mib:.1f} MiB")
    if in_flight > free:
        return "fail", (f"{text}: workers will die with 'Bus error' / 'No space left on device'; {fix}")
    if in_flight > free / 2 or total < 256 * mib:
        why = "Docker's 64 MiB default?" if total <= 64 * mib else "little headroom"
        return "warn", (f"{text}: {why} larger batches or more workers will hit 'Bus error' in "
                        f"DataLoader workers; {fix}")
    return "pass", f"{text}: enough room"


def cuda_pins_from_records(records: list[dict]) -> list[str]:
    """Which installed conda packages (conda-meta records: name/version/build) pin CUDA."""
    pins = []
    for r in records:
        name, version, build = r.get("name", ""), str(r.get("version", "")), str(r.get("build", ""))
        if name in ("cuda-version", "pytorch-cuda", "cudatoolkit"):
            pins.append(f"{name}={version}")
        elif name in ("pytorch", "pytorch-gpu", "libtorch") and build.startswith("cuda"):
            pins.append(f"{name}={version}={build}")
    return sorted(set(pins))


def cuda_pins_from_dists(names: list[str]) -> list[str]:
    """Which pip distributions (names) mean "a CUDA torch was meant": NVIDIA runtime wheels."""
    out = []
    for n in names:
        norm = re.sub(r"[-_.]+", "-", n).lower()
        if norm.startswith("nvidia-cuda-runtime"):
            out.append(f"{norm} (pip)")
    return sorted(set(out))


def worker_candidates(max_workers: int) -> list[int]:
    """0, 1, 2, 4, 8, ... up to `max_workers`, which is always included."""
    out, w = [0], 1
    while w <= max_workers:
        out.append(w)
        w *= 2
    if max_workers >= 1 and out[-1] != max_workers:
        out.append(max_workers)
    return out


def recommend(sweep: list[dict], tolerance: float = 0.05) -> dict | None:
    """The recommended point of a sweep: the fewest workers within `tolerance` of the best
    throughput (leaving cores to the training loop), and among those the fastest."""
    measured = [p for p in sweep if p.get("samples_per_s")]
    if not measured:
        return None
    best = max(p["samples_per_s"] for p in measured)
    good = [p for p in measured if p["samples_per_s"] >= best * (1 - tolerance)]
    fewest = min(p["num_workers"] for p in good)
    return max((p for p in good if p["num_workers"] == fewest), key=lambda p: p["samples_per_s"])


def loader_kwargs(point: dict, batch_size: int) -> dict:
    """DataLoader keyword arguments for a sweep point (only those that apply)."""
    kw = {"batch_size": batch_size, "num_workers": point["num_workers"], "pin_memory": point["pin_memory"]}
    if point["num_workers"] > 0:
        kw["persistent_workers"] = point["persistent_workers"]
        kw["prefetch_factor"] = point.get("prefetch_factor") or 2
    return kw


def kwargs_text(kw: dict) -> str:
    return "DataLoader(dataset, " + ", ".join(f"{k}={v!r}" for k, v in kw.items()) + ")"


def usable_cores() -> int:
    """CPUs this process may use: affinity mask, capped by a cgroup v2 CPU quota (containers)."""
    try:
        n = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        n = os.cpu_count() or 1
    try:
        with open("/sys/fs/cgroup/cpu.max") as f:
            quota, period = f.read().split()[:2]
        if quota != "max":
            n = max(1, min(n, math.ceil(int(quota) / int(period))))
    except (OSError, ValueError):
        pass
    return n


# ---------------------------------------------------------------------------------------------
# facts gathered without torch


def gpu_presence(dev_glob: str, nvidia_smi: str, proc_driver: str) -> dict:
    """Is an NVIDIA GPU present, independent of torch: device nodes, nvidia-smi, the kernel module."""
    nodes = sorted(glob.glob(dev_glob)) if dev_glob else []
    smi = shutil.which(nvidia_smi) if nvidia_smi else None
    info: dict = {"dev_nodes": nodes, "nvidia_smi": smi, "driver_version": None, "gpus": [],
                  "driver_source": None}
    if smi:
        try:
            out = subprocess.run([smi, "--query-gpu=name,driver_version,compute_cap,memory.total",
                                  "--format=csv,noheader"], capture_output=True, text=True, timeout=20)
            if out.returncode != 0:  # old drivers do not know compute_cap
                out = subprocess.run([smi, "--query-gpu=name,driver_version", "--format=csv,noheader"],
                                     capture_output=True, text=True, timeout=20)
            if out.returncode == 0:
                for line in out.stdout.strip().splitlines():
                    parts = [p.strip() for p in line.split(",")]
                    if len(parts) >= 2 and parts[0]:
                        info["gpus"].append({"name": parts[0], "compute_cap": parts[2] if len(parts) > 2 else None,
                                             "memory": parts[3] if len(parts) > 3 else None})
                        info["driver_version"] = parts[1]
                        info["driver_source"] = "nvidia-smi"
            else:
                info["nvidia_smi_error"] = (out.stderr or out.stdout).strip()[-300:]
        except (OSError, subprocess.TimeoutExpired) as exc:
            info["nvidia_smi_error"] = f"{type(exc).__name__}: {exc}"
    if info["driver_version"] is None:
        nvml = nvml_driver_version()
        if nvml:
            info["driver_version"], info["driver_source"] = nvml, "pynvml"
    if info["driver_version"] is None and proc_driver and os.path.exists(proc_driver):
        try:
            with open(proc_driver) as f:
                m = re.search(r"Kernel Module(?: for \S+)?\s+(\d+\.\d+(?:\.\d+)?)", f.read())
            if m:
                info["driver_version"] = m.group(1)
                info["driver_source"] = proc_driver
        except OSError:
            pass
    info["present"] = bool(nodes or info["gpus"])
    return info


def nvml_driver_version() -> str | None:
    """The driver version from NVML through pynvml (nvidia-ml-py), when that is installed; None
    otherwise or on any NVML error.  Older pynvml returns bytes."""
    try:
        import pynvml
    except Exception:
        return None
    try:
        pynvml.nvmlInit()
        try:
            v = pynvml.nvmlSystemGetDriverVersion()
        finally:
            pynvml.nvmlShutdown()
    except Exception:
        return None
    if isinstance(v, bytes):
        v = v.decode("ascii", "replace")
    return str(v).strip() or None


def cuda_driver_api_version(names=("libcuda.so.1", "libcuda.so", "nvcuda.dll")) -> int | None:
    """cuDriverGetVersion() of the installed CUDA driver library (12080 for a driver that supports
    CUDA 12.8), through ctypes; None without the library.  It needs no cuInit and creates no CUDA
    context, so forking afterwards stays safe.  (torch has no public call for this: there is no
    torch._C._cuda_getDriverVersion.)"""
    import ctypes

    for name in names:
        try:
            lib = ctypes.CDLL(name)
            fn = lib.cuDriverGetVersion
        except (OSError, AttributeError):
            continue
        v = ctypes.c_int(0)
        try:
            if fn(ctypes.byref(v)) == 0 and v.value > 0:
                return int(v.value)
        except Exception:
            continue
    return None


def conda_meta_records(prefix: str) -> list[dict]:
    out = []
    for path in sorted(glob.glob(os.path.join(prefix, "conda-meta", "*.json"))):
        try:
            with open(path) as f:
                rec = json.load(f)
            out.append({"name": rec.get("name"), "version": rec.get("version"), "build": rec.get("build")})
        except (OSError, ValueError):
            continue
    return out


def pip_dist_names() -> list[str]:
    try:
        from importlib import metadata
        return sorted({(d.metadata["Name"] or "") for d in metadata.distributions()} - {""})
    except Exception:  # a broken dist-info must not break the probe
        return []


# ---------------------------------------------------------------------------------------------
# the synthetic dataset (module level: spawn workers import it from this file)


def _spin(iterations: int, seed: int) -> int:
    x = seed & 0x7FFFFFFF
    for _ in range(iterations):
        x = (x * 1103515245 + 12345) & 0x7FFFFFFF
    return x


def calibrate_spin(target_s: float = 0.05) -> float:
    """Busy-loop iterations per millisecond on one core of this machine."""
    n = 20000
    while True:
        t = time.perf_counter()
        _spin(n, 1)
        dt = time.perf_counter() - t
        if dt >= target_s or n > 50_000_000:
            return n / (dt * 1000.0)
        n *= 2


class SyntheticDataset:
    """Per-sample I/O latency (sleep) + decode CPU work (busy loop) + a float32 tensor of `shape`.

    Fault knobs, for tests of the runner: `hang_at` (a sample index at which __getitem__ blocks
    forever), `crash_at` with `crash` ('SIGBUS', 'SIGSEGV', 'exit') kills the worker process that
    loads that sample (the probe itself too with `crash_main`), `pid_file` appends each worker's pid,
    `cuda_in_getitem` touches CUDA.
    """

    def __init__(self, n: int, shape, latency_ms: float = 0.0, decode_iters: int = 0, **faults) -> None:
        self.n = int(n)
        self.shape = tuple(int(s) for s in shape)
        self.latency = float(latency_ms) / 1000.0
        self.decode_iters = int(decode_iters)
        self.hang_at = faults.get("hang_at")
        self.crash_at = faults.get("crash_at")
        self.crash = faults.get("crash") or "SIGBUS"
        self.crash_main = bool(faults.get("crash_main"))  # crash the probe itself (num_workers=0)
        self.pid_file = faults.get("pid_file")
        self.cuda_in_getitem = bool(faults.get("cuda_in_getitem"))
        self._pid_logged = None

    def __len__(self) -> int:
        return self.n

    def __getitem__(self, i: int):
        import torch

        if self.pid_file and self._pid_logged != os.getpid():
            self._pid_logged = os.getpid()
            with open(self.pid_file, "a") as f:
                f.write(f"{os.getpid()}\n")
        in_worker = torch.utils.data.get_worker_info() is not None
        if self.hang_at is not None and i >= int(self.hang_at):
            while True:
                time.sleep(3600)
        if self.crash_at is not None and i >= int(self.crash_at) and (in_worker or self.crash_main):
            if self.crash == "exit":
                os._exit(3)
            import signal as _signal
            os.kill(os.getpid(), getattr(_signal, self.crash))
        if self.cuda_in_getitem:
            torch.zeros(1, device="cuda")
        if self.latency:
            time.sleep(self.latency)
        v = _spin(self.decode_iters, i) if self.decode_iters else i
        return torch.full(self.shape, float(v % 251)), torch.tensor([i, os.getpid()])


# ---------------------------------------------------------------------------------------------
# the probe


class Probe:
    def __init__(self, config: dict) -> None:
        self.config = {**DEFAULT_CONFIG, **(config or {})}
        self.mode = self.config["mode"] if self.config["mode"] in WORKLOADS else "default"
        self.checks: list[dict] = []
        self.environment: dict = {"probe_schema": SCHEMA}
        self.dataloader: dict | None = None
        self.torch = None
        self.np = None
        self.cuda_ok = False
        self.gpu: dict = {}
        self.pins: list[str] = []
        self.start = time.perf_counter()
        self.import_warnings: list[str] = []

    # -- plumbing ---------------------------------------------------------------------------

    def wanted(self, name: str) -> bool:
        only = self.config.get("only")
        if not only:
            return True
        return any(name == o or name.startswith(o.rstrip(".") + ".") for o in only)

    def timeout_of(self, name: str, default: float) -> float:
        t = self.config.get("check_timeout")
        # the override is for the checks under test; `import torch` keeps its own limit, so that a
        # slow import on a loaded machine is not taken for the hang a test injects later
        return float(t) if t and name != "import.torch" else float(default)

    def plan(self) -> list[dict]:
        names = []
        for name, t in CHECKS:
            if name == "dataloader.workers.default":
                name = f"dataloader.workers.{self.default_start_method()}"
            if self.wanted(name) or name == "import.torch":
                names.append({"name": name, "timeout": self.timeout_of(name, t)})
        return names

    def run_check(self, name: str, fn, default_timeout: float | None = None) -> dict | None:
        if not (self.wanted(name) or name == "import.torch"):
            return None
        timeout = self.timeout_of(name, default_timeout or dict(CHECKS).get(name, 60))
        emit({"event": "start", "check": name, "timeout": timeout})
        t0 = time.perf_counter()
        try:
            status, detail = "pass", fn()
        except Skip as e:
            status, detail = "skip", str(e)
        except Warn as e:
            status, detail = "warn", str(e)
        except Fail as e:
            status, detail = "fail", str(e)
        except Exception as e:  # a check that blows up is a failed check, with the exception text
            tb = traceback.format_exc(limit=3)
            status, detail = "fail", f"{type(e).__name__}: {e}".strip()
            sys.stderr.write(f"[{name}] {tb}\n")
        result = {"name": name, "status": status, "detail": str(detail or ""),
                  "seconds": round(time.perf_counter() - t0, 3)}
        self.checks.append(result)
        emit({"event": "result", "check": result})
        return result

    def default_start_method(self) -> str:
        import multiprocessing as mp
        try:
            return mp.get_start_method(allow_none=True) or mp.get_context().get_start_method()
        except Exception:
            return "fork" if sys.platform.startswith("linux") else "spawn"

    def workload(self) -> dict:
        w = dict(WORKLOADS[self.mode])
        w.update(self.config.get("workload") or {})
        if not w.get("max_workers"):
            cores = usable_cores()
            # More workers than batches per epoch cannot help (each worker loads whole batches),
            # and on a 192-core GPU node 384 workers x every sweep point would outlast the check.
            batches = max(1, int(w["samples"]) // int(w["batch_size"]))
            w["max_workers"] = min(cores * 2 if self.mode == "full" else cores, batches)
        return w

    # -- main -------------------------------------------------------------------------------

    def run(self) -> dict:
        emit({"event": "hello", "pid": os.getpid(), "plan": self.plan(), "mode": self.mode})
        imported = self.run_check("import.torch", self.check_import_torch)
        if imported and imported["status"] == "pass":
            if self.config.get("patch_file"):
                self.apply_patch_file(self.config["patch_file"])
            emit({"event": "start", "check": "environment", "timeout": 60})
            self.collect_environment()
            emit({"event": "environment", "environment": self.environment})
            self.run_check("import.numpy", self.check_numpy)
            self.run_check("torch.build", self.check_build)
            self.run_check("cuda.available", self.check_cuda_available)
            self.run_check("cuda.arch", self.check_arch)
            self.run_check("cuda.driver", self.check_driver)
            self.run_check("compute.matmul", self.check_matmul)
            self.run_check("compute.conv2d", self.check_conv2d)
            self.run_check("compute.cudnn", self.check_cudnn)
            self.run_check("compute.sdpa", self.check_sdpa)
            self.run_check("compute.bandwidth", self.check_bandwidth)
            method = self.default_start_method()
            self.run_check(f"dataloader.workers.{method}", lambda: self.check_workers(method),
                           dict(CHECKS)["dataloader.workers.default"])
            self.run_check("dataloader.workers.spawn", lambda: self.check_workers("spawn", spawn_check=True))
            self.run_check("dataloader.pin_memory", self.check_pin_memory)
            self.run_check("dataloader.persistent_workers", self.check_persistent)
            self.run_check("dataloader.prefetch_factor", self.check_prefetch)
            self.run_check("dataloader.shm", self.check_shm)
            self.run_check("dataloader.cuda_fork", self.check_cuda_fork)
            self.run_check("dataloader.throughput", self.check_throughput)
            self.run_check("distributed.gloo", lambda: self.check_distributed("gloo"))
            self.run_check("distributed.nccl", lambda: self.check_distributed("nccl"))
        report = {
            "schema": SCHEMA,
            "ok": not any(c["status"] == "fail" for c in self.checks),
            "environment": self.environment,
            "checks": self.checks,
            "dataloader": self.dataloader,
            "seconds": round(time.perf_counter() - self.start, 3),
        }
        emit({"event": "report", "report": report})
        return report

    # -- imports and environment ------------------------------------------------------------

    def check_import_torch(self) -> str:
        t0 = time.perf_counter()
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:
                import torch  # noqa: F401
            except ImportError as e:
                raise Fail(f"torch is not importable: {type(e).__name__}: {e}") from None
        self.import_warnings = [str(w.message).strip().splitlines()[0] for w in caught][:5]
        self.torch = torch
        extra = f"; warnings: {'; '.join(self.import_warnings)}" if self.import_warnings else ""
        return f"torch {torch.__version__} from {os.path.dirname(torch.__file__)} in {time.perf_counter() - t0:.1f} s{extra}"

    def apply_patch_file(self, path: str) -> None:
        """Test knob: run the Python file `path` with `torch`, `probe` (this module) and `config`
        in its globals, after torch was imported and before anything reads it, so that tests can
        monkeypatch torch.cuda (a fake GPU) inside the probe's own process."""
        import runpy

        runpy.run_path(path, init_globals={"torch": self.torch, "probe": sys.modules[__name__],
                                           "config": self.config})

    def collect_environment(self) -> None:
        """Fill self.environment.  Each part is guarded: a broken CUDA or BLAS query is recorded
        under environment["errors"] and the checks still run (they report what is missing)."""
        env = self.environment
        env["errors"] = []
        env["python"] = {"version": platform.python_version(), "implementation": platform.python_implementation(),
                         "executable": sys.executable, "prefix": sys.prefix}
        cuda = getattr(self.torch.version, "cuda", None)
        hip = getattr(self.torch.version, "hip", None)
        env["torch"] = {"version": self.torch.__version__, "local": None, "build": "cuda" if cuda else "rocm" if hip
                        else "cpu", "cuda": cuda, "hip": hip, "cudnn": None, "nccl": None, "config": {}}
        env["cuda"] = {"gpu_present": {}, "visible_devices": os.environ.get("CUDA_VISIBLE_DEVICES"),
                       "arch_list": [], "available": False, "device_count": 0, "devices": [],
                       "driver_version": None}
        env["shm"] = None
        env["cuda_pins"] = []
        for part in (self._collect_platform, self._collect_torch, self._collect_cuda, self._collect_misc,
                     self._collect_pins):
            try:
                part()
            except Exception as e:
                env["errors"].append(f"{part.__name__.lstrip('_')}: {type(e).__name__}: {e}")
                sys.stderr.write(traceback.format_exc(limit=3))

    def _collect_platform(self) -> None:
        env = self.environment
        libc = platform.libc_ver()
        env["platform"] = {"system": platform.system(), "machine": platform.machine(), "release": platform.release(),
                           "libc": "-".join(x for x in libc if x) or None, "cpu_count": os.cpu_count(),
                           "usable_cores": usable_cores()}

    def _collect_torch(self) -> None:
        torch = self.torch
        env = self.environment
        local = torch.__version__.split("+", 1)[1] if "+" in torch.__version__ else None
        cuda = getattr(torch.version, "cuda", None)
        hip = getattr(torch.version, "hip", None)
        build = "cuda" if cuda else "rocm" if hip else "cpu"
        tinfo: dict = {"version": torch.__version__, "local": local, "build": build, "cuda": cuda, "hip": hip,
                       "debug": bool(getattr(torch.version, "debug", False)),
                       "git_version": getattr(torch.version, "git_version", None),
                       "file": torch.__file__}
        # cuDNN / NCCL are reported from the build even without a GPU (None on CPU builds).
        try:
            tinfo["cudnn"] = self._cudnn_versions()
        except Exception as e:
            tinfo["cudnn"] = {"error": str(e)}
        try:
            # torch.cuda.nccl is a submodule: import it rather than rely on another import having
            # done so.  version() is a tuple, with a suffix string as a 4th item in some builds.
            if cuda:
                import torch.cuda.nccl
                tinfo["nccl"] = nccl_text(torch.cuda.nccl.version())
        except Exception as e:
            tinfo["nccl"] = None
            tinfo["nccl_error"] = f"{type(e).__name__}: {e}"
        tinfo["config"] = {}
        env["torch"] = tinfo
        tinfo["config"] = self._torch_config()

    def _collect_cuda(self) -> None:
        torch = self.torch
        env = self.environment
        cuda = env["torch"]["cuda"]
        self.gpu = gpu_presence(self.config["dev_glob"], self.config["nvidia_smi"], self.config["proc_driver"])
        cinfo = env["cuda"]
        cinfo.update(gpu_present=self.gpu, driver_version=self.gpu.get("driver_version"),
                     driver_source=self.gpu.get("driver_source"))
        if cuda:
            try:
                cinfo["arch_list"] = [str(a) for a in torch.cuda.get_arch_list()]
            except Exception as e:
                env["errors"].append(f"torch.cuda.get_arch_list(): {type(e).__name__}: {e}")
            cinfo["cuda_driver_api"] = cuda_api_text(cuda_driver_api_version())

    def _collect_misc(self) -> None:
        env = self.environment
        try:
            import numpy
            self.np = numpy
            env["numpy"] = numpy.__version__
        except Exception:
            env["numpy"] = None
        env["multiprocessing"] = {"default_start_method": self.default_start_method()}
        try:
            import torch.multiprocessing as tmp
            env["multiprocessing"]["sharing_strategy"] = tmp.get_sharing_strategy()
        except Exception:
            pass
        env["shm"] = self._shm_info()

    def _collect_pins(self) -> None:
        env = self.environment
        records = conda_meta_records(self.config.get("prefix") or sys.prefix)
        env["conda_prefix"] = bool(records) or os.path.isdir(os.path.join(self.config.get("prefix") or sys.prefix, "conda-meta"))
        self.pins = sorted(set(cuda_pins_from_records(records)) | set(cuda_pins_from_dists(pip_dist_names()))
                           | set(self.config.get("cuda_pins") or []))
        env["cuda_pins"] = self.pins

    def _cudnn_versions(self) -> dict | None:
        torch = self.torch
        if not getattr(torch.version, "cuda", None):
            return None
        import torch.backends.cudnn

        cudnn = torch.backends.cudnn
        out = {"available": bool(cudnn.is_available()), "enabled": bool(cudnn.enabled)}
        try:
            # (major, minor, patch) tuples; torch.backends.cudnn.version() is only the runtime's int
            from torch._C import _cudnn
            rt, ct = tuple(_cudnn.getRuntimeVersion()), tuple(_cudnn.getCompileVersion())
            out.update(runtime=".".join(map(str, rt)), compile=".".join(map(str, ct)),
                       runtime_tuple=list(rt), compile_tuple=list(ct), is_cuda=bool(getattr(_cudnn, "is_cuda", True)))
        except Exception as e:
            out["error"] = f"{type(e).__name__}: {e}"
        try:
            # torch's own compatibility check runs here (a RuntimeError when it refuses the pair)
            out["version_int"] = cudnn.version()
        except Exception as e:
            out["torch_error"] = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
        return out

    def _torch_config(self) -> dict:
        torch = self.torch
        out: dict = {}
        try:
            show = torch.__config__.show()
        except Exception:
            show = ""
        for key in ("BLAS_INFO", "LAPACK_INFO", "USE_CUDA", "USE_CUDNN", "USE_NCCL", "USE_MKL", "USE_MKLDNN",
                    "USE_OPENMP", "USE_GLOO", "USE_MPI", "TORCH_VERSION", "CUDA_VERSION", "CUDNN_VERSION"):
            m = re.search(rf"\b{key}=([^,\s]*)", show)
            if m:
                out[key.lower()] = m.group(1)
        m = re.search(r"^\s*- (Intel\(R\) (?:oneAPI )?Math Kernel Library[^\n]*)", show, re.M)
        out["mkl"] = m.group(1).strip() if m else None
        m = re.search(r"^\s*- (OpenMP [^\n]*)", show, re.M)
        out["openmp"] = m.group(1).strip() if m else None
        m = re.search(r"CPU capability usage: (\S+)", show)
        out["cpu_capability"] = m.group(1) if m else None
        out["mkl_available"] = bool(getattr(torch.backends, "mkl", None) and torch.backends.mkl.is_available())
        out["openmp_available"] = bool(torch.backends.openmp.is_available())
        out["mkldnn_available"] = bool(torch.backends.mkldnn.is_available())
        out["threads"] = torch.get_num_threads()
        out["interop_threads"] = torch.get_num_interop_threads()
        return out

    def _shm_info(self) -> dict | None:
        path = self.config.get("shm_path")
        if not path or not os.path.isdir(path):
            return None
        try:
            st = os.statvfs(path)
        except OSError:
            return None
        return {"path": path, "total": st.f_blocks * st.f_frsize, "free": st.f_bavail * st.f_frsize}

    # -- checks: imports, build, CUDA ---------------------------------------------------------

    def check_numpy(self) -> str:
        torch = self.torch
        numpy_warn = [w for w in self.import_warnings if "numpy" in w.lower()]
        if self.np is None:
            raise Skip("numpy is not installed in this environment")
        np = self.np
        a = np.arange(12, dtype=np.float32).reshape(3, 4)
        t = torch.from_numpy(a)
        a[0, 0] = 42.0  # from_numpy shares memory
        if float(t[0, 0]) != 42.0:
            raise Fail("torch.from_numpy does not share memory with the array")
        back = (t * 2).numpy()
        if not np.array_equal(back, a * 2):
            raise Fail("tensor.numpy() returned wrong values")
        if numpy_warn:
            raise Warn(f"numpy {np.__version__} works, but torch warned at import: {numpy_warn[0]}")
        return f"numpy {np.__version__}: from_numpy shares memory, .numpy() round-trips"

    def check_build(self) -> str:
        t = self.environment["torch"]
        pins = self.pins
        if t["build"] == "cpu":
            if pins:
                raise Fail(f"CPU-only torch ({t['version']}) in an environment that pins CUDA "
                           f"({', '.join(pins)}): the solver or pip picked the CPU variant")
            return f"CPU build {t['version']}; the environment pins no CUDA"
        if t["build"] == "rocm":
            return f"ROCm build {t['version']} (HIP {t['hip']})"
        want = [p for p in pins if re.search(r"(?:cuda-version|pytorch-cuda|cudatoolkit)=", p)]
        mism = [p for p in want if version_tuple(p.split("=", 1)[1])[:1] != version_tuple(t["cuda"])[:1]]
        if mism:
            raise Warn(f"torch {t['version']} is built for CUDA {t['cuda']}, but the environment pins "
                       f"{', '.join(mism)} (another CUDA major)")
        pinned = f"; pins: {', '.join(pins)}" if pins else ""
        return f"CUDA build {t['version']} (CUDA {t['cuda']}){pinned}"

    def cuda_expected(self) -> list[str]:
        why = []
        if self.config.get("require_cuda"):
            why.append("--require-cuda was given")
        if self.gpu.get("present"):
            where = ", ".join(self.gpu.get("dev_nodes") or []) or "nvidia-smi lists a GPU"
            why.append(f"a GPU is present ({where})")
        if self.pins:
            why.append(f"the environment pins CUDA ({', '.join(self.pins)})")
        return why

    def check_cuda_available(self) -> str:
        torch = self.torch
        t = self.environment["torch"]
        cinfo = self.environment["cuda"]
        expected = self.cuda_expected()
        available = bool(torch.cuda.is_available()) if t["cuda"] or t["hip"] else False
        if available:
            devices = []
            count = int(torch.cuda.device_count())
            for i in range(count):
                try:
                    p = torch.cuda.get_device_properties(i)
                except Exception as e:
                    raise Fail(f"CUDA {t['cuda'] or t['hip']} reports {count} device(s), but device {i} cannot be "
                               f"queried: {type(e).__name__}: {_first_line(e)}") from None
                devices.append({"index": i, "name": str(p.name), "capability": f"{p.major}.{p.minor}",
                                "sm": f"sm_{p.major}{p.minor}", "total_memory": int(p.total_memory),
                                "multiprocessors": int(p.multi_processor_count)})
            cinfo.update(available=True, device_count=len(devices), devices=devices)
            emit({"event": "environment", "environment": self.environment})
            if not devices:
                raise Fail("torch.cuda.is_available() is True but torch.cuda.device_count() is 0")
            names = ", ".join(f"{_count(ix)}{d['name']} ({d['sm']}, {d['total_memory'] / 2**30:.0f} GiB)"
                              for ix, d in device_groups(devices))
            try:
                self.first_kernel()
            except Exception as e:
                raise Fail(f"CUDA {t['cuda'] or t['hip']} lists {len(devices)} device(s) ({names}), but the first "
                           f"kernel on cuda:0 failed: {type(e).__name__}: {_first_line(e)}") from None
            self.cuda_ok = True
            return f"CUDA {t['cuda'] or t['hip']} available: {len(devices)} device(s): {names}"
        reasons = []
        if t["build"] == "cpu":
            reasons.append(f"torch {t['version']} is a CPU-only build")
            if self.pins:
                reasons.append(f"a CPU-only torch in an environment that pins CUDA ({', '.join(self.pins)})")
        else:
            try:
                torch.cuda.init()
            except Exception as e:
                reasons.append(str(e).strip().splitlines()[0])
            vis = os.environ.get("CUDA_VISIBLE_DEVICES")
            if vis is not None and vis.strip() in ("", "-1", "none", "NoDevFiles"):
                reasons.append(f"CUDA_VISIBLE_DEVICES={vis!r} hides every GPU")
            if not self.gpu.get("dev_nodes"):
                reasons.append("no /dev/nvidia* device nodes (no GPU, or a container started without --gpus)")
            st, detail = driver_verdict(self.gpu.get("driver_version"), t["cuda"])
            if st == "fail":
                reasons.append(detail)
        if not expected:
            raise Skip(f"no GPU on this machine and none required ({'; '.join(reasons) or 'CUDA unavailable'})")
        raise Fail(f"CUDA unavailable but expected ({'; '.join(expected)}): {'; '.join(reasons) or 'unknown reason'}")

    def first_kernel(self) -> None:
        """Allocate on cuda:0 and run one elementwise kernel and a reduction: is_available() only
        counts devices, this is where a missing kernel image or a broken driver shows."""
        torch = self.torch
        x = torch.ones(4, device="cuda")
        got = float((x * 2).sum().item())
        torch.cuda.synchronize()
        if got != 8.0:
            raise RuntimeError(f"(ones(4) * 2).sum() gave {got}, expected 8.0")

    def need_cuda(self, what: str = "") -> None:
        """Raise Skip unless CUDA works here (the reason differs when devices exist but failed)."""
        if self.cuda_ok:
            return
        if self.environment.get("cuda", {}).get("devices"):
            raise Skip("CUDA is not usable (see cuda.available)" + (f": {what}" if what else ""))
        raise Skip("CUDA not available" + (f": {what}" if what else ""))

    def check_arch(self) -> str:
        cinfo = self.environment["cuda"]
        if not cinfo.get("devices"):
            raise Skip("CUDA not available")
        if self.environment["torch"]["hip"]:
            raise Skip("ROCm build: gfx arch checks are not implemented")
        verdicts = []
        for ix, d in device_groups(cinfo["devices"]):
            cap = tuple(int(x) for x in d["capability"].split("."))
            verdicts.append(arch_verdict(cap, cinfo["arch_list"], f"{_count(ix)}{d['name']}"))
        return _combine(verdicts)

    def check_driver(self) -> str:
        t = self.environment["torch"]
        if not t["cuda"]:
            raise Skip("torch is not a CUDA build")
        api = self.environment["cuda"].get("cuda_driver_api")
        driver = self.gpu.get("driver_version")
        st, detail = driver_verdict(driver, t["cuda"], api)
        if driver and api:
            detail += f"; the driver supports CUDA {api}"
        if driver:
            detail += f" (driver version from {self.gpu.get('driver_source')})"
        return _raise_for(st, detail)

    # -- checks: compute ----------------------------------------------------------------------

    def device(self):
        return self.torch.device("cuda" if self.cuda_ok else "cpu")

    def check_matmul(self) -> str:
        torch = self.torch
        dev = self.device()
        g = torch.Generator().manual_seed(0)
        n = 256 if self.mode == "quick" else 512
        a = torch.randn(n, n, generator=g)
        b = torch.randn(n, n, generator=g)
        ref = (a.double() @ b.double())
        out = (a.to(dev) @ b.to(dev)).cpu().double()
        err = rel_err(out, ref)
        tol = 5e-3 if dev.type == "cuda" else 1e-4
        parts = [f"float32 {n}x{n} on {dev}: relative error {err:.1e} (tolerance {tol:.0e})"]
        if not math.isfinite(err) or err > tol:
            raise Fail(parts[0] + " vs the float64 CPU reference")
        if dev.type == "cuda":
            out16 = (a.to(dev).half() @ b.to(dev).half()).float().cpu().double()
            e16 = rel_err(out16, ref)
            parts.append(f"float16: {e16:.1e}")
            if not math.isfinite(e16) or e16 > 2e-2:
                raise Fail("; ".join(parts) + " (float16 out of tolerance 2e-2)")
            # Every other visible GPU too: one bad device in a node otherwise shows only as an NCCL hang.
            others = list(range(1, int(torch.cuda.device_count())))
            for i in others:
                try:
                    d = torch.device("cuda", i)
                    ei = rel_err((a.to(d) @ b.to(d)).cpu().double(), ref)
                except Exception as e:
                    raise Fail("; ".join(parts) + f"; on cuda:{i} it failed: {type(e).__name__}: {_first_line(e)}") \
                        from None
                if not math.isfinite(ei) or ei > tol:
                    raise Fail("; ".join(parts) + f"; on cuda:{i} float32 relative error {ei:.1e} > {tol:.0e}")
            if others:
                parts.append(f"float32 also within tolerance on cuda:1..{others[-1]}")
        return "; ".join(parts)

    def check_conv2d(self) -> str:
        torch = self.torch
        dev = self.device()
        g = torch.Generator().manual_seed(1)
        x = torch.randn(8, 16, 32, 32, generator=g)
        w = torch.randn(32, 16, 3, 3, generator=g)
        ref = torch.nn.functional.conv2d(x.double(), w.double(), padding=1)
        out = torch.nn.functional.conv2d(x.to(dev), w.to(dev), padding=1).cpu().double()
        err = rel_err(out, ref)
        # cuDNN may use TF32 for convolutions (torch's default): ~1e-3 relative.
        tol = 1e-2 if dev.type == "cuda" else 1e-4
        text = f"conv2d 8x16x32x32 * 32x16x3x3 on {dev}: relative error {err:.1e} (tolerance {tol:.0e})"
        if not math.isfinite(err) or err > tol:
            raise Fail(text + " vs the float64 CPU reference")
        if dev.type == "cuda":
            with torch.autocast("cuda", dtype=torch.float16):
                o16 = torch.nn.functional.conv2d(x.to(dev), w.to(dev), padding=1)
            e16 = rel_err(o16.float().cpu().double(), ref)
            text += f"; autocast float16: {e16:.1e}"
            if not math.isfinite(e16) or e16 > 2e-2:
                raise Fail(text + " (autocast out of tolerance 2e-2)")
        return text

    def check_cudnn(self) -> str:
        self.need_cuda()
        if self.environment["torch"]["hip"]:
            raise Skip("ROCm build: MIOpen, not cuDNN")
        torch = self.torch
        info = self._cudnn_versions() or {}
        self.environment["torch"]["cudnn"] = info
        if not info.get("available"):
            raise Fail("cuDNN is not available to this CUDA torch build (torch.backends.cudnn.is_available() "
                       "is False): its cuDNN library is missing or cannot be loaded")
        if not info.get("enabled"):
            raise Fail("cuDNN is disabled (torch.backends.cudnn.enabled is False)")
        caps = [tuple(int(x) for x in d["capability"].split(".")) for d in self.environment["cuda"]["devices"]]
        st, detail = cudnn_verdict(info.get("runtime_tuple"), info.get("compile_tuple"),
                                   is_cuda=info.get("is_cuda", True), version_int=info.get("version_int"),
                                   min_capability=min(caps) if caps else None)
        if st == "skip":
            detail = f"cuDNN versions unknown ({info.get('error') or 'torch._C._cudnn missing'})"
            st = "warn"
        if info.get("torch_error"):
            # torch.backends.cudnn.version() refused the pair itself: its words are the verdict
            if os.environ.get("PYTORCH_SKIP_CUDNN_COMPATIBILITY_CHECK") != "1":
                raise Fail(f"torch.backends.cudnn.version() failed: {info['torch_error']}")
        if st == "fail":
            if os.environ.get("PYTORCH_SKIP_CUDNN_COMPATIBILITY_CHECK") == "1":
                raise Warn(detail + " (PYTORCH_SKIP_CUDNN_COMPATIBILITY_CHECK=1 hides this from torch)")
            raise Fail(detail)
        g = torch.Generator().manual_seed(3)
        x = torch.randn(2, 3, 16, 16, generator=g)
        w = torch.randn(4, 3, 3, 3, generator=g)
        ref = torch.nn.functional.conv2d(x.double(), w.double())
        out = torch.nn.functional.conv2d(x.cuda(), w.cuda())
        torch.cuda.synchronize()
        err = rel_err(out.cpu().double(), ref)
        if not math.isfinite(err) or err > 1e-2:
            raise Fail(f"{detail}; a cuDNN convolution is off by {err:.1e} (relative) from the CPU reference")
        return _raise_for(st, f"{detail}; enabled; a cuDNN convolution matches the CPU reference ({err:.1e})")

    def check_sdpa(self) -> str:
        """scaled_dot_product_attention against a float64 reference: float32 on the device, and on
        CUDA float16 and bfloat16 (native bf16 only: sm_80+) through the default dispatch and
        through each fused backend (flash, memory-efficient, cuDNN) that accepts the inputs; a
        backend that has no kernel for them is reported as n/a, not as a failure."""
        torch = self.torch
        F = torch.nn.functional
        dev = self.device()
        g = torch.Generator().manual_seed(2)
        q, k, v = (torch.randn(2, 4, 64, 32, generator=g) for _ in range(3))
        scores = (q.double() @ k.double().transpose(-2, -1)) / math.sqrt(q.shape[-1])
        ref = scores.softmax(-1) @ v.double()
        dtypes = [torch.float32]
        if dev.type == "cuda":
            dtypes.append(torch.float16)
            if self._native_bf16():
                dtypes.append(torch.bfloat16)
        backends = self._sdpa_backends() if dev.type == "cuda" else []
        parts, na = [], []
        for dt in dtypes:
            name = str(dt).replace("torch.", "")
            tol = 1e-4 if dt == torch.float32 and dev.type == "cpu" else 5e-3 if dt == torch.float32 else 3e-2
            runs = [("default", None)] + ([(b, kind) for b, kind in backends] if dt != torch.float32 else [])
            for label, kind in runs:
                try:
                    if kind is None:
                        out = F.scaled_dot_product_attention(q.to(dev, dt), k.to(dev, dt), v.to(dev, dt))
                    else:
                        from torch.nn.attention import sdpa_kernel
                        with warnings.catch_warnings():
                            warnings.simplefilter("ignore")  # "Flash attention requires ..." per refusal
                            with sdpa_kernel([kind]):
                                out = F.scaled_dot_product_attention(q.to(dev, dt), k.to(dev, dt), v.to(dev, dt))
                except RuntimeError as e:
                    if kind is not None and "No available kernel" in str(e):
                        na.append(f"{label} {name}")
                        continue
                    raise Fail(f"scaled_dot_product_attention ({label}, {name} on {dev}) raised: "
                               f"{_first_line(e)}") from None
                out = out.float().cpu().double()
                where = f"{name} on {dev}" + ("" if kind is None else f", {label} backend")
                if torch.isnan(out).any():
                    raise Fail(f"scaled_dot_product_attention returned NaN ({where}): a known symptom of a "
                               "broken cuDNN/CUDA pairing (pytorch#167602)")
                err = rel_err(out, ref)
                if err > tol:
                    raise Fail(f"scaled_dot_product_attention ({where}): relative error {err:.1e} > {tol:.0e}")
                parts.append(f"{name}{'' if kind is None else ' ' + label} {err:.1e}")
        text = f"scaled_dot_product_attention on {dev}, no NaN; relative error {', '.join(parts)}"
        if na:
            text += f"; no kernel for these inputs: {', '.join(na)}"
        return text

    def _native_bf16(self) -> bool:
        """bfloat16 in hardware on every visible device (sm_80+); is_bf16_supported()'s default
        also counts emulation, which SDPA's fused kernels do not offer."""
        torch = self.torch
        try:
            return bool(torch.cuda.is_bf16_supported(including_emulation=False))
        except TypeError:  # torch < 2.3 has no including_emulation
            return all(int(d["capability"].split(".")[0]) >= 8 for d in self.environment["cuda"]["devices"])

    def _sdpa_backends(self) -> list:
        """[(label, torch.nn.attention.SDPBackend member)] for the fused CUDA backends this torch
        has; [] before torch 2.3 (no torch.nn.attention)."""
        try:
            from torch.nn.attention import SDPBackend
        except Exception:
            return []
        names = [("flash", "FLASH_ATTENTION"), ("mem-efficient", "EFFICIENT_ATTENTION"), ("cudnn", "CUDNN_ATTENTION")]
        return [(label, getattr(SDPBackend, attr)) for label, attr in names if hasattr(SDPBackend, attr)]

    def check_bandwidth(self) -> str:
        self.need_cuda("no host<->device copies to measure")
        torch = self.torch
        mib = 16 if self.mode == "quick" else 64
        n = mib * 1024 * 1024 // 4
        pinned = torch.arange(n, dtype=torch.float32).pin_memory()
        if not pinned.is_pinned():
            raise Fail("Tensor.pin_memory() returned memory that is not page-locked")
        pageable = torch.arange(n, dtype=torch.float32)  # a fresh allocation: never pinned
        dev = torch.empty(n, dtype=torch.float32, device="cuda")
        back = torch.empty(n, dtype=torch.float32, pin_memory=True)
        nbytes = n * 4
        h2d = copy_gbps(torch, lambda: dev.copy_(pinned, non_blocking=True), nbytes)
        d2h = copy_gbps(torch, lambda: back.copy_(dev, non_blocking=True), nbytes)
        h2d_pageable = copy_gbps(torch, lambda: dev.copy_(pageable), nbytes)
        if not torch.equal(back, pinned):
            raise Fail("host->device->host copy of pinned memory changed the data")
        text = (f"pinned {mib} MiB: host->device {h2d:.1f} GB/s, device->host {d2h:.1f} GB/s; "
                f"pageable host->device {h2d_pageable:.1f} GB/s (CUDA events)")
        if h2d < 2.0:
            raise Warn(text + ": under 2 GB/s, the GPU will starve on input (PCIe link width/generation, "
                       "virtualisation or IOMMU?)")
        return text

    # -- checks: DataLoader -----------------------------------------------------------------------

    def dataset(self, n: int, shape=(3, 8, 8), latency_ms: float = 0.0, decode_iters: int = 0, **extra):
        faults = {k: v for k, v in (self.config.get("workload") or {}).items()
                  if k in ("hang_at", "crash_at", "crash", "crash_main", "pid_file")}
        faults.update(extra)
        return SyntheticDataset(n, shape, latency_ms, decode_iters, **faults)

    def _loader(self, ds, **kw):
        torch = self.torch
        return torch.utils.data.DataLoader(ds, **kw)

    def _drain(self, loader, check: str) -> tuple[set, set, int]:
        """Iterate a loader once: (sample indices, worker pids, batches)."""
        idx, pids, batches = set(), set(), 0
        it = iter(loader)
        announce_workers(it, check)
        try:
            for x, meta in it:
                batches += 1
                idx.update(int(i) for i in meta[:, 0])
                pids.update(int(p) for p in meta[:, 1])
        except RuntimeError as e:
            deaths = worker_deaths(it)
            raise Fail(f"RuntimeError: {str(e).strip()}" + (f" ({deaths})" if deaths else "")) from None
        return idx, pids, batches

    def check_workers(self, method: str, spawn_check: bool = False) -> str:
        import multiprocessing as mp
        name = f"dataloader.workers.{method}"
        if spawn_check and self.default_start_method() == "spawn":
            raise Skip("spawn is this platform's default start method: covered by dataloader.workers.spawn")
        if method not in mp.get_all_start_methods():
            raise Skip(f"start method {method!r} is not available on this platform")
        workers = 1 if spawn_check and self.mode != "full" else 2
        n = 32
        ds = self.dataset(n)
        t = time.perf_counter()
        loader = self._loader(ds, batch_size=4, num_workers=workers, multiprocessing_context=method)
        idx, pids, _ = self._drain(loader, name)
        dt = time.perf_counter() - t
        if idx != set(range(n)):
            raise Fail(f"{workers} workers ({method}) delivered {len(idx)}/{n} distinct samples")
        child = pids - {os.getpid()}
        if len(child) != workers:
            raise Fail(f"expected {workers} worker processes ({method}), saw {len(child)}")
        return f"{workers} worker(s) started with {method!r} and delivered {n}/{n} samples in {dt:.2f} s"

    def check_pin_memory(self) -> str:
        self.need_cuda("DataLoader ignores pin_memory without an accelerator")
        loader = self._loader(self.dataset(16), batch_size=4, num_workers=1, pin_memory=True)
        pinned = [x.is_pinned() for x, _ in loader]
        if not all(pinned):
            raise Fail(f"pin_memory=True but {pinned.count(False)}/{len(pinned)} batches were not pinned")
        return f"{len(pinned)} batches arrived in pinned memory (pin-memory thread works)"

    def check_persistent(self) -> str:
        loader = self._loader(self.dataset(16), batch_size=4, num_workers=2, persistent_workers=True)
        _, p1, _ = self._drain(loader, "dataloader.persistent_workers")
        _, p2, _ = self._drain(loader, "dataloader.persistent_workers")
        p1.discard(os.getpid())
        p2.discard(os.getpid())
        it = getattr(loader, "_iterator", None)
        if it is not None:
            it._shutdown_workers()
        if p1 != p2:
            raise Fail(f"persistent_workers=True but epoch 2 used other workers ({sorted(p1)} vs {sorted(p2)})")
        return f"the same 2 workers ({', '.join(map(str, sorted(p1)))}) served both epochs"

    def check_prefetch(self) -> str:
        loader = self._loader(self.dataset(24), batch_size=4, num_workers=1, prefetch_factor=4)
        idx, _, batches = self._drain(loader, "dataloader.prefetch_factor")
        if idx != set(range(24)):
            raise Fail(f"prefetch_factor=4 delivered {len(idx)}/24 samples")
        try:
            self._loader(self.dataset(4), num_workers=0, prefetch_factor=4)
            rejected = "accepted (unexpected)"
        except ValueError:
            rejected = "rejected with ValueError, as documented"
        return f"prefetch_factor=4 with 1 worker delivered {batches} batches; with num_workers=0 it is {rejected}"

    def check_shm(self) -> str:
        info = self.environment.get("shm")
        if info is None:
            raise Skip(f"no {self.config.get('shm_path')} on this platform (workers share memory another way)")
        w = self.workload()
        batch_bytes = 4 * w["batch_size"] * math.prod(w["sample_shape"])
        workers = max(1, int(w["max_workers"]))
        in_flight = batch_bytes * workers * 2  # prefetch_factor 2 batches per worker
        st, detail = shm_verdict(info["total"], info["free"], in_flight)
        detail += f" ({workers} workers x prefetch 2 x {batch_bytes / 2**20:.1f} MiB batches)"
        # What an ImageNet-style loader would need: 8 workers x 2 x batch 256 of 3x224x224 float32.
        big = 8 * 2 * 256 * 3 * 224 * 224 * 4
        if st == "pass" and big > info["free"]:
            detail += (f"; note: 8 workers x prefetch 2 x batches of 256 224x224 images ({big / 2**30:.1f} GiB) "
                       "would not fit")
        return _raise_for(st, detail)

    def check_cuda_fork(self) -> str:
        import multiprocessing as mp
        torch = self.torch
        self.need_cuda()
        if "fork" not in mp.get_all_start_methods():
            raise Skip("no fork start method on this platform")
        initialised = torch.cuda.is_initialized()
        default = self.default_start_method()
        loader = self._loader(self.dataset(4, cuda_in_getitem=True), batch_size=2, num_workers=1,
                              multiprocessing_context="fork")
        try:
            for _ in loader:
                pass
            forked = "a forked worker used CUDA without error (unexpected)"
            ok_fork = False
        except Exception as e:  # the worker's exception, re-raised by the DataLoader with its type
            msg = str(e)
            ok_fork = "Cannot re-initialize CUDA in forked subprocess" in msg
            forked = ("a forked worker touching CUDA fails with 'Cannot re-initialize CUDA in forked subprocess'"
                      if ok_fork else f"a forked worker touching CUDA failed differently: {_worker_error(e)}")
        loader = self._loader(self.dataset(4, cuda_in_getitem=True), batch_size=2, num_workers=1,
                              multiprocessing_context="spawn")
        try:
            for _ in loader:
                pass
        except Exception as e:
            raise Fail(f"CUDA initialised in the parent: {initialised}; {forked}; and with "
                       "multiprocessing_context='spawn' a worker touching CUDA failed too: "
                       f"{_worker_error(e)}") from None
        text = (f"CUDA initialised in the parent: {initialised}; {forked}; with "
                "multiprocessing_context='spawn' the same dataset works. Explanation: once the parent process "
                "has initialised CUDA, workers forked from it cannot use CUDA; keep CUDA out of "
                "Dataset.__getitem__/collate_fn, or pass multiprocessing_context='spawn' (or 'forkserver')")
        if default == "fork":
            text += f"; this platform's default start method is fork"
        if not ok_fork:
            raise Warn(text)
        return text

    # -- DataLoader throughput ----------------------------------------------------------------------

    def check_throughput(self) -> str:
        w = self.workload()
        spin_rate = calibrate_spin()
        decode_iters = int(w["decode_ms"] * spin_rate)
        pin_choices = [False, True] if self.cuda_ok else [False]
        quick = self.mode == "quick"
        result = sweep_dataloader(
            self.torch, lambda n: self.dataset(n, w["sample_shape"], w["latency_ms"], decode_iters),
            w, quick=quick, pin_choices=pin_choices, device="cuda" if self.cuda_ok else None,
            on_point=lambda p: progress("dataloader.throughput", _point_text(p)),
            on_iter=lambda it: announce_workers(it, "dataloader.throughput"))
        workload = dict(w)
        workload.update(decode_iterations=decode_iters, spin_iterations_per_ms=round(spin_rate, 1),
                        usable_cores=usable_cores(),
                        pin_memory_swept=self.cuda_ok,
                        batch_bytes=4 * w["batch_size"] * math.prod(w["sample_shape"]),
                        cuda_initialised_before_workers=bool(self.cuda_ok and self.torch.cuda.is_initialized()))
        result["workload"] = {k: v for k, v in workload.items()
                              if k not in ("hang_at", "crash_at", "crash", "crash_main", "pid_file")}
        self.dataloader = result
        emit({"event": "dataloader", "dataloader": result})
        rec = result["recommended"]
        if rec is None:
            raise Fail("no sweep point finished")
        return (f"{len(result['sweep'])} settings ({result['search']}): best {result['best_samples_per_s']:.0f} "
                f"samples/s, {result['speedup']:.1f}x over num_workers=0; recommended "
                f"{result['recommended_kwargs']}")

    # -- distributed ------------------------------------------------------------------------------

    def check_distributed(self, backend: str) -> str:
        torch = self.torch
        import torch.distributed as dist
        if not dist.is_available():
            raise Skip("this torch build has no torch.distributed")
        if backend == "gloo":
            if not dist.is_gloo_available():
                raise Skip("this torch build has no gloo backend")
            world = 2
        else:
            self.need_cuda("NCCL needs GPUs")
            if not dist.is_nccl_available():
                raise Fail("this CUDA torch build has no NCCL backend: multi-GPU jobs cannot use nccl")
            world = torch.cuda.device_count()
        own = self.config.get("dist_timeout") or self.timeout_of(f"distributed.{backend}",
                                                                 dict(CHECKS)[f"distributed.{backend}"]) * 0.8
        return launch_distributed(backend, world, timeout=float(own), fail_rank=self.config.get("dist_fail_rank"),
                                  hang_rank=self.config.get("dist_hang_rank"))


def announce_workers(iterator, check: str) -> None:
    """Tell the runner which worker processes a DataLoader iterator started (for hang reports)."""
    workers = getattr(iterator, "_workers", None) or []
    pids = [w.pid for w in workers if getattr(w, "pid", None)]
    if pids:
        emit({"event": "pids", "check": check, "pids": pids})


def worker_deaths(iterator) -> str:
    """How the iterator's dead workers ended: 'worker pid 12 killed by signal SIGBUS (Bus error)'."""
    import signal as _signal

    out = []
    for w in getattr(iterator, "_workers", None) or []:
        code = getattr(w, "exitcode", None)
        if code is None or code == 0:
            continue
        if code < 0:
            try:
                sig = _signal.Signals(-code)
                desc = _signal.strsignal(sig) if hasattr(_signal, "strsignal") else sig.name
                out.append(f"worker pid {w.pid} killed by signal {sig.name} ({desc})")
            except ValueError:
                out.append(f"worker pid {w.pid} killed by signal {-code}")
        else:
            out.append(f"worker pid {w.pid} exited with code {code}")
    return "; ".join(out)


def copy_gbps(torch, fn, nbytes: int, reps: int = 5) -> float:
    """GB/s of `reps` calls of the copy `fn` (each moving `nbytes`), timed with CUDA events on the
    current stream after one warm-up call: events time the copies on the device, not the host's
    view of asynchronous launches.  Event.elapsed_time() is in milliseconds."""
    fn()
    torch.cuda.synchronize()
    start = torch.cuda.Event(enable_timing=True)
    end = torch.cuda.Event(enable_timing=True)
    start.record()
    for _ in range(reps):
        fn()
    end.record()
    end.synchronize()
    ms = float(start.elapsed_time(end))
    if ms <= 0:
        raise Fail(f"CUDA events timed {reps} copies of {nbytes} bytes at {ms} ms")
    return reps * nbytes / (ms / 1000.0) / 1e9


def device_groups(devices: list[dict]) -> list[tuple[list[int], dict]]:
    """Devices grouped by (name, capability, memory), in index order: an 8-GPU node is one group."""
    groups: dict[tuple, tuple[list[int], dict]] = {}
    for d in devices:
        key = (d["name"], d["capability"], d["total_memory"])
        groups.setdefault(key, ([], d))[0].append(d["index"])
    return list(groups.values())


def _count(indices: list[int]) -> str:
    return f"{len(indices)}x " if len(indices) > 1 else ""


def _worker_error(e: BaseException) -> str:
    """A DataLoader worker's original error from the exception the loader re-raised ("Caught
    RuntimeError in DataLoader worker process 0. Original Traceback ...: RuntimeError: TEXT" ->
    "RuntimeError: TEXT"); "Type: first line" when there is no worker traceback."""
    msg = str(e)
    lines = [ln.strip() for ln in msg.strip().splitlines() if ln.strip()]
    if "Original Traceback" in msg and lines:
        return lines[-1][:400]
    return f"{type(e).__name__}: {lines[0][:400] if lines else '(no message)'}"


def _first_line(e: BaseException) -> str:
    text = str(e).strip()
    return text.splitlines()[0][:400] if text else type(e).__name__


def rel_err(out, ref) -> float:
    den = float(ref.norm())
    return float((out - ref).norm()) / (den or 1.0)


def _combine(verdicts: list[tuple[str, str]]) -> str:
    order = {"fail": 3, "warn": 2, "pass": 1, "skip": 0}
    worst = max((v[0] for v in verdicts), key=order.get, default="skip")
    return _raise_for(worst, "; ".join(v[1] for v in verdicts) or "no devices")


def _raise_for(status: str, detail: str) -> str:
    if status == "fail":
        raise Fail(detail)
    if status == "warn":
        raise Warn(detail)
    if status == "skip":
        raise Skip(detail)
    return detail


def _point_text(p: dict) -> str:
    return (f"num_workers={p['num_workers']} pin_memory={p['pin_memory']} "
            f"persistent_workers={p['persistent_workers']}: {p['samples_per_s']:.0f} samples/s")


# ---------------------------------------------------------------------------------------------
# the sweep (importable: bench/bench_smoke.py calls it in-process)


def measure_point(torch, make_dataset, w: dict, num_workers: int, pin: bool, persistent: bool,
                  samples: int, epochs: int, device=None, on_iter=None) -> dict:
    """Time `epochs` passes of a DataLoader over `samples` synthetic samples, worker start-up
    included (that is what persistent_workers saves); returns one sweep point."""
    ds = make_dataset(samples)
    kw = {"batch_size": w["batch_size"], "num_workers": num_workers, "pin_memory": pin}
    if num_workers > 0:
        kw.update(persistent_workers=persistent, prefetch_factor=2)
    t = time.perf_counter()
    loader = torch.utils.data.DataLoader(ds, **kw)
    seen = batches = 0
    first = 0.0  # summed over epochs: from asking for an iterator to its first batch
    for _ in range(epochs):
        t_epoch = time.perf_counter()
        it = iter(loader)
        if on_iter is not None:
            on_iter(it)
        got_first = False
        for x, meta in it:
            if not got_first:
                first += time.perf_counter() - t_epoch
                got_first = True
            if device is not None:
                x = x.to(device, non_blocking=pin)
            seen += int(meta.shape[0])
            batches += 1
    if device is not None:
        torch.cuda.synchronize()
    dt = time.perf_counter() - t
    it = getattr(loader, "_iterator", None)
    if it is not None and persistent:
        it._shutdown_workers()
    del loader
    return {"num_workers": num_workers, "pin_memory": pin, "persistent_workers": persistent if num_workers else False,
            "prefetch_factor": 2 if num_workers else None, "samples": seen,
            "seconds": round(dt, 4), "batches": batches, "epochs": epochs,
            "first_batch_seconds": round(first, 4),
            "samples_per_s": round(seen / dt, 2) if dt > 0 else None}


def _steady_and_startup(point: dict) -> tuple[float, float] | None:
    """(steady seconds per batch, start-up seconds per epoch) of a measured point, or None."""
    dt, n, e = point.get("seconds") or 0.0, point.get("batches") or 0, point.get("epochs") or 1
    first = point.get("first_batch_seconds") or 0.0
    if dt <= 0 or n <= e:
        return None
    per_batch = max(dt - first, 0.0) / (n - e)
    return per_batch, max(first - e * per_batch, 0.0) / e


def persistent_estimate(point: dict, samples: int, epochs: int, batch_size: int) -> dict:
    """The sweep point `point` would give with persistent_workers=True, estimated (not measured):
    the workers start once instead of once per epoch."""
    est = {k: v for k, v in point.items() if k not in ("measured_samples_per_s",)}
    est.update(persistent_workers=True, estimated=True, extrapolated=True)
    parts = _steady_and_startup(point)
    if parts is None:
        return est
    per_batch, startup = parts
    t_full = startup + per_batch * (-(-samples // batch_size) * epochs)
    est["samples_per_s"] = round(samples * epochs / t_full, 2) if t_full > 0 else point.get("samples_per_s")
    return est


def extrapolate(point: dict, samples: int, epochs: int, batch_size: int) -> float | None:
    """Samples/s that `point`, measured on fewer samples, would reach on `samples` x `epochs`.

    A short run overweights worker start-up, which made the quick search favour fewer workers than
    the full sweep would.  The steady time per batch comes from the batches after each epoch's
    first; start-up is what each first batch took beyond that; the full run keeps the start-up and
    scales the steady part to its number of batches."""
    parts = _steady_and_startup(point)
    if parts is None:
        return point.get("samples_per_s")
    per_batch, startup = parts
    # without persistent workers every epoch starts its workers again
    t_full = startup * epochs + per_batch * (-(-samples // batch_size) * epochs)
    return round(samples * epochs / t_full, 2) if t_full > 0 else point.get("samples_per_s")


def sweep_dataloader(torch, make_dataset, w: dict, *, quick: bool, pin_choices=(False,), device=None,
                     on_point=None, on_iter=None) -> dict:
    """Sweep DataLoader settings over the synthetic workload `w`.

    Exhaustive: every num_workers in 0, 1, 2, 4, ... max_workers x pin_memory (only swept with CUDA)
    x persistent_workers (only with workers).  Quick: one epoch of a quarter of the samples per
    point (at least two batches per worker plus two), each point's throughput extrapolated to the
    full workload (`extrapolate`: start-up per epoch kept, steady state scaled; the measured value
    stays in `measured_samples_per_s`), a hill-climb over num_workers (from 2 on, stop at the first
    step that gains < 10 % over the best so far), then persistent_workers estimated at the winner
    from its measured start-up (`persistent_estimate`, marked `estimated`), and with CUDA
    pin_memory tried at the winner.
    """
    t0 = time.perf_counter()
    cands = worker_candidates(int(w["max_workers"]))
    samples, epochs = int(w["samples"]), int(w["epochs"])
    sweep: list[dict] = []

    def point(nw, pin, persistent, n, ep=epochs):
        p = measure_point(torch, make_dataset, w, nw, pin, persistent, n, ep, device, on_iter)
        if n < samples or ep < epochs:
            # quick: compare settings at the full workload's scale (see extrapolate)
            p["measured_samples_per_s"] = p["samples_per_s"]
            p["samples_per_s"] = extrapolate(p, samples, epochs, int(w["batch_size"]))
            p["extrapolated"] = True
        sweep.append(p)
        if on_point:
            on_point(p)
        return p

    if not quick:
        for nw in cands:
            for pin in pin_choices:
                for persistent in ([False, True] if nw else [False]):
                    point(nw, pin, persistent, samples)
        search = "exhaustive"
    else:
        bs = int(w["batch_size"])
        base_pin = bool(pin_choices[-1])  # with CUDA, climb with pinned memory on (the usual winner)

        def size(nw):
            # one epoch of a quarter of the workload, but at least two batches per worker plus two:
            # the steady state needs batches beyond each worker's first to be measured at all
            return min(samples, max(samples // 4, bs * (2 * nw + 2)))

        best = point(0, False, False, size(0), 1)
        for nw in cands[1:]:
            p = point(nw, base_pin, False, size(nw), 1)
            gain = (p["samples_per_s"] or 0) / (best["samples_per_s"] or 1)
            if gain > 1.0:
                best = p
            # One worker only overlaps loading with the loop, so it says little about scaling:
            # always go on to two before judging.
            if nw >= 2 and gain < 1.10:
                break
        if best["num_workers"] and epochs > 1:
            # persistent_workers saves the start-up of every epoch after the first: estimated from
            # the start-up the climb measured, not run again
            est = persistent_estimate(best, samples, epochs, bs)
            sweep.append(est)
            if on_point:
                on_point(est)
            if (est["samples_per_s"] or 0) > (best["samples_per_s"] or 0):
                best = est
        if best["num_workers"] and len(pin_choices) > 1:
            nw = best["num_workers"]
            trial = point(nw, not best["pin_memory"], False, size(nw), 1)
            if (trial["samples_per_s"] or 0) > (best["samples_per_s"] or 0) * 1.02:
                best = trial
        search = "quick (adaptive)"
    base = [p for p in sweep if p["num_workers"] == 0 and p["samples_per_s"]]
    base_tp = max((p["samples_per_s"] for p in base), default=None)
    for p in sweep:
        p["speedup"] = round(p["samples_per_s"] / base_tp, 3) if base_tp and p["samples_per_s"] else None
    rec = recommend(sweep)
    kwargs = loader_kwargs(rec, int(w["batch_size"])) if rec else None
    best_tp = max((p["samples_per_s"] or 0 for p in sweep), default=0)
    return {
        "search": search,
        "worker_candidates": cands,
        "sweep": sweep,
        "recommended": kwargs,
        "recommended_kwargs": kwargs_text(kwargs) if kwargs else None,
        "recommended_samples_per_s": rec["samples_per_s"] if rec else None,
        "baseline_samples_per_s": base_tp,
        "best_samples_per_s": best_tp,
        "speedup": round((rec["samples_per_s"] / base_tp), 3) if rec and base_tp else None,
        "seconds": round(time.perf_counter() - t0, 3),
    }


# ---------------------------------------------------------------------------------------------
# torch.distributed, launched by torchrun itself (torch.distributed.run: its elastic agent, its
# c10d rendezvous, the environment it gives every rank)


def torchrun_argv(world: int, script_args: list[str]) -> list[str]:
    """The torchrun command line for `world` ranks on this node running this file with
    `script_args`: `python -m torch.distributed.run --standalone --nnodes=1 --nproc_per_node=N
    --max_restarts=0 --monitor_interval=0.5 probe.py ...` (the underscore spellings are the ones
    every torchrun since 1.10 accepts)."""
    return [sys.executable, "-m", "torch.distributed.run", "--standalone", "--nnodes=1",
            f"--nproc_per_node={int(world)}", "--max_restarts=0", "--monitor_interval=0.5",
            os.path.abspath(__file__)] + list(script_args)


def torchrun_root_cause(text: str) -> tuple[int | None, int | None]:
    """(rank, exit code) of the first failure in torchrun's ChildFailedError summary
    ("Root Cause (first observed failure): ... rank : 1 (local_rank: 1) ... exitcode : 3 (pid: 12)");
    (None, None) when the text has none."""
    part = text.split("Root Cause", 1)[1] if "Root Cause" in text else text
    rank = re.search(r"^\s*rank\s*:\s*(\d+)", part, re.M)
    code = re.search(r"^\s*exitcode\s*:\s*(-?\d+)", part, re.M)
    return (int(rank.group(1)) if rank else None, int(code.group(1)) if code else None)


def _read(path: str) -> str:
    try:
        with open(path, errors="replace") as f:
            return f.read()
    except OSError:
        return ""


def launch_distributed(backend: str, world: int, timeout: float = 90.0, fail_rank: int | None = None,
                       hang_rank: int | None = None) -> str:
    """Run an all_reduce across `world` ranks started by torchrun (see torchrun_argv); return a
    detail line or raise Fail.

    Each rank writes its pid when it starts (announced to the runner: torchrun starts every rank in
    a session of its own, outside the probe's process group), then its result or its error, to a
    scratch directory.  torchrun stops the other ranks when one fails; its exit status and its
    root-cause summary name the rank, the rank's own file says why.  On `timeout` torchrun is asked
    to stop (SIGTERM: it stops its ranks), then everything left is killed.  `fail_rank` /
    `hang_rank` (test knobs) make that rank exit with an error / block before joining."""
    import importlib.util
    import signal as _signal
    import tempfile

    if importlib.util.find_spec("torch.distributed.run") is None:
        raise Skip("this torch has no torchrun (torch.distributed.run)")
    t0 = time.perf_counter()
    # next to this file: the runner's scratch directory, removed even when the probe is killed
    work = tempfile.mkdtemp(prefix="dist-", dir=os.path.dirname(os.path.abspath(__file__)))
    args = ["--dist-worker", backend, "--dist-dir", work, "--dist-timeout", str(int(max(10, timeout - 5)))]
    if fail_rank is not None:
        args += ["--dist-fail", str(int(fail_rank))]
    if hang_rank is not None:
        args += ["--dist-hang", str(int(hang_rank))]
    out = open(os.path.join(work, "torchrun.out"), "w+")
    err = open(os.path.join(work, "torchrun.err"), "w+")
    proc = subprocess.Popen(torchrun_argv(world, args), stdout=out, stderr=err, stdin=subprocess.DEVNULL)
    emit({"event": "pids", "check": f"distributed.{backend}", "pids": [proc.pid]})
    announced: set[int] = set()

    def announce() -> None:
        new = []
        for r in range(world):
            text = _read(os.path.join(work, f"rank{r}.pid")).strip()
            if text.isdigit() and int(text) not in announced:
                announced.add(int(text))
                new.append(int(text))
        if new:
            emit({"event": "pids", "check": f"distributed.{backend}", "pids": new})

    def stop() -> None:
        if proc.poll() is None:
            proc.send_signal(_signal.SIGTERM)  # torchrun's agent stops its ranks on SIGTERM
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
        announce()
        for pid in announced:  # whatever the agent left behind (ranks run in their own sessions)
            try:
                os.kill(pid, _signal.SIGKILL)
            except OSError:
                pass

    try:
        deadline = time.monotonic() + timeout
        while proc.poll() is None:
            announce()
            if time.monotonic() > deadline:
                stop()
                raise Fail(f"{backend} all_reduce across {world} processes (torchrun) did not finish within "
                           f"{timeout:.0f} s (rendezvous hang: firewall, wrong interface? try "
                           "GLOO_SOCKET_IFNAME/NCCL_SOCKET_IFNAME=lo)")
            time.sleep(0.05)
        announce()
        results, errors = [], {}
        for r in range(world):
            got = _read(os.path.join(work, f"rank{r}.json")).strip()
            if got:
                results.append(json.loads(got))
            failed = _read(os.path.join(work, f"rank{r}.err")).strip()
            if failed:
                errors[r] = json.loads(failed)
        if proc.returncode != 0 or len(results) != world:
            torchrun_err = _read(err.name)
            rank, code = torchrun_root_cause(torchrun_err)
            if rank is None and errors:
                rank = min(errors)
            if rank is not None and rank in errors:
                why = errors[rank]["error"]
                code = errors[rank].get("exit", code)
            else:
                lines = [ln for ln in torchrun_err.strip().splitlines() if ln.strip() and not ln.startswith("*")]
                why = lines[-1].strip() if lines else "no output"
            who = f"rank {rank}/{world}" if rank is not None else f"torchrun ({world} ranks)"
            raise Fail(f"{backend} {who} exited with {code if code is not None else proc.returncode}: {why[:400]}")
    finally:
        stop()
        out.close()
        err.close()
        shutil.rmtree(work, ignore_errors=True)
    want = world * (world + 1) / 2
    bad = [r for r in results if abs(r["value"] - want) > 1e-6]
    if bad:
        raise Fail(f"{backend} all_reduce gave {bad[0]['value']} on rank {bad[0]['rank']}, expected {want}")
    dt = time.perf_counter() - t0
    devs = sorted({r.get("device", "cpu") for r in results})
    dev = devs[0] if len(devs) == 1 else ", ".join(devs)
    return (f"all_reduce(SUM) across {world} process(es) with {backend} on {dev} = {want:g} on every rank, "
            f"launched by torchrun (--standalone, env:// rendezvous) in {dt:.1f} s")


def rank_device(torch, backend: str, local_rank: int):
    """The device a rank works on, set up as a torchrun-launched script does: for NCCL
    torch.cuda.set_device(LOCAL_RANK) *before* init_process_group (else every rank uses cuda:0);
    raises RuntimeError when LOCAL_RANK has no GPU.  Returns a torch.device."""
    if backend != "nccl":
        return torch.device("cpu")
    count = torch.cuda.device_count()
    if local_rank >= count:
        raise RuntimeError(f"LOCAL_RANK {local_rank} but only {count} visible GPU(s) (CUDA_VISIBLE_DEVICES="
                           f"{os.environ.get('CUDA_VISIBLE_DEVICES')!r})")
    torch.cuda.set_device(local_rank)
    return torch.device("cuda", local_rank)


def _watch_parent() -> None:
    """End this rank when its launcher dies (it was re-parented): torchrun starts ranks in sessions
    of their own, so a launcher killed with SIGKILL would otherwise leave them waiting in the
    rendezvous until their own timeout."""
    import threading

    parent = os.getppid()

    def watch() -> None:
        while True:
            time.sleep(0.25)
            if os.getppid() != parent:
                os._exit(1)

    threading.Thread(target=watch, name="envkit-parent-watch", daemon=True).start()


def dist_worker(backend: str, timeout_s: int, fail: bool = False, out_dir: str | None = None,
                hang: bool = False) -> int:
    """One rank: the body a torchrun-launched training script runs first.  With `out_dir`, the
    rank's pid, then its result (rank{R}.json) or its error (rank{R}.err), are written there."""
    rank_env = os.environ.get("RANK", "0")

    def put(name: str, text: str) -> None:
        if out_dir:
            with open(os.path.join(out_dir, f"rank{rank_env}.{name}.tmp"), "w") as f:
                f.write(text)
            os.replace(os.path.join(out_dir, f"rank{rank_env}.{name}.tmp"),
                       os.path.join(out_dir, f"rank{rank_env}.{name}"))

    put("pid", str(os.getpid()))
    if fail:
        msg = "RuntimeError: envkit smoke test fault: this rank fails before joining"
        sys.stderr.write(msg + "\n")
        put("err", json.dumps({"error": msg, "exit": 3}))
        return 3
    if hang:
        while True:
            time.sleep(3600)
    try:
        import inspect
        from datetime import timedelta

        import torch
        import torch.distributed as dist

        rank, world = int(os.environ["RANK"]), int(os.environ["WORLD_SIZE"])
        local = int(os.environ["LOCAL_RANK"])
        device = rank_device(torch, backend, local)
        kwargs = {"backend": backend, "init_method": "env://", "timeout": timedelta(seconds=timeout_s)}
        if backend == "nccl" and "device_id" in inspect.signature(dist.init_process_group).parameters:
            # torch >= 2.3: bind the rank to its GPU and form the NCCL communicator now, so that an
            # NCCL problem shows here rather than in the first collective
            kwargs["device_id"] = device
        dist.init_process_group(**kwargs)
        t = torch.full((4,), float(rank + 1), device=device)
        dist.all_reduce(t, op=dist.ReduceOp.SUM)
        if backend == "nccl":
            torch.cuda.synchronize(device)
            dist.barrier(device_ids=[local])
        else:
            dist.barrier()
        value = float(t[0].item())
        dist.destroy_process_group()
    except BaseException as e:
        put("err", json.dumps({"error": f"{type(e).__name__}: {_first_line(e)}", "exit": 1}))
        raise
    result = json.dumps({"rank": rank, "value": value, "device": str(device)})
    put("json", result)
    print(result, flush=True)
    return 0


def main(argv: list[str]) -> int:
    if argv[:1] == ["--dist-worker"]:
        opts = dict(zip(argv[2::2], argv[3::2]))
        rank = os.environ.get("RANK", "0")
        if opts.get("--dist-dir"):
            _watch_parent()
        return dist_worker(argv[1], int(opts.get("--dist-timeout", 60)), fail=opts.get("--dist-fail") == rank,
                           out_dir=opts.get("--dist-dir"), hang=opts.get("--dist-hang") == rank)
    config = {}
    if len(argv) >= 2 and argv[0] == "--config":
        config = json.loads(argv[1])
    Probe(config).run()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
