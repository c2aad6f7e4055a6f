"""Facts about the machine and the environment read without torch: cores, GPUs, driver, conda-meta, pip."""

from __future__ import annotations

import glob
import json
import math
import os
import re
import shutil
import subprocess


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


def gpu_presence(dev_glob: str, nvidia_smi: str, proc_driver: str) -> dict:
    """Is an NVIDIA GPU present, independent of torch: device nodes, nvidia-smi, the kernel module."""
    nodes = sorted(glob.glob(dev_glob)) if dev_glob else []
    smi = shutil.which(nvidia_smi) if nvidia_smi else None
    info: dict = {
        "dev_nodes": nodes,
        "nvidia_smi": smi,
        "driver_version": None,
        "gpus": [],
        "driver_source": None,
    }
    if smi:
        try:
            # old drivers do not know compute_cap: then the first two fields alone
            for query in ("name,driver_version,compute_cap,memory.total", "name,driver_version"):
                argv = [smi, f"--query-gpu={query}", "--format=csv,noheader"]
                out = subprocess.run(argv, capture_output=True, text=True, timeout=20)
                if out.returncode == 0:
                    break
            if out.returncode == 0:
                for line in out.stdout.strip().splitlines():
                    parts = [p.strip() for p in line.split(",")]
                    if len(parts) >= 2 and parts[0]:
                        info["gpus"].append(
                            {
                                "name": parts[0],
                                "compute_cap": parts[2] if len(parts) > 2 else None,
                                "memory": parts[3] if len(parts) > 3 else None,
                            }
                        )
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
