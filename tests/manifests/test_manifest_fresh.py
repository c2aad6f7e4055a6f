"""A manifest's lock judged by its owner's definition of fresh, through the CLI, on real pairs:
`envkit lock --check -f MANIFEST`, `envkit check MANIFEST LOCK`, and uv's own `uv lock --check`
holding envkit's verdict on every uv pair."""

import json
import os
import shutil
import subprocess
import sys

import pytest
import tomllib
from conftest import DATA, run_envkit
from packaging.specifiers import SpecifierSet

MANIFESTS = DATA / "manifests"

#: folder -> (manifest, lock, exit code of `envkit lock --check`: 0 fresh, 1 stale)
VERDICTS = {
    "pixi-find-links": ("pixi.toml", "pixi.lock", 0),
    "pixi-geos-rs": ("pixi.toml", "pixi.lock", 0),
    "pixi-multi-env": ("pixi.toml", "pixi.lock", 0),
    "pyproject-pixi-docker": ("pyproject.toml", "pixi.lock", 0),
    "pyproject-pixi-readthedocs": ("pyproject.toml", "pixi.lock", 0),
    "stale-pixi-geos-rs": ("pixi.toml", "pixi.lock", 1),
    "stale-pyproject-pixi-docker": ("pyproject.toml", "pixi.lock", 1),
    "stale-uv-docker": ("pyproject.toml", "uv.lock", 1),
    "stale-uv-fastapi": ("pyproject.toml", "uv.lock", 1),
    "uv-docker": ("pyproject.toml", "uv.lock", 0),
    "uv-docker-groups": ("pyproject.toml", "uv.lock", 0),
    "uv-fastapi": ("pyproject.toml", "uv.lock", 0),
    "uv-nanochat": ("pyproject.toml", "uv.lock", 1),
    "pylock-raspiaprs": ("pyproject.toml", "pylock.toml", 0),
    "stale-pylock-raspiaprs": ("pyproject.toml", "pylock.toml", 1),
}


def _paths(folder):
    manifest, lock, _ = VERDICTS[folder]
    return str(MANIFESTS / folder / manifest), str(MANIFESTS / folder / lock)


@pytest.mark.parametrize("folder", sorted(VERDICTS))
def test_lock_check_gives_the_owners_verdict_on_every_real_pair(folder):
    manifest, lock = _paths(folder)
    r = run_envkit("lock", "--check", "-f", manifest)  # the lock beside it is found
    assert r.exit_code == VERDICTS[folder][2], r.stdout + r.stderr
    doc = json.loads(run_envkit("lock", "--check", "-f", manifest, "--lock", lock, "--format", "json").stdout)
    assert doc["ok"] is (VERDICTS[folder][2] == 0)
    assert (
        doc["tool"] == {"uv.lock": "uv", "pixi.lock": "pixi", "pylock.toml": "pylock"}[os.path.basename(lock)]
    )


def test_a_stale_pixi_lock_says_why_per_environment_and_platform():
    manifest, lock = _paths("stale-pixi-geos-rs")
    r = run_envkit("lock", "--check", "-f", manifest)
    lines = r.stdout.splitlines()
    assert (
        lines[0]
        == f"{manifest}:4: default/win-64: missing-platform: platform win-64 is declared but not locked"
    )
    assert lines[1] == (
        f"{manifest}:10: default/linux-64: changed: geos >=3.13.1,<4: "
        "locked geos 3.12.2 hac33072_0 does not match"
    )
    assert len(lines) == 8
    assert (
        lines[-1] == f"{lock} is stale for {manifest} (pixi's rules; default): 7 change(s); run `pixi lock`"
    )


def test_a_feature_pin_added_to_a_pyproject_pixi_manifest_is_not_locked():
    manifest, _lock = _paths("stale-pyproject-pixi-docker")
    doc = json.loads(run_envkit("lock", "--check", "-f", manifest, "--format", "json").stdout)
    got = sorted({(c["what"], c["environment"], c["name"], c["line"]) for c in doc["changes"]})
    assert got == [("added", "default", "hatch", 40)]
    assert doc["relock"] == "pixi lock"


