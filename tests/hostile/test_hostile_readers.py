"""Hostile input to the readers themselves, through the CLI: integers of more digits than Python
converts (which used to end in an internal ValueError, exit 3) in YAML, TOML and JSON, and YAML
tags on text that is not of their type.  Each is refused with exit 2, naming the file and line."""

from __future__ import annotations

import pytest
from conftest import DATA, run_envkit

DIGITS = "9" * 5000
LONG = "an integer of more than 4300 digits; refused"
ENV = "name: t\ndependencies:\n  - numpy\n"

# (file name, text, line of the integer): YAML through the fast reader (block) and libyaml (flow,
# signed, octal, hex, base 60), TOML manifests and locks, `conda list --json`
NUMBERS = {
    "yaml-block": ("environment.yml", f"dependencies:\n  - numpy\nx: {DIGITS}\n", 3),
    "yaml-block-item": ("environment.yml", f"dependencies:\n  - numpy\n  - {DIGITS}\n", 3),
    "yaml-flow": ("environment.yml", f"dependencies: [numpy]\nx: [{DIGITS}]\n", 2),
    "yaml-negative": ("environment.yml", f"dependencies: [numpy]\nx: -{DIGITS}\n", 2),
    "yaml-octal": ("environment.yml", "dependencies: [numpy]\nx: 0" + "7" * 5000 + "\n", 2),
    "yaml-hex": ("environment.yml", "dependencies:\n  - numpy\nx: 0x" + "f" * 5000 + "\n", 3),
    "yaml-base60": ("environment.yml", "dependencies:\n  - numpy\nx: 1" + ":59" * 3000 + "\n", 3),
    "pixi-toml": (
        "pixi.toml",
        '[workspace]\nname = "a"\nchannels = ["conda-forge"]\nplatforms = ["linux-64"]\n'
        f'# {DIGITS}\nx = "{DIGITS}"\nzz = [1, {DIGITS}]\n[dependencies]\nnumpy = "*"\n',
        7,
    ),
    "pyproject": ("pyproject.toml", f'[project]\nname = "a"\nversion = "1"\nzz = -{DIGITS}\n', 4),
    "uv-lock": ("uv.lock", f"version = 1\nzz = {DIGITS}\n", 2),
    "pylock": ("pylock.toml", f'lock-version = "1.0"\nzz = {DIGITS}\n', 2),
    "conda-list-json": ("list.json", f'[{{"name": "{DIGITS}", "a": 1.5e3,\n "b": {DIGITS}}}]', 2),
}


@pytest.mark.parametrize("command", ["validate", "check", "normalize", "diff"])
@pytest.mark.parametrize("name", NUMBERS)
def test_an_integer_of_more_digits_than_python_reads_is_refused_naming_its_line(tmp_path, name, command):
    file_name, text, line = NUMBERS[name]
    path = tmp_path / file_name
    path.write_text(text, encoding="utf-8")
    args = [command, str(path)] + ([str(path)] if command == "diff" else [])
    r = run_envkit(*args, cwd=tmp_path)
    assert r.exit_code == 2, r.stderr
    assert r.stderr.splitlines()[0] == f"error: {path}:{line}: {LONG}"


def test_an_integer_of_more_digits_than_python_reads_converts_to_nothing(tmp_path):
    path = tmp_path / "environment.yml"
    path.write_text(NUMBERS["yaml-hex"][1], encoding="utf-8")
    out = tmp_path / "out.yml"
    r = run_envkit("convert", str(path), "--to", "env", "-o", str(out))
    assert (r.exit_code, r.stderr.splitlines()[0]) == (2, f"error: {path}:3: {LONG}")
    assert not out.exists()


def test_an_integer_of_4300_digits_is_read_as_written(tmp_path):
    path = tmp_path / "environment.yml"
    path.write_text(f"dependencies:\n  - numpy\nx: {'9' * 4300}\n", encoding="utf-8")
    r = run_envkit("convert", str(path), "--to", "env", "-o", "-")
    assert r.exit_code == 0, r.stderr
    assert f"x: {'9' * 4300}\n" in r.stdout


def test_a_configuration_with_an_integer_too_long_is_refused_naming_its_line(tmp_path):
    config = tmp_path / ".envkit.toml"
    config.write_text(f"# rules\nfail-on = {DIGITS}\n", encoding="utf-8")
    (tmp_path / "environment.yml").write_text(ENV, encoding="utf-8")
    r = run_envkit("check", "environment.yml", cwd=tmp_path)
    assert r.exit_code == 2, r.stderr
    assert r.stderr.splitlines()[0] == f"error: {config}:2: {LONG}"


def test_lock_check_with_an_integer_too_long_in_the_lock_is_refused(tmp_path):
    lock = tmp_path / "conda-lock.yml"
    text = (DATA / "lock" / "conda-lock.yml").read_text(encoding="utf-8")
    lock.write_text(text + f"zz: {DIGITS}\n", encoding="utf-8")
    (tmp_path / "environment.yml").write_text(ENV, encoding="utf-8")
    r = run_envkit("lock", "--check", "-f", "environment.yml", "--lock", str(lock), cwd=tmp_path)
    assert r.exit_code == 2, r.stderr
    assert r.stderr.splitlines()[0] == f"error: {lock}:{text.count(chr(10)) + 1}: {LONG}"


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("!!int abc", "YAML int 'abc' is not a valid int"),
        ("!!float zz", "YAML float 'zz' is not a valid float"),
        ("!!bool zz", "YAML bool 'zz' is not a valid bool"),
    ],
)
def test_a_yaml_tag_on_text_not_of_its_type_is_refused(tmp_path, value, message):
    path = tmp_path / "environment.yml"
    path.write_text(f"dependencies: [numpy]\nx: {value}\n", encoding="utf-8")
    r = run_envkit("validate", str(path))
    assert (r.exit_code, r.stderr.splitlines()[0]) == (2, f"error: {path}:2: {message}")
