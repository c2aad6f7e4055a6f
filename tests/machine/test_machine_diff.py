"""`envkit diff` with machines in its header: a local prefix against the "same" prefix on a GPU box
over ssh (a stand-in ssh that runs the remote command here, with a stand-in nvidia-smi replaying the
recorded RTX 5090 answers on the remote PATH), and a recorded profile given with --machine-a."""

from __future__ import annotations

import json
import os
import sys

import pytest
from conftest import REPO, run_envkit
from support.condafactory import copy_prefix

DATA = REPO / "tests" / "data" / "machine"


@pytest.fixture
def gpu_box(tmp_path, monkeypatch):
    """ENVKIT_SSH: a stand-in ssh whose "remote" PATH has an nvidia-smi answering as an RTX 5090
    (driver 575.57.08, CUDA 12.9); this machine's PATH has no nvidia-smi."""
    bin_dir = tmp_path / "remote-bin"
    bin_dir.mkdir()
    smi = bin_dir / "nvidia-smi"
    smi.write_text(
        "#!/bin/sh\n"
        f"case \"$1\" in --query-gpu=*) cat '{DATA / 'smi_rtx5090.csv'}' ;; "
        f"*) cat '{DATA / 'smi_rtx5090_banner.txt'}' ;; esac\n"
    )
    smi.chmod(0o755)
    calls = tmp_path / "ssh-calls"
    ssh = tmp_path / "fake-ssh"
    ssh.write_text(
        "#!/bin/sh\n"
        f"echo call >> '{calls}'\n"
        'while [ "$1" != "--" ]; do shift; done\nshift 2\n'
        f'PATH=\'{bin_dir}\':"$PATH" exec sh -c "$*"\n'
    )
    ssh.chmod(0o755)
    empty = tmp_path / "empty-bin"
    empty.mkdir()
    monkeypatch.setenv(
        "PATH", os.pathsep.join([str(empty), os.path.dirname(sys.executable), "/usr/bin", "/bin"])
    )
    monkeypatch.delenv("CONDA_OVERRIDE_CUDA", raising=False)
    monkeypatch.setenv("ENVKIT_SSH", str(ssh))
    monkeypatch.setenv("ENVKIT_REMOTE_PYTHON", sys.executable)
    sys.modules.pop("pynvml", None)
    return calls


def _rows(text: str) -> dict[str, str]:
    """The machine rows of a text diff header: label -> the rest of the line."""
    lines = text.splitlines()
    out = {}
    for line in lines[2:9]:
        for label in ("Machine", "Driver", "GPUs", "libc/OS", "CPU level"):
            if line.strip().startswith(label + " "):
                out[label] = line.strip()[len(label) :].strip()
    return out


def test_diff_header_local_prefix_against_gpu_box(tmp_path, default_prefix, gpu_box):
    local = copy_prefix(default_prefix, tmp_path / "laptop")
    remote = copy_prefix(default_prefix, tmp_path / "server")
    res = run_envkit("diff", str(local), f"ssh://gpu-box{remote}")
    assert res.exit_code == 0, res.stdout + res.stderr
    # the probe ran in the same ssh session as the scan
    assert gpu_box.read_text() == "call\n"
    rows = _rows(res.stdout)
    assert (
        rows["Driver"]
        == "none"
        + " " * (len(rows["Driver"]) - len("none") - len("575.57.08 (CUDA 12.9, nvidia-smi) *"))
        + "575.57.08 (CUDA 12.9, nvidia-smi) *"
    )
    assert rows["GPUs"].split() == ["none", "NVIDIA", "GeForce", "RTX", "5090", "(sm_120)", "*"]
    assert rows["Machine"].endswith("gpu-box (linux-64) *")
    # glibc and CPU are this machine's on both sides (the stand-in ssh runs here): no mark
    assert not rows["libc/OS"].endswith("*") and rows["libc/OS"].startswith("glibc ")
    assert not rows["CPU level"].endswith("*")

    js = run_envkit("diff", str(local), f"ssh://gpu-box{remote}", "--format", "json")
    doc = json.loads(js.stdout)
    m = doc["machines"]
    assert m["a"]["gpus"] == [] and m["a"]["driver"] is None
    assert m["b"]["host"] == "gpu-box"
    assert m["b"]["driver"] == "575.57.08" and m["b"]["driver_cuda"] == "12.9"
    assert [(g["name"], g["compute_capability"]) for g in m["b"]["gpus"]] == [
        ("NVIDIA GeForce RTX 5090", "12.0")
    ]
    assert m["b"]["virtual_packages_source"] == "probe"
    assert m["b"]["pythons"] == []  # the diff's probe skips asking each interpreter
    assert {r["label"]: r["differs"] for r in m["rows"]} == {
        "Machine": True,
        "Driver": True,
        "GPUs": True,
        "libc/OS": False,
        "CPU level": False,
    }
    # over ssh no py-rattler is asked: the CPU level comes from the flags alone (and is the same
    # level as this machine's, so not a difference even where rattler also names the CPU)
    assert m["rows"][4]["b"] == m["b"]["cpu_level"]
    assert m["rows"][1] == {
        "label": "Driver",
        "a": "none",
        "b": "575.57.08 (CUDA 12.9, nvidia-smi)",
        "differs": True,
    }


