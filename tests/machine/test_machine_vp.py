"""`envkit check --machine` on virtual-package requirements besides __glibc and __cuda: `__osx`
(a real conda-forge lock from the corpus), `__archspec` in the forms conda-forge's microarch
packages write (`1 x86_64_v3`, the CEP-29 regex `1.* ^(x86_64_v4|skylake_avx512)$`) and
`__cuda_arch` per CEP 46 (version = the lowest compute capability of the machine's GPUs, build =
that device's model), each against recorded machines."""

from __future__ import annotations

import hashlib
import json
import os
import sys
from pathlib import Path

import pytest
from conftest import CORPUS, REPO, run_envkit

DATA = REPO / "tests" / "data" / "machine"
RULE = "machine-virtual-package"


def _lock(tmp_path: Path, records: list[tuple[str, str, dict[str, str]]], platform: str = "linux-64") -> Path:
    """A conda-lock.yml (version 1) of `records` (name, version, dependencies) for `platform`."""
    lines = [
        "version: 1",
        "metadata:",
        "  content_hash:",
        f"    {platform}: " + "0" * 64,
        "  channels:",
        "  - url: conda-forge",
        "    used_env_vars: []",
        "  platforms:",
        f"  - {platform}",
        "  sources:",
        "  - environment.yml",
        "package:",
    ]
    for i, (name, version, deps) in enumerate(records):
        lines += [f"- name: {name}", f"  version: '{version}'", "  manager: conda", f"  platform: {platform}"]
        lines += ["  dependencies:" + ("" if deps else " {}")]
        lines += [f"    {k}: '{v}'" for k, v in deps.items()]
        lines += [
            f"  url: https://conda.anaconda.org/conda-forge/{platform}/{name}-{version}-h{i:07x}_0.conda",
            "  hash:",
            f"    md5: {hashlib.md5(name.encode()).hexdigest()}",
            f"    sha256: {hashlib.sha256(name.encode()).hexdigest()}",
            "  category: main",
            "  optional: false",
        ]
    path = tmp_path / "conda-lock.yml"
    path.write_text("\n".join(lines) + "\n")
    return path


def _check(lock: Path, profile: Path | str, *extra: str):
    res = run_envkit(
        "check", str(lock), "--machine", str(profile), "--select", RULE, "--format", "json", *extra
    )
    assert res.exit_code in (0, 1), res.stderr
    return res.exit_code, [
        (f["severity"], f["line"], f["message"]) for f in json.loads(res.stdout)["findings"]
    ]


def _profile(tmp_path: Path, base: str, **changes) -> Path:
    doc = json.loads((DATA / base).read_text())
    doc.update(changes)
    out = tmp_path / f"{doc['host']}.json"
    out.write_text(json.dumps(doc))
    return out


def test_osx_too_old_for_a_real_conda_forge_lock():
    """Corpus 51 (conda-lock, four platforms): its osx-64 records need `__osx >=10.13`; a Mac on
    10.12 cannot install them, one on 10.13 can."""
    lock = CORPUS / "51_Cecca__repro-course-ci__conda-lock.yml"
    code, found = _check(lock, DATA / "mac-sierra.json")
    assert code == 1
    assert [(s, ln) for s, ln, _ in found] == [("error", 68)]
    msg = found[0][2]
    assert msg.startswith("bzip2=1.0.8=hfdf4475_7 (and 11 more) needs __osx >=10.13; ")
    assert (
        "needs __osx >=10.13; the machine (old-imac) has __osx 10.12.6: lock for the machine's macOS "
        "(pixi: `system-requirements.macos`), or update macOS" in msg
    )


def test_osx_new_enough_fits(tmp_path):
    newer = _profile(
        tmp_path,
        "mac-sierra.json",
        host="imac-2018",
        macos="10.13.6",
        virtual_packages=[
            {"name": "__unix", "version": "0", "build": "0"},
            {"name": "__osx", "version": "10.13.6", "build": "0"},
            {"name": "__archspec", "version": "1", "build": "skylake"},
        ],
    )
    assert _check(CORPUS / "51_Cecca__repro-course-ci__conda-lock.yml", newer) == (0, [])


@pytest.mark.parametrize("spec", ["1 x86_64_v4", "1.* ^(x86_64_v4|skylake_avx512)$"])
def test_archspec_level_above_the_cpu(tmp_path, spec):
    """conda-forge's `_x86_64-microarch-level 4` needs an x86-64-v4 CPU; the CentOS 7 server is a
    Broadwell (x86_64_v3)."""
    lock = _lock(
        tmp_path,
        [
            ("_x86_64-microarch-level", "4", {"__archspec": spec}),
            ("numpy", "2.2.6", {"_x86_64-microarch-level": ">=4"}),
        ],
    )
    code, found = _check(lock, DATA / "centos7-server.json")
    assert code == 1
    assert found == [
        (
            "error",
            13,
            f"_x86_64-microarch-level=4=h0000000_0 needs __archspec {spec}; the machine "
            "(old-cluster) has __archspec 1 (broadwell): lock without the CPU microarchitecture "
            "level (`_x86_64-microarch-level`)",
        )
    ]


