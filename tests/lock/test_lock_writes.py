"""What `envkit lock` writes under faults: a file size limit hit on the second of its two files
(real EFBIG from RLIMIT_FSIZE in a child process), and another `envkit lock` writing the same
`-o` file meanwhile (two real processes interleaved with the ENVKIT_TEST_FAULT hook)."""

from __future__ import annotations

import resource
import subprocess
from pathlib import Path

import pytest
from support.condafactory import copy_prefix
from support.faultprocs import finish, start_envkit, wait_for

pytestmark = pytest.mark.slow


def envkit(*args: str, fault: str | None = None, fsize: int | None = None) -> subprocess.Popen:
    def limit() -> None:
        if fsize is not None:
            resource.setrlimit(resource.RLIMIT_FSIZE, (fsize, fsize))

    return start_envkit(*args, fault=fault, preexec_fn=limit)


def test_lock_p_writes_both_files_or_neither(tmp_path, default_prefix):
    """The new conda-lock.yml is larger than the file size limit, the environment file is not:
    before, environment.lock.yml was replaced and conda-lock.yml not (a pair that no longer
    matched); now neither is, and the error says so."""
    first, second = copy_prefix(default_prefix, tmp_path / "a"), copy_prefix(default_prefix, tmp_path / "bb")
    lock, env_lock = tmp_path / "conda-lock.yml", tmp_path / "environment.lock.yml"
    code, _, err = finish(envkit("lock", "-p", str(first), "-o", str(lock)))
    assert code == 0, err
    before = (lock.read_bytes(), env_lock.read_bytes())
    limit = (len(before[0]) + len(before[1])) // 2  # the environment file fits, the lock does not
    assert len(before[1]) < limit < len(before[0])
    code, _, err = finish(envkit("lock", "-p", str(second), "-o", str(lock), fsize=limit))
    assert code == 2, err
    assert err == f"error: {lock}: cannot write: File too large; {env_lock} left as it was\n"
    assert (lock.read_bytes(), env_lock.read_bytes()) == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a", "bb", "conda-lock.yml", "environment.lock.yml"]


@pytest.fixture
def spec(tmp_path, default_channel) -> Path:
    path = tmp_path / "environment.yml"
    path.write_text(f"channels: [{default_channel.url}]\ndependencies:\n  - zlib\n")
    return path


@pytest.mark.parametrize("existed", [False, True])
def test_a_lock_written_meanwhile_by_another_process_is_not_overwritten(tmp_path, spec, existed):
    """The first `lock -f` pauses before writing; a second one writes out.yml meanwhile; the first
    then refuses to replace it (exit 2), whether out.yml was new or the previous lock both read."""
    out, go = tmp_path / "out.yml", tmp_path / "go"
    args = ("lock", "-f", str(spec), "--platform", "linux-64", "-o", str(out))
    if existed:
        assert finish(envkit(*args))[0] == 0
    first = envkit(*args, "--no-pip", fault=f"write:wait:{go}")
    wait_for(Path(f"{go}.reached"))
    code, _, err = finish(envkit(*args))
    assert code == 0, err
    theirs = out.read_bytes()
    go.touch()
    code, _, err = finish(first)
    what = "changed since envkit read it" if existed else "appeared since envkit started"
    assert (code, err) == (
        2,
        f"error: {out}: {what} (another process wrote to it); not replaced\n"
        "hint: run the command again on the new content\n",
    )
    assert out.read_bytes() == theirs
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith(".")) == []


def test_a_lock_written_while_envkit_was_starting_is_not_overwritten(tmp_path, spec):
    """The second `lock -f` writes out.yml after the first started but before the first looked at
    it: written since the first started, so not replaced either."""
    out, go = tmp_path / "out.yml", tmp_path / "go"
    args = ("lock", "-f", str(spec), "--platform", "linux-64", "-o", str(out))
    first = envkit(*args, "--no-pip", fault=f"identity:wait:{go}")
    wait_for(Path(f"{go}.reached"))
    assert finish(envkit(*args))[0] == 0
    theirs = out.read_bytes()
    go.touch()
    code, _, err = finish(first)
    assert (code, err) == (
        2,
        f"error: {out}: changed since envkit started (another process wrote to it); not replaced\n"
        "hint: run the command again on the new content\n",
    )
    assert out.read_bytes() == theirs
