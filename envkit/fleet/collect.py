"""Where a fleet's environments come from: SOURCE strings into jobs, and the transports that run
them.

    ssh://[user@]host[:port][/PATH | /env:NAME]   one host over OpenSSH (the `envkit diff` source)
    node[001-128], login1,gpu[1-4]                a host-list expression: one job per host
    bare host names                               the same (`gpu-07`)
    @hosts.txt                                    a file of SOURCEs, one a line (`#` comments)
    DIR                                           collected files: each file is a host (its stem),
                                                  a machine profile (`envkit machine --format json`) is
                                                  the machine of the host of the same stem
    FILE                                          one collected file
    PREFIX                                        a local prefix (a directory holding conda-meta/)

A host without an environment in its SOURCE reads the `env` the caller gives (a name, or a path).
Transports are the existing engines, nothing installed remotely: OpenSSH (one session per host:
machine probe and prefix scan together, `-j` at a time; envkit.fleet.sessions), or `srun`,
`clush`, `pdsh`, which run the same stdlib program (`python3 -c`) on every node in one command.
Every failure becomes a HostResult with the reason; nothing here raises for one host.
"""

from __future__ import annotations

import base64
import json
import os
import re
import shlex
import tempfile
import zlib
from collections.abc import Callable, Iterator, Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from envkit.errors import EnvkitError, Remedy, UsageError
from envkit.fleet.hostlist import expand, is_expression
from envkit.fleet.sessions import Masters, ssh_failure, why
from envkit.machine.profile import MachineProfile
from envkit.model import EnvSpec, LiveEnv, Lock
from envkit.sources.ssh import SshTarget, parse_ssh

TRANSPORTS = ("ssh", "srun", "clush", "pdsh")
#: Per-host default: long enough for a loaded login node, short enough that a dead node is a row.
DEFAULT_TIMEOUT = 60.0
DEFAULT_JOBS = 8
#: The line each node's wrapper prints its answer after (srun, clush and pdsh prefix lines).
ANSWER_MARK = "@@envkit-fleet@@ "


@dataclass(frozen=True, slots=True, kw_only=True)
class Job:
    """One host to read: `host` names it in the report; `target` is set for remote jobs, `path` for
    collected files and local prefixes."""

    host: str
    source: str
    via: str  # file | prefix | ssh | srun | clush | pdsh
    target: SshTarget | None = None
    path: str | None = None
    machine_path: str | None = None  # a collected machine profile beside the file
    where: str | None = None  # a hosts file and line


@dataclass(slots=True, kw_only=True)
class HostResult:
    """One host as read: its model and machine profile, or why it could not be read."""

    job: Job
    model: EnvSpec | Lock | LiveEnv | None = None
    profile: MachineProfile | None = None
    why: str = ""
    status: str = "ok"  # ok | unreachable | failed
    warnings: list[str] = field(default_factory=list)


def plan(
    sources: list[str], *, env: str | None, via: str = "ssh", environ: Mapping[str, str] | None = None
) -> tuple[list[Job], list[tuple[str, list[str]]]]:
    """(jobs, duplicates): every SOURCE as jobs in the order given, each host once;
    `duplicates` lists (host, [the sources that named it]) for hosts named more than once.
    With `via` srun and no SOURCE, the nodes of the Slurm allocation (SLURM_JOB_NODELIST).
    Raises UsageError for a malformed expression, hosts file or ssh:// URL."""
    envmap = os.environ if environ is None else environ
    if via not in TRANSPORTS:
        raise UsageError(f"unknown transport {via!r}", hint=f"one of {', '.join(TRANSPORTS)}")
    if not sources:
        nodelist = envmap.get("SLURM_JOB_NODELIST") or envmap.get("SLURM_NODELIST")
        if via == "srun" and nodelist:
            sources = [nodelist]
        else:
            raise UsageError(
                "no SOURCE: give hosts (node[001-128], @hosts.txt, ssh://HOST) "
                "or a directory of collected files",
                hint="inside a Slurm allocation, {} reads every node of it",
                remedy=Remedy(option="via", value="srun"),
            )
    jobs: list[Job] = []
    for text, where in _flatten(sources):
        jobs.extend(_jobs_of(text, where, env=env, via=via))
    jobs = _distinct_labels(jobs)
    seen: dict[str, Job] = {}
    dups: dict[str, list[str]] = {}
    out: list[Job] = []
    for j in jobs:
        if j.host in seen:
            dups.setdefault(j.host, [_named(seen[j.host])]).append(_named(j))
            continue
        seen[j.host] = j
        out.append(j)
    return out, list(dups.items())


