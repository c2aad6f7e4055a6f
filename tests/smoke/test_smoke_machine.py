"""The smoke report embeds the profile of the machine the probe ran on (`envkit machine --json`'s
schema), here with nvidia-smi answering as a recorded RTX 5090, and in an interpreter without torch
(the probe runs and stops at `import torch`: fast, and still a report)."""

from __future__ import annotations

import json
import os
import subprocess
import sys

from conftest import REPO, run_envkit

DATA = REPO / "tests" / "data" / "machine"


def test_smoke_report_carries_the_machine_profile(tmp_path, monkeypatch):
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    smi = bin_dir / "nvidia-smi"
    smi.write_text(
        "#!/bin/sh\n"
        f"case \"$1\" in --query-gpu=*) cat '{DATA / 'smi_rtx5090.csv'}' ;; "
        f"*) cat '{DATA / 'smi_rtx5090_banner.txt'}' ;; esac\n"
    )
    smi.chmod(0o755)
    monkeypatch.setenv(
        "PATH", os.pathsep.join([str(bin_dir), os.path.dirname(sys.executable), "/usr/bin", "/bin"])
    )
    monkeypatch.setenv("CONDA_OVERRIDE_CUDA", "12.9")
    sys.modules.pop("pynvml", None)
    bare = tmp_path / "bare"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(bare)], check=True)
    py = str(bare / "bin" / "python")

    res = run_envkit("smoke", "--python", py, "--quick", "--json")
    assert res.exit_code == 2, res.stderr  # torch is missing: could not run
    doc = json.loads(res.stdout)
    assert doc["could_not_run"] is True
    m = doc["machine"]
    assert m["envkit_machine"] == 1
    assert m["driver"] == "575.57.08" and m["driver_cuda"] == "12.9" and m["gpu_source"] == "nvidia-smi"
    assert [(g["name"], g["compute_capability"], g["memory_mib"]) for g in m["gpus"]] == [
        ("NVIDIA GeForce RTX 5090", "12.0", 32607)
    ]
    assert {"name": "__cuda", "version": "12.9", "build": "0"} in m["virtual_packages"]

    text = run_envkit("smoke", "--python", py, "--quick")
    line = next(ln for ln in text.stdout.splitlines() if ln.startswith("  machine: "))
    assert line.endswith(", driver 575.57.08 (CUDA 12.9, nvidia-smi), GPUs: NVIDIA GeForce RTX 5090 (sm_120)")
    assert line.startswith(f"  machine: {m['host']}, linux-64, glibc {m['glibc']}, ")


def test_smoke_report_that_never_ran_has_a_null_machine(tmp_path):
    res = run_envkit("smoke", "--python", str(tmp_path / "no-such-python"), "--json")
    assert res.exit_code == 2
    assert json.loads(res.stdout)["machine"] is None
