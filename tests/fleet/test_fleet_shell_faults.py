"""`envkit fleet --via srun | clush | pdsh` under the faults ssh meets (tests/fleet/test_fleet_faults.py):
a truncated or mistyped conda-meta record has the verdict it has here and over ssh, and an answer
larger than ENVKIT_SSH_MAX_MIB is stopped at the cap, not read into memory whole.

clush and pdsh are Debian's, run against a real sshd on 127.0.0.1; srun is tests/data/fleet/srun
(srun's command-line contract; Slurm is not installable here).  Skipped, saying why, when a tool
is missing.
"""

from __future__ import annotations

import json
import re
import shutil
import sys
from hashlib import sha256
from pathlib import Path

import pytest
from conftest import DATA
from support.sshd import Sshd, client_ssh, free_port, keygen, sshd_binary
from test_fleet_faults import fake_python, make_env

pytestmark = pytest.mark.slow

VIAS = ["srun", "clush", "pdsh"]


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    if sshd_binary() is None or shutil.which("ssh") is None:
        pytest.skip("sshd (openssh-server) is not installed; `make test INSTALL_SSHD=1` installs it")
    d = tmp_path_factory.mktemp("shell-faults")
    keygen(d / "client_key")
    port = free_port()
    sshd = Sshd(d / "sshd", ["127.0.0.1"], port, authorized=d / "client_key.pub")
    try:
        sshd.wait()
        yield {"dir": d, "ssh": client_ssh(d, d / "client_key", port)}
    finally:
        sshd.stop()


def transport_env(via: str, server: dict, tmp_path: Path) -> dict[str, str]:
    """The environment that makes `via` reach the node `node1` (srun: this machine) or
    127.0.0.1 (clush, pdsh: the sshd), with this test's Python as the remote interpreter."""
    if shutil.which(via) is None and via != "srun":
        pytest.skip(f"{via} is not installed (`make fleet-tools INSTALL_FLEET_TOOLS=1`)")
    env = {"ENVKIT_REMOTE_PYTHON": sys.executable}
    if via == "srun":
        (tmp_path / "nodes.json").write_text(json.dumps({"node1": {}}))
        return {**env, "PATH": f"{DATA / 'fleet'}:{shutil.os.environ['PATH']}",
                "FAKE_SRUN_NODES": str(tmp_path / "nodes.json")}  # fmt: skip
    ssh = server["ssh"].split()
    if via == "pdsh":
        return {**env, "PDSH_SSH_ARGS": "-oBatchMode=yes " + " ".join(ssh[1:]) + " %h"}
    cfg = tmp_path / "clustershell"
    cfg.mkdir()
    (cfg / "clush.conf").write_text(
        "[Main]\nfanout: 8\nconnect_timeout: 15\ncommand_timeout: 0\ncolor: never\n"
        f"ssh_path: {ssh[0]}\nssh_options: -oBatchMode=yes {' '.join(ssh[1:])}\n"
    )
    return {**env, "CLUSTERSHELL_CFGDIR": str(cfg)}


def node(via: str) -> str:
    return "node1" if via == "srun" else "127.0.0.1"


@pytest.mark.parametrize("via", VIAS)
@pytest.mark.parametrize(
    ("record", "message"),
    [
        ('{"name": "zlib", "version": "1.3.1", "bu', ": corrupt conda package record: invalid JSON: "),
        ('{"name": 5, "version": "1.3.1"}', " (name): corrupt conda package record: name must be a string"),
    ],
    ids=["truncated", "name-is-a-number"],
)
def test_a_bad_record_has_one_verdict_here_and_over_every_transport(
    envkit_cli, server, tmp_path, via, record, message
):
    env = make_env(tmp_path / "env")
    bad = env / "conda-meta" / "zlib-1.3.1-h4ab18f5_1.json"
    bad.write_text(record)
    here = envkit_cli("fleet", str(env), "--no-machine", "--format", "json")
    [row] = json.loads(here.stdout)["unreachable"]
    assert row["why"].startswith(f"{bad}{message}"), row["why"]
    r = envkit_cli(
        "fleet", node(via), "--via", via, "--env", str(env), "--no-machine", "--format", "json",
        env=transport_env(via, server, tmp_path),
    )  # fmt: skip
    assert r.exit_code == 1, r.stderr
    data = json.loads(r.stdout)
    assert data["groups"] == []
    [there] = data["unreachable"]
    assert (there["host"], there["status"], there["why"]) == (node(via), "failed", row["why"])


