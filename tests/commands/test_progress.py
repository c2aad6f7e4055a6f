"""Progress on stderr for `lock` and `create`: on a terminal (or ENVKIT_PROGRESS=1), never when piped
(the test runner's streams are not terminals) nor with --quiet."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.slow


def _spec(tmp_path, chan):
    env = tmp_path / "environment.yml"
    env.write_text(
        f"channels: [{chan.url}]\ndependencies:\n  - python=3.11\n  - numpy=1.26.4=py311h64a7726_0\n"
    )
    return env


def test_lock_and_create_show_progress_only_when_asked_or_on_a_terminal(
    envkit_cli, tmp_path, default_channel, isolated_conda
):
    env, lock = _spec(tmp_path, default_channel), tmp_path / "conda-lock.yml"
    args = ("lock", "-f", str(env), "--platform", "linux-64", "-o", str(lock))
    piped = envkit_cli(*args)
    assert piped.exit_code == 0 and piped.stderr.splitlines() == [
        f"locked {env} for 1 platform(s) (linux-64: 4 packages) -> {lock}"
    ]
    shown = envkit_cli(*args, env={"ENVKIT_PROGRESS": "1"})
    assert shown.exit_code == 0
    assert shown.stderr.splitlines()[:2] == [
        "envkit: solving linux-64 with py-rattler (fetching the channels' repodata)",
        "envkit: linux-64: 4 conda packages solved",
    ]
    lock.unlink()  # a fresh solve again, as `piped` was (a re-lock adds what moved)
    quiet = envkit_cli(*args, "--quiet", env={"ENVKIT_PROGRESS": "1"})
    assert quiet.stderr == piped.stderr
    r = envkit_cli("create", "--lock", str(lock), "-p", str(tmp_path / "a"), env={"ENVKIT_PROGRESS": "1"})
    assert r.exit_code == 0, r.stderr
    assert r.stderr.splitlines()[0] == (
        f"envkit: creating {tmp_path / 'a'}: 4 conda packages (download, verify, link), then 0 pip packages"
    )
    r = envkit_cli(
        "create", "--lock", str(lock), "-p", str(tmp_path / "b"), "-q", env={"ENVKIT_PROGRESS": "1"}
    )
    assert (r.exit_code, r.stderr) == (0, "")
