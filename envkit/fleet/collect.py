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

import os
import re
import tempfile
from collections.abc import Callable, Iterator, Mapping
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from envkit.errors import EnvkitError, Remedy, UsageError
from envkit.fleet.hostlist import expand, is_expression
from envkit.fleet.jobs import HostResult, Job
from envkit.fleet.sessions import Masters, ssh_failure, why
from envkit.machine.profile import MachineProfile
from envkit.model import EnvSpec, LiveEnv, Lock
from envkit.sources.ssh import SshTarget, parse_ssh

TRANSPORTS = ("ssh", "srun", "clush", "pdsh")
#: Per-host default: long enough for a loaded login node, short enough that a dead node is a row.
DEFAULT_TIMEOUT = 60.0
DEFAULT_JOBS = 8


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
    for j in jobs:
        if j.host in seen:
            dups.setdefault(j.host, [_named(seen[j.host])]).append(_named(j))
        else:
            seen[j.host] = j
    return list(seen.values()), list(dups.items())


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
    env = env or "base"  # read on a host whose SOURCE names no environment
    if text.startswith("ssh://"):
        try:
            target = parse_ssh(text, default_env=env)
        except UsageError as exc:
            exc.message = at + exc.message
            raise
        return [Job(host=_host_label(target), source=text, via="ssh", target=target, where=where)]
    path = Path(text)
    if path.is_dir():
        if (path / "conda-meta").is_dir():
            return [Job(host=text, source=text, via="prefix", path=text, where=where)]
        files = sorted(p for p in path.iterdir() if p.is_file() and not p.name.startswith("."))
        if not files:
            raise UsageError(
                f"{path}: an empty directory", hint="collect files into it first (see `envkit fleet --help`)"
            )
        return _collected_files(files, where)
    if path.is_file():
        return _collected_files([path], where)
    if "/" in text or text.startswith(".") or text.endswith((".yml", ".yaml", ".json", ".txt", ".lock")):
        raise UsageError(f"{at}{text}: no such file or directory")
    hosts = expand(text, where=where) if is_expression(text) else [text]
    out = []
    for h in hosts:
        bare = h.split("@", 1)[-1]
        if not bare or bare.startswith("-") or not all(c.isalnum() or c in "-._:" for c in bare):
            raise UsageError(
                f"{at}{h!r} is not a host name", hint="host names are letters, digits, '-', '.' and '_'"
            )
        target = parse_ssh(f"ssh://{h}", default_env=env)
        out.append(Job(host=_host_label(target), source=h, via=via, target=target, where=where))
    return out


def _host_label(t: SshTarget) -> str:
    """How the report names a remote host: `user@host:port` as given, the environment only when it
    is not the default (the same host with two environments is two rows)."""
    return t.destination + (f":{t.port}" if t.port else "")


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
    return [
        Job(host=stem, source=str(p), via="file", path=str(p), machine_path=profiles.get(stem), where=where)
        for stem, p in envs
    ]


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
    machine: bool = True,
    on_result: Callable[[HostResult], None],
) -> None:
    """Read every job, calling `on_result` once per job (in the order given for files; as hosts
    answer for remote ones, from this thread)."""
    envmap = dict(os.environ)
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
    from envkit.sources.ssh import max_answer_bytes

    # a bad ENVKIT_SSH_MAX_MIB is the run's error (as a bad ENVKIT_SSH is, in Masters), not each host's
    max_answer_bytes(environ)
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
# srun, clush, pdsh: one command, every node (envkit.fleet.shell)


def _run_parallel_shell(via, jobs, at_once, timeout, environ, machine) -> list[HostResult]:
    from shutil import which

    from envkit.fleet.shell import run_on_nodes

    if which(via, path=environ.get("PATH")) is None:
        return [HostResult(job=j, status="failed", why=f"{via} is not installed (not on PATH)") for j in jobs]
    # all jobs of one transport read the same environment (the one given by --env)
    by_env: dict[tuple, list[Job]] = {}
    for j in jobs:
        assert j.target is not None
        by_env.setdefault((j.target.path, j.target.env_name), []).append(j)
    results: dict[str, HostResult] = {}
    for group in by_env.values():
        for r in run_on_nodes(via, group, at_once=at_once, timeout=timeout, environ=environ, machine=machine):
            results[r.job.host] = r
    return [results[j.host] for j in jobs]
