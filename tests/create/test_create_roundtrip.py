"""lock -p -> create -> read back: what a live prefix holds survives the round trip (real prefixes
from tests/support/condafactory, real pip installs, offline)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from support.condafactory import build_wheel, copy_prefix, pip_install, site_packages

import envkit

pytestmark = pytest.mark.slow

#: pip in tests: offline, no user configuration; PIP_NO_BUILD_ISOLATION=0 (pip's inverted spelling)
#: builds from source with the test interpreter's setuptools instead of downloading one
PIP_OFFLINE = {
    "PIP_CONFIG_FILE": os.devnull,
    "PIP_NO_INDEX": "1",
    "PIP_RETRIES": "0",
    "PIP_NO_BUILD_ISOLATION": "0",
}


def _git_repo(path: Path) -> tuple[Path, str]:
    """A git repository holding the setuptools project `mylib` 0.3 with two commits; returns (repo,
    the first commit), whose `mylib.REV` is "first" (the second's is "second")."""
    path.mkdir()
    (path / "pyproject.toml").write_text(
        '[build-system]\nrequires = ["setuptools"]\n'
        'build-backend = "setuptools.build_meta"\n'
        '[project]\nname = "mylib"\nversion = "0.3"\n'
    )
    (path / "mylib").mkdir()
    (path / "mylib" / "__init__.py").write_text('REV = "first"\n')

    def git(*args):
        return subprocess.run(
            [
                "git",
                "-C",
                str(path),
                "-c",
                "user.name=t",
                "-c",
                "user.email=t@example.org",
                "-c",
                "commit.gpgsign=false",
                *args,
            ],
            check=True,
            capture_output=True,
            text=True,
        ).stdout.strip()

    git("init", "-q")
    git("add", ".")
    git("commit", "-qm", "one")
    first = git("rev-parse", "HEAD")
    (path / "mylib" / "__init__.py").write_text('REV = "second"\n')
    git("commit", "-qam", "two")
    return path, first


def test_vcs_install_is_locked_and_recreated_at_its_commit(
    envkit_cli, tmp_path, isolated_conda, default_prefix
):
    from envkit.backends import open_env
    from envkit.formats.condalock import read_conda_lock
    from envkit.formats.envyml import read_env

    repo, first = _git_repo(tmp_path / "repo")
    prefix = copy_prefix(default_prefix, tmp_path / "env")
    # a real `pip install git+URL@commit`: pip writes direct_url.json with vcs_info.commit_id
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "install",
            "--no-deps",
            "--quiet",
            "--target",
            str(site_packages(prefix)),
            f"git+{repo.as_uri()}@{first}",
        ],
        check=True,
        capture_output=True,
        env=dict(os.environ, **PIP_OFFLINE),
    )
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
    assert (
        site / "mylib" / "__init__.py"
    ).read_text() == 'REV = "first"\n'  # the commit, not the branch head
    direct = json.loads((site / "mylib-0.3.dist-info" / "direct_url.json").read_text())
    assert direct["vcs_info"]["commit_id"] == first
    assert [p.url for p in open_env(prefix=str(target)).pip_packages()] == [want]


def _project(path: Path, name: str, version: str) -> Path:
    """A setuptools project directory `name` `version` (to install editable)."""
    path.mkdir(parents=True)
    (path / "pyproject.toml").write_text(
        '[build-system]\nrequires = ["setuptools"]\n'
        'build-backend = "setuptools.build_meta"\n'
        f'[project]\nname = "{name}"\nversion = "{version}"\n'
    )
    (path / name).mkdir()
    (path / name / "__init__.py").write_text("HERE = True\n")
    return path


