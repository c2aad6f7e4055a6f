"""A fleet's unit of work: one host to read (Job) and what reading it gave (HostResult)."""

from __future__ import annotations

from dataclasses import dataclass, field

from envkit.machine.profile import MachineProfile
from envkit.model import EnvSpec, LiveEnv, Lock
from envkit.sources.ssh import SshTarget


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
