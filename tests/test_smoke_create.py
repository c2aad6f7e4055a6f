"""`envkit smoke --create FILE`: a temporary env from a lock (envkit create) or an environment.yml
(a conda-like CLI), the probe run inside it, and the env removed unless --keep.

The factory's `python` package is a shim that runs the test interpreter (which has the CPU torch),
so the probe really runs "inside" the created prefix."""
from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

import pytest

from support.condafactory import default_channel, default_prefix  # noqa: F401  (fixtures)

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
        "import.torch": "pass", "torch.build": "pass", "cuda.available": "skip"}
    assert not Path(t["prefix"]).exists()


def test_create_from_environment_yml_with_conda_and_keep(envkit_cli, tmp_path):
    """A fake `conda` that makes a prefix whose python is the test interpreter; the environment.yml
    has numpy from conda and pip both, so the duplicate warning must be printed."""
    log = tmp_path / "conda-argv"
    conda = tmp_path / "conda"
    conda.write_text(
        "#!/bin/sh\n"
        f'echo "$@" > "{log}"\n'
        'while [ "$#" -gt 0 ]; do if [ "$1" = "--prefix" ]; then P="$2"; fi; shift; done\n'
        'mkdir -p "$P/bin" "$P/conda-meta"\n'
        f'printf \'#!/bin/sh\\nexec "{sys.executable}" "$@"\\n\' > "$P/bin/python"\n'
        'chmod +x "$P/bin/python"\n')
    conda.chmod(0o755)
    yml = tmp_path / "environment.yml"
    yml.write_text("name: t\nchannels: [conda-forge]\ndependencies:\n  - python=3.11\n  - numpy\n  - pip\n"
                   "  - pip:\n    - numpy==2.0.0\n")
    r = envkit_cli("smoke", "--create", str(yml), "--keep", "--json",
                   env={"ENVKIT_SMOKE_TEST_CONFIG": ONLY, "CONDA_EXE": str(conda), "MAMBA_EXE": ""})
    assert r.exit_code == 0, r.stdout + r.stderr
    rep = json.loads(r.stdout)
    prefix = Path(rep["target"]["prefix"])
    assert log.read_text().split() == ["env", "create", "--prefix", str(prefix), "--file", str(yml)]
    assert rep["target"]["created_with"] == f"conda ({conda})" and rep["target"]["kept"] is True
    assert "warning: 'numpy' is installed by both conda ('numpy') and pip" in r.stderr
    assert f"warning: kept the temporary environment: {prefix}" in r.stderr
    assert (prefix / "bin" / "python").exists()
    shutil.rmtree(prefix.parent)
    shutil.rmtree(rep["scratch"])


def test_create_failure_is_exit_2_and_leaves_nothing(envkit_cli, tmp_path):
    conda = tmp_path / "conda"
    conda.write_text("#!/bin/sh\necho 'PackagesNotFoundError: nope' >&2\nexit 1\n")
    conda.chmod(0o755)
    yml = tmp_path / "environment.yml"
    yml.write_text("name: t\ndependencies:\n  - python=3.11\n")
    before = set(Path(__import__("tempfile").gettempdir()).glob("envkit-smoke-env-*"))
    r = envkit_cli("smoke", "--create", str(yml), env={"CONDA_EXE": str(conda), "MAMBA_EXE": ""})
    assert r.exit_code == 2
    assert "error: conda create failed with exit code 1" in r.stderr and "PackagesNotFoundError" in r.stderr
    assert set(Path(__import__("tempfile").gettempdir()).glob("envkit-smoke-env-*")) == before


def test_environment_yml_with_micromamba_uses_its_create_form(tmp_path, monkeypatch):
    """micromamba has no `env create`: `micromamba create --yes --prefix TMP --file FILE`."""
    from envkit.formats import read_file
    from envkit.smoke import runner

    log = tmp_path / "argv"
    mm = tmp_path / "micromamba"
    mm.write_text(f'#!/bin/sh\necho "$@" > "{log}"\n'
                  'while [ "$#" -gt 0 ]; do if [ "$1" = "--prefix" ]; then P="$2"; fi; shift; done\n'
                  'mkdir -p "$P/bin"\n')
    mm.chmod(0o755)
    yml = tmp_path / "environment.yml"
    yml.write_text("name: t\ndependencies:\n  - python=3.11\n")
    monkeypatch.setenv("MAMBA_EXE", str(mm))
    monkeypatch.delenv("CONDA_EXE", raising=False)
    prefix, how = runner.create_env(str(yml), read_file(str(yml)), "env")
    try:
        assert how == f"micromamba ({mm})"
        assert log.read_text().split() == ["create", "--yes", "--prefix", str(prefix), "--file", str(yml)]
        assert (prefix / "bin").is_dir() and prefix.name == "env"
    finally:
        shutil.rmtree(prefix.parent)
