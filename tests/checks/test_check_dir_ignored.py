"""`check DIR` recursion skips what git ignores in a work tree, as git itself lists it."""

from __future__ import annotations

import shutil
import subprocess

import pytest
from conftest import CORPUS

from tests.conftest import run_envkit

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="needs git")


def _repo(tmp_path):
    root = tmp_path / "repo"
    for folder in ("app", "scratch", "app/old"):
        (root / folder).mkdir(parents=True)
    env = next(CORPUS.glob("01_*"))
    for folder in ("app", "scratch", "app/old"):
        shutil.copy(env, root / folder / "environment.yml")
    # a scratch folder and one old copy, ignored by two .gitignore files
    (root / ".gitignore").write_text("scratch/\n")
    (root / "app" / ".gitignore").write_text("old/environment.yml\n")
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    return root


def test_what_git_ignores_is_not_checked(tmp_path):
    root = _repo(tmp_path)
    r = run_envkit("check", "--select", "listed-twice", ".", cwd=root)
    assert r.stdout == "no findings (1 file checked)\n"


def test_outside_a_work_tree_every_folder_is_checked(tmp_path):
    root = _repo(tmp_path)
    shutil.rmtree(root / ".git")
    r = run_envkit("check", "--select", "listed-twice", ".", cwd=root)
    assert r.stdout == "no findings (3 files checked)\n"
