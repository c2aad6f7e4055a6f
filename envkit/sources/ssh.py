"""The `ssh://` SOURCE: parsing it, the ssh command, the program streamed to the remote Python, and
its answer.

The system `ssh` runs (so ~/.ssh/config, agents and jump hosts work as usual) and envkit's standalone
prefix reader (`envkit/backends/prefix_scan.py`, stdlib only) is streamed to the remote `python3` on
stdin: nothing is installed or written there.  `ENVKIT_SSH` replaces the ssh command;
`ENVKIT_REMOTE_PYTHON` names the remote interpreter.  `envkit.sources.read_remote` turns the answer
into a model.
"""

from __future__ import annotations

import json
import math
import os
import re
import shlex
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from envkit.errors import BackendError, EnvironmentNotFound, UsageError

#: How long one remote scan may take (connection included).
SSH_TIMEOUT = 180.0
#: The line the remote driver prints before its JSON (login scripts may print before it).
_MARK = "--envkit-scan--"
#: The line before the remote machine probe's JSON, printed ahead of the scan when asked for.
MACHINE_MARK = "--envkit-machine-facts--"
#: The most of one remote answer envkit reads (MiB): a prefix scan is a few MiB, a remote file
#: at most envkit.io.MAX_INPUT_BYTES before JSON escapes it.  ENVKIT_SSH_MAX_MIB changes it.
MAX_ANSWER_MIB = 128
#: The line the remote shell prints on stderr when the interpreter was killed by a signal.
_SIGNAL_MARK = "--envkit-signal--"
_SIGNALLED = re.compile(re.escape(_SIGNAL_MARK) + r" (\d+) ?(\w*)")


class RemoteTimeout(BackendError):
    """A remote session gave no complete answer within its time; the message says what came."""


@dataclass(frozen=True, slots=True)
class SshTarget:
    """A parsed `ssh://` SOURCE."""

    host: str
    user: str | None = None
    port: int | None = None
    path: str | None = None  # a remote path (`~/...` is the remote home)
    env_name: str | None = None

    @property
    def destination(self) -> str:
        return f"{self.user}@{self.host}" if self.user else self.host


def parse_ssh(text: str, *, default_env: str | None = None, host_only: bool = False) -> SshTarget:
    """Parse `ssh://[user@]host[:port]/PATH` or `ssh://[user@]host[:port]/env:NAME` (SOURCEs, fleet
    hosts, machines).  `default_env` (a name, or a path) is read when the URL names none (a fleet
    host); `host_only` reads a machine's `ssh://[user@]host[:port]`, ignoring a path (a machine has
    one profile).  Raises UsageError for a URL without host or path, or with a bad host or port."""
    from urllib.parse import unquote

    form = "ssh://[user@]host[:port]" + ("" if host_only else "/PATH")
    parts = _split_url(text, form)
    try:
        port = parts.port
    except ValueError:
        raise UsageError(f"bad port in {text!r}", hint=form) from None
    host = parts.hostname
    if not host or host.startswith("-"):
        raise UsageError(f"no host in {text!r}", hint=form if host_only else f"{form} or ssh://host/env:NAME")
    user = unquote(parts.username) if parts.username else None
    if host_only:
        return SshTarget(host=host, user=user, port=port, path="/")
    if default_env is not None and parts.path in ("", "/"):
        name = default_env
        suffix = name if name.startswith("/") else f"/{name}" if name.startswith("~") else f"/env:{name}"
        return parse_ssh(f"ssh://{parts.netloc}{suffix}")
    path = unquote(parts.path)
    if parts.query:
        path += "?" + parts.query
    if path in ("", "/"):
        raise UsageError(
            f"no environment in {text!r}: give a prefix path or env:NAME",
            hint=f"ssh://{parts.netloc}/env:NAME or ssh://{parts.netloc}/path/to/prefix",
        )
    rest = path[1:]
    if rest.startswith("env:"):
        name = rest[4:]
        if not name:
            raise UsageError(f"no environment name in {text!r}")
        return SshTarget(host=host, user=user, port=port, env_name=name)
    if rest.startswith("~"):
        return SshTarget(host=host, user=user, port=port, path=rest)
    return SshTarget(host=host, user=user, port=port, path=path)


