"""`envkit fleet` over real OpenSSH: 52 hosts on 127.0.0.2-53, -j 8.

45 hosts serve one environment, 3 another (an older numpy), one answers nothing (its sshd runs
`sleep` instead of the command: past the per-host timeout), one asks for a password (no key is
authorized: BatchMode makes ssh fail at once), and two have no server at all.  Each sshd gets
its environments directory and HOME through SetEnv; nothing is installed on the "remote" side.
Skipped (saying why) without sshd: `make test INSTALL_SSHD=1` installs openssh-server.
"""

import json
import shutil
import socket

import pytest
from support.condafactory import copy_prefix, make_prefix
from support.sshd import Sshd, client_ssh, free_port, keygen, sshd_binary

pytestmark = pytest.mark.slow

#: One host's answer may take this long on a loaded machine; the slow host never answers.
TIMEOUT = 12


def _loopback_ok() -> bool:
    try:
        with socket.socket() as s:
            s.bind(("127.0.0.53", 0))
        return True
    except OSError:
        return False


@pytest.fixture(scope="module")
def cluster(tmp_path_factory, default_prefix, default_channel):
    if sshd_binary() is None or shutil.which("ssh") is None:
        pytest.skip("sshd (openssh-server) is not installed; `make test INSTALL_SSHD=1` installs it")
    if not _loopback_ok():
        pytest.skip("127.0.0.x addresses other than 127.0.0.1 cannot be bound here")
    d = tmp_path_factory.mktemp("fleet-ssh")
    keygen(d / "client_key")
    port = free_port()
    envs_a, envs_b = d / "envs-a", d / "envs-b"
    copy_prefix(default_prefix, envs_a / "research")
    make_prefix(
        envs_b / "research",
        [default_channel],
        ["python=3.11", "numpy=1.26.3", "requests", "pip"],
        cache_dir=d / "pkgs",
    )
    for h in ("home-a", "home-b"):
        (d / h / ".conda").mkdir(parents=True)

    def ips(a, b):
        return [f"127.0.0.{i}" for i in range(a, b + 1)]

    key = d / "client_key.pub"
    set_a = [f"SetEnv CONDA_ENVS_PATH={envs_a} HOME={d / 'home-a'}"]
    # sshd listens on at most 16 sockets (MAX_LISTEN_SOCKS): 45 hosts are three servers
    servers = [
        Sshd(d / f"a{i}", ips(a, a + 14), port, authorized=key, extra=set_a)
        for i, a in enumerate((2, 17, 32))
    ]
    servers += [
        Sshd(
            d / "b",
            ips(47, 49),
            port,
            authorized=key,
            extra=[f"SetEnv CONDA_ENVS_PATH={envs_b} HOME={d / 'home-b'}"],
        ),
        Sshd(d / "slow", ips(50, 50), port, authorized=key, extra=["ForceCommand sleep 300"]),
        Sshd(d / "password", ips(51, 51), port, authorized=None, extra=["PasswordAuthentication yes"]),
    ]
    try:
        for s in servers:
            s.wait()
        yield {"env": {"ENVKIT_SSH": client_ssh(d, d / "client_key", port)}, "dir": d}
    finally:
        for s in servers:
            s.stop()


def test_fan_out_over_52_hosts(envkit_cli, cluster):
    r = envkit_cli(
        "fleet", "127.0.0.[2-53]", "--env", "research", "-j", "8", "--timeout", str(TIMEOUT),
        "--format", "json", env=cluster["env"],
    )  # fmt: skip
    assert r.exit_code == 1, r.stderr
    data = json.loads(r.stdout)
    assert data["hosts"] == 52 and data["read"] == 48
    majority, outlier = data["groups"]
    assert majority["members"] == [f"127.0.0.{i}" for i in range(2, 47)]
    assert outlier["members"] == ["127.0.0.47", "127.0.0.48", "127.0.0.49"]
    # every host ran the machine probe in its session: one machine class, this machine's
    assert majority["machine"]["digest"] == outlier["machine"]["digest"]
    assert [
        (c["name"], c["kind"], c["a"]["version"], c["b"]["version"]) for c in outlier["differs"]["changes"]
    ] == [("numpy", "downgraded", "1.26.4", "1.26.3")]
    why = {u["host"]: u["why"] for u in data["unreachable"]}
    assert sorted(why) == ["127.0.0.50", "127.0.0.51", "127.0.0.52", "127.0.0.53"]
    assert why["127.0.0.50"] == f"no answer within {TIMEOUT} s (per-host timeout)"
    assert why["127.0.0.51"] == (
        "ssh authentication failed (publickey,password): envkit runs ssh with BatchMode=yes "
        "and never types a password; use a key or an agent"
    )
    for h in ("127.0.0.52", "127.0.0.53"):
        assert why[h].startswith("ssh could not connect") and "Connection refused" in why[h]
    assert {u["status"] for u in data["unreachable"]} == {"unreachable"}


def test_unknown_environment_on_a_host_is_a_row(envkit_cli, cluster):
    r = envkit_cli("fleet", "127.0.0.[2-3]", "ssh://127.0.0.47/env:nosuch", "--env", "research",
                   "--format", "json", env=cluster["env"])  # fmt: skip
    data = json.loads(r.stdout)
    assert r.exit_code == 1
    assert data["groups"][0]["members"] == ["127.0.0.2", "127.0.0.3"]
    [u] = data["unreachable"]
    assert u["host"] == "127.0.0.47" and u["status"] == "failed"
    assert u["why"].startswith("no environment named 'nosuch' on this machine (known: research")


def test_fingerprint_over_ssh_matches_the_fleet_digest(envkit_cli, cluster):
    r = envkit_cli("fingerprint", "ssh://127.0.0.47/env:research", env=cluster["env"])
    assert r.exit_code == 0, r.stderr
    f = envkit_cli("fleet", "127.0.0.47", "--env", "research", "--format", "json", env=cluster["env"])
    g = json.loads(f.stdout)["groups"][0]
    env, machine = g["env"], g["machine"]
    line = f"env {env['digest']} ({env['summary']}) machine {machine['digest']} ({machine['summary']})\n"
    assert r.stdout == line


def test_one_host_with_two_environments_is_two_rows(envkit_cli, cluster):
    envs_a = cluster["dir"] / "envs-a" / "research"
    r = envkit_cli("fleet", "ssh://127.0.0.2/env:research", f"ssh://127.0.0.2{envs_a}", "ssh://127.0.0.3/env:research",
                   "--format", "json", env=cluster["env"])  # fmt: skip
    assert r.exit_code == 0, r.stderr
    [g] = json.loads(r.stdout)["groups"]
    assert g["members"] == ["127.0.0.2/env:research", f"127.0.0.2{envs_a}", "127.0.0.3"]
