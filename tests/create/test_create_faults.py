"""`envkit create` under faults: two runs at once, a run killed at a chosen step (the
ENVKIT_TEST_FAULT hook, envkit.io.fault_point), a symlinked prefix, the umask.  Real processes,
real installs from the local test channel and wheels."""

from __future__ import annotations

import os
import signal
import stat
import subprocess
from pathlib import Path

import pytest
from conftest import run_envkit
from support.condafactory import build_wheel, copy_prefix, pip_install
from support.faultprocs import finish, start_envkit, wait_for

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def lock_file(tmp_path_factory, default_prefix) -> Path:
    """A lock of the default prefix plus one pip package installed from a wheel URL."""
    root = tmp_path_factory.mktemp("faults")
    src = copy_prefix(default_prefix, root / "src")
    pip_install(src, build_wheel(root / "wheels", "helper", "1.1"), direct=True)
    lock = root / "conda-lock.yml"
    r = run_envkit("lock", "-p", str(src), "--no-env-lock", "-o", str(lock))
    assert r.exit_code == 0, r.stderr
    return lock


def start(lock: Path, prefix: Path, fault: str | None = None, **kw) -> subprocess.Popen:
    """`envkit create --lock LOCK -p PREFIX` as a real process, with the test hook `fault`."""
    local_pip = {"PIP_CONFIG_FILE": os.devnull, "PIP_NO_INDEX": "1"}
    return start_envkit(
        "create", "--lock", str(lock), "-p", str(prefix), "-q", fault=fault, env=local_pip, **kw
    )


def pip_names(prefix: Path) -> list[tuple[str, str]]:
    from envkit.backends import open_env

    env = open_env(prefix=str(prefix))
    return sorted((p.name.lower(), p.version) for p in env.packages if p.manager == "pip")


def leftovers(prefix: Path) -> list[str]:
    return sorted(e for e in os.listdir(prefix.parent) if e.startswith(f".{prefix.name}.envkit-"))


def test_the_second_create_of_a_prefix_is_told_and_takes_nothing(tmp_path, lock_file):
    """The first run holds P (paused once its conda tree is staged); a second run is refused at
    once, naming the first, and removes nothing; the first then finishes a whole environment."""
    prefix, go = tmp_path / "env", tmp_path / "go"
    first = start(lock_file, prefix, f"create:staged:wait:{go}")
    wait_for(Path(f"{go}.reached"))
    code, out, err = finish(start(lock_file, prefix))
    assert (code, out) == (2, "")
    assert (
        err.splitlines()[0]
        == f"error: another process (pid {first.pid}) is creating {prefix}; nothing was done"
    )
    go.touch()
    code, out, err = finish(first)
    assert (code, err) == (0, ""), err
    assert out.startswith(f"created {prefix} (linux-64, rattler): 9 conda packages and 1 pip package")
    assert pip_names(prefix) == [("helper", "1.1")]
    assert leftovers(prefix) == []


def test_two_creates_started_together_leave_one_whole_environment(tmp_path, lock_file):
    """Both started at once, three times: one creates P, the other is refused (while the first
    runs, or after it, when P exists) and never removes the winner's environment."""
    for round_ in range(3):
        prefix = tmp_path / f"env{round_}"
        procs = [start(lock_file, prefix), start(lock_file, prefix)]
        results = sorted(finish(p) for p in procs)
        (won, out, _), (lost, _, err) = results
        assert (won, lost) == (0, 2), results
        assert out.startswith(f"created {prefix} ")
        assert ("is creating" in err) or ("already exists and is not empty" in err), err
        assert pip_names(prefix) == [("helper", "1.1")]
        assert leftovers(prefix) == []


def test_a_create_killed_in_its_pip_stage_is_marked_and_replaced_by_the_next(tmp_path, lock_file):
    """kill -9 after the conda tree is in place, before pip: the prefix carries the incomplete
    mark, which check, diff and lock report (exit 2); the next create replaces it."""
    prefix = tmp_path / "env"
    code, _, _ = finish(start(lock_file, prefix, "create:pip:kill"))
    assert code == -signal.SIGKILL
    assert (prefix / "conda-meta" / ".envkit-incomplete").is_file()
    mark = prefix / "conda-meta" / ".envkit-incomplete"
    said = f"error: incomplete environment: an `envkit create` did not finish it ({mark})"
    for argv in (
        ("check", "-p", str(prefix)),
        ("diff", str(lock_file), str(prefix)),
        ("lock", "-p", str(prefix), "-o", "-"),
    ):
        r = run_envkit(*argv)
        assert (r.exit_code, r.stderr.splitlines()[0]) == (2, said), argv
    code, out, err = finish(start(lock_file, prefix))
    assert code == 0, err
    assert err == f"warning: {prefix} was left incomplete by an earlier `envkit create`; replaced\n"
    assert pip_names(prefix) == [("helper", "1.1")]
    assert not (prefix / "conda-meta" / ".envkit-incomplete").exists()
    assert run_envkit("check", "-p", str(prefix)).exit_code in (0, 1)
    assert leftovers(prefix) == []


def test_the_staging_directory_of_a_killed_create_is_swept(tmp_path, lock_file):
    """kill -9 with the conda tree staged, not yet renamed: no prefix, a `.env.envkit-*` staging
    directory; the next create of the prefix removes it."""
    prefix = tmp_path / "env"
    code, _, _ = finish(start(lock_file, prefix, "create:staged:kill"))
    assert code == -signal.SIGKILL
    assert not prefix.exists()
    stages = [e for e in leftovers(prefix) if e != ".env.envkit-lock"]
    assert len(stages) == 1 and (tmp_path / stages[0] / "conda-meta").is_dir()
    code, out, err = finish(start(lock_file, prefix))
    assert (code, err) == (0, ""), err
    assert leftovers(prefix) == []


@pytest.mark.parametrize("umask", [0o022, 0o027])
def test_the_created_prefix_has_the_mode_the_umask_gives(tmp_path, lock_file, umask):
    """The staged tree was a mkdtemp directory (0700) renamed into place."""
    prefix = tmp_path / "env"
    code, _, err = finish(start(lock_file, prefix, preexec_fn=lambda: os.umask(umask)))
    assert code == 0, err
    assert stat.S_IMODE(prefix.stat().st_mode) == 0o777 & ~umask


@pytest.mark.parametrize("dangling", [False, True])
def test_a_symlinked_prefix_is_refused_before_any_work(tmp_path, lock_file, dangling):
    dest = tmp_path / "real"
    if not dangling:
        dest.mkdir()
    link = tmp_path / "link"
    link.symlink_to(dest)
    r = run_envkit("create", "--lock", str(lock_file), "-p", str(link))
    assert r.exit_code == 2
    state = ", which does not exist" if dangling else ""
    assert r.stderr.splitlines()[0] == f"error: prefix {link} is a symbolic link (to {dest}{state})"
    assert sorted(os.listdir(tmp_path)) == (["link"] if dangling else ["link", "real"])
    assert dangling or os.listdir(dest) == []