def test_editable_install_survives_env_lock_conda_lock_check_and_create(
    envkit_cli, tmp_path, isolated_conda, default_prefix
):
    from conda_lock.lockfile import parse_conda_lock_file
    from support.condafactory import write_direct_url

    from envkit.backends import open_env
    from envkit.formats.envyml import read_env
    from envkit.lock.read import read_lock_file

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
    assert "\n    envkit.editable: tool\n" in lock.read_text()
    assert parse_conda_lock_file(lock).metadata.custom_metadata == {
        "created_by": f"envkit {envkit.__version__}",
        "envkit.editable": "tool",
    }
    [tool] = [p for p in read_lock_file(str(lock), None, None)[1].packages if p.manager == "pip"]
    assert (tool.name, tool.url, tool.editable) == ("tool", src.as_uri(), True)
    r = envkit_cli("lock", "--check", "-f", str(env_lock), "--lock", str(lock))
    assert (r.exit_code, r.stdout) == (0, f"{lock} is up to date with {env_lock} (linux-64)\n")

    target = tmp_path / "new"
    r = envkit_cli("create", "--lock", str(lock), "-p", str(target), env=PIP_OFFLINE)
    assert r.exit_code == 0, r.stderr
    [pkg] = open_env(prefix=str(target)).pip_packages()
    assert (pkg.name, pkg.url, pkg.editable) == ("tool", src.as_uri(), True)


DUPLICATE = (
    "warning: 'numpy' is installed by both conda ('numpy') and pip; pip's copy shadows conda's and the "
    "solver cannot see it\n"
)


def _dist_infos(prefix: Path) -> list[str]:
    return sorted(p.name for p in site_packages(prefix).glob("*.dist-info"))


def test_round_trip_keeps_variables_and_pip_over_conda(envkit_cli, tmp_path, isolated_conda, default_prefix):
    # `pip install -U numpy` over conda's numpy, and `conda env config vars set`: lock -p, create,
    # and the new environment reads back the same (diff: Same)
    from conda_lock.lockfile import parse_conda_lock_file
    from support.condafactory import pip_overwrite, write_direct_url, write_state

    wheels = tmp_path / "wheels"
    prefix = copy_prefix(default_prefix, tmp_path / "env")
    whl = build_wheel(wheels, "numpy", "2.0.0")
    # `pip install -U ./numpy-2.0.0-...whl` (a URL install: an index install is locked with the artifact
    # pip resolves, which create installs by URL, and diff calls that a changed install source)
    write_direct_url(pip_overwrite(prefix, whl), whl.as_uri())
    write_state(prefix, {"OMP_NUM_THREADS": "4"})
    pip_env = PIP_OFFLINE
    lock = tmp_path / "out" / "conda-lock.yml"
    lock.parent.mkdir()
    r = envkit_cli("lock", "-p", str(prefix), "-o", str(lock), env=pip_env)
    assert r.exit_code == 0, r.stderr
    assert parse_conda_lock_file(lock).metadata.custom_metadata == {
        "created_by": f"envkit {envkit.__version__}",
        "envkit.pip_over_conda": "numpy",
        "envkit.variables": '{"OMP_NUM_THREADS":"4"}',
    }

    target = tmp_path / "new"
    r = envkit_cli("create", "--lock", str(lock), "-p", str(target), env=pip_env)
    assert (r.exit_code, r.stderr) == (0, DUPLICATE), r.stderr
    assert json.loads((target / "conda-meta" / "state").read_text()) == {"env_vars": {"OMP_NUM_THREADS": "4"}}
    # pip uninstalled conda's numpy-1.26.4.dist-info before installing its own, as it had originally
    assert _dist_infos(target) == _dist_infos(prefix)
    assert [d for d in _dist_infos(target) if d.startswith("numpy")] == ["numpy-2.0.0.dist-info"]
    assert (site_packages(target) / "numpy" / "__init__.py").read_text() == '__version__ = "2.0.0"\n'
    r = envkit_cli("diff", str(prefix), str(target))
    assert r.exit_code == 0, r.stdout
    assert r.stdout.splitlines()[-1].startswith("Same: no differences")
    assert r.stderr.count("pip package 'numpy' 2.0.0 overwrote conda package 'numpy' 1.26.4") == 2


