"""A directory where a file is expected: every command names it; `check DIR` checks what is in it."""

from __future__ import annotations

import json
import shutil

import pytest
from conftest import REPO


@pytest.mark.parametrize(
    "args",
    [
        ("validate",),
        ("normalize",),
        ("convert", "--to", "explicit"),
        ("diff", "examples/ci-repo/environment.yml"),
    ],
)
def test_a_directory_is_named_never_an_errno(envkit_cli, tmp_path, args):
    r = envkit_cli(*args, str(tmp_path), cwd=REPO)
    assert (r.exit_code, r.stdout) == (2, "")
    first = r.stderr.splitlines()[0]
    assert first.startswith(f"error: {tmp_path}: ") and "Errno" not in r.stderr


def test_check_of_a_directory_checks_its_environment_files(envkit_cli, tmp_path):
    repo = tmp_path / "repo"
    shutil.copytree(REPO / "examples" / "ci-repo", repo)
    r = envkit_cli("check", str(repo), "--format", "json")
    assert r.exit_code == 0, r.stderr
    assert json.loads(r.stdout)["summary"]["checked"] == [
        str(repo / "environment.yml"),
        str(repo / "conda-lock.yml"),
    ]
    empty = tmp_path / "empty"
    empty.mkdir()
    r = envkit_cli("check", str(empty))
    assert r.exit_code == 2
    assert r.stderr == (
        f"error: {empty}: a directory with no environment.yml, environment.yaml, conda-lock.yml, "
        "pixi.lock, pixi.toml, pyproject.toml, uv.lock or pylock.toml in it or below it\n"
        "hint: pass the files to check\n"
    )
