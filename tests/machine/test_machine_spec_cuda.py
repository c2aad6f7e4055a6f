"""`check --machine` on a loose spec: what its entries say of the CUDA they need, and a "not
checked" where only a solve decides."""

from __future__ import annotations

import json

import pytest
from conftest import REPO

from tests.conftest import run_envkit


def _driver_11_4(tmp_path):
    doc = json.loads((REPO / "tests" / "data" / "machine" / "centos7-server.json").read_text())
    doc.update(driver="470.82.01", driver_cuda="11.4", driver_cuda_source="nvidia-smi")
    path = tmp_path / "machine.json"
    path.write_text(json.dumps(doc))
    return str(path)


def _check(tmp_path, *deps, pip=()):
    spec = tmp_path / "environment.yml"
    lines = ["name: x", "channels: [conda-forge]", "dependencies:", "  - python=3.11"]
    lines += [f"  - {d}" for d in deps] + (
        ["  - pip", "  - pip:"] + [f"    - {p}" for p in pip] if pip else []
    )
    spec.write_text("\n".join(lines) + "\n")
    r = run_envkit(
        "check",
        "--format",
        "json",
        "--select",
        "machine-cuda-driver",
        "--machine",
        _driver_11_4(tmp_path),
        str(spec),
    )
    return [(f["severity"], f["line"], f["message"].split(";")[0]) for f in json.loads(r.stdout)["findings"]]


@pytest.mark.parametrize(
    ("requirement", "expected"),
    [
        # from 2.15 on the extra installs nvidia-*-cu12 wheels: the lower bound alone needs CUDA 12
        ("tensorflow[and-cuda]>=2.20", ("error", 7, "tensorflow[and-cuda]>=2.20 needs CUDA 12.x")),
        ("tensorflow[and-cuda]==2.15.1", ("error", 7, "tensorflow[and-cuda]==2.15.1 needs CUDA 12.x")),
        (
            "tensorflow[and-cuda]>=2.10",
            (
                "info",
                7,
                "tensorflow[and-cuda]>=2.10 asks for a CUDA build whose CUDA version only a solve decides",
            ),
        ),
        # the wheel's name says its CUDA major
        ("nvidia-cudnn-cu12", ("error", 7, "nvidia-cudnn-cu12 needs CUDA 12.x")),
    ],
)
def test_a_pip_requirement_that_names_its_cuda(tmp_path, requirement, expected):
    assert _check(tmp_path, pip=[requirement]) == [expected]


def test_an_exact_torch_pin_beside_an_extra_cuda_index_is_the_index_build(tmp_path):
    # both indexes have 2.5.1; pip takes the highest match, 2.5.1+cu124
    found = _check(tmp_path, pip=["--extra-index-url https://download.pytorch.org/whl/cu124", "torch==2.5.1"])
    assert found == [("error", 8, "torch==2.5.1 (from the cu124 index, line 7) needs CUDA 12.4")]


def test_a_cuda_package_without_a_version_is_said_not_checked(tmp_path):
    assert _check(tmp_path, "cudatoolkit", "pytorch") == [
        ("info", 5, "cudatoolkit records no CUDA version: not checked against the driver")
    ]


def test_a_release_series_pin_with_pypi_beside_is_the_index_build(tmp_path):
    # what `envkit template pytorch --style pip` writes: the index's 2.7.1+cu118 sorts above
    # PyPI's 2.7.1, so pip takes the cu118 build
    found = _check(
        tmp_path,
        pip=[
            "--index-url https://download.pytorch.org/whl/cu118",
            "--extra-index-url https://pypi.org/simple",
            "torch==2.7.*",
        ],
    )
    # 11.8 on a CUDA 11.4 driver: minor-version compatibility only
    assert found == [("warning", 9, "torch==2.7.* (from the cu118 index, line 7) needs CUDA 11.8")]


def test_the_index_of_a_torch_pin_is_read_as_the_lock_reads_it(tmp_path):
    # PyTorch's release-candidate channel `/whl/test/cuXYZ` was not read as a CUDA index, and any
    # host's `/whl/cu124` was; the lock's rule (envkit.conda.buildstr.pytorch_variant) is PyTorch's
    # own hosts and channels
    found = _check(
        tmp_path, pip=["--extra-index-url https://download.pytorch.org/whl/test/cu124", "torch==2.5.1"]
    )
    assert found == [("error", 8, "torch==2.5.1 (from the cu124 index, line 7) needs CUDA 12.4")]
    found = _check(tmp_path, pip=["--extra-index-url https://mirror.example.org/whl/cu124", "torch==2.5.1"])
    assert found == []
