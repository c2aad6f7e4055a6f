"""`envkit smoke --create FILE`: a temporary env from a lock (envkit create) or an environment.yml
(solved natively, as `envkit lock -f`, then envkit create), the probe run inside it, and the env
removed unless --keep.

The factory's `python` package is a shim that runs the test interpreter (which has the CPU torch),
so the probe really runs "inside" the created prefix."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

pytestmark = [pytest.mark.slow, pytest.mark.torch]
pytest.importorskip("torch")

ONLY = json.dumps({"only": ["torch.build", "cuda.available"]})


def test_create_from_a_lock_runs_inside_and_removes_the_env(envkit_cli, tmp_path, default_prefix):
    lock = tmp_path / "conda-lock.yml"
    r = envkit_cli("lock", "-p", str(default_prefix), "--no-env-lock", "-o", str(lock))
    assert r.exit_code == 0, r.stderr
    r = envkit_cli("smoke", "--create", str(lock), "--json", env={"ENVKIT_SMOKE_TEST_CONFIG": ONLY})
    assert r.exit_code == 0, r.stdout + r.stderr
    rep = json.loads(r.stdout)
    t = rep["target"]
    assert t["kind"] == "create" and t["source"] == str(lock) and t["kept"] is False
    assert t["created_with"].startswith("envkit create (rattler, linux-64: ")
    assert t["python"] == f"{t['prefix']}/bin/python"
    assert {c["name"]: c["status"] for c in rep["checks"]} == {
        "import.torch": "pass",
        "torch.build": "pass",
        "cuda.available": "skip",
    }
    assert not Path(t["prefix"]).exists()


def test_create_from_environment_yml_solves_natively_and_keeps(
    envkit_cli, tmp_path, default_channel, isolated_conda
):
    """No conda executable: the environment.yml is solved (as `envkit lock -f` does) and created (as
    `envkit create` does) with py-rattler; `conda` on PATH or CONDA_EXE is never run."""
    conda = tmp_path / "conda"
    conda.write_text("#!/bin/sh\necho 'conda must not run' >&2\nexit 1\n")
    conda.chmod(0o755)
    yml = tmp_path / "environment.yml"
    yml.write_text(
        f"name: t\nchannels: [{default_channel.url}]\ndependencies:\n"
        "  - python=3.11.8=hab00c5b_0_cpython\n  - numpy=1.26.4=py311h64a7726_0\n"
    )
    r = envkit_cli(
        "smoke",
        "--create",
        str(yml),
        "--keep",
        "--json",
        env={
            "ENVKIT_SMOKE_TEST_CONFIG": ONLY,
            "CONDA_EXE": str(conda),
            "MAMBA_EXE": str(conda),
            "PATH": f"{tmp_path}:/usr/bin:/bin",
        },
    )
    assert r.exit_code == 0, r.stdout + r.stderr
    rep = json.loads(r.stdout)
    prefix = Path(rep["target"]["prefix"])
    assert rep["target"]["created_with"].startswith("envkit lock -f + create (rattler, linux-64: ")
    assert rep["target"]["kept"] is True
    assert f"warning: kept the temporary environment: {prefix}" in r.stderr
    assert (prefix / "conda-meta" / "numpy-1.26.4-py311h64a7726_0.json").is_file()
    assert {c["name"]: c["status"] for c in rep["checks"]} == {
        "import.torch": "pass",
        "torch.build": "pass",
        "cuda.available": "skip",
    }
    shutil.rmtree(prefix.parent)
    shutil.rmtree(rep["scratch"])


def test_create_failure_is_exit_2_leaves_nothing_and_json_still_reports(
    envkit_cli, tmp_path, default_channel, isolated_conda
):
    yml = tmp_path / "environment.yml"
    yml.write_text(f"name: t\nchannels: [{default_channel.url}]\ndependencies:\n  - python=3.99\n")
    before = set(Path(__import__("tempfile").gettempdir()).glob("envkit-smoke-env-*"))
    r = envkit_cli("smoke", "--create", str(yml))
    assert r.exit_code == 2
    assert f"error: {yml}:4: linux-64: cannot solve python=3.99" in r.stderr and "python 3.99.*" in r.stderr
    assert "conda" not in r.stderr.split("cannot solve")[0]
    assert set(Path(__import__("tempfile").gettempdir()).glob("envkit-smoke-env-*")) == before
    # --json: the documented report, could_not_run with the reason, and the error on stderr
    r = envkit_cli("smoke", "--create", str(yml), "--json")
    assert r.exit_code == 2
    rep = json.loads(r.stdout)
    assert (rep["schema"], rep["ok"], rep["could_not_run"], rep["checks"]) == (1, False, True, [])
    assert rep["target"] == {"kind": "create", "source": str(yml)}
    assert rep["reason"].startswith(f"{yml}:4: linux-64: cannot solve python=3.99")
    assert "error: " in r.stderr


def test_json_reports_a_missing_interpreter(envkit_cli, tmp_path):
    (tmp_path / "env" / "conda-meta").mkdir(parents=True)
    r = envkit_cli("smoke", "-p", str(tmp_path / "env"), "--json")
    assert r.exit_code == 2
    rep = json.loads(r.stdout)
    assert rep["could_not_run"] is True and rep["target"] == {
        "kind": "prefix",
        "prefix": str(tmp_path / "env"),
    }
    assert rep["reason"] == f"{tmp_path / 'env'} has no Python interpreter (bin/python)"
    assert rep["diagnoses"] == [
        {
            "check": None,
            "problem": rep["reason"],
            "hint": "the smoke test needs python and torch installed in the environment",
        }
    ]