PIXI_CASES = MANIFESTS / "pixi-satisfiability"
#: pixi's non-satisfiable cases envkit does not call stale, and why
NOT_CAUGHT = {
    # the source package's extra group is what pixi-build's backend re-derives from the package's own
    # manifest (not part of the case); envkit builds nothing
    "source-extra-dependency-added",
}


def _pixi_case_verdict(case):
    manifest = case / "pixi.toml" if (case / "pixi.toml").exists() else case / "pyproject.toml"
    return run_envkit("lock", "--check", "-f", str(manifest)).exit_code


def test_every_satisfiable_pixi_case_is_fresh():
    got = {c.name: _pixi_case_verdict(c) for c in sorted((PIXI_CASES / "satisfiability").iterdir())}
    # its lock holds a made-up 16-digit sha256, which envkit refuses as unreadable input
    assert got.pop("pypi-index-transitive") == 2
    assert got == dict.fromkeys(got, 0)
    assert len(got) == 26


def test_pixis_unsatisfiable_cases_that_envkit_calls_stale():
    got = {c.name: _pixi_case_verdict(c) for c in sorted((PIXI_CASES / "non-satisfiability").iterdir())}
    assert {n for n, code in got.items() if code == 0} == NOT_CAUGHT
    assert sum(code == 1 for code in got.values()) == 29


#: case -> the (what, name, manifest line) of each Change envkit gives: pixi's reason, found offline
WHY = {
    "binary-spec-source-record": [("source", "source", 8)],
    "changed-platform-virtual-package": [("changed-platform", None, 4)],
    "explicit-pypi-dependency": [("conda-for-pypi", "boltons", None)],
    "mismatched-source-spec": [("source", "child-package", 9)],
    "missing-dependency": [("dependency", "vc14_runtime", None)] * 2,
    "missing-pypi-extra": [("dependency", "ipython", None)],
    "non-binary-no-build": [("options", "sdist", 9)],
    "pypi-index-added": [("index", "my-dep", 15)],
    "pypi-index-mismatch": [("index", "my-dep", 10)],
    "pypi-index-removed": [("index", "my-dep", 15)],
    "removed-environment": [("extra-environment", None, None)],
    "solve-groups-pypi": [("dependency", "packaging", None)],
    "source-recursive-dependency": [("source", "foobar", None)],
    "source-recursive-dependency-changed-dir": [("source", "foobar", None)],
    "too-many-platforms": [("extra-platform", None, 6)],
    "wheels-with-wrong-tags": [("wheel-tags", "cryptography", 16)],
}


@pytest.mark.parametrize("case", sorted(WHY))
def test_each_unsatisfiable_case_says_pixis_reason(case):
    folder = PIXI_CASES / "non-satisfiability" / case
    doc = json.loads(
        run_envkit("lock", "--check", "-f", str(folder / "pixi.toml"), "--format", "json").stdout
    )
    assert doc["ok"] is False
    assert [(c["what"], c["name"], c["line"]) for c in doc["changes"]] == WHY[case]
    assert {c["severity"] for c in doc["changes"]} == {"stale"}


def test_a_missing_dependency_names_who_needs_it():
    manifest = PIXI_CASES / "non-satisfiability" / "missing-dependency" / "pixi.toml"
    r = run_envkit("lock", "--check", "-f", str(manifest))
    assert r.stdout.splitlines()[:2] == [
        f"{manifest}: default/win-64: dependency: vc needs vc14_runtime >=14.38.33130: not locked",
        f"{manifest}: default/win-64: dependency: pixi needs vc14_runtime >=14.29.30139: not locked",
    ]


def test_extra_environment_and_platform_are_stale_as_pixi_says():
    # pixi's satisfiability fails on both, and `pixi lock` rewrites the lock without them
    for folder, why in (
        ("removed-environment", "the lock has environment 'removed', which the manifest no longer declares"),
        ("too-many-platforms", "the lock has platform osx-arm64, which the environment no longer declares"),
    ):
        manifest = str(PIXI_CASES / "non-satisfiability" / folder / "pixi.toml")
        doc = json.loads(run_envkit("lock", "--check", "-f", manifest, "--format", "json").stdout)
        assert [(c["severity"], c["message"]) for c in doc["changes"]] == [("stale", why)]