def _distinct_labels(jobs: list[Job]) -> list[Job]:
    """One host read with two environments is two rows: their labels name the environment."""
    from dataclasses import replace

    from envkit.sources.ssh import remote_url

    targets: dict[str, set] = {}
    for j in jobs:
        if j.target is not None:
            targets.setdefault(j.host, set()).add((j.target.path, j.target.env_name))
    return [
        replace(j, host=remote_url(j.target).removeprefix("ssh://"))
        if j.target is not None and len(targets[j.host]) > 1
        else j
        for j in jobs
    ]


def _named(j: Job) -> str:
    return f"{j.source} ({j.where})" if j.where else j.source


def _flatten(sources: list[str], depth: int = 0) -> Iterator[tuple[str, str | None]]:
    for text in sources:
        if text.startswith("@"):
            path = text[1:]
            if depth > 4:
                raise UsageError(f"{text}: host files include each other too deeply")
            try:
                lines = Path(path).read_text(encoding="utf-8").splitlines()
            except OSError as exc:
                raise UsageError(f"{path}: cannot read the host file: {exc.strerror or exc}") from None
            except UnicodeDecodeError:
                raise UsageError(f"{path}: the host file is not UTF-8 text") from None
            for i, line in enumerate(lines, 1):
                item = line.split("#", 1)[0].strip()
                if not item:
                    continue
                if item.startswith("@"):
                    yield from _flatten([item], depth + 1)
                else:
                    yield item, f"{path}:{i}"
        else:
            yield text, None


def _jobs_of(text: str, where: str | None, *, env: str | None, via: str) -> list[Job]:
    at = f"{where}: " if where else ""
    if text.startswith("ssh://"):
        try:
            target = _ssh_target(text, env)
        except UsageError as exc:
            exc.message = at + exc.message
            raise
        return [Job(host=_host_label(target), source=text, via="ssh", target=target, where=where)]
    path = Path(text)
    if path.is_dir():
        if (path / "conda-meta").is_dir():
            return [Job(host=text, source=text, via="prefix", path=text, where=where)]
        return _collected(path, where)
    if path.is_file():
        return _collected_files([path], where)
    if "/" in text or text.startswith(".") or text.endswith((".yml", ".yaml", ".json", ".txt", ".lock")):
        raise UsageError(f"{at}{text}: no such file or directory")
    hosts = expand(text, where=where) if is_expression(text) else [text]
    out = []
    for h in hosts:
        if not _valid_host(h):
            raise UsageError(
                f"{at}{h!r} is not a host name", hint="host names are letters, digits, '-', '.' and '_'"
            )
        target = _ssh_target(f"ssh://{h}", env)
        out.append(Job(host=_host_label(target), source=h, via=via, target=target, where=where))
    return out


def _valid_host(h: str) -> bool:
    bare = h.split("@", 1)[-1]
    return bool(bare) and not bare.startswith("-") and all(c.isalnum() or c in "-._:" for c in bare)


def _ssh_target(text: str, env: str | None) -> SshTarget:
    """An ssh:// URL with or without an environment; without one it reads `env` (default base)."""
    from urllib.parse import urlsplit

    parts = urlsplit(text)
    if parts.path in ("", "/"):
        name = env or "base"
        suffix = name if name.startswith(("/", "~")) else f"env:{name}"
        text = f"ssh://{parts.netloc}/{suffix.lstrip('/') if suffix.startswith('~') else suffix}"
        if suffix.startswith("/"):
            text = f"ssh://{parts.netloc}{suffix}"
    return parse_ssh(text)


def _host_label(t: SshTarget) -> str:
    """How the report names a remote host: `user@host:port` as given, the environment only when it
    is not the default (the same host with two environments is two rows)."""
    return t.destination + (f":{t.port}" if t.port else "")


