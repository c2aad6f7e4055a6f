"""`check --machine`: a pip `torch==X` taken from PyPI is, on Linux, that release's default CUDA
build, and its GPU architectures are checked like a `+cuXXX` wheel's."""

from __future__ import annotations

import json

from conftest import REPO

from tests.conftest import run_envkit


def _v100(tmp_path):
    doc = json.loads((REPO / "tests" / "data" / "machine" / "centos7-server.json").read_text())
    doc.update(
        driver="570.86.10", driver_cuda="12.8", driver_cuda_source="nvidia-smi", gpu_source="nvidia-smi"
    )
    doc.update(gpus=[{"index": 0, "name": "Tesla V100-SXM2-16GB", "compute_capability": "7.0"}])
    doc["virtual_packages"].append({"name": "__cuda", "version": "12.8", "build": "0"})
    path = tmp_path / "v100.json"
    path.write_text(json.dumps(doc))
    return path


def test_pypi_torch_without_a_cuda_tag_is_checked_against_the_gpu(tmp_path):
    machine = _v100(tmp_path)
    spec = tmp_path / "environment.yml"
    spec.write_text(
        "name: x\nchannels: [conda-forge]\ndependencies:\n  - pip\n  - pip:\n    - torch==2.13.0\n"
    )
    r = run_envkit("check", "--select", "machine-gpu-arch", "--machine", str(machine), str(spec))
    assert r.exit_code == 1
    assert r.stdout.startswith(f"{spec}:6: error machine-gpu-arch: torch==2.13.0 is built for sm_75, ")
    # from the CUDA 12.6 index, which names its variant, the same rule reads that index's build
    spec.write_text(
        "name: x\nchannels: [conda-forge]\ndependencies:\n  - pip\n  - pip:\n"
        "    - --index-url https://download.pytorch.org/whl/cu126\n    - torch==2.13.0\n"
    )
    r = run_envkit("check", "--select", "machine-gpu-arch", "--machine", str(machine), str(spec))
    assert "torch==2.13.0 is built for sm_75" not in r.stdout