def _split_url(text: str, form: str):
    """urlsplit(text); its ValueError (an unclosed '[', a bracketed host not IPv6) a UsageError."""
    from urllib.parse import urlsplit

    try:
        return urlsplit(text)
    except ValueError as exc:
        netloc = re.split(r"[/?#]", text.partition("://")[2], maxsplit=1)[0]
        pair = re.fullmatch(r"[^\[\]]*\[([^\[\]]*)\][^\[\]]*", netloc)
        hint = f"{form}; an IPv6 address goes in brackets: ssh://[::1]"
        if pair and netloc.isascii():  # urlsplit's other check is of non-ASCII hosts only
            why = f"{pair.group(1)!r} in brackets is not an IPv6 address"
        elif pair or not ("[" in netloc or "]" in netloc):
            why, hint = str(exc), form
        else:
            unclosed = netloc.count("[") > netloc.count("]")
            why = "a '[' without its ']'" if unclosed else "unbalanced '[' and ']'"
        raise UsageError(f"bad host in {text!r}: {why}", hint=hint) from None


def ssh_command(target: SshTarget, environ: Mapping[str, str] | None = None) -> list[str]:
    """The ssh argv (without the remote command) for `target`: `ENVKIT_SSH` (default `ssh`), then
    options that keep it non-interactive (a password prompt would hang), the port and the user."""
    base = ssh_base(environ)
    # Options given first win in ssh, so the user's ENVKIT_SSH/-o settings override these.
    argv = base + ["-o", "BatchMode=yes", "-o", "ConnectTimeout=20"]
    if target.port:
        argv += ["-p", str(target.port)]
    if target.user:
        argv += ["-l", target.user]
    return argv + ["--", target.host]


def ssh_base(environ: Mapping[str, str] | None = None) -> list[str]:
    """The ssh command `ENVKIT_SSH` names (default `ssh`), split as a shell would: the one reading
    of it.  Raises UsageError for a value that does not split (an unclosed quote)."""
    env = os.environ if environ is None else environ
    text = env.get("ENVKIT_SSH") or "ssh"
    try:
        words = shlex.split(text)
    except ValueError as exc:
        raise UsageError(
            f"ENVKIT_SSH={text!r} is not a command line: {str(exc).lower()}",
            hint="quote as in a shell, e.g. ENVKIT_SSH=\"ssh -i '/path/my key'\"",
        ) from None
    return words or ["ssh"]


def remote_program(target: SshTarget, *, machine: bool = False) -> str:
    """The Python program streamed to the remote interpreter: a small stdlib driver (name lookup,
    files) wrapped around envkit's standalone prefix_scan.py, which it runs unchanged.  With
    `machine=True` it first runs envkit/machine/probe.py (stdlib only) and prints its facts."""
    here = Path(__file__).parent.parent
    scan = (here / "backends" / "prefix_scan.py").read_text(encoding="utf-8")
    probe = (here / "machine" / "probe.py").read_text(encoding="utf-8") if machine else None
    args = {"path": target.path, "name": target.env_name, "mark": _MARK, "machine_mark": MACHINE_MARK}
    from envkit.sources._driver import DRIVER

    return (
        DRIVER.replace("@ARGS@", repr(json.dumps(args)))
        .replace("@PROBE@", repr(probe))
        .replace("@SCAN@", repr(scan))
    )


