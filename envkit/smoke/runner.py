"""Run the smoke-test probe inside a target environment and turn its events into a report.

The probe (the `probe/` folder, standalone) is copied to a scratch directory and executed by the
target's interpreter in its own process group (`envkit._proc.stream`).  The runner follows the
probe's events, enforces a per-check timeout and an overall one, and on a hang kills the whole group
(DataLoader workers and distributed ranks included) and says which check hung.  Known failures get
a diagnosis with a hint (`diagnosis.py`); `--create` runs in a temporary env (`temp_env.py`).
Nothing here prints: progress goes to an optional callback, the result is a plain dict (the
documented JSON schema, docs/commands/smoke.md).
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from envkit._proc import tail
from envkit.errors import SmokeError, UsageError
from envkit.smoke.diagnosis import diagnose, hint_for_text
from envkit.smoke.probe.events import EVENT_PREFIX
from envkit.smoke.target import Target

PROBE = Path(__file__).with_name("probe")  # a folder, copied whole; `python FOLDER` runs its __main__.py
#: Test/debug knob: JSON merged into the probe's config (workload sizes, fault injection, fake GPU paths).
TEST_CONFIG_VAR = "ENVKIT_SMOKE_TEST_CONFIG"
DEFAULT_TIMEOUT = {"quick": 600.0, "default": 900.0, "full": 1800.0}


# ---------------------------------------------------------------------------------------------
# running the probe


@dataclass
class _State:
    plan: list[dict] = field(default_factory=list)
    checks: list[dict] = field(default_factory=list)
    environment: dict = field(default_factory=dict)
    dataloader: dict | None = None
    report: dict | None = None
    current: str | None = None
    current_timeout: float | None = None
    current_since: float = 0.0
    probe_pid: int | None = None
    pids: list[int] = field(default_factory=list)
    #: which limit the last deadline poll returned: "check" (the running check's own) or "overall"
    deadline_kind: str = "overall"

    def take(self, line: str) -> dict | None:
        """Follow one line of the probe's stdout; the event it carries (None for any other line)."""
        if not line.startswith(EVENT_PREFIX):
            return None
        try:
            ev = json.loads(line[len(EVENT_PREFIX) :])
        except ValueError:
            return None
        kind = ev.get("event")
        if kind == "hello":
            self.plan = ev.get("plan") or []
            self.probe_pid = ev.get("pid")
        elif kind == "start":
            self.current = ev.get("check")
            self.current_timeout = float(ev.get("timeout") or 0) or None
            self.current_since = time.monotonic()
        elif kind == "result":
            self.checks.append(ev["check"])
            self.current = None
        elif kind == "environment":
            self.environment = ev.get("environment") or {}
        elif kind == "dataloader":
            self.dataloader = ev.get("dataloader")
        elif kind == "pids":
            self.pids.extend(int(p) for p in ev.get("pids") or [])
        elif kind == "report":
            self.report = ev.get("report")
        return ev

    def deadline(self, start: float, overall: float) -> float:
        """The earlier of the running check's own limit and the overall one; which one it was is
        remembered, so that an overall --timeout is not reported as a check that hung."""
        when, self.deadline_kind = start + overall, "overall"
        if self.current and self.current_timeout and self.current_since + self.current_timeout < when:
            when, self.deadline_kind = self.current_since + self.current_timeout, "check"
        return when


def test_overrides() -> dict:
    """The probe-config overrides from ENVKIT_SMOKE_TEST_CONFIG (test/debug knob), or {}."""
    raw = os.environ.get(TEST_CONFIG_VAR)
    if not raw:
        return {}
    try:
        value = json.loads(raw)
    except ValueError as e:
        raise UsageError(f"{TEST_CONFIG_VAR} is not JSON: {e}") from None
    if not isinstance(value, dict):
        raise UsageError(f"{TEST_CONFIG_VAR} must be a JSON object")
    return value


def probe_config(target: Target, mode: str, require_cuda: bool) -> dict:
    """The probe's --config: the mode (UsageError for an unknown one), whether CUDA is required,
    the target prefix, the overrides of ENVKIT_SMOKE_TEST_CONFIG."""
    if mode not in DEFAULT_TIMEOUT:
        raise UsageError(f"unknown smoke mode {mode!r}")
    config: dict = {"mode": mode, "require_cuda": bool(require_cuda)}
    if target.prefix:
        config["prefix"] = target.prefix  # conda-meta of the target, for the CUDA-pin checks
    config.update(test_overrides())
    return config


def probe_env(target: Target) -> dict[str, str]:
    """The probe process's environment: ours plus the target's activation variables."""
    env = dict(os.environ)
    env.update(dict(target.env))
    env["PYTHONUNBUFFERED"] = "1"
    env.pop("PYTHONHOME", None)  # it would point the target interpreter at envkit's own stdlib
    return env


