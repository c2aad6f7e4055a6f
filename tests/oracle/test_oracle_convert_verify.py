"""Oracles on what `envkit convert` writes, not envkit reading its own files:

* uv installs the pylock.toml envkit writes from a uv.lock with forks (pallets/click: sphinx and
  sphinx-autobuild locked at one version per Python), picking each Python's version, and
  `uv pip compile --universal` accepts the requirements file (the markers keep the two pins apart);
* uv agrees that a uv.lock of conflicting extras (remsky/Kokoro-FastAPI: torch per accelerator)
  cannot be installed side by side, which is why envkit refuses to convert it; the `uv export`
  envkit's hint names picks one side offline, and the pylock.toml envkit writes of that validates
  (packaging.pylock) and installs one torch;
* conda 26.7.1 creates an environment from envkit's explicit file (from a conda-lock.yml: the
  routine `conda-lock render -k explicit`, exit 0) of a local channel, and it diffs Same;
* py-rattler reads the pixi.lock v6 / v7 envkit writes of that `file://` channel.

The uv tests need only uv (the test extra); the conda ones skip, saying why, without a real conda.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
from conftest import CORPUS, run_envkit

CLICK_UV = CORPUS / "82_pallets__click__uv.lock"


def _uv(tmp_path: Path) -> tuple[Path, dict]:
    uv = Path(sys.executable).parent / "uv"
    if not uv.exists():
        pytest.skip("uv (the test extra) is not installed beside this interpreter")
    return uv, dict(os.environ, UV_NO_CONFIG="1", UV_CACHE_DIR=str(tmp_path / "uv-cache"))


@pytest.mark.parametrize(
    "python,sphinx,autobuild", [("3.10", "8.1.3", "2024.10.3"), ("3.12", "8.2.3", "2025.8.25")]
)
def test_uv_installs_envkits_pylock_of_a_forked_uv_lock(tmp_path, python, sphinx, autobuild):
    uv, env = _uv(tmp_path)
    out = tmp_path / "pylock.toml"
    r = run_envkit("convert", str(CLICK_UV), "-o", str(out), "--all-groups")  # sphinx: the docs group
    assert r.exit_code == 0, r.stderr
    r = subprocess.run(
        [uv, "pip", "install", "--dry-run", "--offline", "--no-deps", "-r", out, "--target", tmp_path / "t"]
        + ["--python-version", python, "--python-platform", "linux"],
        capture_output=True,
        text=True,
        env=env,
    )
    assert r.returncode == 0, r.stderr
    assert f" + sphinx=={sphinx}\n" in r.stderr and f" + sphinx-autobuild=={autobuild}\n" in r.stderr
    assert r.stderr.count(" + sphinx==") == 1


def _stub_wheels(requirements: str, folder: Path) -> int:
    """A stub wheel (metadata only) per `name==version` pin: an offline find-links index that has
    exactly what the file pins, so that uv's resolver judges the pins and markers alone."""
    from packaging.requirements import Requirement

    folder.mkdir()
    made = set()
    for line in requirements.splitlines():
        line = line.strip().rstrip("\\").strip()
        if not line or line.startswith(("#", "-")):
            continue
        req = Requirement(line)
        version = next(iter(req.specifier)).version
        dist = re.sub(r"[-_.]+", "_", req.name).lower()
        if (dist, version) in made:
            continue
        made.add((dist, version))
        info = f"{dist}-{version}.dist-info"
        with zipfile.ZipFile(folder / f"{dist}-{version}-py3-none-any.whl", "w") as z:
            z.writestr(f"{info}/METADATA", f"Metadata-Version: 2.1\nName: {req.name}\nVersion: {version}\n")
            z.writestr(
                f"{info}/WHEEL",
                "Wheel-Version: 1.0\nGenerator: t\nRoot-Is-Purelib: true\nTag: py3-none-any\n",
            )
            z.writestr(f"{info}/RECORD", "")
    return len(made)


def test_uv_pip_compile_accepts_envkits_requirements_of_a_forked_uv_lock(tmp_path):
    uv, env = _uv(tmp_path)
    out = tmp_path / "requirements.txt"
    r = run_envkit("convert", str(CLICK_UV), "-o", str(out), "--all-groups")  # sphinx: the docs group
    assert r.exit_code == 0, r.stderr
    # the stub wheels carry no real hashes: compile the pins and markers (`-e .` is the project)
    pins = "\n".join(
        ln.rstrip(" \\")
        for ln in out.read_text().splitlines()
        if not ln.lstrip().startswith(("--hash", "-e"))
    )
    (tmp_path / "pins.txt").write_text(pins + "\n")
    assert _stub_wheels(pins, tmp_path / "wheels") == 71
    r = subprocess.run(
        [uv, "pip", "compile", "--offline", "--no-index", "--find-links", tmp_path / "wheels", "--no-deps"]
        + ["--universal", "-p", "3.10", "--no-header", tmp_path / "pins.txt"],
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp_path,
    )
    assert r.returncode == 0, r.stderr
    assert "sphinx==8.1.3 ; python_full_version < '3.11'\n" in r.stdout
    assert "sphinx==8.2.3 ; python_full_version >= '3.11'\n" in r.stdout


