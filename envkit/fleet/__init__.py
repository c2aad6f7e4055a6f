"""envkit.fleet: many hosts, one answer — which machines differ, and how.

    from envkit.fleet import fleet, fingerprint
    report = fleet(["node[001-128]"], env="research", jobs=16)     # over ssh
    report = fleet(["collected/"])                                   # collected files
    report.groups[0].members                                         # the largest group
    report.majority                                                  # it, if it holds > half
    report.groups[1].diff.changes                                    # an outlier, ranked

`envkit.fleet.collect` turns SOURCEs into jobs and runs them (ssh, srun, clush, pdsh, files);
`envkit.fleet.report` groups the hosts by `envkit.fleet.fingerprint` and diffs each outlier
against the majority with `envkit.envdiff.diff`.
"""

from __future__ import annotations

from envkit.fleet.collect import DEFAULT_JOBS, DEFAULT_TIMEOUT, TRANSPORTS
from envkit.fleet.fingerprint import EnvPrint, MachineClass, env_fingerprint, fingerprint_line, machine_class
from envkit.fleet.report import FleetReport, Group

__all__ = [
    "DEFAULT_JOBS",
    "DEFAULT_TIMEOUT",
    "TRANSPORTS",
    "FleetReport",
    "Group",
    "fingerprint",
    "fingerprint_line",
    "fleet",
]


def fleet(
    sources: list[str],
    *,
    env: str | None = None,
    via: str = "ssh",
    jobs: int = DEFAULT_JOBS,
    timeout: float = DEFAULT_TIMEOUT,
    lock: str | None = None,
    platform: str | None = None,
    machine: bool = True,
) -> FleetReport:
    """Read every host of `sources` (see envkit.fleet.collect) and group them.

    `env` is the environment read on hosts whose SOURCE names none (a name, or a path; default
    base); `via` the transport for host names (ssh, srun, clush, pdsh); `jobs` how many hosts at
    once; `timeout` the seconds one host may take.  With `lock` (a lock file), every group is
    also compared with it, and checked against its machine.  A host that cannot be read is a
    FleetReport.unreachable row, never an error; raises UsageError for a malformed SOURCE and the
    readers' errors for an unreadable lock.
    """
    from envkit.fleet.collect import plan, run_jobs
    from envkit.fleet.report import Grouper

    plan_jobs, dups = plan(list(sources), env=env, via=via)
    lock_model = None
    if lock is not None:
        from envkit.sources import resolve

        lock_model = resolve(lock).model
    grouper = Grouper(platform=platform)
    run_jobs(plan_jobs, jobs_at_once=jobs, timeout=timeout, machine=machine, on_result=grouper.add)
    check = _machine_checker(lock) if lock is not None else None
    return grouper.report(duplicates=dups, lock=lock_model, lock_label=lock, check_machine=check)


def _machine_checker(lock_path: str):
    """(profile) -> the machine-* findings of `envkit check --machine` on the lock."""
    from envkit.checks import load_targets, run_checks
    from envkit.checks.registry import all_rules
    from envkit.config import Config

    config = Config(select=tuple(n for n in all_rules() if n.startswith("machine-")))

    def check(profile):
        if profile is None:
            return []
        return run_checks(load_targets([lock_path]), config, machine=profile)

    return check


def fingerprint(source: str | None = None, *, machine: bool = True) -> tuple[EnvPrint, MachineClass | None]:
    """(the environment's EnvPrint, this machine's MachineClass) for `source` (any SOURCE
    envkit reads; default the active environment, $CONDA_PREFIX, else `base`).  Raises what
    envkit.sources.resolve raises."""
    import os

    from envkit.sources import resolve

    if source is None:
        source = os.environ.get("CONDA_PREFIX") or "env:base"
    src = resolve(source, machine=machine)
    ep = env_fingerprint(src.model)
    mc = None
    if machine:
        if src.machine is not None:
            mc = machine_class(src.machine)  # type: ignore[arg-type]
        elif src.origin != "ssh":
            from envkit.machine import detect_local

            mc = machine_class(detect_local())
    return ep, mc
