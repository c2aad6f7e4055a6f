"""srun, clush, pdsh: one command runs envkit's stdlib program on every node, each node's answer
marked lines of bounded length in the command's output, reassembled and checked here.  What is
read is capped as over ssh (ENVKIT_SSH_MAX_MIB per host), and each answer is read by the ssh
reader's own functions (envkit.sources.ssh.read_answer, envkit.sources.model_from_answer):
a node's verdict does not depend on the transport."""

from __future__ import annotations

import base64
import hashlib
import json
import re
import shlex
import zlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from envkit.errors import EnvkitError
from envkit.fleet.jobs import HostResult, Job
from envkit.fleet.sessions import why
from envkit.machine.profile import MachineProfile
from envkit.sources.ssh import SshTarget

#: The line each node's wrapper prints its answer after (srun, clush and pdsh prefix lines).
ANSWER_MARK = "@@envkit-fleet@@ "


#: Runs on each node: the ssh driver (program), its output captured, answered in marked lines of
#: bounded length (pdsh cuts a line at 128 KiB): `MARK node digest i/n part`, the parts of the
#: base64 of the compressed answer, `digest` its sha256, so a lost or altered part is seen.
_WRAPPER = r"""
import base64, contextlib, hashlib, io, json, os, socket, sys, zlib
prog = zlib.decompress(base64.b64decode("@PROG@")).decode("utf-8")
out, err = io.StringIO(), io.StringIO()
rc = 0
with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
    try:
        exec(compile(prog, "envkit_fleet_driver", "exec"), {"__name__": "__main__"})
    except SystemExit as e:
        rc = e.code if isinstance(e.code, int) else (0 if e.code is None else 1)
    except BaseException as e:
        rc = 1
        err.write("%s: %s\n" % (e.__class__.__name__, e))
node = os.environ.get("SLURMD_NODENAME") or socket.gethostname()
answer = json.dumps({"node": node, "rc": rc, "out": out.getvalue(), "err": err.getvalue()[-4000:]})
packed = base64.b64encode(zlib.compress(answer.encode("utf-8"), 6)).decode("ascii")
digest = hashlib.sha256(packed.encode("ascii")).hexdigest()
size = @PART@
n = max(1, -(-len(packed) // size))
label = "".join(c if c.isprintable() and not c.isspace() else "_" for c in node) or "_"
sys.stdout.write("\n" + "".join("@MARK@%s %s %d/%d %s\n" % (label, digest, i + 1, n,
                 packed[i * size:(i + 1) * size]) for i in range(n)))
"""

#: Characters of the answer per marked line: far below the 128 KiB pdsh passes whole.
PART_CHARS = 8192


def node_program(target: SshTarget, *, machine: bool) -> str:
    """The marked-lines-answer program every node runs under srun, clush or pdsh (stdlib only)."""
    from envkit.sources.ssh import remote_program

    packed = base64.b64encode(zlib.compress(remote_program(target, machine=machine).encode(), 9)).decode()
    return (
        _WRAPPER.replace("@PROG@", packed).replace("@MARK@", ANSWER_MARK).replace("@PART@", str(PART_CHARS))
    )


def shell_argv(
    via: str, hosts: list[str], code: str, *, at_once: int, timeout: float, environ: Mapping[str, str]
) -> list[str]:
    """The srun / clush / pdsh command line that runs `code` (Python) once on every host."""
    py = environ.get("ENVKIT_REMOTE_PYTHON") or "python3"
    nodes = ",".join(hosts)
    if via == "srun":
        n = str(len(hosts))
        return [
            "srun", f"--nodes={n}", f"--ntasks={n}", "--ntasks-per-node=1", f"--nodelist={nodes}",
            "--kill-on-bad-exit=0", py, "-c", code,
        ]  # fmt: skip
    command = f"{shlex.quote(py)} -c {shlex.quote(code)}"
    ct, ut = str(max(1, int(min(timeout, 20)))), str(max(1, int(timeout)))
    if via == "clush":
        return ["clush", "--nostdin", "-w", nodes, "-f", str(at_once), "-t", ct, "-u", ut, command]
    rcmd = [] if environ.get("PDSH_RCMD_TYPE") else ["-R", "ssh"]
    return ["pdsh", *rcmd, "-w", nodes, "-f", str(at_once), "-t", ct, "-u", ut, command]


