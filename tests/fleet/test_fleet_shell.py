"""`envkit fleet --via srun | clush | pdsh`: one command runs envkit's stdlib program on every node.

clush and pdsh are Debian's (clustershell, pdsh), run against real sshd servers on 127.0.0.x;
srun is tests/data/fleet/srun, a stand-in keeping srun's command-line contract (Slurm is not
installable here).  Skipped, saying why, when a tool is missing.
"""

import json
import shutil

import pytest
from conftest import DATA
from support.condafactory import copy_prefix, make_prefix
from support.sshd import Sshd, client_ssh, free_port, keygen, sshd_binary

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def envs(tmp_path_factory, default_prefix, default_channel):
    d = tmp_path_factory.mktemp("fleet-shell")
    copy_prefix(default_prefix, d / "envs-a" / "research")
    make_prefix(
        d / "envs-b" / "research",
        [default_channel],
        ["python=3.11", "numpy=1.26.3", "requests", "pip"],
        cache_dir=d / "pkgs",
    )
    for h in ("home-a", "home-b"):
        (d / h / ".conda").mkdir(parents=True)
    return d


def _check(data, members_a, members_b, down):
    majority, outlier = data["groups"]
    assert majority["members"] == members_a
    assert outlier["members"] == members_b
    assert [(c["name"], c["kind"]) for c in outlier["differs"]["changes"]] == [("numpy", "downgraded")]
    assert majority["machine"] is not None
    return {u["host"]: u for u in data["unreachable"]} if down else None


def test_via_srun(envkit_cli, envs, tmp_path):
    nodes = {
        f"node{i:02d}": {"CONDA_ENVS_PATH": str(envs / "envs-a"), "HOME": str(envs / "home-a")}
        for i in range(1, 6)
    }
    nodes["node06"] = {"CONDA_ENVS_PATH": str(envs / "envs-b"), "HOME": str(envs / "home-b")}
    (tmp_path / "nodes.json").write_text(json.dumps(nodes))
    env = {
        "PATH": f"{DATA / 'fleet'}:{shutil.os.environ['PATH']}",
        "FAKE_SRUN_NODES": str(tmp_path / "nodes.json"),
    }
    r = envkit_cli("fleet", "node[01-07]", "--via", "srun", "--env", "research", "--format", "json", env=env)
    assert r.exit_code == 1, r.stderr
    data = json.loads(r.stdout)
    down = _check(data, [f"node{i:02d}" for i in range(1, 6)], ["node06"], True)
    assert list(down) == ["node07"]
    assert down["node07"]["via"] == "srun"
    assert down["node07"]["why"] == (
        "no answer (srun: error: Task launch for StepId=1.0 failed on node node07: "
        "Communication connection failure)"
    )


def test_via_srun_reads_the_allocation(envkit_cli, envs, tmp_path):
    nodes = {f"c{i}": {"CONDA_ENVS_PATH": str(envs / "envs-a"), "HOME": str(envs / "home-a")} for i in (1, 2)}
    (tmp_path / "nodes.json").write_text(json.dumps(nodes))
    env = {
        "PATH": f"{DATA / 'fleet'}:{shutil.os.environ['PATH']}",
        "FAKE_SRUN_NODES": str(tmp_path / "nodes.json"),
        "SLURM_JOB_NODELIST": "c[1-2]",
    }
    r = envkit_cli("fleet", "--via", "srun", "--env", "research", "--format", "json", env=env)
    assert r.exit_code == 0, r.stderr
    assert [g["members"] for g in json.loads(r.stdout)["groups"]] == [["c1", "c2"]]


def test_a_missing_transport_is_a_row_per_host(envkit_cli, tmp_path):
    r = envkit_cli("fleet", "n[1-2]", "--via", "pdsh", "--format", "json", env={"PATH": str(tmp_path)})
    data = json.loads(r.stdout)
    assert r.exit_code == 1
    assert [(u["host"], u["why"]) for u in data["unreachable"]] == [
        ("n1", "pdsh is not installed (not on PATH)"),
        ("n2", "pdsh is not installed (not on PATH)"),
    ]


@pytest.fixture(scope="module")
def servers(envs):
    if sshd_binary() is None or shutil.which("ssh") is None:
        pytest.skip("sshd (openssh-server) is not installed; `make test INSTALL_SSHD=1` installs it")
    d = envs / "sshd"
    d.mkdir()
    keygen(d / "client_key")
    port = free_port()
    key = d / "client_key.pub"
    a = Sshd(d / "a", [f"127.0.0.{i}" for i in range(60, 64)], port, authorized=key,
             extra=[f"SetEnv CONDA_ENVS_PATH={envs / 'envs-a'} HOME={envs / 'home-a'}"])  # fmt: skip
    b = Sshd(d / "b", ["127.0.0.64"], port, authorized=key,
             extra=[f"SetEnv CONDA_ENVS_PATH={envs / 'envs-b'} HOME={envs / 'home-b'}"])  # fmt: skip
    try:
        a.wait()
        b.wait()
        yield {"ssh": client_ssh(d, d / "client_key", port), "dir": d}
    finally:
        a.stop()
        b.stop()


HOSTS = "127.0.0.[60-65]"  # 60-63 one environment, 64 another, 65 down
A = [f"127.0.0.{i}" for i in range(60, 64)]


def test_via_clush(envkit_cli, servers, tmp_path):
    if shutil.which("clush") is None:
        pytest.skip(
            "clush is not installed (Debian package clustershell; `make fleet-tools INSTALL_FLEET_TOOLS=1`)"
        )
    cfg = tmp_path / "clustershell"
    cfg.mkdir()
    ssh = servers["ssh"].split()
    (cfg / "clush.conf").write_text(
        "[Main]\nfanout: 8\nconnect_timeout: 15\ncommand_timeout: 0\ncolor: never\n"
        f"ssh_path: {ssh[0]}\nssh_options: -oBatchMode=yes {' '.join(ssh[1:])}\n"
    )
    env = {"CLUSTERSHELL_CFGDIR": str(cfg)}
    r = envkit_cli("fleet", HOSTS, "--via", "clush", "--env", "research", "--format", "json", env=env)
    assert r.exit_code == 1, r.stderr
    down = _check(json.loads(r.stdout), A, ["127.0.0.64"], True)
    assert list(down) == ["127.0.0.65"]
    assert (
        down["127.0.0.65"]["why"].startswith("no answer (")
        and "Connection refused" in down["127.0.0.65"]["why"]
    )


def test_via_pdsh(envkit_cli, servers):
    if shutil.which("pdsh") is None:
        pytest.skip("pdsh is not installed (Debian package pdsh; `make fleet-tools INSTALL_FLEET_TOOLS=1`)")
    ssh = servers["ssh"].split()
    env = {"PDSH_SSH_ARGS": "-oBatchMode=yes " + " ".join(ssh[1:]) + " %h"}
    r = envkit_cli("fleet", HOSTS, "--via", "pdsh", "--env", "research", "--format", "json", env=env)
    assert r.exit_code == 1, r.stderr
    down = _check(json.loads(r.stdout), A, ["127.0.0.64"], True)
    assert list(down) == ["127.0.0.65"]
    assert "Connection refused" in down["127.0.0.65"]["why"]
