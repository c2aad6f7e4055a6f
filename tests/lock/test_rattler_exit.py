"""py-rattler 0.28 can crash the interpreter at exit, after the work is done: its tokio worker
threads are never joined, and one still taking or releasing the GIL while Python finalizes ends
the process in `Fatal Python error: PyGILState_Release` (SIGABRT, exit 134) or a segmentation
fault (139).  The first test keeps a plain reproducer (no envkit); the second holds envkit's
exit status to the verdict whatever rattler does then (envkit.cli._exit_now)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow

REPO = Path(__file__).resolve().parents[2]
RUNS = 24

REPRODUCER = """
import asyncio, sys
import rattler

async def main():
    await rattler.solve([sys.argv[1]], ["zlib"], platforms=["linux-64", "noarch"])

asyncio.run(main())
"""


def test_py_rattler_reproducer_crash_at_interpreter_exit(tmp_path, default_channel):
    """A solve that succeeds, then a normal interpreter exit: 0, or one of the two crashes."""
    script = tmp_path / "solve.py"
    script.write_text(REPRODUCER)
    codes = [
        subprocess.run(
            [sys.executable, str(script), default_channel.url], capture_output=True, check=False
        ).returncode
        for _ in range(RUNS)
    ]
    assert set(codes) <= {0, -signal.SIGABRT, -signal.SIGSEGV}, codes
    crashed = [c for c in codes if c]
    if crashed:
        pytest.xfail(f"py-rattler crashed at interpreter exit in {len(crashed)} of {RUNS} runs: {codes}")


def test_envkit_exit_status_is_the_verdict_after_a_failed_solve(tmp_path, default_channel):
    """`envkit lock -f --exclude-newer` whose solve fails: exit 2 and the error, every run."""
    spec = tmp_path / "environment.yml"
    spec.write_text(f"channels: [{default_channel.url}]\ndependencies:\n  - nosuchpkg\n")
    argv = [sys.executable, "-m", "envkit", "lock", "-f", str(spec), "--platform", "linux-64"]
    argv += ["--exclude-newer", "2024-01-01", "-o", str(tmp_path / "out.yml")]
    env = dict(os.environ, PYTHONPATH=str(REPO))
    results = [
        subprocess.run(argv, capture_output=True, text=True, env=env, check=False) for _ in range(RUNS)
    ]
    assert [r.returncode for r in results] == [2] * RUNS, [
        r.stderr[-300:] for r in results if r.returncode != 2
    ]
    assert {r.stderr.splitlines()[0] for r in results} == {
        f"error: {spec}:3: linux-64: cannot solve nosuchpkg: 'Cannot solve the request because of: "
        "No candidates were found for nosuchpkg *.'"
    }
    assert not (tmp_path / "out.yml").exists()
