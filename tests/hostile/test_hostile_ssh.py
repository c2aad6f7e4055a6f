"""Hostile ssh settings and URLs through the CLI: an ENVKIT_SSH_MAX_MIB with no finite size (`inf`,
`1e400`), an ENVKIT_SSH that does not split as a command line (an unclosed quote), and an ssh:// URL
whose bracketed host is malformed (which used to end in an internal OverflowError or ValueError, exit
3).  Each is refused with exit 2 before any ssh runs: ENVKIT_SSH is a stand-in that leaves a mark if it
is ever started."""

from __future__ import annotations

import pytest
from conftest import run_envkit

ENV_FILE = "name: x\ndependencies:\n  - python=3.11\n"


@pytest.fixture
def work(tmp_path):
    """(the folder, a stand-in ssh that marks being run and fails as an unreachable host would)."""
    (tmp_path / "env.yml").write_text(ENV_FILE)
    ssh = tmp_path / "ssh"
    ssh.write_text(f"#!/bin/sh\ntouch {tmp_path / 'ssh-ran'}\nexit 255\n")
    ssh.chmod(0o755)
    return tmp_path, str(ssh)


BRACKETS = "hint: ssh://[user@]host[:port]/PATH; an IPv6 address goes in brackets: ssh://[::1]"
MACHINE_BRACKETS = "hint: ssh://[user@]host[:port]; an IPv6 address goes in brackets: ssh://[::1]"


@pytest.mark.parametrize(
    "args, lines",
    [
        (
            ["diff", "ssh://[::1/x", "env.yml"],
            ["error: bad host in 'ssh://[::1/x': a '[' without its ']'", BRACKETS],
        ),
        (
            ["audit", "ssh://[::1/x"],
            ["error: bad host in 'ssh://[::1/x': a '[' without its ']'", BRACKETS],
        ),
        (
            ["fleet", "ssh://[zz]/x"],
            ["error: bad host in 'ssh://[zz]/x': 'zz' in brackets is not an IPv6 address", BRACKETS],
        ),
        (
            ["fleet", "ssh://[zz]"],
            ["error: bad host in 'ssh://[zz]': 'zz' in brackets is not an IPv6 address", BRACKETS],
        ),
        (
            ["diff", "ssh://gpu]/x", "env.yml"],
            ["error: bad host in 'ssh://gpu]/x': unbalanced '[' and ']'", BRACKETS],
        ),
        (
            ["diff", "ssh://[1.2.3.4]/x", "env.yml"],
            ["error: bad host in 'ssh://[1.2.3.4]/x': '1.2.3.4' in brackets is not an IPv6 address"]
            + [BRACKETS],
        ),
        (
            ["check", "env.yml", "--machine", "ssh://[zz]"],
            ["error: bad host in 'ssh://[zz]': 'zz' in brackets is not an IPv6 address", MACHINE_BRACKETS],
        ),
        (
            ["diff", "env.yml", "env.yml", "--machine-a", "ssh://[::1"],
            ["error: --machine-a bad host in 'ssh://[::1': a '[' without its ']'", MACHINE_BRACKETS],
        ),
    ],
)
def test_an_ssh_url_with_a_malformed_bracketed_host_is_refused(work, args, lines):
    folder, ssh = work
    r = run_envkit(*args, env={"ENVKIT_SSH": ssh, "ENVKIT_SSH_MAX_MIB": None}, cwd=folder)
    assert r.exit_code == 2, r.stderr
    assert r.stderr.splitlines()[:2] == lines
    assert not (folder / "ssh-ran").exists()


def test_a_malformed_ssh_url_in_a_hosts_file_names_its_line(work):
    folder, ssh = work
    (folder / "hosts.txt").write_text("gpu1\nssh://[zz]/env:x\n")
    r = run_envkit("fleet", "@hosts.txt", env={"ENVKIT_SSH": ssh, "ENVKIT_SSH_MAX_MIB": None}, cwd=folder)
    assert r.exit_code == 2, r.stderr
    assert r.stderr.splitlines()[0] == (
        "error: hosts.txt:2: bad host in 'ssh://[zz]/env:x': 'zz' in brackets is not an IPv6 address"
    )
    assert not (folder / "ssh-ran").exists()


REMOTE_COMMANDS = {
    "diff": ["diff", "ssh://gpu/env:base", "env.yml", "--no-machine"],
    "fleet": ["fleet", "gpu"],
    # two sessions to one host share a master connection (envkit.fleet.sessions.Masters)
    "fleet-shared": ["fleet", "ssh://gpu/env:a", "ssh://gpu/env:b"],
    "machine": ["check", "env.yml", "--machine", "ssh://gpu"],
}


@pytest.mark.parametrize("command", sorted(REMOTE_COMMANDS))
@pytest.mark.parametrize("value", ["inf", "1e400", "nan", "1e308"])
def test_an_ssh_answer_limit_of_no_finite_size_is_refused(work, command, value):
    folder, ssh = work
    env = {"ENVKIT_SSH": ssh, "ENVKIT_SSH_MAX_MIB": value}
    r = run_envkit(*REMOTE_COMMANDS[command], env=env, cwd=folder)
    assert r.exit_code == 2, r.stderr
    assert r.stderr.splitlines()[:2] == [
        f"error: ENVKIT_SSH_MAX_MIB='{value}' is not a positive number of MiB",
        "hint: a number of MiB, e.g. ENVKIT_SSH_MAX_MIB=512",
    ]
    assert not (folder / "ssh-ran").exists()


@pytest.mark.parametrize("command", sorted(REMOTE_COMMANDS))
@pytest.mark.parametrize(
    "value, first",
    [
        ("'", """error: ENVKIT_SSH="'" is not a command line: no closing quotation"""),
        ("ssh -i 'key", """error: ENVKIT_SSH="ssh -i 'key" is not a command line: no closing quotation"""),
        ("ssh \\", """error: ENVKIT_SSH='ssh \\\\' is not a command line: no escaped character"""),
    ],
)
def test_an_ssh_command_that_does_not_split_is_refused(work, command, value, first):
    folder, _ = work
    env = {"ENVKIT_SSH": value, "ENVKIT_SSH_MAX_MIB": None}
    r = run_envkit(*REMOTE_COMMANDS[command], env=env, cwd=folder)
    assert r.exit_code == 2, r.stderr
    assert r.stderr.splitlines()[0] == first
