"""pylock.toml, uv.lock and hashed requirements: envkit's readers against uv's own output (uv from
PyPI, offline, local wheels only), envkit's writers against uv, packaging.pylock and py-rattler."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import CORPUS, run_envkit
from support.condafactory import build_wheel

from envkit.errors import ParseError, UnsupportedVersionError
from envkit.formats import detect_format, read_file, read_text
from envkit.formats.pylock import write_pylock
from envkit.formats.requirements import requirements_to_lock, write_requirements_lock

UV = shutil.which("uv", path=os.path.dirname(sys.executable)) or shutil.which("uv")
needs_uv = pytest.mark.skipif(UV is None, reason="uv (the [test] extra) is not installed")

#: the local index: name -> (version, requires)
WHEELS = {"alpha": ("1.0", ["beta>=2"]), "beta": ("2.1", []), "gamma-pkg": ("0.3", ["beta"])}


def _uv(*args: str, cwd: Path, cache: Path) -> str:
    # hermetic: uv's cache and config under tmp, no network, no user config
    env = {
        "PATH": os.environ.get("PATH", ""),
        "HOME": str(cache),
        "UV_CACHE_DIR": str(cache / "uv"),
        "UV_NO_CONFIG": "1",
        "UV_OFFLINE": "1",
        "UV_PYTHON_DOWNLOADS": "never",
    }
    proc = subprocess.run([UV, *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


@pytest.fixture(scope="module")
def uv_project(tmp_path_factory):
    """Local wheels, and what uv writes from them: pylock.toml, requirements.txt with hashes, uv.lock."""
    root = tmp_path_factory.mktemp("uvproj")
    wheels = root / "wheels"
    shas = {}
    for name, (version, requires) in WHEELS.items():
        w = build_wheel(wheels, name, version, requires=requires)
        shas[name] = hashlib.sha256(w.read_bytes()).hexdigest()
    if UV is None:
        return root, shas
    cache = root / "cache"
    (root / "req.in").write_text("alpha\ngamma-pkg\n")
    common = ["--offline", "--no-index", "--find-links", "wheels", "req.in", "-q"]
    _uv("pip", "compile", *common, "-o", "pylock.toml", cwd=root, cache=cache)
    _uv("pip", "compile", *common, "--generate-hashes", "-o", "requirements.txt", cwd=root, cache=cache)
    proj = root / "proj"
    proj.mkdir()
    (proj / "pyproject.toml").write_text(
        '[project]\nname = "demo"\nversion = "0.1.0"\nrequires-python = ">=3.10"\n'
        'dependencies = ["alpha", "gamma-pkg"]\n[tool.uv]\npackage = false\n'
    )
    _uv("lock", "--offline", "--no-index", "--find-links", "../wheels", "-q", cwd=proj, cache=cache)
    return root, shas


def _set(lock):
    return sorted((p.name, p.version) for p in lock.packages)


@needs_uv
def test_uv_pylock_reads_as_uv_resolved_it(uv_project):
    root, shas = uv_project
    text = (root / "pylock.toml").read_text()
    assert detect_format(text, "pylock.toml") == "pylock"
    lock = read_file(root / "pylock.toml")
    assert lock.kind == "pylock" and lock.platforms == ()
    assert _set(lock) == [("alpha", "1.0"), ("beta", "2.1"), ("gamma-pkg", "0.3")]
    assert {p.name: p.sha256 for p in lock.packages} == shas
    assert all(p.manager == "pip" and p.url.endswith(".whl") for p in lock.packages)
    assert dict(lock.metadata)["created-by"] == '"uv"'


@needs_uv
def test_uv_lock_and_hashed_requirements_read_the_same_set(uv_project):
    root, shas = uv_project
    pylock = read_file(root / "pylock.toml")
    uvlock = read_file(root / "proj" / "uv.lock")
    assert uvlock.kind == "uv-lock"
    assert _set(uvlock) == _set(pylock)  # the virtual project itself is not installed: not listed
    assert {p.name: p.depends for p in uvlock.packages}["alpha"] == (("beta", ""),)
    assert {p.name: p.url for p in uvlock.packages}["beta"] == "../wheels/beta-2.1-py3-none-any.whl"
    assert dict(uvlock.metadata)["requires-python"] == '">=3.10"'
    req = requirements_to_lock(read_file(root / "requirements.txt"))
    assert _set(req) == _set(pylock)
    assert {p.name: p.sha256 for p in req.packages} == shas


@needs_uv
def test_pylock_round_trip_and_packaging_validates_it(uv_project):
    import tomllib
    from packaging.pylock import Pylock

    root, shas = uv_project
    lock = read_file(root / "pylock.toml")
    text = write_pylock(lock)
    Pylock.from_dict(tomllib.loads(text))  # raises when PEP 751 does not allow it
    back = read_text(text, format="pylock")
    assert back.packages == lock.packages
    assert write_pylock(back) == text  # deterministic


@needs_uv
def test_uv_installs_envkits_pylock_into_a_venv(uv_project, tmp_path):
    root, shas = uv_project
    lock = requirements_to_lock(read_file(root / "requirements.txt"))
    # the hashed requirements file names no URLs: give each package its local wheel, as a lock must
    from dataclasses import replace

    wheel_of = {
        p.name: next((root / "wheels").glob(p.name.replace("-", "_") + "-*.whl")) for p in lock.packages
    }
    lock = replace(lock, packages=tuple(replace(p, url=wheel_of[p.name].as_uri()) for p in lock.packages))
    (tmp_path / "pylock.toml").write_text(write_pylock(lock))
    cache = tmp_path / "cache"
    _uv("venv", "-q", "--python", sys.executable, str(tmp_path / "venv"), cwd=tmp_path, cache=cache)
    py = str(tmp_path / "venv" / "bin" / "python")
    _uv(
        "pip",
        "sync",
        "--offline",
        "--no-index",
        "--python",
        py,
        "pylock.toml",
        "-q",
        cwd=tmp_path,
        cache=cache,
    )
    listed = json.loads(_uv("pip", "list", "--python", py, "--format", "json", cwd=tmp_path, cache=cache))
    assert sorted((d["name"], d["version"]) for d in listed) == [
        ("alpha", "1.0"),
        ("beta", "2.1"),
        ("gamma-pkg", "0.3"),
    ]


@needs_uv
def test_hashed_requirements_written_back_keep_every_hash(uv_project):
    root, shas = uv_project
    req = requirements_to_lock(read_file(root / "requirements.txt"))
    text = write_requirements_lock(req)
    assert text.splitlines()[:2] == ["alpha==1.0 \\", f"    --hash=sha256:{shas['alpha']}"]
    again = requirements_to_lock(read_text(text, format="requirements"))
    assert again.packages == req.packages


@needs_uv
def test_diff_env_pip_section_against_pylock_and_uv_lock(uv_project, tmp_path):
    root, _ = uv_project
    env = tmp_path / "environment.yml"
    env.write_text(
        "name: demo\nchannels:\n- conda-forge\ndependencies:\n- python=3.11.8=hab00c5b_0_cpython\n"
        "- pip:\n  - alpha==1.0\n  - beta==2.1\n  - gamma-pkg==0.3\n"
    )
    for other in (root / "pylock.toml", root / "proj" / "uv.lock"):
        r = run_envkit("diff", "--format", "json", str(env), str(other))
        doc = json.loads(r.stdout)
        # the pip section is the same set: only the conda python of the environment file differs
        assert [(c["name"], c["kind"]) for c in doc["changes"]] == [("python", "removed")], r.stdout
        assert r.exit_code == 1


def test_pylock_errors_name_file_line_and_key(tmp_path):
    bad = 'lock-version = "1.0"\ncreated-by = "x"\n\n[[packages]]\nname = "a"\nversion = "1"\n'
    with pytest.raises(ParseError) as e:
        read_text(bad, filename="pylock.toml", format="pylock")
    assert e.value.where.file == "pylock.toml" and e.value.where.line == 4
    assert "Exactly one of vcs, directory, archive" in str(e.value)
    with pytest.raises(UnsupportedVersionError):
        read_text('lock-version = "2.0"\ncreated-by = "x"\npackages = []\n', format="pylock")
    with pytest.raises(ParseError) as e:
        read_text('lock-version = "1.0"\n[[packages]\n', filename="pylock.toml", format="pylock")
    assert e.value.where.line == 2
    r = run_envkit("validate", str(_write(tmp_path / "pylock.toml", bad)))
    assert r.exit_code == 2 and "pylock.toml:4" in r.stderr


def test_uv_lock_errors_and_versions():
    with pytest.raises(UnsupportedVersionError) as e:
        read_text('version = 2\n[[package]]\nname = "a"\n', filename="uv.lock", format="uv-lock")
    assert e.value.where.line == 1
    with pytest.raises(ParseError) as e:
        read_text(
            'version = 1\n\n[[package]]\nname = "a"\nversion = 3\n', filename="uv.lock", format="uv-lock"
        )
    assert e.value.where.line == 3 and e.value.where.key == "package[0].version"


def _write(path: Path, text: str) -> Path:
    path.write_text(text)
    return path


# -- pixi.lock writer: py-rattler is the oracle ------------------------------------------------


@pytest.mark.parametrize(
    "name",
    [
        "51_Cecca__repro-course-ci__conda-lock.yml",
        "59_43ravens__NEMO_Nowcast__pixi.lock",
        "53_EthanMarx__ztf-lfi-demo__conda-lock.yml",
    ],
)
@pytest.mark.parametrize("version", [6, 7])
def test_pixi_lock_written_reads_back_in_rattler_and_envkit(name, version, tmp_path):
    import rattler

    from envkit.formats.pixiwrite import write_pixi_lock

    src = read_file(CORPUS / name)
    dropped = []
    out = tmp_path / "pixi.lock"
    out.write_text(write_pixi_lock(src, version=version, dropped=dropped))
    assert out.read_text().startswith(f"version: {version}\n")
    kept = [p for p in src.packages if not (version == 6 and p.manager == "pip" and not p.version)]
    env = rattler.LockFile.from_path(out).default_environment()
    theirs = sorted(
        (str(pl), p.name, str(p.version) if p.version is not None else "", p.location)
        for pl in env.platforms()
        for p in env.packages(pl)
    )
    ours = sorted((p.platform, p.name, p.version, p.url) for p in kept)
    assert [t[:2] + t[3:] for t in theirs] == [o[:2] + o[3:] for o in ours]
    back = read_text(out.read_text(), format="pixi")

    def key(p):
        # a noarch entry is written once for all platforms, its depends in the first one's order
        # (pip requirements are spelled per format: conda-lock's `*` / bare version, PEP 508 in pixi.lock)
        deps = sorted(p.depends) if p.manager == "conda" else sorted(n for n, _ in p.depends)
        return (p.manager, p.name, p.version, p.build, p.platform, p.url, p.sha256, p.md5, deps)

    assert sorted(map(key, back.packages)) == sorted(map(key, kept))
    assert [c.name for c in back.channels] == [c.name for c in src.channels]


@needs_uv
def test_sbom_of_pip_locks_validates(uv_project):
    from cyclonedx.schema import SchemaVersion
    from cyclonedx.validation.json import JsonStrictValidator

    from envkit.formats.cyclonedx import render_cyclonedx

    root, shas = uv_project
    for path in (root / "pylock.toml", root / "proj" / "uv.lock"):
        text = render_cyclonedx(read_file(path))
        assert JsonStrictValidator(SchemaVersion.V1_6).validate_str(text) is None
        doc = json.loads(text)
        assert sorted(c["purl"] for c in doc["components"])[0].startswith("pkg:pypi/alpha@1.0")
    doc = json.loads(render_cyclonedx(read_file(root / "pylock.toml")))
    alpha = next(c for c in doc["components"] if c["name"] == "alpha")
    assert alpha["hashes"] == [{"alg": "SHA-256", "content": shas["alpha"]}]


@needs_uv
def test_normalize_check_on_pylock(uv_project, tmp_path):
    root, _ = uv_project
    r = run_envkit("normalize", str(root / "pylock.toml"))
    assert r.exit_code == 0 and 'created-by = "uv"' in r.stdout and "[[packages.wheels]]" in r.stdout
    canon = tmp_path / "pylock.toml"
    canon.write_text(r.stdout)
    assert run_envkit("normalize", "--check", str(canon)).exit_code == 0
    assert run_envkit("normalize", "--check", str(root / "pylock.toml")).exit_code == 1
    r = run_envkit("normalize", str(root / "proj" / "uv.lock"))
    assert r.exit_code == 2 and "uv owns that file" in r.stderr
