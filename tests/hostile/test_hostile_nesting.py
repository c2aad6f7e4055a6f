"""Hostile nesting through the CLI: an alias inside the collection it names (which used to hang
every command while memory grew), an alias bomb, and JSON/TOML nested 200,000 deep (which used to end
in an internal RecursionError, exit 3): files read as environments, and the configuration, machine
profiles, VEX and OSV documents, conda-meta records and the PyTorch matrix.  Each is refused with
exit 2, naming the file and line."""

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


def _deep_json(path):
    path.write_text("[" * LEVELS + "]" * LEVELS, encoding="utf-8")
    return path


@pytest.mark.parametrize("args", [["machine", "{f}"], ["check", "--machine", "{f}", "{env}"]])
def test_a_machine_profile_nested_200k_deep_is_refused(tmp_path, args):
    f, env = _deep_json(tmp_path / "profile.json"), tmp_path / "environment.yml"
    env.write_text("name: t\ndependencies:\n  - python=3.11\n", encoding="utf-8")
    r = run_envkit(*(a.format(f=f, env=env) for a in args))
    assert r.exit_code == 2, r.stderr
    assert r.stderr.splitlines()[0] == f"error: {f}:1: JSON nested more than 64 levels deep; refused"


def test_a_vex_document_and_an_osv_record_nested_200k_deep_are_refused(tmp_path):
    import shutil

    from conftest import DATA

    db = shutil.copytree(DATA / "osv", tmp_path / "osv", ignore=shutil.ignore_patterns("*envkit-index.json"))
    env = tmp_path / "requirements.txt"
    env.write_text("jinja2==2.10\n", encoding="utf-8")
    vex = _deep_json(tmp_path / "vex.json")
    r = run_envkit("audit", "--db", str(db), "--vex", str(vex), str(env), cwd=tmp_path)
    assert (r.exit_code, r.stderr.splitlines()[0]) == (
        2,
        f"error: {vex}:1: JSON nested more than 64 levels deep; refused",
    )
    record = _deep_json(db / "ghsa" / "GHSA-0000-0000-0000.json")
    r = run_envkit("audit", "--db", str(db), str(env), cwd=tmp_path)
    assert (r.exit_code, r.stderr.splitlines()[0]) == (
        2,
        f"error: {record}:1: JSON nested more than 64 levels deep; refused",
    )


def test_a_conda_meta_record_nested_200k_deep_is_a_corrupt_record(tmp_path):
    meta = tmp_path / "prefix" / "conda-meta"
    meta.mkdir(parents=True)
    (meta / "history").write_text("", encoding="utf-8")
    record = meta / "zlib-1.3.1-h0_0.json"
    record.write_text(
        '{"name": "zlib", "version": "1.3.1", "x": ' + "[" * LEVELS + "]" * LEVELS + "}", encoding="utf-8"
    )
    for args in (["export", "-p", str(meta.parent)], ["check", "-p", str(meta.parent)]):
        r = run_envkit(*args)
        assert r.exit_code == 2, r.stderr
        assert (
            r.stderr.splitlines()[0]
            == f"error: {record}: corrupt conda package record: invalid JSON: nested too deep to read"
        )


def test_a_pytorch_matrix_nested_200k_deep_is_refused(tmp_path):
    from envkit.errors import ParseError
    from envkit.templates import load_matrix

    f = _deep_json(tmp_path / "matrix.json")
    with pytest.raises(ParseError) as exc:
        load_matrix(f)
    assert str(exc.value) == f"{f}:1: JSON nested more than 64 levels deep; refused"
