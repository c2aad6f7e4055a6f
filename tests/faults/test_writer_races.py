"""Every command that writes a file never replaces one that another process changed, or made,
meanwhile: `check --fix` (a file it read), and each `-o` output (a file that appeared or changed
since envkit started).  Two real processes: the writer stopped at its `write` step (after its new
text is staged, before the rename: the ENVKIT_TEST_FAULT hook of envkit.io.write_files), the other
process writes the file, then the writer goes on."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import pytest
from support.faultprocs import finish, start_envkit

pytestmark = pytest.mark.slow

ENV = (
    "name: demo\nchannels:\n  - conda-forge\ndependencies:\n  - python=3.11\n  - numpy\n"
    "prefix: /home/u/envs/demo\n"
)
THEIRS = "name: theirs\ndependencies:\n  - zlib\n"


def _other_writer(path: Path, text: str) -> None:
    """Another process writes `text` to `path` (in place, as an editor saving over it does)."""
    code = "import sys; open(sys.argv[1], 'w').write(sys.argv[2])"
    subprocess.run([sys.executable, "-c", code, str(path), text], check=True)


def _race(tmp_path: Path, args: list[str], target: Path) -> tuple[int, str, str]:
    go = tmp_path / "go"
    proc = start_envkit(*args, fault=f"write:wait:{go}")
    deadline = time.monotonic() + 120
    while not Path(f"{go}.reached").exists():
        assert proc.poll() is None, finish(proc)
        assert time.monotonic() < deadline
        time.sleep(0.02)
    _other_writer(target, THEIRS)
    go.touch()
    return finish(proc)


def test_check_fix_keeps_a_file_changed_while_it_was_fixed(tmp_path):
    env = tmp_path / "environment.yml"
    env.write_text(ENV)
    code, out, err = _race(tmp_path, ["check", "--fix", str(env)], env)
    assert env.read_text() == THEIRS
    assert code == 2, (out, err)
    assert err.splitlines()[0] == (
        f"error: {env}: changed since envkit read it (another process wrote to it); not replaced"
    )
    assert sorted(p.name for p in tmp_path.iterdir()) == ["environment.yml", "go", "go.reached"]


def test_check_fix_writes_atomically_when_nothing_else_does(tmp_path):
    env = tmp_path / "environment.yml"
    env.write_text(ENV)
    code, out, err = finish(start_envkit("check", "--fix", str(env), "--select", "leaked-prefix"))
    assert env.read_text() == ENV.replace("prefix: /home/u/envs/demo\n", "")
    assert f"{env}:7: fixed leaked-prefix: removed `prefix: /home/u/envs/demo`" in out + err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["environment.yml"]


def _writers(tmp_path: Path, out: Path) -> dict[str, list[str]]:
    env = tmp_path / "environment.yml"
    env.write_text(ENV)
    other = tmp_path / "other.yml"
    other.write_text(ENV.replace("numpy", "scipy"))
    return {
        "normalize": ["normalize", str(env), "-o", str(out)],
        "convert": ["convert", str(env), "--to", "env", "-o", str(out)],
        "check": ["check", str(env), "-o", str(out)],
        "diff": ["diff", str(env), str(other), "-o", str(out)],
        "template": ["template", "pytorch", "--cpu", "-o", str(out)],
        "machine": ["machine", "-o", str(out)],
        "fleet": ["fleet", str(env), str(other), "-o", str(out)],
    }


@pytest.mark.parametrize("existed", [False, True], ids=["appeared", "changed"])
@pytest.mark.parametrize("command", ["normalize", "convert", "check", "diff", "template", "machine", "fleet"])
def test_an_output_written_by_another_process_meanwhile_is_kept(tmp_path, command, existed):
    out = tmp_path / "out.txt"
    if existed:
        out.write_text("previous\n")
    args = _writers(tmp_path, out)[command]
    code, stdout, err = _race(tmp_path, args, out)
    assert out.read_text() == THEIRS
    # a file there before is "changed since envkit read it" when the race falls after the
    # output's identity was taken, "changed since envkit started" when before
    what = (
        ("changed since envkit read it", "changed since envkit started")
        if existed
        else ("appeared since envkit started",)
    )
    assert any(f"error: {out}: {w} (another process wrote to it); not replaced\n" in err for w in what), err
    assert code == 2, (stdout, err)
    assert not [p.name for p in tmp_path.iterdir() if p.name.endswith(".tmp")]
