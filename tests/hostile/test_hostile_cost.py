"""Input whose cost is not linear, or not bounded, is refused early with a clear limit: long or
many-constraint match specs, YAML text amplified by aliases, a million-entry environment file,
FIFOs, devices and kernel pseudo-files."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest
from conftest import run_envkit

COMMANDS = [["validate"], ["check"], ["normalize"], ["diff"]]


def _run(command, path, **kw):
    args = [*command, str(path)] + ([str(path)] if command == ["diff"] else [])
    return run_envkit(*args, **kw)


def _first_error(r) -> str:
    return next(ln for ln in r.stderr.splitlines() if ln.startswith("error: "))


@pytest.mark.parametrize("command", COMMANDS)
def test_a_match_spec_with_thousands_of_constraints_is_refused(tmp_path, command):
    env = tmp_path / "environment.yml"
    env.write_text("dependencies:\n  - numpy" + ",".join([">=1.0"] * 600) + "\n")
    r = _run(command, env)
    assert r.exit_code == 2
    assert _first_error(r).startswith(
        f"error: {env}:2: match spec has 600 version constraints; envkit reads at most 256: 'numpy>=1.0,>=1.0"
    )


@pytest.mark.parametrize("command", COMMANDS)
def test_a_match_spec_longer_than_4096_characters_is_refused(tmp_path, command):
    env = tmp_path / "environment.yml"
    env.write_text("dependencies:\n  - numpy" + "1" * 12_000 + "\n")
    r = _run(command, env)
    assert r.exit_code == 2
    assert _first_error(r).startswith(
        f"error: {env}:2: match spec is 12,005 characters long; envkit reads specs of at most 4,096"
    )


def test_a_spec_of_256_constraints_still_reads():
    from envkit.conda.matchspec import parse_spec

    dep = parse_spec("numpy" + ",".join([">=1.0"] * 256))
    assert dep.name == "numpy"


@pytest.mark.parametrize("command", COMMANDS)
def test_text_amplified_by_aliases_is_refused(tmp_path, command):
    env = tmp_path / "environment.yml"
    env.write_text(
        'name: t\ndependencies: [python]\nextra: &a "'
        + "x" * 100_000
        + '"\nmore: ['
        + ", ".join(["*a"] * 700)
        + "]\n"
    )
    r = _run(command, env)
    assert r.exit_code == 2
    assert _first_error(r) == (
        f"error: {env}:1: YAML document expands to more than 64 MiB of text through "
        "its aliases (alias bomb?); refused"
    )


def test_a_few_aliases_of_short_text_still_read(tmp_path):
    env = tmp_path / "environment.yml"
    env.write_text("name: t\ndependencies: [python]\nx-base: &a {a: [b, c]}\nx-more: [*a, *a]\n")
    assert run_envkit("validate", str(env)).stdout == f"ok: {env}: environment spec, 1 conda, 0 pip\n"


@pytest.mark.parametrize("command", COMMANDS)
def test_an_environment_file_of_more_than_100000_lines_is_refused_before_parsing(tmp_path, command):
    env = tmp_path / "environment.yml"
    env.write_text("dependencies:\n" + "".join(f"  - p{i}==1.0\n" for i in range(100_001)))
    r = _run(command, env)
    assert r.exit_code == 2
    assert (
        _first_error(r)
        == f"error: {env}: an environment file has 100,002 lines; envkit reads at most 100,000 in one"
    )


def test_a_one_line_flow_list_of_more_than_100000_entries_is_refused(tmp_path):
    env = tmp_path / "environment.yml"
    env.write_text("dependencies: [" + ", ".join(["p==1"] * 100_001) + "]\n")
    r = run_envkit("validate", str(env))
    assert r.exit_code == 2
    assert _first_error(r) == f"error: {env}:1: 100,001 entries; envkit reads at most 100,000 in one list"


@pytest.mark.parametrize(
    "fmt, name, what",
    [
        ("requirements", "requirements.txt", "a requirements file"),
        ("explicit", "explicit.txt", "an explicit file"),
    ],
)
def test_line_formats_of_more_than_100000_lines_are_refused(tmp_path, fmt, name, what):
    path = tmp_path / name
    path.write_text("@EXPLICIT\n" * (fmt == "explicit") + "# x\n" * 100_001)
    r = run_envkit("validate", "--format", fmt, str(path))
    assert r.exit_code == 2
    n = 100_001 + (fmt == "explicit")
    assert _first_error(r) == f"error: {path}: {what} has {n:,} lines; envkit reads at most 100,000 in one"


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")
@pytest.mark.parametrize(
    "command",
    [["validate"], ["normalize"], ["check"], ["diff"], ["lock", "--check", "--lock", "conda-lock.yml", "-f"]],
)
def test_a_fifo_with_no_writer_is_refused_not_waited_on(tmp_path, command):
    fifo = tmp_path / "environment.yml"
    os.mkfifo(fifo)
    (tmp_path / "conda-lock.yml").write_text("version: 1\n")
    # a subprocess, so that a regression fails the test (timeout) instead of hanging the suite
    args = [*command, str(fifo)] + ([str(fifo)] if command == ["diff"] else [])
    proc = subprocess.run(
        [sys.executable, "-m", "envkit", *args],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=tmp_path,
        env={**os.environ, "HOME": str(tmp_path)},
    )
    assert proc.returncode == 2
    assert (
        f"error: {fifo}: is a named pipe (FIFO), not a regular file; envkit reads regular files (and '-' for "
        f"stdin)" in proc.stderr.splitlines()
    )


@pytest.mark.skipif(not os.path.exists("/proc/self/environ"), reason="no /proc here")
@pytest.mark.parametrize("command", [["validate"], ["normalize", "-o", "-"], ["check"], ["diff"]])
def test_proc_self_environ_is_not_read_as_a_requirements_file(command):
    r = _run(command, "/proc/self/environ")
    assert r.exit_code == 2
    assert r.stdout == ""
    assert _first_error(r) == (
        "error: /proc/self/environ: is a kernel pseudo-file (its size is 0, yet it has "
        "content: /proc, /sys), not a regular file; envkit reads regular files (and '-' "
        "for stdin)"
    )


def test_a_character_device_is_refused():
    r = run_envkit("validate", os.devnull)
    assert r.exit_code == 2
    assert _first_error(r) == (
        f"error: {os.devnull}: is a character device, not a regular file; envkit reads "
        "regular files (and '-' for stdin)"
    )


def test_stdin_is_still_read(tmp_path):
    r = run_envkit("validate", "-", input="dependencies: [python=3.11]\n")
    assert r.stdout == "ok: <stdin>: environment spec, 1 conda, 0 pip\n"


def test_a_name_repeated_50000_times_is_one_finding_quoting_five_entries(tmp_path):
    env = tmp_path / "environment.yml"
    env.write_text(
        "name: t\nchannels: [conda-forge]\ndependencies:\n" + "  - numpy\n" * 50_000, encoding="utf-8"
    )
    r = run_envkit("check", "--select", "listed-twice", str(env))
    assert r.exit_code == 0, r.stderr
    quoted = ", ".join(f"'numpy' (line {n})" for n in range(4, 9))
    assert r.stdout.splitlines()[0] == (
        f"{env}:5: warning listed-twice: numpy is listed 50,000 times in the conda section: "
        f"{quoted} and 49,995 more; keep one entry"
    )