@pytest.mark.parametrize("via", VIAS)
def test_an_answer_past_the_cap_is_stopped(envkit_cli, server, tmp_path, via):
    env = make_env(tmp_path / "env")
    # 3 MiB in lines of 1,000 bytes (pdsh passes at most 128 KiB of one line), where 1 MiB is the
    # most read from a host
    big = fake_python(tmp_path, "big", "head -c 3145728 /dev/zero | tr '\\0' x | fold -w 1000")
    r = envkit_cli(
        "fleet", node(via), "--via", via, "--env", str(env), "--no-machine", "--format", "json",
        "--timeout", "20",
        env={**transport_env(via, server, tmp_path), "ENVKIT_REMOTE_PYTHON": big, "ENVKIT_SSH_MAX_MIB": "1"},
    )  # fmt: skip
    assert r.exit_code == 1, r.stderr
    [u] = json.loads(r.stdout)["unreachable"]
    assert (u["host"], u["status"]) == (node(via), "failed"), u["why"]
    assert u["why"] == f"the answer is larger than the 1 MiB envkit reads from a host: stopped ({via})"


def _many_records(n: int) -> dict[str, tuple[str, str]]:
    """`n` records whose build strings are hashes: they do not compress, and 1,500 of them are an
    answer of about 1.7 MiB, still about 290 KiB packed."""
    return {
        f"pkg-{i:04d}": (f"1.{i}.0", "h" + "".join(sha256(f"{i}-{j}".encode()).hexdigest() for j in range(3)))
        for i in range(n)
    }


@pytest.mark.parametrize("via", VIAS)
def test_a_large_answer_arrives_whole(envkit_cli, server, tmp_path, via):
    # the node's answer is far past the 128 KiB of one line pdsh passes
    records = _many_records(1500)
    env = make_env(tmp_path / "env", records)
    here = envkit_cli("fleet", str(env), "--no-machine", "--format", "json")
    [local] = json.loads(here.stdout)["groups"]
    assert local["env"]["packages"] == 1500
    r = envkit_cli(
        "fleet", node(via), "--via", via, "--env", str(env), "--no-machine", "--format", "json",
        env=transport_env(via, server, tmp_path),
    )  # fmt: skip
    assert r.exit_code == 0, (r.stdout, r.stderr)
    data = json.loads(r.stdout)
    assert data["unreachable"] == []
    [group] = data["groups"]
    assert group["members"] == [node(via)]
    assert group["env"] == local["env"]


#: Alters a node's answer on its way out: drops part 2 of it, or changes one character of part 1.
GARBLE = """
import sys
how = sys.argv[1]
for line in sys.stdin:
    mark = line.find("@@envkit-fleet@@ ")
    if mark >= 0 and how == "drop" and " 2/" in line:
        continue
    if mark >= 0 and how == "alter" and " 1/" in line:
        line = line[:-3] + ("A" if line[-3] != "A" else "B") + line[-2:]
    sys.stdout.write(line)
"""


@pytest.mark.parametrize("via", VIAS)
@pytest.mark.parametrize(
    ("how", "detail"),
    [("drop", r"part 2 of \d+ missing"), ("alter", r"its \d+ part\(s\) do not match their sha256")],
)
def test_a_garbled_answer_is_an_error_naming_the_host(envkit_cli, server, tmp_path, via, how, detail):
    env = make_env(tmp_path / "env", _many_records(1500))
    (tmp_path / "garble.py").write_text(GARBLE)
    py = fake_python(
        tmp_path, "py", f'"{sys.executable}" "$@" | "{sys.executable}" {tmp_path / "garble.py"} {how}'
    )
    r = envkit_cli(
        "fleet", node(via), "--via", via, "--env", str(env), "--no-machine", "--format", "json",
        env={**transport_env(via, server, tmp_path), "ENVKIT_REMOTE_PYTHON": py},
    )  # fmt: skip
    assert r.exit_code == 1, r.stderr
    data = json.loads(r.stdout)
    assert data["groups"] == []
    [u] = data["unreachable"]
    assert (u["host"], u["status"]) == (node(via), "failed")
    assert re.fullmatch(
        rf"the answer from {re.escape(node(via))} arrived incomplete or altered \({via}\): {detail}; "
        "not read",
        u["why"],
    ), u["why"]
