"""Real OpenSSH servers on loopback addresses for the tests: throwaway host and client keys, one
sshd process per configuration, each listening on any number of 127.0.0.x addresses (all of
127.0.0.0/8 is loopback on Linux, so fifty hosts need no network namespace)."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import time
from pathlib import Path


def sshd_binary() -> str | None:
    for cand in (shutil.which("sshd"), "/usr/sbin/sshd", "/usr/local/sbin/sshd"):
        if cand and os.access(cand, os.X_OK):
            return cand
    return None


def free_port(address: str = "127.0.0.1") -> int:
    with socket.socket() as s:
        s.bind((address, 0))
        return s.getsockname()[1]


def keygen(path: Path) -> None:
    subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", str(path)], check=True)


class Sshd:
    """One sshd process.  `extra` lines go into its sshd_config (SetEnv, ForceCommand, ...)."""

    def __init__(self, d: Path, addresses: list[str], port: int, *, authorized: Path | None, extra=()):
        d.mkdir(parents=True, exist_ok=True)
        self.dir, self.addresses, self.port = d, addresses, port
        keygen(d / "host_key")
        auth = d / "authorized_keys"
        auth.write_text(authorized.read_text() if authorized else "")
        os.chmod(auth, 0o600)
        lines = [f"Port {port}", *[f"ListenAddress {a}" for a in addresses]]
        lines += [
            f"HostKey {d / 'host_key'}",
            f"AuthorizedKeysFile {auth}",
            "StrictModes no",
            "UsePAM no",
            "KbdInteractiveAuthentication no",
            "PubkeyAuthentication yes",
            "PermitRootLogin yes",
            f"PidFile {d / 'sshd.pid'}",
            "LogLevel ERROR",
            "MaxStartups 64",
            *extra,
        ]
        if not any(x.startswith("PasswordAuthentication") for x in extra):
            lines.append("PasswordAuthentication no")
        (d / "sshd_config").write_text("\n".join(lines) + "\n")
        if os.geteuid() == 0:
            os.makedirs("/run/sshd", mode=0o755, exist_ok=True)
        self.log = open(d / "sshd.log", "w")
        binary = sshd_binary()
        assert binary is not None
        self.proc = subprocess.Popen(
            [binary, "-D", "-e", "-f", str(d / "sshd_config")], stdout=self.log, stderr=subprocess.STDOUT
        )

    def wait(self) -> None:
        """Until every address accepts connections (or sshd died: AssertionError with its log)."""
        for a in self.addresses:
            while True:
                assert self.proc.poll() is None, (self.dir / "sshd.log").read_text()
                try:
                    socket.create_connection((a, self.port), timeout=1).close()
                    break
                except OSError:
                    time.sleep(0.05)

    def stop(self) -> None:
        self.proc.terminate()
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
        self.log.close()


def client_ssh(d: Path, key: Path, port: int) -> str:
    """An ENVKIT_SSH value for these servers: an empty config, a throwaway known_hosts."""
    (d / "ssh_config").write_text("")
    return (
        f"ssh -F {d / 'ssh_config'} -o StrictHostKeyChecking=no -o UserKnownHostsFile={d / 'known_hosts'} "
        f"-o LogLevel=ERROR -o IdentitiesOnly=yes -i {key} -p {port}"
    )
