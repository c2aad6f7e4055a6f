"""Ssh sessions of a fleet run: the master connection each host's sessions share, and a failed
session's reason in the words a fleet row uses."""

from __future__ import annotations

import os
import shlex
import threading
from collections import Counter
from collections.abc import Mapping

from envkit.errors import EnvkitError
from envkit.sources.ssh import SshTarget, ssh_base


def why(exc: EnvkitError, strip: str | None = None) -> str:
    """The error in one line: where, message, and the last line of the program's output."""
    text = f"{exc.where}: {exc.message}" if exc.where else str(exc.message)
    if strip and text.startswith(strip + ": "):
        text = text[len(strip) + 2 :]
    if exc.text:
        last = [ln.strip() for ln in str(exc.text).splitlines() if ln.strip()]
        if last:
            text += f" ({last[-1]})"
    return text


def with_options(base: str, options: list[str]) -> str:
    """An ENVKIT_SSH command line with `options` after `base`'s own (which win in ssh)."""
    return base + " " + " ".join(shlex.quote(o) for o in options)


def connection(t: SshTarget) -> tuple:
    """What makes two sessions one connection: user, host and port."""
    return (t.user, t.host, t.port)


class Masters:
    """One ssh master connection per host, started on first use: `ssh -M -N` with nothing on its
    standard streams, so it holds no session's pipes; stopped when the run ends."""

    def __init__(
        self, control: str, environ: Mapping[str, str], timeout: float, targets: list[SshTarget]
    ) -> None:
        # ENVKIT_SSH split once here, so a value that does not split is the run's error, not each host's
        base = shlex.join(ssh_base(environ))
        # options given first win in ssh: this overrides ssh_command's own ConnectTimeout
        connect = ["-o", f"ConnectTimeout={max(1, int(min(timeout, 20)))}"]
        self.environ = {**environ, "ENVKIT_SSH": with_options(base, connect)}
        self.control, self.timeout = control, timeout
        counts = Counter(connection(t) for t in targets)
        # a ControlPath or ControlMaster in ENVKIT_SSH is the user's own sharing: left to it
        self.shared = set() if "Control" in base else {k for k, n in counts.items() if n > 1}
        self.lock = threading.Lock()
        self.hosts: dict[tuple, tuple[threading.Lock, str, list]] = {}
        self.procs: list = []

    def __enter__(self) -> Masters:
        return self

    def __exit__(self, *exc) -> None:
        from envkit._proc import stop

        for proc in self.procs:
            stop(proc)

    def environ_for(self, target: SshTarget) -> dict[str, str]:
        """The environment of a session to `target`: riding on its host's master when the host
        has several sessions and the master connected; else one that connects (or fails) alone."""
        if connection(target) not in self.shared:
            return self.environ
        key = connection(target)
        with self.lock:
            if key not in self.hosts:
                self.hosts[key] = (threading.Lock(), os.path.join(self.control, str(len(self.hosts))), [])
            host_lock, path, slot = self.hosts[key]
        with host_lock:
            if not slot:
                slot.append(self._start(target, path))
        path = slot[0]
        if path is None:
            return self.environ
        opts = ["-o", "ControlMaster=no", "-o", f"ControlPath={path}"]
        return {**self.environ, "ENVKIT_SSH": with_options(self.environ["ENVKIT_SSH"], opts)}

    def _start(self, target: SshTarget, path: str) -> str | None:
        """Start the master for `target` listening at `path`; the path once it listens, else None."""
        import time

        from envkit._proc import spawn
        from envkit.sources.ssh import ssh_command

        opts = ["-o", "ControlMaster=yes", "-o", f"ControlPath={path}", "-o", "ControlPersist=no", "-N"]
        env = {**self.environ, "ENVKIT_SSH": with_options(self.environ["ENVKIT_SSH"], opts)}
        try:
            proc = spawn(ssh_command(target, env), env=env, what="ssh")
        except EnvkitError:
            return None
        self.procs.append(proc)
        # ssh creates the socket once the connection is authenticated (or exits on failure)
        deadline = time.monotonic() + self.timeout
        while proc.poll() is None and time.monotonic() < deadline:
            if os.path.exists(path):
                return path
            time.sleep(0.02)
        return None


def ssh_failure(exc: EnvkitError, target: SshTarget, timeout: float) -> tuple[str, str]:
    """(status, why) for a failed ssh job, in words a person acts on."""
    from envkit.errors import BackendError
    from envkit.sources.ssh import RemoteTimeout, remote_url

    url = remote_url(target)
    detail = str(exc.text or "")
    if "Permission denied" in detail or "Too many authentication failures" in detail:
        methods = detail[detail.find("(") :].split("\n")[0].rstrip(".") if "(" in detail else ""
        return "unreachable", (
            f"ssh authentication failed {methods}".rstrip()
            + ": envkit runs ssh with BatchMode=yes and never types a password; use a key or an agent"
        )
    if "Host key verification failed" in detail:
        return "unreachable", "ssh: host key verification failed (the host is not in known_hosts)"
    if isinstance(exc, RemoteTimeout):
        return "unreachable", f"{why(exc, url)} (per-host timeout)"
    msg = str(exc.message)
    if isinstance(exc, BackendError) and "ssh could not connect" in msg:
        return "unreachable", why(exc, url)
    return "failed", why(exc, url)