def _collected(directory: Path, where: str | None) -> list[Job]:
    files = sorted(p for p in directory.iterdir() if p.is_file() and not p.name.startswith("."))
    if not files:
        raise UsageError(
            f"{directory}: an empty directory", hint="collect files into it first (see `envkit fleet --help`)"
        )
    return _collected_files(files, where)


def _collected_files(files: list[Path], where: str | None) -> list[Job]:
    """Jobs for collected files: the stem is the host; a machine profile goes with its host's job."""
    profiles: dict[str, str] = {}
    envs: list[tuple[str, Path]] = []
    for p in files:
        if p.suffix == ".json" and _is_profile(p):
            stem = p.stem[: -len(".machine")] if p.stem.endswith(".machine") else p.stem
            profiles[stem] = str(p)
        else:
            envs.append((p.stem, p))
    jobs = [
        Job(host=stem, source=str(p), via="file", path=str(p), machine_path=profiles.get(stem), where=where)
        for stem, p in envs
    ]
    return jobs


def _is_profile(path: Path) -> bool:
    try:
        with open(path, "rb") as fh:
            head = fh.read(4096)
    except OSError:
        return False
    return b'"envkit_machine"' in head


# ---------------------------------------------------------------------------------------------
# running the jobs


def run_jobs(
    jobs: list[Job],
    *,
    jobs_at_once: int = DEFAULT_JOBS,
    timeout: float = DEFAULT_TIMEOUT,
    environ: Mapping[str, str] | None = None,
    machine: bool = True,
    on_result: Callable[[HostResult], None],
) -> None:
    """Read every job, calling `on_result` once per job (in the order given for files; as hosts
    answer for remote ones, from this thread)."""
    envmap = dict(os.environ if environ is None else environ)
    by_via: dict[str, list[Job]] = {}
    for j in jobs:
        by_via.setdefault(j.via, []).append(j)
    # byte-identical collected files (one environment exported on many nodes) are read once
    seen: dict[bytes, EnvSpec | Lock | LiveEnv] = {}
    for j in by_via.pop("file", []) + by_via.pop("prefix", []):
        on_result(_read_local(j, envmap, seen))
    ssh_jobs = by_via.pop("ssh", [])
    if ssh_jobs:
        _run_ssh(ssh_jobs, jobs_at_once, timeout, envmap, machine, on_result)
    for via, group in by_via.items():
        for r in _run_parallel_shell(via, group, jobs_at_once, timeout, envmap, machine):
            on_result(r)


#: Lines of a `conda env export` that name the host's copy, not the environment (the fingerprint
#: ignores them): files that differ only there are read once.
_HOST_LINES = re.compile(rb"^(?:prefix|name):[^\n]*\n?", re.M)


def _read_local(j: Job, environ: Mapping[str, str], seen: dict) -> HostResult:
    import hashlib

    from envkit.sources import resolve

    res = HostResult(job=j)
    key = None
    if j.via == "file" and j.path:
        try:
            key = hashlib.sha256(_HOST_LINES.sub(b"", Path(j.path).read_bytes())).digest()
        except OSError:
            key = None
        res.model = seen.get(key) if key is not None else None
    if res.model is None:
        try:
            res.model = resolve(j.path or j.source, environ=environ).model
        except EnvkitError as exc:
            res.status, res.why = "failed", why(exc)
            return res
        if key is not None:
            seen[key] = res.model
    if j.machine_path:
        from envkit.machine import read_profile

        try:
            res.profile = read_profile(j.machine_path)
        except EnvkitError as exc:
            res.warnings.append(why(exc))
    return res


def _run_ssh(jobs, at_once, timeout, environ, machine, on_result) -> None:
    """Each host in its own ssh session, `at_once` at a time.  Sessions to one host share one
    connection (authenticated once): a master that envkit starts for that host and that runs no
    session itself, so every session ends, or is stopped, alone."""
    from envkit.sources import read_remote

    targets = [j.target for j in jobs if j.target is not None]
    with (
        tempfile.TemporaryDirectory(prefix="envkit-ssh-") as control,
        Masters(control, environ, timeout, targets) as masters,
    ):

        def one(j: Job) -> HostResult:
            res = HostResult(job=j)
            found: list[MachineProfile] = []
            assert j.target is not None
            env = masters.environ_for(j.target)
            try:
                res.model = read_remote(
                    j.target, environ=env, timeout=timeout, on_machine=found.append if machine else None
                )
            except EnvkitError as exc:
                res.status, res.why = ssh_failure(exc, j.target, timeout)
                return res
            res.profile = found[0] if found else None
            return res

        with ThreadPoolExecutor(max_workers=max(1, at_once)) as pool:
            for res in pool.map(one, jobs):
                on_result(res)