def run_smoke(
    target: Target,
    *,
    require_cuda: bool = False,
    mode: str = "default",
    timeout: float | None = None,
    keep: bool = False,
    on_event: Callable[[dict], None] | None = None,
) -> dict:
    """Run the probe in `target` and return the report (see docs/commands/smoke.md for the schema).

    `mode` is quick | default | full; `timeout` the overall limit in seconds (default per mode);
    `on_event` receives every probe event plus {"event": "hung", ...} (for progress display).
    Raises SmokeError when the probe could not run at all (no report and no check started).
    """
    from envkit import _proc

    config = probe_config(target, mode, require_cuda)
    overall = float(timeout) if timeout else DEFAULT_TIMEOUT[mode]
    scratch = Path(tempfile.mkdtemp(prefix="envkit-smoke-"))
    probe = scratch / "envkit_smoke_probe"
    shutil.copytree(PROBE, probe, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    st = _State()
    start = time.monotonic()

    def handle(line: str) -> None:
        ev = st.take(line)
        if ev is not None and on_event is not None:
            on_event(ev)

    try:
        # stream's own timeout is only a backstop: the deadline carries the overall limit.
        result = _proc.stream(
            [target.python, str(probe), "--config", json.dumps(config, sort_keys=True)],
            on_line=handle,
            deadline=lambda: st.deadline(start, overall),
            timeout=overall + 30,
            env=probe_env(target),
            cwd=str(scratch),
            what="smoke probe",
        )
    finally:
        # torchrun starts each distributed rank in a session of its own, outside the probe's
        # process group that stream() kills: kill the announced processes that are still ours.
        kill_stragglers(st.pids, str(probe))
        if not keep:
            shutil.rmtree(scratch, ignore_errors=True)
    elapsed = time.monotonic() - start
    if keep:  # the probe's output, kept with its scratch folder
        (scratch / "probe.stdout").write_text(result.stdout)
        (scratch / "probe.stderr").write_text(result.stderr)
    report = assemble(
        target, st, result, elapsed=elapsed, overall=overall, config=config, overall_given=bool(timeout)
    )
    report["machine"] = host_machine()
    if keep:
        report["scratch"] = str(scratch)
    if report.get("hung") and on_event is not None:
        on_event({"event": "hung", **report["hung"]})
    return report


def kill_stragglers(pids: Iterable[int], marker: str) -> list[int]:
    """SIGKILL each process of `pids` that is still alive and whose command line contains
    `marker` (the scratch copy of the probe: a pid reused by another program is never touched);
    returns the pids killed.  Linux (/proc) only; elsewhere nothing is done."""
    import signal

    killed = []
    for pid in sorted(set(pids)):
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                cmdline = f.read().replace(b"\0", b" ").decode("utf-8", "replace")
        except OSError:
            continue
        if marker not in cmdline:
            continue
        try:
            os.kill(pid, signal.SIGKILL)
            killed.append(pid)
        except OSError:
            pass
    return killed


# ---------------------------------------------------------------------------------------------
# the report


def assemble(
    target: Target,
    st: _State,
    result: Any,
    *,
    elapsed: float,
    overall: float,
    config: dict,
    overall_given: bool,
) -> dict:
    """Build the final report from the probe's events and how the process ended (`result`:
    what `envkit._proc.stream` returned).

    A timeout is told apart by `st.deadline_kind`: "check" means the running check exceeded its
    own limit (it hung: `hung: no result within its N s limit`), "overall" that the whole run's
    limit ran out (`the overall --timeout of N s ran out during CHECK`; nothing is said to hang).
    `overall_given` says whether the user set that limit with --timeout."""
    stderr = result.stderr or ""
    if st.report is not None and not result.timed_out:
        rep = dict(st.report)
        checks = list(rep.get("checks") or [])
        environment = rep.get("environment") or st.environment
        dataloader = rep.get("dataloader")
    else:
        checks = list(st.checks)
        environment = st.environment
        dataloader = st.dataloader
    hung = None
    if result.timed_out or st.report is None:
        if not st.plan and not checks:
            raise SmokeError(
                _no_start_message(target, result, overall),
                hint=hint_for_text(stderr) or "run the interpreter by hand to see why it fails",
                text=tail(stderr, 5) or None,
            )
        limit_text = (
            f"--timeout of {overall:g} s"
            if overall_given
            else f"time limit of {overall:g} s (the {config.get('mode')} mode's default)"
        )
        hung = _stopped(st, result, checks, elapsed=elapsed, overall=overall, limit_text=limit_text)
    torch_missing = any(c["name"] == "import.torch" and c["status"] == "fail" for c in checks)
    report = {
        "schema": 1,
        "ok": not any(c["status"] == "fail" for c in checks),
        "target": target.describe(),
        "mode": config.get("mode"),
        "require_cuda": bool(config.get("require_cuda")),
        "environment": environment or {},
        "checks": checks,
        "dataloader": dataloader,
        "hung": hung,
        "could_not_run": torch_missing,
        "seconds": round(elapsed, 3),
    }
    report["diagnoses"] = diagnose(report, stderr)
    report["stderr_tail"] = tail(stderr, 15) if not report["ok"] else ""
    return report


def _stopped(
    st: _State, result: Any, checks: list[dict], *, elapsed: float, overall: float, limit_text: str
) -> dict | None:
    """A probe that timed out or ended without its report: append the failed check it stopped in
    and a skip for each planned check it never reached; the `hung` record of a timeout (else None)."""
    stderr = result.stderr or ""
    current = st.current or ("environment" if not checks else None)
    which = current or "(between checks)"
    hung = None
    if result.timed_out:
        detail, hung = _timed_out(st, which, current, elapsed=elapsed, overall=overall, limit_text=limit_text)
    else:
        sig = -result.returncode if result.returncode < 0 else None
        how = (
            f"was killed by signal {sig} ({_signame(sig)})"
            if sig
            else f"exited with code {result.returncode}"
        )
        detail = f"the probe process {how} during this check" + (
            f": {tail(stderr, 1)}" if stderr.strip() else ""
        )
    checks.append(
        {
            "name": which,
            "status": "fail",
            "detail": detail,
            "seconds": round(time.monotonic() - st.current_since, 3) if st.current else 0.0,
        }
    )
    done = {c["name"] for c in checks}
    for p in st.plan:
        if p["name"] not in done:
            checks.append(
                {
                    "name": p["name"],
                    "status": "skip",
                    "detail": "not run: the probe stopped at " + which,
                    "seconds": 0.0,
                }
            )
    return hung


def _timed_out(
    st: _State, which: str, current: str | None, *, elapsed: float, overall: float, limit_text: str
) -> tuple[str, dict]:
    """The failed check's detail and the `hung` record when a limit ran out: the check's own
    (it hung) or the overall one (`limit_text` names it: nothing is said to hang)."""
    ran = time.monotonic() - st.current_since if st.current else 0.0
    killed = (
        f"the whole process group (probe pid {st.probe_pid}, workers "
        f"{sorted(set(st.pids)) or 'none'}) was killed"
    )
    limit: float
    if st.deadline_kind == "check" and st.current_timeout:
        cause, limit = "check_timeout", st.current_timeout
        detail = f"hung: no result within its {limit:g} s limit; {killed}"
    else:
        cause, limit = "overall_timeout", overall
        during = f"during {which}" if current else "between checks"
        own = (
            f" (it had run {ran:.1f} s of its own {st.current_timeout:g} s limit)"
            if st.current and st.current_timeout
            else ""
        )
        detail = f"the overall {limit_text} ran out {during}{own}; raise --timeout; {killed}"
    hung = {
        "check": which,
        "seconds": round(elapsed, 3),
        "pids": sorted(set(st.pids)),
        "probe_pid": st.probe_pid,
        "cause": cause,
        "limit_s": limit,
    }
    return detail, hung


def exit_code(report: dict) -> int:
    """0 every check passed, warned or was rightly skipped; 1 a check failed; 2 could not run."""
    if report.get("could_not_run"):
        return 2
    return 0 if report.get("ok") else 1


def _no_start_message(target: Target, result: Any, overall: float) -> str:
    if result.timed_out:
        return (
            f"the smoke probe did not start within the overall time limit of {overall:g} s ({target.python})"
        )
    return f"the smoke probe could not start in {target.python} (exit code {result.returncode})"


def _signame(sig: int | None) -> str:
    import signal

    try:
        return signal.Signals(sig).name if sig else "?"
    except ValueError:
        return "?"


def host_machine() -> dict | None:
    """The profile of the machine the probe ran on (`envkit machine --json`'s schema), or None
    when it cannot be made: the report must not fail because of it."""
    from envkit.errors import EnvkitError

    try:
        from envkit.machine import detect_local

        return detect_local().to_dict()
    except (EnvkitError, OSError, ValueError):
        return None


def could_not_run_report(
    target: dict, reason: str, hint: str | None = None, *, mode: str = "default", require_cuda: bool = False
) -> dict:
    """The report (the --json schema) of a smoke test that stopped before the probe ran: the env
    could not be created, there is no interpreter, the probe did not start.  `could_not_run` is
    true and `reason` (and `hint`) say why."""
    return {
        "schema": 1,
        "ok": False,
        "could_not_run": True,
        "reason": reason,
        "target": target,
        "mode": mode,
        "require_cuda": require_cuda,
        "environment": {},
        "checks": [],
        "dataloader": None,
        "hung": None,
        "diagnoses": [{"check": None, "problem": reason, "hint": hint}] if hint else [],
        "stderr_tail": "",
        "seconds": 0.0,
        "machine": None,
    }