def remote_shell_command(target: SshTarget, environ: Mapping[str, str] | None = None) -> str:
    """The command run on the remote machine: find a Python and run the program from stdin."""
    env = os.environ if environ is None else environ
    # the interpreter runs as a child, not exec'd: a signal that kills it (exit status 128+N) is
    # then told on stderr, where ssh itself would only exit 255 as for a failed connection
    run = (
        'run() { "$@"; s=$?; [ $s -gt 128 ] && [ $s -lt 193 ] && '
        f'echo "{_SIGNAL_MARK} $((s - 128)) $(kill -l $s 2>/dev/null)" >&2; exit $s; }}; '
    )
    py = env.get("ENVKIT_REMOTE_PYTHON")
    if py:
        script = f"{run}run {shlex.quote(py)} -"
    else:
        fallback = ""
        if target.path and not target.path.startswith("~"):
            fallback = (
                f"[ -x {shlex.quote(target.path + '/bin/python')} ] && "
                f"run {shlex.quote(target.path + '/bin/python')} -; "
            )
        script = (
            f"{run}for p in python3 python; do command -v $p >/dev/null 2>&1 && run $p -; done; "
            f"{fallback}echo 'envkit: no python3 on the remote machine "
            "(set ENVKIT_REMOTE_PYTHON)' >&2; exit 127"
        )
    return "sh -c " + shlex.quote(script)


_MIB_HINT = "a number of MiB, e.g. ENVKIT_SSH_MAX_MIB=512"


def max_answer_bytes(environ: Mapping[str, str] | None = None) -> int:
    """The most bytes of one remote answer read: ENVKIT_SSH_MAX_MIB (MiB), else MAX_ANSWER_MIB.
    Raises UsageError for a value that is not a positive number."""
    env = os.environ if environ is None else environ
    text = env.get("ENVKIT_SSH_MAX_MIB")
    if not text:
        return MAX_ANSWER_MIB * 2**20
    try:
        size = float(text) * 2**20
    except ValueError:
        size = 0.0
    if not 0 < size < math.inf:  # NaN fails too; infinity (`inf`, `1e400`) has no int
        raise UsageError(f"ENVKIT_SSH_MAX_MIB={text!r} is not a positive number of MiB", hint=_MIB_HINT)
    return int(size)


def remote_scan(
    target: SshTarget,
    *,
    environ: Mapping[str, str] | None = None,
    timeout: float = SSH_TIMEOUT,
    machine: bool = False,
) -> tuple[dict, str]:
    """Run envkit's prefix reader on `target`'s machine over ssh: (its answer, what it printed
    before the answer).  The answer is a remote file (`kind` "file", its `text`) or a prefix scan;
    the text before it holds the machine probe's facts when `machine`
    (see `envkit.machine.detect.remote_profile`).

    Raises BackendError when ssh or the remote Python fails, EnvironmentNotFound when the remote
    has no such environment or the path is not a prefix.
    """
    result = run_remote(
        target,
        remote_program(target, machine=machine),
        label=remote_url(target),
        what="the remote prefix reader",
        environ=environ,
        timeout=timeout,
    )
    return read_answer(target, result, timeout=timeout, environ=environ)


def run_remote(
    target: SshTarget,
    program: str,
    *,
    label: str,
    what: str,
    environ: Mapping[str, str] | None = None,
    timeout: float = SSH_TIMEOUT,
):
    """Run `program` (stdlib Python) with `target`'s remote interpreter over ssh, reading at most
    max_answer_bytes of its answer: the envkit._proc.Result of a session that ended by itself.
    Messages start with `label` and call the program `what`.

    Raises RemoteTimeout past `timeout`, BackendError for an answer past the limit, a program
    killed by a signal, or ssh that could not connect.
    """
    from envkit._proc import run_capped

    argv = ssh_command(target, environ) + [remote_shell_command(target, environ)]
    cap = max_answer_bytes(environ)
    result = run_capped(argv, input=program, timeout=timeout, max_bytes=cap, what="ssh")
    if result.too_large:
        raise BackendError(
            f"{label}: the answer is larger than the {cap / 2**20:g} MiB envkit reads from a host: stopped",
            hint="ENVKIT_SSH_MAX_MIB=N raises the limit",
        )
    check_session(target, result, label=label, what=what, timeout=timeout, environ=environ)
    return result


