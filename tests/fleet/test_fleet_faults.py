"""`envkit fleet` and `envkit diff ssh://` against remote hosts that fail in their own ways, over a
real OpenSSH server on 127.0.0.1.

Each "environment" is a hand-made prefix (conda-meta records written here); the faulty ones are a
prefix whose record is a FIFO nobody writes (an environment that hangs, as on a stuck network
file system), truncated or mistyped records, and fake remote interpreters (ENVKIT_REMOTE_PYTHON:
the "remote" machine is this one) that segfault, drip, stall or answer without end.  Every limit
is set small through options and environment variables; no assertion measures wall-clock time.
Skipped (saying why) without sshd: `make test INSTALL_SSHD=1` installs openssh-server.
"""

from __future__ import annotations

import errno
import json
import os
import re
import shutil
import stat
import sys
from pathlib import Path

import pytest
from support.sshd import Sshd, client_ssh, free_port, keygen, sshd_binary

pytestmark = pytest.mark.slow

RECORDS = {
    "python": ("3.11.8", "hab00c5b_0_cpython"),
    "zlib": ("1.3.1", "h4ab18f5_1"),
}


def make_env(prefix: Path, records: dict[str, tuple[str, str]] = RECORDS, python: str | None = None) -> Path:
    """A prefix holding conda-meta records (what envkit's reader reads) and `bin/python`, the
    interpreter envkit runs there when the remote PATH has none: this test's Python, or the
    shell script `python`."""
    meta = prefix / "conda-meta"
    meta.mkdir(parents=True)
    (prefix / "bin").mkdir()
    if python is None:
        (prefix / "bin" / "python").symlink_to(sys.executable)
    else:
        fake_python(prefix / "bin", "python", python)
    for name, (version, build) in records.items():
        fn = f"{name}-{version}-{build}.conda"
        rec = {
            "name": name,
            "version": version,
            "build": build,
            "build_number": 0,
            "channel": "https://conda.anaconda.org/conda-forge/linux-64",
            "subdir": "linux-64",
            "fn": fn,
            "url": f"https://conda.anaconda.org/conda-forge/linux-64/{fn}",
            "depends": [],
        }
        (meta / f"{name}-{version}-{build}.json").write_text(json.dumps(rec))
    return prefix


def fake_python(d: Path, name: str, body: str) -> str:
    """An executable standing in for the remote interpreter."""
    path = d / name
    path.write_text("#!/bin/sh\n" + body + "\n")
    path.chmod(0o755)
    return str(path)


@pytest.fixture(scope="module")
def host(tmp_path_factory):
    if sshd_binary() is None or shutil.which("ssh") is None:
        pytest.skip("sshd (openssh-server) is not installed; `make test INSTALL_SSHD=1` installs it")
    d = tmp_path_factory.mktemp("faults")
    keygen(d / "client_key")
    port = free_port()
    (d / "home").mkdir()
    (d / "bin").mkdir()
    (d / "bin" / "sh").symlink_to("/bin/sh")
    server = Sshd(
        d / "sshd",
        ["127.0.0.1"],
        port,
        authorized=d / "client_key.pub",
        # a shell but no python3 on the remote PATH: each environment's own bin/python runs
        extra=[f"SetEnv HOME={d / 'home'} PATH={d / 'bin'}"],
    )
    hung = make_env(d / "hung")  # a record nobody writes: reading it blocks
    fifo = hung / "conda-meta" / "zz-stuck-1.0-0.json"
    os.mkfifo(fifo)
    try:
        server.wait()
        yield {"dir": d, "port": port, "env": {"ENVKIT_SSH": client_ssh(d, d / "client_key", port)}}
    finally:
        server.stop()
        _release(fifo)


def _release(fifo: Path) -> None:
    """Let every remote reader still blocked on the FIFO go (it reads an empty record and ends)."""
    while True:
        try:
            fd = os.open(fifo, os.O_WRONLY | os.O_NONBLOCK)
        except OSError as exc:
            assert exc.errno == errno.ENXIO  # no reader left
            return
        os.close(fd)


def url(host, path: Path | str) -> str:
    return f"ssh://127.0.0.1:{host['port']}{path}"


def test_a_hung_environment_leaves_the_healthy_one_on_its_host_alone(envkit_cli, host, tmp_path):
    # Two at a time: a healthy but slow environment on 127.0.0.1, a quick one on `localhost` (a
    # connection of its own); when the quick one is done, the hung environment's session starts
    # while the slow one's is still running, so it could ride on the slow one's connection.
    slow = make_env(tmp_path / "slow", python=f'/bin/sleep 2; exec {sys.executable} "$@"')
    quick = make_env(tmp_path / "quick")
    hung = host["dir"] / "hung"
    assert stat.S_ISFIFO(os.stat(hung / "conda-meta" / "zz-stuck-1.0-0.json").st_mode)
    r = envkit_cli(
        "fleet", url(host, slow), f"ssh://localhost:{host['port']}{quick}", url(host, hung),
        "--timeout", "5", "-j", "2", "--no-machine", "--format", "json", env=host["env"],
    )  # fmt: skip
    data = json.loads(r.stdout)
    assert [g["members"] for g in data["groups"]] == [
        [f"127.0.0.1:{host['port']}{slow}", f"localhost:{host['port']}"]
    ]
    assert data["groups"][0]["env"]["packages"] == 2
    [u] = data["unreachable"]
    assert u["host"] == f"127.0.0.1:{host['port']}{hung}"
    assert u["why"].startswith("stalled: no output for ")
    assert u["why"].endswith(
        " after 16 bytes; the remote prefix reader started but did not finish within 5 s (per-host timeout)"
    )
    assert r.exit_code == 1