def run_on_nodes(
    via: str,
    jobs: Sequence[Job],
    *,
    at_once: int,
    timeout: float,
    environ: Mapping[str, str],
    machine: bool,
) -> list[HostResult]:
    """Read every one of `jobs` (one environment, several nodes) with one `via` command; one
    HostResult per job, in order.  The command's output is read up to ENVKIT_SSH_MAX_MIB per
    node (envkit.sources.ssh.max_answer_bytes): past it the command is stopped, and a node whose
    own answer is larger fails, as over ssh."""
    from envkit._proc import run_capped
    from envkit.sources.ssh import max_answer_bytes

    targets = [j.target for j in jobs if j.target is not None]
    names = [t.destination for t in targets]
    code = node_program(targets[0], machine=machine)
    argv = shell_argv(via, names, code, at_once=at_once, timeout=timeout, environ=environ)
    cap = max_answer_bytes(environ)
    # the whole command gets the per-host timeout, plus room for the fan-out itself
    result = run_capped(
        argv, input="", timeout=timeout * 2 + 10, max_bytes=cap * len(names), env=environ, what=via
    )
    too_large = f"the answer is larger than the {cap / 2**20:g} MiB envkit reads from a host: stopped ({via})"
    answers = _answers(via, result.stdout, cap)
    out = []
    for j, t, name in zip(jobs, targets, names, strict=True):
        ans = answers.get(name) or answers.get(name.split("@", 1)[-1])
        if isinstance(ans, _Lost) and ans is not _TOO_LARGE and (result.too_large or result.timed_out):
            ans = None  # a stopped command cuts answers short: the stop is the reason
        if ans is None:
            reason = too_large if result.too_large else _no_answer(via, name, result, timeout)
            out.append(HostResult(job=j, status="failed" if result.too_large else "unreachable", why=reason))
        elif ans is _TOO_LARGE:
            out.append(HostResult(job=j, status="failed", why=too_large))
        elif isinstance(ans, _Lost):
            why = f"the answer from {name} arrived incomplete or altered ({via}): {ans.why}; not read"
            out.append(HostResult(job=j, status="failed", why=why))
        else:
            out.append(_read(j, t, ans, timeout))
    return out


@dataclass(frozen=True, slots=True)
class _Lost:
    """A node's answer that is not read, and why."""

    why: str


#: A node whose answer is past the cap (it is not parsed).
_TOO_LARGE = _Lost("too large")

#: One marked line after the mark: node, digest, part i of n, the part.
_PART = re.compile(r"(\S+) ([0-9a-f]{64}) ([0-9]+)/([0-9]+) ([A-Za-z0-9+/=]*)\Z")