# ---------------------------------------------------------------------------------------------
# srun, clush, pdsh: one command, every node


#: Runs on each node: the ssh driver (program), its output captured, answered in one line.
_WRAPPER = r"""
import base64, contextlib, io, json, os, socket, sys, zlib
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
sys.stdout.write("\n@MARK@" + json.dumps({"node": node, "rc": rc, "out": out.getvalue(),
                                           "err": err.getvalue()[-4000:]}) + "\n")
"""


def node_program(target: SshTarget, *, machine: bool = True) -> str:
    """The one-line-answer program every node runs under srun, clush or pdsh (stdlib only)."""
    from envkit.sources.ssh import remote_program

    packed = base64.b64encode(zlib.compress(remote_program(target, machine=machine).encode(), 9)).decode()
    return _WRAPPER.replace("@PROG@", packed).replace("@MARK@", ANSWER_MARK)


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


def _run_parallel_shell(via, jobs, at_once, timeout, environ, machine) -> list[HostResult]:
    from envkit._proc import run, which

    results = {j.host: HostResult(job=j) for j in jobs}
    exe = which(via, environ.get("PATH"))
    if exe is None:
        why = f"{via} is not installed (not on PATH)"
        for r in results.values():
            r.status, r.why = "failed", why
        return list(results.values())
    # all jobs of one transport read the same environment (the one given by --env)
    by_env: dict[tuple, list[Job]] = {}
    for j in jobs:
        assert j.target is not None
        by_env.setdefault((j.target.path, j.target.env_name), []).append(j)
    for group in by_env.values():
        target = group[0].target
        assert target is not None
        names = [j.target.destination for j in group if j.target]
        argv = shell_argv(
            via,
            names,
            node_program(target, machine=machine),
            at_once=at_once,
            timeout=timeout,
            environ=environ,
        )
        # the whole command gets the per-host timeout, plus room for the fan-out itself
        result = run(argv, timeout=timeout * 2 + 10, env=environ, check=False, what=via)
        answers = _answers(via, result.stdout)
        by_name = {j.target.destination: j for j in group if j.target}
        for name, j in by_name.items():
            res = results[j.host]
            ans = answers.get(name) or answers.get(name.split("@", 1)[-1])
            if ans is None:
                res.status = "unreachable"
                res.why = _no_answer(via, name, result, timeout)
                continue
            _fill(res, ans, via, timeout)
    return [results[j.host] for j in jobs]


def _answers(via: str, stdout: str) -> dict[str, dict]:
    """node -> its answer, from the marked lines of the command's output.  clush and pdsh prefix
    each line with the node as they were given it (`node7: `); srun's node is the answer's own."""
    out: dict[str, dict] = {}
    for line in stdout.splitlines():
        i = line.find(ANSWER_MARK)
        if i < 0:
            continue
        try:
            ans = json.loads(line[i + len(ANSWER_MARK) :])
        except ValueError:
            continue
        if not isinstance(ans, dict):
            continue
        prefix = line[:i].strip()
        name = prefix[:-1].strip() if via != "srun" and prefix.endswith(":") else str(ans.get("node") or "")
        out[name] = ans
    return out


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


def _fill(res: HostResult, ans: dict, via: str, timeout: float) -> None:
    from envkit._proc import Result
    from envkit.sources import model_from_answer
    from envkit.sources.ssh import read_answer, remote_url

    j = res.job
    assert j.target is not None
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
    url = remote_url(j.target)
    try:
        data, head = read_answer(j.target, fake, timeout=timeout)
        res.model = model_from_answer(j.target, data, head, on_machine=found.append)
    except EnvkitError as exc:
        res.status, res.why = "failed", why(exc, url)
        return
    res.profile = found[0] if found else None
