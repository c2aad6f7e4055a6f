"""Every `envkit template pytorch` conda style and torch version, through the CLI as a user runs it:
template -> lock -f -> create -> smoke inside the created env (CPU), against local channels that hold
packages matching what the template asks for.

The channel's `python` is the test-factory shim that runs the test interpreter, which has the CPU
torch, so `smoke` really runs inside the created prefix."""

from __future__ import annotations

import dataclasses
import json

import pytest
from support.condafactory import python_interpreter_pkg
from support.specchannel import channels_for_spec, localize

from envkit.templates import load_matrix

M = load_matrix()
CASES = [(style, t) for style in ("conda-forge", "pytorch-channel") for t in M.torch_versions(style)]
#: smoke (an import of torch, seconds each) runs in the oldest and newest env of each style; every
#: other version is locked and created
SMOKED = {(s, v) for s in ("conda-forge", "pytorch-channel") for v in (M.torch_versions(s)[0], M.newest(s))}
ONLY = json.dumps({"only": ["torch.build", "cuda.available"]})


def _python(version: str, build: str):
    # a python whose bin/python runs the test interpreter, with no dependencies of its own
    return dataclasses.replace(python_interpreter_pkg(version, build=build), depends=[])


def _lock_template(envkit_cli, tmp_path, style, torch, *extra):
    from envkit.formats import read_file

    env = tmp_path / "environment.yml"
    r = envkit_cli("template", "pytorch", "--style", style, "--torch", torch, *extra, "-o", str(env))
    assert r.exit_code == 0, r.stderr
    built = channels_for_spec(tmp_path / "channels", read_file(str(env)), overrides={"python": _python})
    assert built.unsatisfiable == {}
    env.write_text(localize(env.read_text(), built.channels))
    lock = tmp_path / "conda-lock.yml"
    r = envkit_cli("lock", "-f", str(env), "--platform", "linux-64", "-o", str(lock))
    assert r.exit_code == 0, r.stderr
    return lock, built


@pytest.mark.parametrize("style,torch", CASES)
def test_cuda_template_locks(style, torch, tmp_path, envkit_cli):
    from envkit.formats.condalock import read_conda_lock

    lock, built = _lock_template(envkit_cli, tmp_path, style, torch)
    got = read_conda_lock(lock.read_text(), str(lock))
    assert {p.name: (p.version, p.build) for p in got.packages} == built.packages
    build = built.packages["pytorch"][1]
    assert build.startswith("cuda") if style == "conda-forge" else True
    assert built.packages["pytorch"][0].startswith(torch)


@pytest.mark.slow
@pytest.mark.torch
@pytest.mark.parametrize("style,torch", CASES)
def test_cpu_template_locks_creates_and_smokes(style, torch, tmp_path, envkit_cli, isolated_conda):
    pytest.importorskip("torch")
    lock, built = _lock_template(envkit_cli, tmp_path, style, torch, "--cpu")
    prefix = tmp_path / "env"
    r = envkit_cli("create", "--lock", str(lock), "-p", str(prefix), "--platform", "linux-64")
    assert r.exit_code == 0, r.stderr
    assert (prefix / "conda-meta" / f"pytorch-{'-'.join(built.packages['pytorch'])}.json").is_file()
    if (style, torch) not in SMOKED:
        return
    r = envkit_cli("smoke", "-p", str(prefix), "--json", env={"ENVKIT_SMOKE_TEST_CONFIG": ONLY})
    assert r.exit_code == 0, r.stdout + r.stderr
    rep = json.loads(r.stdout)
    assert rep["target"]["python"] == f"{prefix}/bin/python"
    assert {c["name"]: c["status"] for c in rep["checks"]} == {
        "import.torch": "pass",
        "torch.build": "pass",
        "cuda.available": "skip",
    }