def test_round_trip_of_a_same_version_reinstall_and_a_secret_variable(
    envkit_cli, tmp_path, isolated_conda, default_prefix
):
    from support.condafactory import write_state

    from envkit.backends import open_env

    wheels = tmp_path / "wheels"
    prefix = copy_prefix(default_prefix, tmp_path / "env")
    pip_install(prefix, build_wheel(wheels, "numpy", "1.26.4"), direct=True)  # over conda's, same name
    write_state(prefix, {"API_KEY": "sekret-value", "OMP_NUM_THREADS": "4"})
    lock = tmp_path / "out" / "conda-lock.yml"
    lock.parent.mkdir()
    assert envkit_cli("lock", "-p", str(prefix), "-o", str(lock), env=PIP_OFFLINE).exit_code == 0
    text = lock.read_text()
    assert "sekret-value" not in text
    assert '    envkit.variables: "{\\"API_KEY\\":\\"<TOKEN>\\",\\"OMP_NUM_THREADS\\":\\"4\\"}"\n' in text

    target = tmp_path / "new"
    r = envkit_cli("create", "--lock", str(lock), "-p", str(target), env=PIP_OFFLINE)
    assert r.exit_code == 0, r.stderr
    assert r.stderr == DUPLICATE + (
        "warning: the lock records 1 environment variable(s) without their value (a credential, redacted "
        "when it "
        f"was locked), not set: API_KEY; set them with `conda env config vars set API_KEY=... -p {target}`\n"
    )
    assert json.loads((target / "conda-meta" / "state").read_text()) == {"env_vars": {"OMP_NUM_THREADS": "4"}}
    before, after = open_env(prefix=str(prefix)), open_env(prefix=str(target))
    assert after.pip_over_conda == before.pip_over_conda == (("numpy", "numpy"),)
    assert after.warnings == before.warnings
    assert [(p.name, p.version) for p in after.pip_packages()] == [("numpy", "1.26.4")]
    assert _dist_infos(target) == _dist_infos(prefix)
    # the one difference docs/commands/create.md names: the credential is not set on the copy
    r = envkit_cli("diff", str(prefix), str(target), "--format", "json")
    assert r.exit_code == 1, r.stdout
    doc = json.loads(r.stdout)
    assert doc["changes"] == []
    assert "API_KEY" in json.dumps(doc["variables"]) and "sekret-value" not in r.stdout


def test_uninstall_dists_removes_what_record_lists_inside_the_prefix_only(tmp_path):
    from envkit.create import uninstall_dists

    prefix = tmp_path / "env"
    site = prefix / "lib" / "python3.11" / "site-packages"
    dist = site / "PyYAML-6.0.1.dist-info"
    (site / "yaml" / "sub").mkdir(parents=True)
    dist.mkdir()
    (prefix / "bin").mkdir()
    outside = tmp_path / "outside.txt"
    for f in (
        site / "yaml" / "__init__.py",
        site / "yaml" / "sub" / "x.py",
        prefix / "bin" / "yamltool",
        site / "keep.py",
        outside,
    ):
        f.write_text("x")
    (dist / "RECORD").write_text(
        "yaml/__init__.py,sha256=a,1\nyaml/sub/x.py,,\n../../../bin/yamltool,,\n"
        "../../../../outside.txt,,\nPyYAML-6.0.1.dist-info/RECORD,,\n"
    )
    (site / "other-1.0.dist-info").mkdir()  # another project: untouched
    (site / "norecord-1.0.dist-info").mkdir()  # no RECORD: pip would refuse, so is it left
    assert uninstall_dists(str(prefix), {"pyyaml", "norecord"}) == [
        "lib/python3.11/site-packages/PyYAML-6.0.1.dist-info"
    ]
    assert sorted(p.name for p in site.iterdir()) == [
        "keep.py",
        "norecord-1.0.dist-info",
        "other-1.0.dist-info",
    ]
    assert not (prefix / "bin" / "yamltool").exists() and (prefix / "bin").is_dir()
    assert outside.read_text() == "x"


def test_write_state_variables_keeps_other_state_and_skips_redacted_values(tmp_path):
    from envkit.create import write_state_variables

    (tmp_path / "conda-meta").mkdir()
    state = tmp_path / "conda-meta" / "state"
    state.write_text('{"env_vars": {"A": "1"}, "other": true}')
    got = write_state_variables(
        str(tmp_path),
        [
            ("OMP_NUM_THREADS", "4"),
            ("HF_TOKEN", "<TOKEN>"),
            ("PIP_INDEX_URL", "https://<USER>:<PASSWORD>@h/simple"),
        ],
    )
    assert got == (("OMP_NUM_THREADS",), ("HF_TOKEN", "PIP_INDEX_URL"))
    assert json.loads(state.read_text()) == {"env_vars": {"A": "1", "OMP_NUM_THREADS": "4"}, "other": True}
    assert write_state_variables(str(tmp_path / "none"), [("HF_TOKEN", "<TOKEN>")]) == ((), ("HF_TOKEN",))
