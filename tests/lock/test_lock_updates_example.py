"""The GitHub Actions recipe in examples/lock-updates: its shell steps, run here in order as the
runner would (bash -e, $GITHUB_OUTPUT, $RUNNER_TEMP, `if:` on the re-lock's output), against a
project whose lock is behind a local channel."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from relock_channel import PACKAGES, make_channel

REPO = Path(__file__).resolve().parents[2]
WORKFLOW = REPO / "examples" / "lock-updates" / ".github" / "workflows" / "lock-updates.yml"

pytestmark = pytest.mark.slow


def _envkit_on_path(bin_dir: Path) -> None:
    """An `envkit` command that runs this checkout's envkit (as `pip install envkit` would put one)."""
    bin_dir.mkdir()
    exe = bin_dir / "envkit"
    exe.write_text(f'#!/bin/sh\nexec "{sys.executable}" -m envkit "$@"\n')
    exe.chmod(exe.stat().st_mode | stat.S_IEXEC)


def _run_steps(project: Path, env: dict[str, str]) -> dict[str, str]:
    """Run the workflow's `run:` steps (but the install) in `project`; returns the outputs."""
    job = yaml.safe_load(WORKFLOW.read_text())["jobs"]["relock"]
    outputs: dict[str, str] = {}
    out_file = Path(env["RUNNER_TEMP"]) / "github_output"
    for step in job["steps"]:
        if "run" not in step or step.get("name") == "Install envkit":
            continue
        cond = step.get("if")
        if cond is not None:
            assert cond == "steps.relock.outputs.changed == 'true'"
            if outputs.get("changed") != "true":
                continue
        out_file.write_text("")
        r = subprocess.run(
            ["bash", "-e", "-c", step["run"]],
            cwd=project,
            env=dict(env, GITHUB_OUTPUT=str(out_file)),
            capture_output=True,
            text=True,
        )
        assert r.returncode == 0, (step["name"], r.stdout, r.stderr)
        for line in out_file.read_text().splitlines():
            key, _, value = line.partition("=")
            outputs[key] = value
    return outputs


def test_the_lock_updates_workflow_steps_run(envkit_cli, tmp_path):
    channel = make_channel(tmp_path / "chan")
    project = tmp_path / "project"
    project.mkdir()
    (project / "environment.yml").write_text(
        f"name: demo\nchannels:\n  - {channel.url}\ndependencies:\n  - a\n  - c\nplatforms:\n  - linux-64\n"
    )
    r = envkit_cli("lock", "-f", "environment.yml", "--exclude-newer", "2024-02-01", cwd=project)
    assert r.exit_code == 0, r.stderr
    _envkit_on_path(tmp_path / "bin")
    temp = tmp_path / "runner-temp"
    temp.mkdir()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("CONDA_", "MAMBA_"))}
    env.update(
        PATH=f"{tmp_path / 'bin'}{os.pathsep}{env['PATH']}",
        PYTHONPATH=str(REPO),
        RUNNER_TEMP=str(temp),
        HOME=str(tmp_path / "home"),
    )
    outputs = _run_steps(project, env)
    assert outputs == {"changed": "true"}
    # the lock moved to what was uploaded more than a week ago: everything in the channel
    from envkit.formats.condalock import read_conda_lock

    lock = read_conda_lock((project / "conda-lock.yml").read_text())
    newest = {}
    for name, version, _d, _day in PACKAGES:
        if name in ("a", "b", "c"):
            newest[name] = version
    assert {p.name: p.version for p in lock.packages} == newest
    body = (temp / "lock-diff.md").read_text()
    assert body.startswith(
        "Weekly re-lock of `environment.yml` (`envkit lock --update-all --exclude-newer 7d`).\n\n"
    )
    assert body.endswith(
        "| package | change | A | B |\n"
        "|---|---|---|---|\n"
        "| `a` | upgraded | 1.0 h0_0 | 2.0 h0_0 |\n"
        "| `b` | upgraded | 1.0 h0_0 | 2.0 h0_0 |\n"
        "| `c` | upgraded | 1.0 h0_0 | 1.1 h0_0 |\n"
        "\n</details>\n"
    )
    # a second run the same week: nothing changed, no body, no PR
    (temp / "lock-diff.md").unlink()
    assert _run_steps(project, env) == {"changed": "false"}
    assert not (temp / "lock-diff.md").exists()
