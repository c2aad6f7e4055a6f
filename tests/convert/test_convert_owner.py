"""uv.lock -> requirements.txt / pylock.toml equals what uv itself exports of the same lock and
pyproject.toml (`uv export --frozen --format requirements.txt|pylock.toml`, offline), with the same
selection options: the same packages at the same versions, from the same URLs with the same hashes,
each installed on the same environments (its marker evaluated on every platform and Python the test
knows: envkit's markers are uv's up to spelling).  Real locks with their pyproject.toml
(tests/convert/data/SOURCES.md, tests/data/manifests/INDEX.md): markers of platform-only packages
(nvidia-*, triton-windows), extras, dependency groups (`[tool.uv] default-groups`, `[]` included),
Python forks, URL packages (one wheel URL per platform), a git source and extras declared in
conflict; what uv refuses to export (conflicting extras together, a lock its project no longer
names), envkit refuses too."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import tomllib
from conftest import CORPUS, run_envkit

DATA = Path(__file__).parent / "data"
MANIFESTS = Path(__file__).parents[1] / "data" / "manifests"
UV = Path(sys.executable).with_name("uv")

#: lock name -> (uv.lock, pyproject.toml, the selections compared)
LOCKS = {
    "spectree": (
        CORPUS / "80_0b01001001__spectree__uv.lock",
        DATA / "0b01001001__spectree__pyproject.toml",
        ((), ("--all-extras",), ("--extra", "falcon"), ("--all-groups",), ("--no-default-groups",)),
    ),
    "markupsafe": (
        CORPUS / "81_pallets__markupsafe__uv.lock",
        DATA / "pallets__markupsafe__pyproject.toml",
        ((), ("--all-groups",)),
    ),
    "click": (
        CORPUS / "82_pallets__click__uv.lock",
        DATA / "pallets__click__pyproject.toml",
        ((), ("--group", "docs"), ("--no-default-groups", "--group", "tests")),
    ),
    "kokoro": (
        DATA / "remsky__Kokoro-FastAPI__uv.lock",
        DATA / "remsky__Kokoro-FastAPI__pyproject.toml",
        ((), ("--extra", "cpu"), ("--extra", "gpu"), ("--extra", "rocm")),
    ),
    "pyannote": (
        DATA / "pyannote__pyannote-audio__uv.lock",
        DATA / "pyannote__pyannote-audio__pyproject.toml",
        (
            (),
            ("--no-default-groups",),
            ("--extra", "Separation"),  # uv normalizes the names it is given (PEP 685)
            ("--extra", "doc", "--extra", "dev"),
            ("--all-extras", "--no-default-groups"),
        ),
    ),
    "scope": (
        DATA / "daydreamlive__scope__uv.lock",
        DATA / "daydreamlive__scope__pyproject.toml",
        ((), ("--no-default-groups",), ("--extra", "midi", "--extra", "livepeer"), ("--all-extras",)),
    ),
    "nanochat": (
        MANIFESTS / "uv-nanochat" / "uv.lock",
        MANIFESTS / "uv-nanochat" / "pyproject.toml",
        (
            (),
            ("--extra", "cpu"),
            ("--extra", "gpu"),
            ("--group", "dev"),
            ("--all-groups", "--extra", "gpu"),
        ),
    ),
    "uv-fastapi": (MANIFESTS / "uv-fastapi" / "uv.lock", MANIFESTS / "uv-fastapi" / "pyproject.toml", ((),)),
    "uv-docker": (
        MANIFESTS / "uv-docker" / "uv.lock",
        MANIFESTS / "uv-docker" / "pyproject.toml",
        ((), ("--no-default-groups",), ("--all-extras", "--all-groups")),
    ),
    "uv-docker-groups": (
        MANIFESTS / "uv-docker-groups" / "uv.lock",
        MANIFESTS / "uv-docker-groups" / "pyproject.toml",
        ((), ("--no-default-groups",)),
    ),
    "stale-uv-docker": (
        MANIFESTS / "stale-uv-docker" / "uv.lock",
        MANIFESTS / "stale-uv-docker" / "pyproject.toml",
        ((), ("--no-default-groups",)),
    ),
}
CASES = [(name, sel) for name, (_, _, sels) in LOCKS.items() for sel in sels]
#: (LOCKS name or manifests folder, selection, what uv says, what envkit says) of the exports uv
#: refuses: envkit refuses them too
_CONFLICT = ("incompatible with the declared conflicts", "in conflict (`[tool.uv] conflicts`)")
REFUSED = [
    ("nanochat", ("--all-extras",), *_CONFLICT),
    ("nanochat", ("--extra", "cpu", "--extra", "gpu"), *_CONFLICT),
    ("kokoro", ("--all-extras",), *_CONFLICT),
    ("nanochat", ("--extra", "dev"), "Extra `dev` is not defined", "extra `dev` is not defined"),
    ("pyannote", ("--group", "docs"), "Group `docs` is not defined", "group `docs` is not defined"),
    # the project was renamed after the lock was written (tests/data/manifests/INDEX.md)
    ("stale-uv-fastapi", (), "Missing workspace member `uv-fastapi-example`", "its project is `app`"),
]


def _environments() -> list[dict[str, str]]:
    from packaging.markers import default_environment

    out = []
    systems = {"linux": "Linux", "win32": "Windows", "darwin": "Darwin"}
    for plat, machine in (
        ("linux", "x86_64"),
        ("linux", "aarch64"),
        ("win32", "AMD64"),
        ("darwin", "arm64"),
        ("darwin", "x86_64"),
    ):
        for py in ("3.9.1", "3.10.4", "3.11.2", "3.12.1", "3.13.0", "3.14.0"):
            for impl, name in (("cpython", "CPython"), ("pypy", "PyPy")):
                env = dict(default_environment())
                env.update(
                    sys_platform=plat,
                    platform_machine=machine,
                    platform_system=systems[plat],
                    os_name="nt" if plat == "win32" else "posix",
                    python_full_version=py,
                    python_version=py.rsplit(".", 1)[0],
                    implementation_name=impl,
                    platform_python_implementation=name,
                )
                out.append(env)
    return out


ENVIRONMENTS = _environments()


def _canon(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


#: one entry of an export: (name, version or URL, marker, hashes); a name forked by platform or
#: Python (flash-attn from two URLs, torch at six versions) has one entry per fork
Entry = tuple[str, str, "str | None", frozenset[str]]


def _requirements(text: str) -> list[Entry]:
    """The entries of a requirements file (`-e PATH`: the path, version "editable")."""
    out = []
    for entry in text.replace("\\\n", " ").splitlines():
        entry = entry.strip()
        if not entry or entry.startswith(("#", "--")):
            continue
        hashes = frozenset(re.findall(r"--hash=sha256:([0-9a-f]+)", entry))
        entry = entry.split(" --hash", 1)[0].strip()
        req, _, marker = entry.partition(" ; ")
        if req.startswith("-e "):
            out.append((req[3:].split("#egg=")[0], "editable", marker or None, hashes))
        elif " @ " in req:
            name, url = req.split(" @ ", 1)
            out.append((_canon(name), url, marker or None, hashes))
        else:
            name, version = req.split("==", 1)
            out.append((_canon(name), version, marker or None, hashes))
    return out


def _pylock(text: str) -> list[Entry]:
    """The entries of a pylock.toml (version; every artifact's sha256)."""
    out = []
    for p in tomllib.loads(text)["packages"]:
        files = [p["sdist"]] if "sdist" in p else []
        files += p.get("wheels", []) + ([p["archive"]] if "archive" in p else [])
        hashes = frozenset(f["hashes"]["sha256"] for f in files)
        # a source tree: uv writes no version (PEP 751 allows none), envkit the project's
        version = "(source tree)" if "directory" in p else p.get("version", "")
        if "vcs" in p:  # what is installed: the commit (and the subdirectory) of the repository
            vcs = p["vcs"]
            version += f" {vcs['url']}@{vcs['commit-id']}#{vcs.get('subdirectory', '')}"
        out.append((_canon(p["name"]), version, p.get("marker"), hashes))
    return out


def _installed(entries: list[Entry], env: dict[str, str]) -> set[tuple[str, str]]:
    from packaging.markers import Marker

    return {(n, v) for n, v, m, _ in entries if m is None or Marker(m).evaluate(env, context="lock_file")}


def _export(
    workdir: Path, fmt: str, selection: tuple[str, ...], out: Path, check: bool = True
) -> subprocess.CompletedProcess:
    env = {
        **os.environ,
        "UV_OFFLINE": "1",
        "UV_NO_CONFIG": "1",
        "UV_CACHE_DIR": str(workdir / ".uv-cache"),
        "UV_PYTHON_DOWNLOADS": "never",
    }
    return subprocess.run(
        [str(UV), "export", "--frozen", "--quiet", "--format", fmt, *selection, "-o", str(out)],
        cwd=workdir,
        env=env,
        check=check,
        capture_output=True,
        text=True,
        timeout=120,
    )


@pytest.mark.skipif(not UV.exists(), reason=f"no uv beside {sys.executable}")
@pytest.mark.parametrize(
    "name,selection,says,we_say", REFUSED, ids=[f"{n}[{' '.join(s) or 'default'}]" for n, s, *_ in REFUSED]
)
def test_convert_refuses_what_uv_export_refuses(tmp_path, name, selection, says, we_say):
    lock, pyproject = (
        LOCKS[name][:2]
        if name in LOCKS
        else (MANIFESTS / name / "uv.lock", MANIFESTS / name / "pyproject.toml")
    )
    shutil.copyfile(lock, tmp_path / "uv.lock")
    shutil.copyfile(pyproject, tmp_path / "pyproject.toml")
    r = _export(tmp_path, "pylock.toml", selection, tmp_path / "pylock.uv.toml", check=False)
    assert r.returncode != 0 and says in " ".join(r.stderr.split()), r.stderr  # uv wraps its lines
    ours = run_envkit("convert", str(tmp_path / "uv.lock"), "-o", str(tmp_path / "pylock.toml"), *selection)
    assert ours.exit_code == 2 and we_say in ours.stderr, ours.stderr
    assert "Traceback" not in ours.stderr and not (tmp_path / "pylock.toml").exists()


@pytest.mark.skipif(not UV.exists(), reason=f"no uv beside {sys.executable}")
@pytest.mark.parametrize("fmt", ["requirements.txt", "pylock.toml"])
@pytest.mark.parametrize("name,selection", CASES, ids=[f"{n}[{' '.join(s) or 'default'}]" for n, s in CASES])
def test_convert_installs_what_uv_export_installs(tmp_path, name, selection, fmt):
    lock, pyproject, _ = LOCKS[name]
    shutil.copyfile(lock, tmp_path / "uv.lock")
    shutil.copyfile(pyproject, tmp_path / "pyproject.toml")
    theirs, ours = tmp_path / "requirements-uv.txt", tmp_path / "requirements-envkit.txt"
    if fmt == "pylock.toml":
        theirs, ours = tmp_path / "pylock.uv.toml", tmp_path / "pylock.envkit.toml"
    _export(tmp_path, fmt, selection, theirs)
    target = "requirements" if fmt == "requirements.txt" else "pylock"
    r = run_envkit("convert", str(tmp_path / "uv.lock"), "-o", str(ours), "--to", target, *selection)
    assert r.exit_code == 0, r.stderr
    read = _requirements if fmt == "requirements.txt" else _pylock
    a, b = read(theirs.read_text()), read(ours.read_text())
    assert sorted({e[0] for e in a}) == sorted({e[0] for e in b})
    # every entry's version (a URL package by its URL) and artifact hashes
    assert sorted((n, v, sorted(h)) for n, v, _, h in a) == sorted((n, v, sorted(h)) for n, v, _, h in b)
    requires = tomllib.loads(lock.read_text()).get("requires-python", "")
    from packaging.specifiers import SpecifierSet

    for env in ENVIRONMENTS:
        if requires and env["python_full_version"] not in SpecifierSet(requires):
            continue
        assert _installed(a, env) == _installed(b, env), (env["sys_platform"], env["python_full_version"])


_GIT_PYPROJECT = """\
[project]
name = "demo"
version = "0.1.0"
requires-python = ">=3.10"
dependencies = ["pkg"]

[tool.uv.sources]
pkg = { git = "https://github.com/example/mono", subdirectory = "python/pkg", tag = "v1.2" }
"""
_GIT_LOCK = """\
version = 1
revision = 3
requires-python = ">=3.10"

[[package]]
name = "demo"
version = "0.1.0"
source = { virtual = "." }
dependencies = [{ name = "pkg" }]

[package.metadata]
requires-dist = [{ name = "pkg", git = "https://github.com/example/mono?subdirectory=python%2Fpkg&tag=v1.2" }]

[[package]]
name = "pkg"
version = "1.2.0"
source = { git = "https://github.com/example/mono?subdirectory=python%2Fpkg&tag=v1.2#COMMIT" }
""".replace("COMMIT", "0123456789abcdef0123456789abcdef01234567")


@pytest.mark.skipif(not UV.exists(), reason=f"no uv beside {sys.executable}")
@pytest.mark.parametrize("fmt", ["requirements.txt", "pylock.toml"])
def test_a_git_source_installs_the_commit_uv_export_installs(tmp_path, fmt):
    """uv.lock's `source.git` keeps the tag and subdirectory in its query and the commit in its
    fragment (daydreamlive/scope's livepeer-gateway has the commit alone); uv installs the commit
    from the subdirectory, and so must envkit's output (the tag is not what gets installed)."""
    (tmp_path / "pyproject.toml").write_text(_GIT_PYPROJECT)
    (tmp_path / "uv.lock").write_text(_GIT_LOCK)
    theirs, ours = tmp_path / "requirements-uv.txt", tmp_path / "requirements-envkit.txt"
    if fmt == "pylock.toml":  # uv writes pylock.toml only to a file of that name
        theirs, ours = tmp_path / "pylock.uv.toml", tmp_path / "pylock.envkit.toml"
    _export(tmp_path, fmt, (), theirs)
    target = "requirements" if fmt == "requirements.txt" else "pylock"
    r = run_envkit("convert", str(tmp_path / "uv.lock"), "-o", str(ours), "--to", target)
    assert r.exit_code == 0, r.stderr
    read = _requirements if fmt == "requirements.txt" else _pylock
    url = "https://github.com/example/mono@0123456789abcdef0123456789abcdef01234567"
    want = f"git+{url}#subdirectory=python/pkg" if fmt == "requirements.txt" else f"1.2.0 {url}#python/pkg"
    assert read(ours.read_text()) == read(theirs.read_text()) == [("pkg", want, None, frozenset())]


# --- conda-lock.yml -> explicit, against `conda-lock render --kind explicit` ------------------------

CONDA_LOCK = Path(sys.executable).with_name("conda-lock")
ROOT = Path(__file__).parents[2]
#: every conda-lock.yml of the corpus (its projects' folders included), the example and envkit's own
CONDA_LOCKS = sorted(
    [*CORPUS.rglob("*conda-lock.yml")]
    + [ROOT / "examples" / "ci-repo" / "conda-lock.yml", ROOT / "tests" / "data" / "lock" / "conda-lock.yml"]
)


def _explicit_lines(text: str) -> tuple[list[str], list[str]]:
    """(the artifact lines, the `# pip` lines) of an explicit file, sorted: what gets installed."""
    lines = text.splitlines()
    return sorted(ln for ln in lines if ln and not ln.startswith(("#", "@"))), sorted(
        ln for ln in lines if ln.startswith("# pip ")
    )


@pytest.mark.skipif(not CONDA_LOCK.exists(), reason=f"no conda-lock beside {sys.executable}")
@pytest.mark.parametrize("src", CONDA_LOCKS, ids=lambda p: str(p.relative_to(ROOT)))
def test_convert_to_explicit_installs_what_conda_lock_render_writes(tmp_path, src):
    """Every platform of every conda-lock.yml: the same artifact URLs with the same md5 (the
    install order aside: conda-lock writes dependencies first, envkit by name), the same pip lines."""
    from envkit.formats import read_file

    shutil.copyfile(src, tmp_path / "conda-lock.yml")
    platforms = read_file(src).platforms
    subprocess.run(
        [
            str(CONDA_LOCK),
            "render",
            "--kind",
            "explicit",
            *(w for p in platforms for w in ("-p", p)),
            "conda-lock.yml",
        ],
        cwd=tmp_path,
        check=True,
        capture_output=True,
        timeout=300,
        env={**os.environ, "HOME": str(tmp_path)},
    )
    for plat in platforms:
        ours = tmp_path / f"envkit-{plat}.lock"
        r = run_envkit("convert", str(src), "-o", str(ours), "--to", "explicit", "--platform", plat)
        assert r.exit_code == 0, r.stderr  # notes only: dependencies and channel order
        theirs = (tmp_path / f"conda-{plat}.lock").read_text()
        assert _explicit_lines(ours.read_text()) == _explicit_lines(theirs), plat