def test_a_lock_missing_a_declared_environment_is_stale(tmp_path):
    # pixi's own `pixi lock --check` passes here (prefix-dev/pixi#7081): the py313 environment is not locked
    src = MANIFESTS / "pixi-multi-env"
    shutil.copy(src / "pixi.toml", tmp_path / "pixi.toml")
    lock = (src / "pixi.lock").read_text()
    start = lock.index("  py313:\n")
    end = lock.index("\npackages:")
    (tmp_path / "pixi.lock").write_text(lock[:start] + lock[end + 1 :])
    r = run_envkit("lock", "--check", "-f", str(tmp_path / "pixi.toml"))
    assert r.exit_code == 1
    assert (
        f"{tmp_path / 'pixi.toml'}:15: py313: missing-environment: "
        "environment 'py313' is declared but not locked" in r.stdout
    )


def test_uv_changes_say_added_changed_and_the_project():
    manifest, lock = _paths("stale-uv-fastapi")
    r = run_envkit("lock", "--check", "-f", manifest)
    assert r.stdout.splitlines()[:2] == [
        f"{manifest}:2: project: the project is uv-fastapi-example; the lock's root package is app",
        f"{manifest}:8: project: added: fastapi[standard]>=0.112.1: not in the lock",
    ]
    manifest, _ = _paths("stale-uv-docker")
    r = run_envkit("lock", "--check", "-f", manifest)
    assert r.stdout.splitlines()[0] == (
        f"{manifest}:8: project: changed: fastapi[standard]>=0.112.2: locked as fastapi>=0.112.2"
    )


def test_the_exclude_newer_a_uv_lock_was_made_with_is_part_of_it():
    manifest, lock = _paths("uv-nanochat")
    doc = json.loads(run_envkit("lock", "--check", "-f", manifest, "--format", "json").stdout)
    assert [(c["what"], c["name"], c["locked"]) for c in doc["changes"]] == [
        ("options", "exclude-newer", "0001-01-01T00:00:00Z")
    ]


@pytest.mark.parametrize(
    ("name", "command"), [("pixi-geos-rs/pixi.toml", "pixi lock"), ("uv-docker/pyproject.toml", "uv lock")]
)
def test_solving_a_manifest_is_its_owners_job(name, command):
    r = run_envkit("lock", "-f", str(MANIFESTS / name))
    assert r.exit_code == 2
    assert f"run `{command}`" in r.stderr.splitlines()[0]


def test_check_pairs_a_manifest_with_the_lock_beside_it():
    manifest, lock = _paths("stale-uv-docker")
    r = run_envkit("check", manifest, lock)
    assert r.exit_code == 1
    assert r.stdout.splitlines()[0] == (
        f"{manifest}:8: error lock-unsatisfied: project: fastapi[standard]>=0.112.2: locked as "
        f"fastapi>=0.112.2 ({lock})"
    )
    manifest, lock = _paths("stale-pixi-geos-rs")
    r = run_envkit("check", manifest, lock)
    assert (
        f"{lock}: error stale-lock: {manifest} lists platform win-64, which the lock has no packages for"
        in r.stdout
    )
    manifest, lock = _paths("pixi-multi-env")
    assert run_envkit("check", manifest, lock).stdout == "no findings (2 files checked)\n"


def test_diff_a_manifest_environment_against_its_lock():
    manifest, lock = _paths("pixi-multi-env")
    r = run_envkit("diff", manifest, lock, "--env", "py313")
    assert "  ok  python=3.13  3.13.1 ha99a958_105_cp313" in r.stdout.splitlines()


def _interpreters() -> list[tuple[tuple[int, int], str]]:
    """(version, path) of the interpreters on this machine: this one, and pyenv's when there is pyenv."""
    import glob

    found = [((sys.version_info[0], sys.version_info[1]), sys.executable)]
    pyenv = shutil.which("pyenv")
    if pyenv:
        root = subprocess.run([pyenv, "root"], capture_output=True, text=True).stdout.strip()
        for exe in sorted(glob.glob(os.path.join(root, "versions", "3.*", "bin", "python3"))):
            major, minor = os.path.basename(os.path.dirname(os.path.dirname(exe))).split(".")[:2]
            found.append(((int(major), int(minor)), exe))
    return found


