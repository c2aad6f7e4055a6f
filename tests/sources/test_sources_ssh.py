"""`envkit diff` against environments on another machine, through a real sshd on 127.0.0.1.

The test starts Debian's OpenSSH server on a free high port with its own config, a throwaway host
key and client key in a temporary directory, and points envkit's ssh at it with ENVKIT_SSH.  Nothing
is installed on the "remote" side: envkit streams its standalone prefix reader to `python3`.
Skipped (with the reason) only when no sshd binary exists: `make test` installs openssh-server.
"""

from __future__ import annotations

import getpass
import json
import os
import shutil
import socket
import subprocess
import time

import pytest
from conftest import REPO
from support.condafactory import copy_prefix, make_prefix

pytestmark = pytest.mark.slow


def _sshd_binary() -> str | None:
    for cand in (shutil.which("sshd"), "/usr/sbin/sshd", "/usr/local/sbin/sshd"):
        if cand and os.access(cand, os.X_OK):
            return cand
    return None


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def sshd(tmp_path_factory, default_prefix):
    binary = _sshd_binary()
    if binary is None:
        pytest.skip(
            "sshd (openssh-server) is not installed; `make test INSTALL_SSHD=1` installs it "
            "(apt-get install openssh-server)"
        )
    if shutil.which("ssh") is None or shutil.which("ssh-keygen") is None:
        pytest.skip("the ssh client (openssh-client) is not installed")
    d = tmp_path_factory.mktemp("sshd")
    for name in ("host_key", "client_key"):
        subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", str(d / name)], check=True)
    (d / "authorized_keys").write_text((d / "client_key.pub").read_text())
    os.chmod(d / "authorized_keys", 0o600)
    envs = d / "envs"
    copy_prefix(default_prefix, envs / "research")
    (d / "home" / ".conda").mkdir(parents=True)
    # a decoy in the fake HOME's environments.txt that must show up (so HOME really is this one)
    (d / "home" / ".conda" / "environments.txt").write_text(f"{d / 'elsewhere' / 'decoy'}\n")
    copy_prefix(default_prefix, d / "elsewhere" / "decoy")
    port = _free_port()
    config = d / "sshd_config"
    config.write_text(
        "\n".join(
            [
                f"Port {port}",
                "ListenAddress 127.0.0.1",
                f"HostKey {d / 'host_key'}",
                f"AuthorizedKeysFile {d / 'authorized_keys'}",
                "StrictModes no",
                "UsePAM no",
                "PasswordAuthentication no",
                "KbdInteractiveAuthentication no",
                "PubkeyAuthentication yes",
                "PermitRootLogin prohibit-password",
                f"PidFile {d / 'sshd.pid'}",
                "LogLevel ERROR",
                # what the remote session sees: where named environments live
                # and a HOME of its own: the real ~/.conda/environments.txt and ~/.condarc must not count
                f"SetEnv CONDA_ENVS_PATH={envs} HOME={d / 'home'}",
                "",
            ]
        )
    )
    if os.geteuid() == 0:
        os.makedirs("/run/sshd", mode=0o755, exist_ok=True)  # privilege-separation directory
    log = open(d / "sshd.log", "w")
    proc = subprocess.Popen([binary, "-D", "-e", "-f", str(config)], stdout=log, stderr=subprocess.STDOUT)
    deadline = time.monotonic() + 15
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            break
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
            break
        except OSError:
            time.sleep(0.1)
    if proc.poll() is not None:
        pytest.fail(f"sshd did not start: {(d / 'sshd.log').read_text()}")
    # an empty config and a throwaway known_hosts (not /dev/null: a test must not depend on a device
    # node other code could clobber)
    (d / "ssh_config").write_text("")
    ssh = (
        f"ssh -F {d / 'ssh_config'} -o StrictHostKeyChecking=no -o UserKnownHostsFile={d / 'known_hosts'} "
        f"-o LogLevel=ERROR -o IdentitiesOnly=yes -i {d / 'client_key'}"
    )
    yield {"port": port, "env": {"ENVKIT_SSH": ssh}, "user": getpass.getuser(), "envs": envs, "dir": d}
    proc.terminate()
    try:
        proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        proc.kill()
    log.close()


def test_remote_prefix_equals_the_local_one(envkit_cli, sshd, default_prefix):
    url = f"ssh://127.0.0.1:{sshd['port']}{default_prefix}"
    r = envkit_cli("diff", url, str(default_prefix), "--format", "json", env=sshd["env"])
    assert r.exit_code == 0, r.stderr
    data = json.loads(r.stdout)
    assert data["a"]["source"] == url and data["a"]["kind"] == "live"
    assert data["summary"]["unchanged"] == 9


def test_remote_named_env_against_a_local_prefix(envkit_cli, sshd, tmp_path, default_channel, default_prefix):
    other = make_prefix(
        tmp_path / "older",
        [default_channel],
        ["python=3.11", "numpy=1.26.3", "requests", "pip"],
        cache_dir=tmp_path / "pkgs",
    )
    url = f"ssh://{sshd['user']}@127.0.0.1:{sshd['port']}/env:research"
    r = envkit_cli("diff", str(other), url, env=sshd["env"])
    assert r.exit_code == 1, r.stderr
    assert "numpy  1.26.3 py311h64a7726_0 → 1.26.4 py311h64a7726_0" in r.stdout
    assert f"B  {url}  (live, linux-64, 9 packages)" in r.stdout


def test_remote_environment_file(envkit_cli, sshd):
    laptop = REPO / "examples" / "laptop-vs-server" / "laptop.yml"
    r = envkit_cli("diff", f"ssh://127.0.0.1:{sshd['port']}{laptop}", str(laptop), env=sshd["env"])
    assert r.exit_code == 0, r.stderr


def test_remote_unknown_env_is_an_error(envkit_cli, sshd, default_prefix):
    r = envkit_cli("diff", f"ssh://127.0.0.1:{sshd['port']}/env:nosuch", str(default_prefix), env=sshd["env"])
    assert r.exit_code == 2
    assert (
        f"error: ssh://127.0.0.1:{sshd['port']}/env:nosuch: no environment named 'nosuch' on this "
        "machine (known: decoy, research)"
    ) in r.stderr
    r = envkit_cli(
        "diff", f"ssh://127.0.0.1:{sshd['port']}/no/such/dir", str(default_prefix), env=sshd["env"]
    )
    assert r.exit_code == 2 and "no such file or directory: /no/such/dir" in r.stderr


def test_ssh_failure_is_a_clean_error(envkit_cli, sshd, default_prefix, tmp_path):
    wrong_key = tmp_path / "k"
    subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", str(wrong_key)], check=True)
    env = {"ENVKIT_SSH": sshd["env"]["ENVKIT_SSH"].replace(str(sshd["dir"] / "client_key"), str(wrong_key))}
    r = envkit_cli("diff", f"ssh://127.0.0.1:{sshd['port']}/env:research", str(default_prefix), env=env)
    assert r.exit_code == 2
    assert "ssh could not connect" in r.stderr and "Permission denied" in r.stderr
    assert "hint: envkit runs ssh without prompting" in r.stderr
    assert "Traceback" not in r.stderr