def _answers(via: str, stdout: str, cap: int) -> dict[str, dict | _Lost]:
    """node -> its answer (or why it is not read), from the marked lines of the command's output.
    clush and pdsh prefix each line with the node as they were given it (`node7: `); srun's lines
    carry the node's own name.  An unmarked line longer than `cap` is _TOO_LARGE for its node
    (clush, pdsh: srun's names none)."""
    parts: dict[str, dict[tuple[str, int], dict[int, str]]] = {}
    bad: dict[str, int] = {}
    huge: set[str] = set()
    for line in stdout.splitlines():
        i = line.find(ANSWER_MARK)
        if i < 0:
            prefix = line.split(":", 1)[0].strip() if via != "srun" and len(line) > cap else ""
            if prefix:
                huge.add(prefix)
            continue
        prefix = line[:i].strip()
        name = prefix[:-1].strip() if via != "srun" and prefix.endswith(":") else ""
        m = _PART.match(line, i + len(ANSWER_MARK))
        if m is None or not 0 < int(m[3]) <= int(m[4]):
            label = name or (line[i + len(ANSWER_MARK) :].split(" ", 1)[0])
            bad[label] = bad.get(label, 0) + 1
            continue
        parts.setdefault(name or m[1], {}).setdefault((m[2], int(m[4])), {})[int(m[3])] = m[5]
    out: dict[str, dict | _Lost] = dict.fromkeys(huge, _TOO_LARGE)
    for name in sorted(set(parts) | set(bad)):
        if name in out:
            continue
        tries = [_assemble(d, n, got, cap) for (d, n), got in parts.get(name, {}).items()]
        whole = [t for t in tries if not isinstance(t, _Lost)]
        if whole:
            out[name] = whole[0]
        elif tries:
            out[name] = tries[0]
        else:
            out[name] = _Lost(f"{bad[name]} marked line(s) that are not parts of an answer")
    return out


def _assemble(digest: str, n: int, got: dict[int, str], cap: int) -> dict | _Lost:
    """One answer from its parts: checked against its digest, at most `cap` bytes unpacked."""
    missing = [k for k in range(1, n + 1) if k not in got]
    if missing:
        more = f" and {len(missing) - 1} more" if len(missing) > 1 else ""
        return _Lost(f"part {missing[0]}{more} of {n} missing")
    packed = "".join(got[k] for k in range(1, n + 1))
    if hashlib.sha256(packed.encode("ascii")).hexdigest() != digest:
        return _Lost(f"its {n} part(s) do not match their sha256")
    unpack = zlib.decompressobj()
    try:
        data = unpack.decompress(base64.b64decode(packed, validate=True), cap + 1)
    except (ValueError, zlib.error) as exc:
        return _Lost(f"it does not unpack: {exc}")
    if len(data) > cap or unpack.unconsumed_tail:
        return _TOO_LARGE
    try:
        ans = json.loads(data)
    except ValueError as exc:
        return _Lost(f"it is not JSON: {exc}")
    return ans if isinstance(ans, dict) else _Lost("it is not a JSON object")


def _no_answer(via: str, name: str, result, timeout: float) -> str:
    if result.timed_out:
        return f"no answer within {timeout:g} s ({via} was stopped)"
    lines = [ln.strip() for ln in result.stderr.splitlines() if ln.strip()]
    mine = [ln for ln in lines if name in ln]
    if "Permission denied" in " ".join(mine):
        return f"ssh authentication failed ({via}): envkit never types a password; use a key or an agent"
    # the tool's own "exited with exit code 255" says less than the ssh error line before it
    told = [ln for ln in mine if "exited with exit code" not in ln] or mine
    if told:
        return f"no answer ({told[-1]})"
    return f"no answer from {via}" + (f" ({lines[-1]})" if lines else f" (exit code {result.returncode})")


def _read(job: Job, target: SshTarget, ans: dict, timeout: float) -> HostResult:
    """A node's answer read as the ssh reader reads a session's output."""
    from envkit._proc import Result
    from envkit.sources import model_from_answer
    from envkit.sources.ssh import read_answer, remote_url

    rc = ans.get("rc")
    fake = Result(
        ("node",),
        rc if isinstance(rc, int) else 1,
        str(ans.get("out") or ""),
        str(ans.get("err") or ""),
        0.0,
        False,
    )
    found: list[MachineProfile] = []
    try:
        data, head = read_answer(target, fake, timeout=timeout)
        model = model_from_answer(target, data, head, on_machine=found.append)
    except EnvkitError as exc:
        return HostResult(job=job, status="failed", why=why(exc, remote_url(target)))
    return HostResult(job=job, model=model, profile=found[0] if found else None)