def _python_for(requires: str) -> str | None:
    """An interpreter uv may use for a project (uv lock needs one; the test never downloads)."""
    spec = SpecifierSet(requires)
    return next((exe for (major, minor), exe in _interpreters() if spec.contains(f"{major}.{minor}.0")), None)


UV = shutil.which("uv", path=os.path.dirname(sys.executable))


@pytest.mark.skipif(UV is None, reason="uv is not installed beside this interpreter")
@pytest.mark.parametrize("folder", sorted(f for f in VERDICTS if VERDICTS[f][1] == "uv.lock"))
def test_uv_lock_check_agrees_on_every_uv_pair(folder, tmp_path):
    project = tmp_path / "project"
    shutil.copytree(MANIFESTS / folder, project)
    requires = tomllib.loads((project / "pyproject.toml").read_text())["project"]["requires-python"]
    python = _python_for(requires)
    if python is None:
        pytest.skip(f"no interpreter for requires-python {requires}")
    env = {
        **os.environ,
        "UV_CACHE_DIR": str(tmp_path / "cache"),
        "UV_NO_CONFIG": "1",
        "UV_PYTHON_DOWNLOADS": "never",
    }
    env.pop("UV_EXCLUDE_NEWER", None)
    proc = subprocess.run(
        [UV, "lock", "--check", "--offline", "--python", python],
        cwd=project,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    uv_fresh = proc.returncode == 0
    assert uv_fresh is (VERDICTS[folder][2] == 0), proc.stderr
    assert run_envkit("lock", "--check", "-f", str(project / "pyproject.toml")).exit_code == (
        0 if uv_fresh else 1
    )


def test_a_changed_pypi_index_makes_the_pixi_lock_stale(tmp_path):
    src = MANIFESTS / "pixi-find-links"
    text = (
        (src / "pixi.toml")
        .read_text()
        .replace("https://pypi.org/simple", "https://mirror.example.com/simple")
    )
    (tmp_path / "pixi.toml").write_text(text)
    shutil.copy(src / "pixi.lock", tmp_path / "pixi.lock")
    doc = json.loads(
        run_envkit("lock", "--check", "-f", str(tmp_path / "pixi.toml"), "--format", "json").stdout
    )
    assert [(c["what"], c["name"], c["line"]) for c in doc["changes"]] == [("options", "pypi-options", 7)]
    assert doc["changes"][0]["message"] == (
        "pypi-options are --index-url https://mirror.example.com/simple --find-links ./links; "
        "the lock was solved with --index-url https://pypi.org/simple --find-links ./links"
    )


def test_the_library_checks_and_diffs_manifests():
    import envkit

    manifest, lock = _paths("stale-uv-docker")
    result = envkit.check([manifest, lock])
    assert [(f.rule, f.line) for f in result.findings] == [("lock-unsatisfied", 8)]
    before = MANIFESTS / "pyproject-pixi-docker" / "pyproject.toml"
    after = MANIFESTS / "stale-pyproject-pixi-docker" / "pyproject.toml"
    assert envkit.diff(before, before).same
    assert not envkit.diff(after, before).same


def test_a_channel_put_first_makes_the_pixi_lock_stale(tmp_path):
    src = MANIFESTS / "pixi-multi-env"
    text = (src / "pixi.toml").read_text().replace('["conda-forge"]', '["pytorch", "conda-forge"]')
    (tmp_path / "pixi.toml").write_text(text)
    shutil.copy(src / "pixi.lock", tmp_path / "pixi.lock")
    r = run_envkit("lock", "--check", "-f", str(tmp_path / "pixi.toml"), "--env", "py312")
    assert r.stdout.splitlines()[0] == (
        f"{tmp_path / 'pixi.toml'}:2: py312: channels: channels are https://conda.anaconda.org/pytorch, "
        "https://conda.anaconda.org/conda-forge; locked with https://conda.anaconda.org/conda-forge"
    )


def test_a_channel_appended_makes_the_pixi_lock_stale_as_pixi_says(tmp_path):
    # pixi keeps the packages (EnvironmentUnsat::ChannelsExtended) but still rewrites the lock
    src = MANIFESTS / "pixi-multi-env"
    text = (src / "pixi.toml").read_text().replace('["conda-forge"]', '["conda-forge", "bioconda"]')
    (tmp_path / "pixi.toml").write_text(text)
    shutil.copy(src / "pixi.lock", tmp_path / "pixi.lock")
    r = run_envkit("lock", "--check", "-f", str(tmp_path / "pixi.toml"), "--env", "py312")
    assert r.exit_code == 1
    assert r.stdout.splitlines()[0] == (
        f"{tmp_path / 'pixi.toml'}:2: py312: channels: channels are https://conda.anaconda.org/conda-forge, "
        "https://conda.anaconda.org/bioconda; locked with https://conda.anaconda.org/conda-forge"
    )


def test_a_pylock_beside_a_pyproject_is_judged_by_its_content():
    manifest, lock = _paths("stale-pylock-raspiaprs")
    r = run_envkit("lock", "--check", "-f", manifest)
    assert r.stdout.splitlines() == [
        f"{manifest}:33: project: changed: psutil>=7.2.1: locked psutil 7.2.0",
        f"{lock} is stale for {manifest} (pylock's rules; project): 1 change(s); "
        "run `uv export --format pylock.toml`",
    ]
    r = run_envkit("check", manifest, lock)
    assert r.stdout.splitlines()[0] == (
        f"{manifest}:33: error lock-unsatisfied: project: psutil>=7.2.1: locked psutil 7.2.0 ({lock})"
    )


def test_a_pylock_may_leave_out_a_requirement_its_marker_excludes(tmp_path):
    src = MANIFESTS / "pylock-raspiaprs"
    text = (src / "pyproject.toml").read_text()
    text = text.replace(
        '"psutil>=7.2.1",', '"psutil>=7.2.1",\n  "pywin32>=300; sys_platform == \'win32\'",\n  "rich>=13",'
    )
    (tmp_path / "pyproject.toml").write_text(text)
    shutil.copy(src / "pylock.toml", tmp_path / "pylock.toml")
    doc = json.loads(
        run_envkit("lock", "--check", "-f", str(tmp_path / "pyproject.toml"), "--format", "json").stdout
    )
    assert [(c["severity"], c["name"], c["line"]) for c in doc["changes"]] == [
        ("note", "pywin32", 34),
        ("stale", "rich", 35),
    ]


def test_a_legacy_manylinux_tag_of_any_arch_needs_its_glibc(tmp_path):
    # PEP 600: manylinux2014 is glibc 2.17 on every architecture, not only x86_64 and aarch64;
    # the pixi check once read `manylinux2014_ppc64le` as setting no floor
    case = PIXI_CASES / "non-satisfiability" / "wheels-with-wrong-tags"
    manifest = (case / "pixi.toml").read_text().replace("linux-64", "linux-ppc64le")
    (tmp_path / "pixi.toml").write_text(manifest.replace('libc = "2.17"', 'libc = "2.12"'))
    lock = (case / "pixi.lock").read_text().replace("/linux-64/", "/linux-ppc64le/")
    lock = lock.replace("      linux-64:", "      linux-ppc64le:").replace("_x86_64", "_ppc64le")
    (tmp_path / "pixi.lock").write_text(lock)
    r = run_envkit("lock", "--check", "-f", str(tmp_path / "pixi.toml"), "--format", "json")
    doc = json.loads(r.stdout)
    assert [c["message"] for c in doc["changes"] if c["what"] == "wheel-tags"] == [
        "cffi-2.0.0-cp314-cp314-manylinux2014_ppc64le.manylinux_2_17_ppc64le.whl needs manylinux 2.17; "
        "the system-requirements give 2.12",
        "cryptography-46.0.3-cp311-abi3-manylinux_2_28_ppc64le.whl needs manylinux 2.28; "
        "the system-requirements give 2.12",
    ]