@pytest.mark.parametrize("spec", ["1 x86_64_v3", "1 x86_64_v2", "1.* ^(x86_64_v3|haswell)$", "1 broadwell"])
def test_archspec_level_met_by_the_cpu(tmp_path, spec):
    lock = _lock(tmp_path, [("_x86_64-microarch-level", "3", {"__archspec": spec})])
    assert _check(lock, DATA / "centos7-server.json") == (0, [])


def test_archspec_on_another_architecture(tmp_path):
    arm = _profile(
        tmp_path,
        "centos7-server.json",
        host="graviton",
        machine="aarch64",
        platform="linux-aarch64",
        archspec="neoverse_n1",
        cpu_level="aarch64",
        virtual_packages=[
            {"name": "__unix", "version": "0", "build": "0"},
            {"name": "__glibc", "version": "2.17", "build": "0"},
            {"name": "__archspec", "version": "1", "build": "neoverse_n1"},
        ],
    )
    lock = _lock(
        tmp_path, [("_x86_64-microarch-level", "3", {"__archspec": "1 x86_64_v3"})], platform="linux-aarch64"
    )
    code, found = _check(lock, arm)
    assert code == 1
    assert found[0][2].startswith(
        "_x86_64-microarch-level=3=h0000000_0 needs __archspec 1 x86_64_v3; the machine "
        "(graviton) has __archspec 1 (neoverse_n1)"
    )


@pytest.fixture
def nvml(tmp_path, monkeypatch):
    """`envkit machine -o` with NVML replaying a recorded answer (the stand-in pynvml)."""
    empty = tmp_path / "empty-bin"
    empty.mkdir()
    monkeypatch.setenv(
        "PATH", os.pathsep.join([str(empty), os.path.dirname(sys.executable), "/usr/bin", "/bin"])
    )
    monkeypatch.syspath_prepend(str(REPO / "tests" / "support" / "fake_nvml"))

    def make(answer: dict, cuda: str) -> Path:
        rec = tmp_path / f"nvml-{len(answer['gpus'])}-{answer['gpus'][0]['cc'][0]}.json"
        rec.write_text(json.dumps(answer))
        monkeypatch.setenv("ENVKIT_TEST_NVML_ANSWER", str(rec))
        monkeypatch.setenv("CONDA_OVERRIDE_CUDA", cuda)
        sys.modules.pop("pynvml", None)
        out = tmp_path / f"profile-{rec.stem}.json"
        res = run_envkit("machine", "-o", str(out))
        assert res.exit_code == 0, res.stderr
        sys.modules.pop("pynvml", None)
        return out

    return make


def test_cuda_arch_met_by_an_a100(tmp_path, nvml):
    """CEP 46: `__cuda_arch` is the lowest compute capability of the machine's GPUs (8.0 here)."""
    a100 = nvml(json.loads((DATA / "nvml_a100.json").read_text()), "12.2")
    lock = _lock(tmp_path, [("flash-kernels", "1.0", {"__cuda_arch": ">=8.0", "__cuda": ">=12"})])
    assert _check(lock, a100) == (0, [])


def test_cuda_arch_lowest_gpu_decides(tmp_path, nvml):
    """A V100 (7.0) next to an A100 (8.0): the lowest one is what `__cuda_arch` says, so a build
    for >=8.0 does not fit."""
    mixed = nvml(
        {
            "driver": "535.104.05",
            "cuda_driver_version": 12020,
            "gpus": [
                {"name": "NVIDIA A100-SXM4-40GB", "cc": [8, 0], "memory": 42949672960},
                {"name": "Tesla V100-SXM2-16GB", "cc": [7, 0], "memory": 17179869184},
            ],
        },
        "12.2",
    )
    lock = _lock(tmp_path, [("flash-kernels", "1.0", {"__cuda_arch": ">=8.0"})])
    code, found = _check(lock, mixed)
    assert code == 1
    assert found == [
        (
            "error",
            13,
            "flash-kernels=1.0=h0000000_0 needs __cuda_arch >=8.0; the machine (vm) has "
            "__cuda_arch 7.0 (Tesla V100-SXM2-16GB): lock a build for this GPU's compute capability",
        )
    ]


def test_cuda_arch_without_a_gpu(tmp_path):
    lock = _lock(tmp_path, [("flash-kernels", "1.0", {"__cuda_arch": ">=8.0"})])
    code, found = _check(lock, DATA / "centos7-server.json")
    assert code == 1
    assert found == [
        (
            "error",
            13,
            "flash-kernels=1.0=h0000000_0 needs __cuda_arch >=8.0; the machine (old-cluster) has "
            "no CUDA device: use a CPU build (`envkit template pytorch --cpu`), or run on a machine "
            "with an NVIDIA GPU",
        )
    ]