def test_diff_header_with_a_recorded_profile(tmp_path, default_prefix, gpu_box):
    remote = copy_prefix(default_prefix, tmp_path / "server")
    lock = tmp_path / "env.txt"
    res = run_envkit(
        "diff",
        "--machine-a",
        str(DATA / "centos7-server.json"),
        str(remote),
        f"ssh://gpu-box{remote}",
        "--format",
        "json",
    )
    assert res.exit_code == 0, res.stderr
    rows = {r["label"]: (r["a"], r["b"]) for r in json.loads(res.stdout)["machines"]["rows"]}
    assert rows["Machine"] == ("old-cluster (linux-64)", "gpu-box (linux-64)")
    assert rows["Driver"] == ("none", "575.57.08 (CUDA 12.9, nvidia-smi)")
    assert rows["GPUs"] == ("none", "NVIDIA GeForce RTX 5090 (sm_120)")
    assert rows["libc/OS"][0] == "glibc 2.17"
    assert rows["CPU level"][0] == "broadwell (x86_64_v3)"
    md = run_envkit(
        "diff",
        "--machine-a",
        str(DATA / "centos7-server.json"),
        str(remote),
        f"ssh://gpu-box{remote}",
        "--format",
        "markdown",
    )
    assert "| GPUs ⚠ | none | NVIDIA GeForce RTX 5090 (sm_120) |" in md.stdout.splitlines()
    assert not lock.exists()
    missing = run_envkit("diff", "--machine-b", str(tmp_path / "nope.json"), str(remote), str(remote))
    assert missing.exit_code == 2
    assert f"--machine-b {tmp_path / 'nope.json'}: no such profile file" in missing.stderr
    bad = tmp_path / "bad.json"
    bad.write_text('{"envkit_machine": 1, "gpus": [{"name": "x", "compute_capability": 12}]}')
    res = run_envkit("diff", "--machine-b", str(bad), str(remote), str(remote))
    assert res.exit_code == 2 and str(bad) in res.stderr and "Traceback" not in res.stderr


def test_no_machine_header_for_two_local_prefixes_or_with_no_machine(tmp_path, default_prefix, gpu_box):
    a = copy_prefix(default_prefix, tmp_path / "a")
    b = copy_prefix(default_prefix, tmp_path / "b")
    res = run_envkit("diff", str(a), str(b), "--format", "json")
    assert "machines" not in json.loads(res.stdout)
    res = run_envkit("diff", str(a), f"ssh://gpu-box{b}", "--no-machine", "--format", "json")
    assert res.exit_code == 0, res.stderr
    assert "machines" not in json.loads(res.stdout)
    text = run_envkit("diff", str(a), f"ssh://gpu-box{b}", "--no-machine").stdout
    assert "Driver" not in text
    bad = run_envkit("diff", str(a), str(b), "--no-machine", "--machine-a", "host")
    assert bad.exit_code == 2
    assert "--no-machine and --machine-a/--machine-b contradict each other" in bad.stderr
