"""What this machine offers an environment, collected with the standard library alone.

This file never imports envkit: `envkit machine ssh://host` streams it to the remote `python3`
on stdin (nothing is installed there), and `envkit machine` imports it here.  `collect(run)`
returns one JSON-able dict of raw facts; envkit.machine.detect turns it into a MachineProfile.
Locally `run` goes through envkit._proc; run as a script it uses subprocess directly.

Raw facts, not conclusions: the NVML answers as NVML gave them (pynvml, from nvidia-ml-py, when it
imports), else nvidia-smi's CSV and banner as printed, /proc/cpuinfo's flags, os.confstr's glibc.
"""

import json
import os
import platform
import shutil
import sys

#: The line printed before the JSON when run as a script (login scripts may print before it).
MARK = "--envkit-machine--"
#: Interpreters looked for on PATH (besides the one running this file).
PYTHON_NAMES = ("python3", "python") + tuple("python3.%d" % m for m in range(6, 16))
SMI_QUERY = "index,name,compute_cap,memory.total,driver_version"


def _subprocess_run(argv, timeout):
    """(returncode, stdout) of argv, or None when it cannot be started."""
    import subprocess

    try:
        p = subprocess.run(argv, capture_output=True, timeout=timeout, stdin=subprocess.DEVNULL)
    except (OSError, subprocess.SubprocessError):
        return None
    return p.returncode, p.stdout.decode("utf-8", "replace")


def _read(path, limit=1 << 20):
    try:
        with open(path, "rb") as fh:
            return fh.read(limit).decode("utf-8", "replace")
    except OSError:
        return None


def system_facts():
    """OS, kernel, distribution, glibc and macOS versions."""
    out = {
        "system": platform.system(),
        "machine": platform.machine(),
        "release": platform.release(),
        "node": platform.node(),
        "glibc": None,
        "macos": None,
        "distro": None,
    }
    try:
        libc = os.confstr("CS_GNU_LIBC_VERSION")  # "glibc 2.35"
    except (AttributeError, ValueError, OSError):
        libc = None
    if libc and libc.startswith("glibc "):
        out["glibc"] = libc.split()[1]
    if out["system"] == "Darwin":
        out["macos"] = platform.mac_ver()[0] or None
    text = _read("/etc/os-release")
    for line in (text or "").splitlines():
        if line.startswith("PRETTY_NAME="):
            out["distro"] = line.split("=", 1)[1].strip().strip('"') or None
    return out


def cpu_facts(run):
    """The CPU's model name and feature flags (/proc/cpuinfo; sysctl on macOS)."""
    out = {"model": None, "flags": []}
    text = _read("/proc/cpuinfo")
    if text:
        for line in text.splitlines():
            key, _, value = line.partition(":")
            key = key.strip()
            if key == "model name" and out["model"] is None:
                out["model"] = value.strip()
            elif key in ("flags", "Features") and not out["flags"]:
                out["flags"] = sorted(set(value.split()))
    elif platform.system() == "Darwin":
        res = run(["sysctl", "-n", "machdep.cpu.brand_string"], 10)
        if res and res[0] == 0:
            out["model"] = res[1].strip() or None
    return out


def nvml_facts():
    """NVML's answers through pynvml (nvidia-ml-py), or {"error": why}."""
    try:
        import pynvml
    except Exception as exc:  # not installed, or a broken install: say which
        return {"error": "pynvml not importable: %s" % exc.__class__.__name__}
    try:
        pynvml.nvmlInit()
    except Exception as exc:
        return {"error": "NVML could not start: %s" % exc}
    try:

        def text(v):
            return v.decode("utf-8", "replace") if isinstance(v, bytes) else str(v)

        out = {"driver": text(pynvml.nvmlSystemGetDriverVersion()), "cuda_driver_version": None, "gpus": []}
        try:
            out["cuda_driver_version"] = int(pynvml.nvmlSystemGetCudaDriverVersion())
        except Exception:
            pass
        for i in range(int(pynvml.nvmlDeviceGetCount())):
            h = pynvml.nvmlDeviceGetHandleByIndex(i)
            gpu = {"index": i, "name": text(pynvml.nvmlDeviceGetName(h)), "cc": None, "memory": None}
            try:
                gpu["cc"] = list(pynvml.nvmlDeviceGetCudaComputeCapability(h))
            except Exception:
                pass
            try:
                gpu["memory"] = int(pynvml.nvmlDeviceGetMemoryInfo(h).total)
            except Exception:
                pass
            out["gpus"].append(gpu)
        return out
    except Exception as exc:
        return {"error": "NVML failed: %s" % exc}
    finally:
        try:
            pynvml.nvmlShutdown()
        except Exception:
            pass


def smi_facts(run):
    """nvidia-smi's CSV answer and its banner (for "CUDA Version"), or {"error": why}."""
    smi = shutil.which("nvidia-smi")
    if smi is None:
        return {"error": "nvidia-smi not found"}
    res = run([smi, "--query-gpu=" + SMI_QUERY, "--format=csv,noheader,nounits"], 30)
    if res is None or res[0] != 0:
        return {
            "error": "nvidia-smi failed%s" % ("" if res is None else " (exit %d)" % res[0]),
            "query": res[1] if res else None,
        }
    banner = run([smi], 30)
    return {"query": res[1], "banner": banner[1] if banner and banner[0] == 0 else None}


def python_facts(run):
    """[(path, version)] of the interpreters on PATH, each real file once, this one first."""
    seen = set()
    out = []
    me = os.path.realpath(sys.executable) if sys.executable else None
    if me:
        seen.add(me)
        out.append([sys.executable, "%d.%d.%d" % sys.version_info[:3]])
    for name in PYTHON_NAMES:
        path = shutil.which(name)
        if path is None or os.path.realpath(path) in seen:
            continue
        seen.add(os.path.realpath(path))
        res = run([path, "--version"], 10)
        if res and res[0] == 0:
            words = res[1].split()
            if len(words) >= 2 and words[0] == "Python":
                out.append([path, words[1]])
    return out


def collect(run=None, pythons=True):
    """Every raw fact as one dict (see the module docstring).  `run(argv, timeout)` returns
    (returncode, stdout) or None; default: subprocess.  `pythons=False` skips asking each
    interpreter on PATH its version (a diff header does not show them)."""
    run = run or _subprocess_run
    facts = {"probe": 1, "system": system_facts(), "cpu": cpu_facts(run)}
    facts["nvml"] = nvml_facts()
    # nvidia-smi also when NVML answered: it is the fallback, and its banner names the CUDA
    # version on drivers whose pynvml lacks nvmlSystemGetCudaDriverVersion
    facts["nvidia_smi"] = smi_facts(run) if "error" in facts["nvml"] else {"error": "not needed"}
    facts["pythons"] = python_facts(run) if pythons else []
    return facts


if __name__ == "__main__":
    result = collect()
    sys.stdout.write(MARK + "\n")
    json.dump(result, sys.stdout)
    sys.stdout.write("\n")