def _fleet(envkit_cli, host, source: str, *args: str, env: dict[str, str] | None = None) -> dict:
    r = envkit_cli(
        "fleet", source, "--no-machine", "--format", "json", *args, env={**host["env"], **(env or {})}
    )
    assert r.exit_code == 1, r.stderr
    [u] = json.loads(r.stdout)["unreachable"]
    return u


@pytest.mark.parametrize(
    ("record", "message"),
    [
        (
            '{"name": "zlib", "version": "1.3.1", "bu',
            ": corrupt conda package record: invalid JSON: Unterminated string",
        ),
        (
            '{"name": 5, "version": "1.3.1"}',
            " (name): corrupt conda package record: name must be a string, not a number",
        ),
    ],
    ids=["truncated", "name-is-a-number"],
)
def test_a_bad_record_has_one_verdict_here_and_over_ssh(envkit_cli, host, tmp_path, record, message):
    env = make_env(tmp_path / "env")
    bad = env / "conda-meta" / "zlib-1.3.1-h4ab18f5_1.json"
    bad.write_text(record)
    other = make_env(tmp_path / "other")
    local = envkit_cli("diff", str(env), str(other))
    remote = envkit_cli("diff", url(host, env), str(other), env=host["env"])
    assert (local.exit_code, remote.exit_code) == (2, 2), remote.stdout
    assert local.stderr.startswith(f"error: {bad}{message}")
    assert remote.stderr == local.stderr
    # fleet: the same row for the prefix read here and for the one read over ssh
    rows = envkit_cli("fleet", str(env), url(host, env), "--no-machine", "--format", "json", env=host["env"])
    assert rows.exit_code == 1
    data = json.loads(rows.stdout)
    assert data["groups"] == []
    [here, there] = data["unreachable"]
    assert here["why"].startswith(f"{bad}{message}")
    assert (there["status"], there["why"]) == (here["status"], here["why"]) == ("failed", here["why"])


def test_an_endless_answer_stops_at_the_cap(envkit_cli, host, tmp_path):
    env = make_env(tmp_path / "env")
    endless = fake_python(tmp_path, "endless", "printf -- '--envkit-scan--\\n'; exec /usr/bin/yes")
    u = _fleet(envkit_cli, host, url(host, env), "--timeout", "20",
               env={"ENVKIT_REMOTE_PYTHON": endless, "ENVKIT_SSH_MAX_MIB": "1"})  # fmt: skip
    assert u["status"] == "failed"
    assert u["why"] == "the answer is larger than the 1 MiB envkit reads from a host: stopped"
    capped = {**host["env"], "ENVKIT_REMOTE_PYTHON": endless, "ENVKIT_SSH_MAX_MIB": "1"}
    r = envkit_cli("diff", url(host, env), str(env), env=capped)
    assert r.exit_code == 2
    assert r.stderr == (
        f"error: {url(host, env)}: the answer is larger than the 1 MiB envkit reads from a host: "
        "stopped\nhint: ENVKIT_SSH_MAX_MIB=N raises the limit\n"
    )


def test_a_reader_killed_by_a_signal_says_so(envkit_cli, host, tmp_path):
    env = make_env(tmp_path / "env")
    crash = fake_python(
        tmp_path,
        "crash",
        f"exec {sys.executable} -c 'import os, signal; os.kill(os.getpid(), signal.SIGSEGV)'",
    )
    u = _fleet(envkit_cli, host, url(host, env), env={"ENVKIT_REMOTE_PYTHON": crash})
    assert u["status"] == "failed"
    # the remote shell's own words follow, in parentheses (dash: "Segmentation fault")
    assert u["why"].startswith("the remote prefix reader was killed by signal 11 (SEGV) ("), u["why"]
    # the machine probe goes the same way
    r = envkit_cli(
        "machine", f"ssh://127.0.0.1:{host['port']}", env={**host["env"], "ENVKIT_REMOTE_PYTHON": crash}
    )
    assert r.exit_code == 2
    assert r.stderr.startswith(
        f"error: ssh://127.0.0.1:{host['port']}: the remote machine probe was killed by signal 11 (SEGV)"
    )


def test_a_dripping_reader_is_too_slow(envkit_cli, host, tmp_path):
    env = make_env(tmp_path / "env")
    drip = fake_python(tmp_path, "drip", "while :; do printf x; /bin/sleep 0.1; done")
    u = _fleet(envkit_cli, host, url(host, env), "--timeout", "3", env={"ENVKIT_REMOTE_PYTHON": drip})
    assert u["status"] == "unreachable"
    assert u["why"].startswith("too slow: ")
    assert u["why"].endswith(" bytes and still arriving; no complete answer within 3 s (per-host timeout)")


def test_a_stalled_reader_says_since_when(envkit_cli, host, tmp_path):
    env = make_env(tmp_path / "env")
    stall = fake_python(tmp_path, "stall", "printf 'half an answer'; exec /bin/sleep 60")
    u = _fleet(envkit_cli, host, url(host, env), "--timeout", "3", env={"ENVKIT_REMOTE_PYTHON": stall})
    assert u["status"] == "unreachable"
    assert re.fullmatch(
        r"stalled: no output for [0-9.]+ s after 14 bytes; "
        r"no complete answer within 3 s \(per-host timeout\)",
        u["why"],
    ), u["why"]
