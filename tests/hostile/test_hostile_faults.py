"""Hostile input that once cost envkit quadratic time: each file is run through the real CLI in a
child process whose CPU time is capped, so a regression fails (SIGXCPU) instead of hanging."""

from __future__ import annotations

import os
import resource
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
#: far above what a linear pass needs, far below what the quadratic one took on these inputs
CPU_SECONDS = 20


def _cap_cpu() -> None:
    resource.setrlimit(resource.RLIMIT_CPU, (CPU_SECONDS, CPU_SECONDS))


def run_capped(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=str(REPO))
    return subprocess.run(
        [sys.executable, "-m", "envkit", *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        env=env,
        preexec_fn=_cap_cpu,
        check=False,
    )


def _long_channel_file(tmp_path: Path, channel: str) -> Path:
    path = tmp_path / "environment.yml"
    path.write_text(f"name: x\nchannels:\n  - {channel}\ndependencies:\n  - python\n")
    return path


def test_a_400_kb_channel_is_checked_and_normalized_in_linear_time(tmp_path):
    """`urls.strip_credentials` matched an unanchored scheme pattern from every position of the
    channel (`https://` and 400 KB of letters: minutes); it now starts a scheme only where a run
    of scheme characters starts."""
    channel = "https://" + "a" * 400_000
    path = _long_channel_file(tmp_path, channel)
    r = run_capped("check", str(path), cwd=tmp_path)
    assert (r.returncode, r.stdout, r.stderr) == (0, "no findings (1 file checked)\n", "")
    r = run_capped("normalize", str(path), cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert r.stdout.splitlines()[2] == "  - " + channel


def test_a_long_scheme_like_run_before_a_credential_is_redacted_in_linear_time(tmp_path):
    """The same shape through the secret detector: a 400 KB run of scheme characters, then `_://`
    and a credential; the credential is reported, the run is not rescanned from each position."""
    from envkit.secrets import redact_text
    from envkit.urls import strip_credentials

    run = "a" * 400_000
    assert redact_text(f"{run}_https://u:pw@host/x") == f"{run}_https://<USER>:<PASSWORD>@host/x"
    assert strip_credentials(f"{run}_https://u:pw@host/x?token=abc") == f"{run}_https://host/x"
    path = _long_channel_file(tmp_path, f"{run}_https://u:pw@host/x")
    r = run_capped("check", str(path), "--format", "json", cwd=tmp_path)
    assert r.returncode == 1, r.stderr
    assert "leaked-secret" in r.stdout
    assert "pw@" not in r.stdout