KOKORO = Path(__file__).parents[1] / "convert" / "data" / "remsky__Kokoro-FastAPI__"


def test_uv_and_envkit_refuse_conflicting_extras_together_and_uv_installs_the_side_envkit_writes(tmp_path):
    import shutil

    import tomllib
    from packaging.pylock import Pylock

    uv, env = _uv(tmp_path)
    project = tmp_path / "project"
    project.mkdir()
    shutil.copy(f"{KOKORO}uv.lock", project / "uv.lock")
    shutil.copy(f"{KOKORO}pyproject.toml", project / "pyproject.toml")
    out = tmp_path / "pylock.toml"
    r = run_envkit("convert", str(project / "uv.lock"), "-o", str(out), "--extra", "cpu", "--extra", "gpu")
    assert r.exit_code == 2 and not out.exists()
    assert "the uv.lock declares `cpu`, `gpu` in conflict" in r.stderr
    # uv itself will not install two sides together
    both = subprocess.run(
        [uv, "export", "--frozen", "--offline", "--extra", "cpu", "--extra", "gpu", "-o", "both.txt"],
        capture_output=True,
        text=True,
        env=env,
        cwd=project,
    )
    assert both.returncode == 2
    # uv wraps its message to the terminal's width
    said = " ".join(both.stderr.split())
    assert "Extras `cpu` and `gpu` are incompatible with the declared conflicts" in said
    # one side, as `uv export --extra cpu` selects it: uv installs envkit's pylock.toml
    r = run_envkit("convert", str(project / "uv.lock"), "-o", str(out), "--extra", "cpu")
    assert r.exit_code == 0, r.stderr
    lock = Pylock.from_dict(tomllib.loads(out.read_text()))
    assert sorted((str(p.version), str(p.marker)) for p in lock.packages if p.name == "torch") == [
        ("2.8.0", 'sys_platform == "darwin"'),
        ("2.8.0+cpu", 'sys_platform != "darwin"'),
    ]
    r = subprocess.run(
        [uv, "pip", "install", "--dry-run", "--offline", "--no-deps", "-r", out, "--target", tmp_path / "t"]
        + ["--python-version", "3.12", "--python-platform", "linux"],
        capture_output=True,
        text=True,
        env=env,
    )
    assert r.returncode == 0, r.stderr
    assert r.stderr.count(" + torch==") == 1 and " + torch==2.8.0+cpu\n" in r.stderr


# --- conda and py-rattler on a local channel -------------------------------------------------------


@pytest.fixture(scope="module")
def conda(real_conda, tmp_path_factory):
    return real_conda.isolated(tmp_path_factory.mktemp("conda-convert-verify"))


def test_conda_creates_from_envkits_explicit_of_a_conda_lock(envkit_cli, conda, family, tmp_path):
    """prefix -> envkit lock -> conda-lock.yml -> envkit convert -> explicit (exit 0: depends and
    channel order are notes) -> conda create --file -> Same as the prefix."""
    prefix = family.prefixes["conda-only"]
    src = tmp_path / "conda-lock.yml"
    assert envkit_cli("lock", "-p", str(prefix), "--no-env-lock", "-o", str(src)).exit_code == 0
    out = tmp_path / "explicit.txt"
    r = envkit_cli("convert", str(src), "-o", str(out), "--to", "explicit")
    assert r.exit_code == 0, r.stderr
    assert [ln.split(" cannot hold ")[1].split(" (")[0] for ln in r.stderr.splitlines()] == [
        "dependencies",
        "channel order",
    ]
    made = conda.create_from_file(tmp_path / "from-explicit", out)
    d = envkit_cli("diff", str(prefix), str(made))
    assert d.exit_code == 0 and d.stdout.endswith("Same: no differences (14 packages compared).\n"), d.stdout


@pytest.mark.parametrize("target", ["pixi", "pixi-v7"])
def test_py_rattler_reads_envkits_pixi_lock_of_a_file_channel(envkit_cli, family, tmp_path, target):
    from rattler import LockFile

    prefix = family.prefixes["big"]
    src = tmp_path / "conda-lock.yml"
    assert envkit_cli("lock", "-p", str(prefix), "--no-env-lock", "-o", str(src)).exit_code == 0
    out = tmp_path / "pixi.lock"
    r = envkit_cli("convert", str(src), "-o", str(out), "--to", target)
    assert (r.exit_code, r.stderr) == (0, ""), r.stderr
    env = LockFile.from_path(out).default_environment()
    records = env.conda_repodata_records_for_platform(env.platforms()[0])
    assert len(records) == 320
    assert all(str(p.url).startswith("file://") for p in records)
    assert {p.subdir for p in records} <= {"linux-64", "noarch"}
