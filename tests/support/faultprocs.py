"""envkit as real processes for fault tests: started with the ENVKIT_TEST_FAULT hook
(envkit.io.fault_point), waited for, and met at the hook's `wait` point."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Callable, Mapping
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def start_envkit(
    *args: str,
    fault: str | None = None,
    env: Mapping[str, str] | None = None,
    preexec_fn: Callable[[], None] | None = None,
) -> subprocess.Popen:
    """`python -m envkit ARGS` from this checkout, with the test hook `fault` (or none) and the
    extra environment variables `env`; `preexec_fn` runs in the child (a umask, an rlimit)."""
    environ = dict(os.environ, PYTHONPATH=str(REPO), **(env or {}))
    environ.pop("ENVKIT_TEST_FAULT", None)
    if fault:
        environ["ENVKIT_TEST_FAULT"] = fault
    argv = [sys.executable, "-m", "envkit", *args]
    return subprocess.Popen(
        argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=environ, preexec_fn=preexec_fn
    )


def finish(proc: subprocess.Popen) -> tuple[int, str, str]:
    """(exit status, stdout, stderr) of `proc` once it ended."""
    out, err = proc.communicate(timeout=300)
    return proc.returncode, out, err


def wait_for(path: Path) -> None:
    """Wait until `path` exists (a process reached its `wait` fault point: PATH.reached)."""
    deadline = time.monotonic() + 120
    while not path.exists():
        assert time.monotonic() < deadline, f"{path} never appeared"
        time.sleep(0.02)