def check_session(
    target: SshTarget,
    result,
    *,
    label: str,
    what: str,
    timeout: float,
    environ: Mapping[str, str] | None = None,
) -> None:
    """Raise for a remote session that did not end by itself (see run_remote): stopped at its
    timeout, its program killed by a signal, or ssh unable to connect (exit 255)."""
    err = _ssh_stderr(result.stderr)
    if result.timed_out:
        raise RemoteTimeout(
            f"{label}: {timeout_reason(result, timeout)}",
            hint=f"check that `{' '.join(ssh_command(target, environ)[:1])} {target.destination}` works",
        )
    signalled = _SIGNALLED.search(result.stderr)
    if signalled and result.returncode > 128:
        name = f" ({signalled.group(2)})" if signalled.group(2) else ""
        raise BackendError(
            f"{label}: {what} was killed by signal {signalled.group(1)}{name}", text=err or None
        )
    if result.returncode == 255:
        raise BackendError(
            f"{label}: ssh could not connect",
            text=err or None,
            hint="envkit runs ssh without prompting: use keys or an agent, "
            "~/.ssh/config, or ENVKIT_SSH for options",
        )


def read_answer(
    target: SshTarget, result, *, timeout: float, environ: Mapping[str, str] | None = None
) -> tuple[dict, str]:
    """The remote driver's answer in `result` (an envkit._proc.Result of the ssh command, or of any
    transport that ran the same driver): (its answer, what it printed before it), as remote_scan
    returns them.  Raises what remote_scan raises."""
    url = remote_url(target)
    check_session(
        target, result, label=url, what="the remote prefix reader", timeout=timeout, environ=environ
    )
    err = _ssh_stderr(result.stderr)
    if result.returncode == 3:
        raise EnvironmentNotFound(f"{url}: {err or 'no such environment'}")
    if result.returncode != 0:
        raise BackendError(
            f"{url}: the remote prefix reader failed (exit code {result.returncode})", text=err or None
        )
    head, sep, body = result.stdout.partition(_MARK + "\n")
    if not sep:
        raise BackendError(
            f"{url}: the remote machine did not answer with a scan",
            text=(result.stdout or err)[-2000:] or None,
        )
    try:
        data = json.loads(body)
    except ValueError as exc:
        raise BackendError(f"{url}: unreadable answer from the remote prefix reader: {exc}") from None
    if data.get("kind") != "file" and not data.get("is_prefix", True):
        raise EnvironmentNotFound(f"{url}: not a conda environment (no conda-meta/ directory)")
    return data, head


def timeout_reason(result, timeout: float) -> str:
    """What a session stopped at `timeout` had sent: nothing, a stalled answer, or one still
    trickling in."""
    if not result.stdout.strip():
        return f"no answer within {timeout:g} s"
    size = len(result.stdout.encode("utf-8", "surrogateescape"))
    if result.quiet >= 1:
        head = f"stalled: no output for {result.quiet:.1f} s after {size} bytes"
    else:
        head = f"too slow: {size} bytes and still arriving"
    if _MARK + "\n" in result.stdout:
        return f"{head}; the remote prefix reader started but did not finish within {timeout:g} s"
    return f"{head}; no complete answer within {timeout:g} s"


def remote_url(t: SshTarget) -> str:
    """The `ssh://` URL that names `t` in messages."""
    port = f":{t.port}" if t.port else ""
    where = (
        f"/env:{t.env_name}"
        if t.env_name
        else (t.path if t.path and t.path.startswith("/") else f"/{t.path}")
    )
    return f"ssh://{t.destination}{port}{where}"


def _ssh_stderr(text: str) -> str:
    # ssh's own chatter ("Warning: Permanently added ...") is not the error, nor envkit's mark
    kept = [
        ln
        for ln in text.splitlines()
        if ln.strip() and not ln.startswith(("Warning: Permanently added", _SIGNAL_MARK))
    ]
    return "\n".join(kept[-15:])
