"""The conda CLI backend, tested at the process boundary with fake executables that print recorded
`--json` output (no conda exists on the test machines)."""
from __future__ import annotations

import json
import os
import stat
import sys
from pathlib import Path

import pytest

from envkit.backends import open_env
from envkit.backends.condacli import CondaCli, find_executable
from envkit.errors import BackendError
from support.condafactory import isolated_conda  # noqa: F401

PREFIX = "/opt/conda/envs/ml"

# Recorded from conda 24.x (`conda list -p ... --json`, `conda env export ... --json`, `conda info --json`).
LIST = [
    {"base_url": "https://conda.anaconda.org/conda-forge", "build_number": 0, "build_string": "py311h64a7726_0",
     "channel": "conda-forge", "dist_name": "numpy-1.26.4-py311h64a7726_0", "name": "numpy",
     "platform": "linux-64", "version": "1.26.4"},
    {"base_url": "https://conda.anaconda.org/pytorch", "build_number": 0, "build_string": "py3.11_cuda12.1_cudnn8.9.2_0",
     "channel": "pytorch", "dist_name": "pytorch-2.2.1-py3.11_cuda12.1_cudnn8.9.2_0", "name": "pytorch",
     "platform": "linux-64", "version": "2.2.1"},
    {"base_url": "https://conda.anaconda.org/conda-forge", "build_number": 0, "build_string": "hab00c5b_0_cpython",
     "channel": "conda-forge", "dist_name": "python-3.11.8-hab00c5b_0_cpython", "name": "python",
     "platform": "linux-64", "version": "3.11.8"},
    {"base_url": "https://pypi.org/", "build_number": 0, "build_string": "pypi_0", "channel": "pypi",
     "dist_name": "tinyreq-2.0-pypi_0", "name": "tinyreq", "platform": "pypi", "version": "2.0"},
]
EXPORT = {"name": "ml", "channels": ["conda-forge", "pytorch", "defaults"],
          "dependencies": ["numpy=1.26.4=py311h64a7726_0", "python=3.11.8=hab00c5b_0_cpython",
                           "pytorch=2.2.1=py3.11_cuda12.1_cudnn8.9.2_0", {"pip": ["tinyreq==2.0"]}],
          "variables": {"OMP_NUM_THREADS": "4"}, "prefix": PREFIX}
HISTORY = {"name": "ml", "channels": ["conda-forge", "defaults"],
           "dependencies": ["python=3.11", "pytorch::pytorch", "numpy"], "prefix": PREFIX}
INFO = {"platform": "linux-64", "root_prefix": "/opt/conda", "envs": ["/opt/conda", PREFIX],
        "envs_dirs": ["/opt/conda/envs"],
        "channels": ["https://conda.anaconda.org/pytorch/linux-64", "https://conda.anaconda.org/pytorch/noarch",
                     "https://conda.anaconda.org/conda-forge/linux-64", "https://conda.anaconda.org/conda-forge/noarch"]}


def fake_conda(directory: Path, name: str = "conda", answers: dict | None = None, fail: str | None = None) -> Path:
    """Write an executable `name` that prints the recorded JSON answer for its argv."""
    answers = answers if answers is not None else {
        f"list -p {PREFIX} --json": LIST, f"list -n ml --json": LIST,
        f"env export -p {PREFIX} --json": EXPORT, f"env export -n ml --json": EXPORT,
        f"env export -p {PREFIX} --json --from-history": HISTORY,
        f"env export -n ml --json --from-history": HISTORY,
        "info --json": INFO, "env list --json": {"envs": INFO["envs"]},
    }
    data = directory / f"{name}.answers.json"
    data.write_text(json.dumps(answers))
    exe = directory / name
    exe.write_text(
        f"#!{sys.executable}\n"
        "import json, sys\n"
        f"answers = json.load(open({str(data)!r}))\n"
        "key = ' '.join(sys.argv[1:])\n"
        f"fail = {fail!r}\n"
        "if fail and key.startswith(fail):\n"
        "    sys.stderr.write('CondaValueError: could not find environment: ml\\n'); sys.exit(1)\n"
        "if key not in answers:\n"
        "    sys.stderr.write('unexpected: ' + key + '\\n'); sys.exit(2)\n"
        "print(json.dumps(answers[key]))\n")
    exe.chmod(exe.stat().st_mode | stat.S_IEXEC | stat.S_IXGRP | stat.S_IXOTH)
    return exe


