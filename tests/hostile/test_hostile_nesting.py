"""Hostile nesting through the CLI: an alias inside the collection it names (which used to hang
every command while memory grew), an alias bomb, and JSON/TOML nested 200,000 deep (which used to end
in an internal RecursionError, exit 3).  Each is refused with exit 2, naming the file and line."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest
from conftest import run_envkit
from support.hostilefiles import DEEP as LEVELS
from support.hostilefiles import ERRORS, HOSTILE

COMMANDS = ["check", "validate", "normalize", "diff"]
YAML = [k for k in HOSTILE if k.startswith(("alias", "billion"))]
DEEP = [k for k in HOSTILE if k.startswith("deep")]


def _write(tmp_path, name: str):
    file_name, text = HOSTILE[name]
    path = tmp_path / file_name
    path.write_text(text, encoding="utf-8")
    return path


def _args(command: str, path) -> list[str]:
    return [command, str(path)] + ([str(path)] if command == "diff" else [])


@pytest.mark.parametrize("command", COMMANDS)
@pytest.mark.parametrize("name", YAML)
def test_yaml_aliases_that_never_end_are_refused_by_a_real_process(tmp_path, name, command):
    path = _write(tmp_path, name)
    env = {**os.environ, "NO_COLOR": "1", "HOME": str(tmp_path)}
    # a real process: a hang is a timeout here, not a stuck test run (the timeout is only a guard)
    proc = subprocess.run(
        [sys.executable, "-m", "envkit", *_args(command, path)],
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp_path,
        timeout=300,
    )
    assert proc.returncode == 2, proc.stderr
    assert proc.stderr.splitlines()[0] == f"error: {path}:{ERRORS[name]}"


@pytest.mark.parametrize("command", COMMANDS)
@pytest.mark.parametrize("name", DEEP)
def test_json_and_toml_nested_200k_deep_are_refused(tmp_path, name, command):
    path = _write(tmp_path, name)
    r = run_envkit(*_args(command, path))
    assert r.exit_code == 2, r.stderr
    assert r.stderr.splitlines()[0] == f"error: {path}:{ERRORS[name]}"
    assert "RecursionError" not in r.stderr


CONFIGS = [
    ("pyproject.toml", "[tool.envkit]\nx = ", 2),
    (".envkit.toml", "# rules\nfail-on = ", 2),
]


@pytest.mark.parametrize(("name", "head", "line"), CONFIGS)
def test_a_configuration_nested_200k_deep_is_refused_naming_its_line(tmp_path, name, head, line):
    (tmp_path / name).write_text(head + "[" * LEVELS + "]" * LEVELS + "\n", encoding="utf-8")
    (tmp_path / "environment.yml").write_text("name: t\ndependencies:\n  - python=3.11\n", encoding="utf-8")
    r = run_envkit("check", "environment.yml", cwd=tmp_path)
    assert r.exit_code == 2, r.stderr
    where = f"error: {tmp_path / name}:{line}: "
    assert (
        r.stderr.splitlines()[0]
        == where + "TOML (envkit configuration) nested more than 64 levels deep; refused"
    )


def test_an_audit_configuration_nested_200k_deep_is_refused_naming_its_line(tmp_path):
    config = tmp_path / "audit.toml"
    config.write_text("[audit]\nignore = " + "[" * LEVELS + "]" * LEVELS + "\n", encoding="utf-8")
    (tmp_path / "environment.yml").write_text("name: t\ndependencies:\n  - python=3.11\n", encoding="utf-8")
    r = run_envkit("audit", "--config", str(config), "environment.yml", cwd=tmp_path)
    assert r.exit_code == 2, r.stderr
    assert r.stderr.splitlines()[0] == (
        f"error: {config}:2: TOML (envkit configuration) nested more than 64 levels deep; refused"
    )


def test_a_uv_lock_beside_a_pyproject_nested_200k_deep_converts_as_the_lock_alone(tmp_path):
    from conftest import DATA

    lock = (DATA / "manifests" / "uv-docker" / "uv.lock").read_text(encoding="utf-8")
    alone, beside = tmp_path / "alone", tmp_path / "beside"
    for d in (alone, beside):
        d.mkdir()
        (d / "uv.lock").write_text(lock, encoding="utf-8")
    (beside / "pyproject.toml").write_text("x = " + "[" * LEVELS + "]" * LEVELS + "\n", encoding="utf-8")
    want = run_envkit("convert", str(alone / "uv.lock"), "--to", "requirements", "-o", "-")
    got = run_envkit("convert", str(beside / "uv.lock"), "--to", "requirements", "-o", "-")
    assert (got.exit_code, got.stderr) == (want.exit_code, want.stderr.replace(str(alone), str(beside)))
    assert want.exit_code == 0, want.stderr
    assert got.stdout == want.stdout and "anyio==" in got.stdout
