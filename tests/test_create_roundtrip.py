"""lock -p -> create -> read back: what a live prefix holds survives the round trip (real prefixes
from tests/support/condafactory, real pip installs, offline)."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from support.condafactory import (  # noqa: F401  (fixtures)
    build_wheel, copy_prefix, default_channel, default_prefix, isolated_conda, pip_install, site_packages,
)

pytestmark = pytest.mark.slow

#: pip in tests: offline, no user configuration; PIP_NO_BUILD_ISOLATION=0 (pip's inverted spelling)
#: builds from source with the test interpreter's setuptools instead of downloading one
PIP_OFFLINE = {"PIP_CONFIG_FILE": os.devnull, "PIP_NO_INDEX": "1", "PIP_RETRIES": "0", "PIP_NO_BUILD_ISOLATION": "0"}


def _git_repo(path: Path) -> tuple[Path, str]:
    """A git repository holding the setuptools project `mylib` 0.3 with two commits; returns (repo,
    the first commit), whose `mylib.REV` is "first" (the second's is "second")."""
    path.mkdir()
    (path / "pyproject.toml").write_text('[build-system]\nrequires = ["setuptools"]\n'
                                         'build-backend = "setuptools.build_meta"\n'
                                         '[project]\nname = "mylib"\nversion = "0.3"\n')
    (path / "mylib").mkdir()
    (path / "mylib" / "__init__.py").write_text('REV = "first"\n')

    def git(*args):
        return subprocess.run(["git", "-C", str(path), "-c", "user.name=t", "-c", "user.email=t@example.org",
                                "-c", "commit.gpgsign=false", *args],
                               check=True, capture_output=True, text=True).stdout.strip()

    git("init", "-q")
    git("add", ".")
    git("commit", "-qm", "one")
    first = git("rev-parse", "HEAD")
    (path / "mylib" / "__init__.py").write_text('REV = "second"\n')
    git("commit", "-qam", "two")
    return path, first


def test_vcs_install_is_locked_and_recreated_at_its_commit(envkit_cli, tmp_path, isolated_conda, default_prefix):
    from envkit.backends import open_env
    from envkit.formats.condalock import read_conda_lock
    from envkit.formats.envyml import read_env

    repo, first = _git_repo(tmp_path / "repo")
    prefix = copy_prefix(default_prefix, tmp_path / "env")
    # a real `pip install git+URL@commit`: pip writes direct_url.json with vcs_info.commit_id
    subprocess.run([sys.executable, "-m", "pip", "install", "--no-deps", "--quiet", "--target",
                    str(site_packages(prefix)), f"git+{repo.as_uri()}@{first}"],
                   check=True, capture_output=True, env=dict(os.environ, **PIP_OFFLINE))
    want = f"git+{repo.as_uri()}@{first}"
    [mylib] = open_env(prefix=str(prefix)).pip_packages()
    assert (mylib.name, mylib.version, mylib.url) == ("mylib", "0.3", want)

    lock = tmp_path / "out" / "conda-lock.yml"
    lock.parent.mkdir()
    r = envkit_cli("lock", "-p", str(prefix), "-o", str(lock), env=PIP_OFFLINE)
    assert r.exit_code == 0, r.stderr
    [locked] = [p for p in read_conda_lock(lock.read_text()).packages if p.manager == "pip"]
    assert locked.url == want
    env_lock = read_env((lock.parent / "environment.lock.yml").read_text())
    assert [p.text for p in env_lock.pip] == [f"mylib @ {want}"]
    explicit = envkit_cli("export", "-p", str(prefix), "--format", "explicit").stdout
    assert f"# pip mylib @ {want}\n" in explicit
    r = envkit_cli("lock", "--check", "-f", str(lock.parent / "environment.lock.yml"), "--lock", str(lock))
    assert r.exit_code == 0, r.stdout

    target = tmp_path / "new"
    r = envkit_cli("create", "--lock", str(lock), "-p", str(target), env=PIP_OFFLINE)
    assert r.exit_code == 0, r.stderr
    site = site_packages(target)
    assert (site / "mylib" / "__init__.py").read_text() == 'REV = "first"\n'  # the commit, not the branch head
    direct = json.loads((site / "mylib-0.3.dist-info" / "direct_url.json").read_text())
    assert direct["vcs_info"]["commit_id"] == first
    assert [p.url for p in open_env(prefix=str(target)).pip_packages()] == [want]


def _project(path: Path, name: str, version: str) -> Path:
    """A setuptools project directory `name` `version` (to install editable)."""
    path.mkdir(parents=True)
    (path / "pyproject.toml").write_text('[build-system]\nrequires = ["setuptools"]\n'
                                         'build-backend = "setuptools.build_meta"\n'
                                         f'[project]\nname = "{name}"\nversion = "{version}"\n')
    (path / name).mkdir()
    (path / name / "__init__.py").write_text("HERE = True\n")
    return path


def test_editable_install_survives_env_lock_conda_lock_check_and_create(envkit_cli, tmp_path, isolated_conda,
                                                                      default_prefix):
    from conda_lock.lockfile import parse_conda_lock_file

    from envkit.backends import open_env
    from envkit.commands.create import read_lock_file
    from envkit.formats.envyml import read_env
    from support.condafactory import write_direct_url

    src = _project(tmp_path / "src" / "tool", "tool", "0.1")
    prefix = copy_prefix(default_prefix, tmp_path / "env")
    d = pip_install(prefix, build_wheel(tmp_path / "w", "tool", "0.1"), direct=True)
    write_direct_url(d, src.as_uri(), editable=True)  # what `pip install -e src/tool` records
    lock = tmp_path / "out" / "conda-lock.yml"
    lock.parent.mkdir()
    r = envkit_cli("lock", "-p", str(prefix), "-o", str(lock), env=PIP_OFFLINE)
    assert r.exit_code == 0, r.stderr
    env_lock = lock.parent / "environment.lock.yml"
    assert f"  - pip:\n    - -e {src.as_uri()}#egg=tool\n" in env_lock.read_text()
    [entry] = read_env(env_lock.read_text()).pip
    assert (entry.name, entry.editable) == ("tool", True)
    # conda-lock v1 has no editable field for pip packages: custom_metadata, which conda-lock accepts
    assert "  custom_metadata:\n    envkit.editable: tool\n" in lock.read_text()
    assert parse_conda_lock_file(lock).metadata.custom_metadata == {"envkit.editable": "tool"}
    [tool] = [p for p in read_lock_file(str(lock), None, None)[1].packages if p.manager == "pip"]
    assert (tool.name, tool.url, tool.editable) == ("tool", src.as_uri(), True)
    r = envkit_cli("lock", "--check", "-f", str(env_lock), "--lock", str(lock))
    assert (r.exit_code, r.stdout) == (0, f"{lock} is up to date with {env_lock} (linux-64)\n")

    target = tmp_path / "new"
    r = envkit_cli("create", "--lock", str(lock), "-p", str(target), env=PIP_OFFLINE)
    assert r.exit_code == 0, r.stderr
    [pkg] = open_env(prefix=str(target)).pip_packages()
    assert (pkg.name, pkg.url, pkg.editable) == ("tool", src.as_uri(), True)