def test_read_env_maps_to_live_env(tmp_path, isolated_conda):
    exe = fake_conda(tmp_path)
    env = CondaCli(str(exe)).read_env(prefix=PREFIX)
    assert env.backend == "conda"
    assert env.prefix == PREFIX and env.platform == "linux-64" and env.python_version == "3.11.8"
    assert [p.conda_form() for p in env.packages] == [
        "conda-forge::numpy=1.26.4=py311h64a7726_0", "conda-forge::python=3.11.8=hab00c5b_0_cpython",
        "pytorch::pytorch=2.2.1=py3.11_cuda12.1_cudnn8.9.2_0", "tinyreq==2.0"]
    assert [d.spec() for d in env.requested] == ["python=3.11", "pytorch::pytorch", "numpy"]
    # info's order (priority), then the export's channels it did not list
    assert [c.name for c in env.channels] == ["pytorch", "conda-forge", "defaults"]
    assert env.variables == (("OMP_NUM_THREADS", "4"),)
    assert [d.name for d in env.pip_dists] == ["tinyreq"]


def test_discovery_flag_env_path(tmp_path, isolated_conda, monkeypatch):
    a, b, c = (tmp_path / d for d in "abc")
    for d in (a, b, c):
        d.mkdir()
    ca, mb, mm = fake_conda(a), fake_conda(b, "micromamba"), fake_conda(c, "mamba")
    monkeypatch.setenv("PATH", f"{c}{os.pathsep}/usr/bin:/bin")
    assert find_executable("mamba") == str(mm)
    assert find_executable(None) == str(mm)  # PATH: conda, mamba, micromamba
    monkeypatch.setenv("MAMBA_EXE", str(mb))
    assert find_executable("micromamba") == str(mb)
    assert find_executable("mamba") == str(mm)  # MAMBA_EXE is micromamba: not a mamba
    monkeypatch.setenv("CONDA_EXE", str(ca))
    assert find_executable("conda") == str(ca)
    assert find_executable(None) == str(ca)
    assert find_executable("conda", exe=str(mb)) == str(mb)
    monkeypatch.delenv("CONDA_EXE")
    with pytest.raises(BackendError, match="conda: executable not found"):
        find_executable("conda")


def test_failure_shows_stderr(tmp_path, isolated_conda):
    exe = fake_conda(tmp_path, fail="list")
    with pytest.raises(BackendError) as exc:
        CondaCli(str(exe)).read_env(name="ml")
    assert exc.value.message.startswith("conda list failed with exit code 1")
    assert exc.value.text == "CondaValueError: could not find environment: ml"


def test_not_json_is_an_error(tmp_path, isolated_conda):
    exe = tmp_path / "conda"
    exe.write_text("#!/bin/sh\necho 'Traceback: boom'\n")
    exe.chmod(0o755)
    with pytest.raises(BackendError, match="did not print JSON") as exc:
        CondaCli(str(exe)).info()
    assert exc.value.text == "Traceback: boom"


def test_timeout(tmp_path, isolated_conda):
    exe = tmp_path / "conda"
    exe.write_text("#!/bin/sh\nsleep 5\n")
    exe.chmod(0o755)
    with pytest.raises(BackendError, match="did not finish within 0.3 s"):
        CondaCli(str(exe), timeout=0.3).info()


def test_env_list(tmp_path, isolated_conda):
    assert CondaCli(str(fake_conda(tmp_path))).env_list() == ["/opt/conda", PREFIX]


def test_open_env_with_micromamba_by_name(tmp_path, isolated_conda, monkeypatch):
    exe = fake_conda(tmp_path, "micromamba")
    monkeypatch.setenv("MAMBA_EXE", str(exe))
    env = open_env(name="ml", backend="micromamba")
    assert env.backend == "micromamba" and env.name == "ml" and env.prefix == PREFIX


def test_export_cli_with_conda_backend(envkit_cli, tmp_path, isolated_conda, monkeypatch):
    monkeypatch.setenv("CONDA_EXE", str(fake_conda(tmp_path)))
    r = envkit_cli("export", "-n", "ml", "--backend", "conda")
    assert r.exit_code == 0, r.stderr
    assert r.stdout == (
        "# Exported by envkit from a linux-64 environment; regenerate: envkit export -n ml\n"
        "name: ml\n"
        "channels:\n"
        "  - pytorch\n"
        "  - conda-forge\n"
        "dependencies:\n"
        "  - conda-forge::numpy=1.26.4=py311h64a7726_0\n"
        "  - conda-forge::python=3.11.8=hab00c5b_0_cpython\n"
        "  - pytorch::pytorch=2.2.1=py3.11_cuda12.1_cudnn8.9.2_0\n"
        "  - pip:\n"
        "    - tinyreq==2.0\n"
        "variables:\n"
        "  OMP_NUM_THREADS: \"4\"\n")


def test_export_cli_missing_backend(envkit_cli, tmp_path, isolated_conda, monkeypatch):
    monkeypatch.setenv("PATH", str(tmp_path))
    r = envkit_cli("export", "-p", PREFIX, "--backend", "mamba")
    assert r.exit_code == 2
    assert r.stderr.startswith("error: mamba: executable not found (looked at CONDA_EXE, MAMBA_EXE and PATH)\n")
