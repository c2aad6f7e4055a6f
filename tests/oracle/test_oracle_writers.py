"""The writers' acceptance matrix: every file `envkit lock -f` (one and two platforms, with and
without pip, a pixi.lock, `--update`; two platforms with pip as a conda-lock.yml and a pixi.lock),
`envkit lock -p` (with and without pip), `envkit export` (yaml, explicit, conda-lock) and `envkit
normalize` write, judged by the real reader of its format: conda 26.7.1 (`conda create --file` on
local `file://` channels, the prefix it makes listed by conda itself; `--dry-run` where a pip
section needs a real Python), conda-lock's `parse_conda_lock_file`, py-rattler's `LockFile` (every
environment and platform) and `uv pip compile`.  Each cell is accepted, or a refusal by the reader
that envkit documents and says when it happens (conda's reader takes no `manager: pip` package, and
installs a pixi.lock's conda packages only: docs/commands/lock.md).  The conda plugin's exporters
are judged in tests/oracle/test_oracle_conda_plugin.py, and convert's outputs in
tests/convert/test_convert_acceptance.py.  Skipped, saying why, without a real conda.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from support.condafactory import (
    ChannelBuilder,
    Pkg,
    build_wheel,
    copy_prefix,
    interpreter_packages,
    pip_install,
)

from envkit.commands._lock_files import CONDA_SKIPS_PYPI
from envkit.formats.condalockout import CONDA_CANNOT_READ_PIP

UV = Path(sys.executable).with_name("uv")
#: a pip that sees only the local wheels
PIP_ENV = {"PIP_CONFIG_FILE": os.devnull, "PIP_NO_INDEX": "1", "PIP_RETRIES": "0"}
#: conda's error for a conda-lock.yml with a pip package (conda-lockfiles 0.2.2 takes `pypi`)
CONDA_PIP_ERROR = "Input should be 'conda' or 'pypi'"
#: the platforms of the two-platform locks, and the tag of platpkg's wheel for each
TWO = ("linux-64", "osx-arm64")
#: the pip packages of the two-platform lock with pip, as lock's notes name them
NAMES = "macdep, platpkg, tinyreq"
WHEEL_TAGS = {"linux-64": "cp311-cp311-manylinux_2_17_x86_64", "osx-arm64": "cp311-cp311-macosx_11_0_arm64"}


@pytest.fixture(scope="module")
def work(real_conda, default_channel, default_prefix, tmp_path_factory):
    """An isolated conda, the default channel and prefix, a channel with linux-64 and osx-arm64
    packages (a python and pip for each: a lock of two platforms, with pip), wheels (pure and one
    per platform), and the prefix with the pure wheel `tinyreq` pip-installed."""
    root = tmp_path_factory.mktemp("writers")
    two = ChannelBuilder(root / "two", name="two")
    two.add(
        *interpreter_packages(TWO),
        Pkg(name="tzdata", version="2024a", build="h0_0", noarch="generic", depends=["zlib"]),
    )
    two.index()
    wheels = root / "wheels"
    build_wheel(wheels, "tinyreq", "2.0")
    build_wheel(wheels, "macdep", "0.1")
    needs = ["tinyreq>=2", "macdep; sys_platform == 'darwin'"]
    # one wheel per platform (and two no platform of the lock takes), each with a darwin-only need
    for tag in [*WHEEL_TAGS.values(), "cp312-cp312-manylinux_2_17_x86_64", "cp311-cp311-win_amd64"]:
        build_wheel(wheels, "platpkg", "1.0", requires=needs, tag=tag)
    # one wheel for every platform, with the same darwin-only need
    build_wheel(wheels, "purepkg", "1.0", requires=needs)
    pipd = copy_prefix(default_prefix, root / "pipd")
    pip_install(pipd, wheels / "tinyreq-2.0-py3-none-any.whl", direct=True)
    return {
        "conda": real_conda.isolated(root / "conda"),
        "channel": default_channel,
        "two": two,
        "prefix": default_prefix,
        "pipd": pipd,
        "wheels": wheels,
        "made": iter(range(1000)),
        "root": root,
    }


def _spec(path: Path, channel, deps, pip_lines=()) -> Path:
    lines = ["channels:", f"  - {channel.url}", "dependencies:"] + [f"  - {d}" for d in deps]
    if pip_lines:
        lines += ["  - pip:"] + [f"    - {ln}" for ln in pip_lines]
    path.write_text("\n".join(lines) + "\n")
    return path


def _conda_list(conda, prefix) -> set[tuple[str, str]]:
    """(name, version) of every conda package in `prefix`, as conda itself lists them."""
    rows = json.loads(conda.run("list", "-p", prefix, "--json").stdout)
    return {(r["name"], r["version"]) for r in rows if r.get("channel") != "pypi"}


# -- the judges: each raises unless its reader accepts the file, and returns what it read


def conda_lock_parser(path: Path, platforms=("linux-64",)) -> set[tuple[str, str]]:
    from conda_lock.lockfile import parse_conda_lock_file

    lock = parse_conda_lock_file(path)
    assert sorted(lock.metadata.platforms) == sorted(platforms)
    assert all(p.hash.md5 for p in lock.package if p.manager == "conda")
    return {(p.name, p.version) for p in lock.package if p.manager == "conda" and p.platform == "linux-64"}


def rattler(path: Path) -> set[tuple[str, str]]:
    from rattler import LockFile

    seen = set()
    for _name, env in LockFile.from_path(path).environments():
        for plat in env.platforms():
            for p in env.conda_repodata_records_for_platform(plat) or []:
                seen.add((p.name.normalized, str(p.version)))
    return seen


def _tail(url: str) -> str:
    """`SUBDIR/FILE` of a conda artifact's URL, `FOLDER/FILE` of a wheel's."""
    return "/".join(url.rsplit("/", 2)[-2:])


def conda_lock_platforms(path: Path) -> dict[str, set[tuple[str, str, str, str]]]:
    """What conda-lock's parser reads, per platform: (manager, name, version, _tail(url))."""
    from conda_lock.lockfile import parse_conda_lock_file

    lock = parse_conda_lock_file(path)
    out: dict[str, set[tuple[str, str, str, str]]] = {p: set() for p in lock.metadata.platforms}
    for p in lock.package:
        out[p.platform].add((p.manager, p.name, p.version, _tail(p.url)))
    return out


def rattler_platforms(path: Path) -> dict[str, set[tuple[str, str, str, str]]]:
    """What py-rattler's LockFile reads, per platform of every environment: ("conda" or "pip",
    name, version, _tail(url))."""
    from rattler import LockFile

    out: dict[str, set[tuple[str, str, str, str]]] = {}
    for _name, env in LockFile.from_path(path).environments():
        for plat in env.platforms():
            got = out.setdefault(str(plat), set())
            for r in env.conda_repodata_records_for_platform(plat) or []:
                got.add(("conda", r.name.normalized, str(r.version), _tail(r.url)))
            for w in env.pypi_packages_for_platform(plat) or []:
                got.add(("pip", w.name, str(w.version), _tail(w.location)))
    return out


#: PEP 508 marker values of the two platforms (CPython 3.11)
MARKERS = {
    "linux-64": {"sys_platform": "linux", "platform_system": "Linux", "platform_machine": "x86_64"},
    "osx-arm64": {"sys_platform": "darwin", "platform_system": "Darwin", "platform_machine": "arm64"},
}


def pypi_reached(path: Path, requested: str) -> dict[str, tuple[set[str], set[str]]]:
    """Per platform of a pixi.lock: (the pypi packages `requested` reaches through the locked
    entries' `requires_dist`, markers evaluated for that platform; the pypi packages locked).
    pixi holds a lock to its manifest this way: a locked package nothing reaches, or a need that
    is not locked, makes the lock out of date."""
    from packaging.markers import default_environment
    from packaging.requirements import Requirement
    from rattler import LockFile

    out = {}
    for _name, env in LockFile.from_path(path).environments():
        for plat in env.platforms():
            marks = {**default_environment(), "python_version": "3.11", "python_full_version": "3.11.8"}
            marks.update(MARKERS[str(plat)], extra="")
            pkgs = {w.name: w for w in env.pypi_packages_for_platform(plat) or []}
            reached, todo = set(), [requested]
            while todo:
                name = todo.pop()
                if name in reached or name not in pkgs:
                    continue
                reached.add(name)
                for text in pkgs[name].requires_dist:
                    req = Requirement(text)
                    if req.marker is None or req.marker.evaluate(marks):
                        todo.append(req.name)
            out[str(plat)] = (reached, set(pkgs))
    return out


def conda_creates(work, path: Path) -> set[tuple[str, str]]:
    """What `conda create --file` installs from `path` (conda's list of the new prefix)."""
    prefix = work["root"] / f"made{next(work['made'])}"
    work["conda"].create_from_file(prefix, path)
    return _conda_list(work["conda"], prefix)


def conda_refuses_pip(work, path: Path) -> None:
    """conda's reader refuses a conda-lock.yml with `manager: pip`: the documented refusal.  conda
    picks its reader by the name `conda-lock.yml`: under another name (`gpu.conda-lock.yml`) the
    file conda-lockfiles refuses falls through to the environment.yml reader, which makes an empty
    prefix and exits 0 (docs/commands/lock.md), so these files are judged under that name."""
    assert path.name == "conda-lock.yml"
    prefix = work["root"] / f"made{next(work['made'])}"
    r = work["conda"].run("create", "-y", "-q", "-p", prefix, "--file", path, check=False)
    assert r.returncode == 1 and CONDA_PIP_ERROR in r.stderr, r.stderr


def conda_dry_run(work, path: Path) -> None:
    """conda reads the environment file and solves it (`--dry-run`: the pip part needs a Python
    conda cannot run here)."""
    prefix = work["root"] / f"made{next(work['made'])}"
    r = work["conda"].run("create", "--dry-run", "-p", prefix, "--file", path, check=False)
    assert r.returncode == 0, r.stdout + r.stderr


def uv_compiles(work, path: Path) -> str:
    env = dict(os.environ, UV_NO_CONFIG="1", UV_CACHE_DIR=str(work["root"] / "uv-cache"))
    argv = [UV, "pip", "compile", "-q", "--offline", "--no-index", "--find-links", work["wheels"], path]
    r = subprocess.run([str(a) for a in argv], capture_output=True, text=True, env=env, timeout=120)
    assert r.returncode == 0, r.stderr
    return r.stdout


# -- the cells


def _lock(
    envkit_cli, out: Path, spec: Path, *args: str, pip: bool = False, names: str | None = "tinyreq"
) -> str:
    """Run `lock -f`; a conda-lock.yml with pip packages (`names`) says conda cannot read it."""
    pip = pip or names != "tinyreq"
    r = envkit_cli("lock", "-f", str(spec), "-o", str(out), *args, env=PIP_ENV if pip else None)
    assert r.exit_code == 0, r.stderr
    if names:
        said = "note: " + CONDA_CANNOT_READ_PIP.format(names=names)
        assert (said in r.stderr) == (pip and out.name.endswith("conda-lock.yml")), r.stderr
    return r.stderr


def test_lock_f_one_and_two_platforms_with_and_without_pip(envkit_cli, work, tmp_path):
    """3 writers x 2 readers: conda-lock's parser accepts all; conda installs the conda-only ones
    (what conda-lock's parser read), refuses the ones with pip, as envkit said it would."""
    pip = ["--no-index", f"--find-links {work['wheels']}", "tinyreq"]
    one = _spec(tmp_path / "one.yml", work["channel"], ["python=3.11", "numpy"])
    one_pip = _spec(tmp_path / "one-pip.yml", work["channel"], ["python=3.11", "pip"], pip)
    two = _spec(tmp_path / "two.yml", work["two"], ["tzdata"])
    both = ("--platform", "linux-64", "--platform", "osx-arm64")
    cells = {}
    for spec, plats in ((one, ("linux-64",)), (two, both[1::2])):
        out = tmp_path / f"{spec.stem}.conda-lock.yml"
        _lock(envkit_cli, out, spec, *[w for p in plats for w in ("--platform", p)])
        read = conda_lock_parser(out, plats)
        assert conda_creates(work, out) == read and len(read) >= 2
        cells[spec.stem] = "accepted"
    for spec, plats in ((one_pip, ("linux-64",)),):
        out = tmp_path / spec.stem / "conda-lock.yml"  # conda picks its reader by this name (see below)
        out.parent.mkdir()
        _lock(envkit_cli, out, spec, *[w for p in plats for w in ("--platform", p)], pip=True)
        conda_lock_parser(out, plats)
        conda_refuses_pip(work, out)
        cells[spec.stem] = "refused by conda (documented)"
    assert list(cells.values()).count("accepted") == 2


def two_with_pip(platform: str) -> set[tuple[str, str, str, str]]:
    """What `lock -f` of python=3.11, pip and the pip section `platpkg` locks for `platform`: the
    conda packages of that subdir (pip from noarch), platpkg's wheel for that platform, tinyreq,
    and macdep on macOS only (platpkg needs it under `sys_platform == 'darwin'`)."""
    conda = [("openssl", "3.2.1", "h0_0"), ("python", "3.11.8", "h0_0_cpython"), ("zlib", "1.3.1", "h0_0")]
    out = {("conda", n, v, f"{platform}/{n}-{v}-{b}.tar.bz2") for n, v, b in conda}
    out.add(("conda", "pip", "24.0", "noarch/pip-24.0-pyhd8ed1ab_0.tar.bz2"))
    out.add(("pip", "platpkg", "1.0", f"wheels/platpkg-1.0-{WHEEL_TAGS[platform]}.whl"))
    out.add(("pip", "tinyreq", "2.0", "wheels/tinyreq-2.0-py3-none-any.whl"))
    if platform == "osx-arm64":
        out.add(("pip", "macdep", "0.1", "wheels/macdep-0.1-py3-none-any.whl"))
    return out


def _two_pip_spec(work, path: Path, requested: str) -> Path:
    pip = ["--no-index", f"--find-links {work['wheels']}", requested]
    return _spec(path, work["two"], ["python=3.11", "pip"], pip)


def test_lock_f_two_platforms_with_pip(envkit_cli, work, tmp_path):
    """`lock -f` of a pip section for linux-64 and osx-arm64: each platform has its own python and
    its own wheel of platpkg, and macdep where its marker holds.  The conda-lock.yml: conda-lock's
    parser and py-rattler read that on both platforms, conda refuses it (documented, said).  The
    pixi.lock: py-rattler reads the same, every platform's requires_dist reaches exactly what is
    locked, and conda installs its linux-64 conda packages and leaves the pypi ones out (said)."""
    spec = _two_pip_spec(work, tmp_path / "environment.yml", "platpkg")
    want = {p: two_with_pip(p) for p in TWO}
    out = tmp_path / "cl" / "conda-lock.yml"
    out.parent.mkdir()
    said = _lock(envkit_cli, out, spec, "--platform", "osx-arm64", "--platform", "linux-64", names=NAMES)
    assert "note: conda create --file on this pixi.lock" not in said
    assert conda_lock_platforms(out) == want
    assert rattler_platforms(out) == want
    conda_refuses_pip(work, out)
    pixi = tmp_path / "pixi.lock"
    said = _lock(envkit_cli, pixi, spec, "--platform", "osx-arm64", "--platform", "linux-64", names=NAMES)
    assert "note: " + CONDA_SKIPS_PYPI.format(names=NAMES) in said
    assert rattler_platforms(pixi) == want
    pip = {p: {n for k, n, _, _ in want[p] if k == "pip"} for p in TWO}
    assert pypi_reached(pixi, "platpkg") == {p: (pip[p], pip[p]) for p in TWO}
    prefix = work["root"] / f"made{next(work['made'])}"
    work["conda"].create_from_file(prefix, pixi)
    assert _conda_list(work["conda"], prefix) == {(n, v) for k, n, v, _ in want["linux-64"] if k == "conda"}
    site = prefix / "lib" / "python3.11" / "site-packages"
    assert sorted(x.name for x in site.iterdir()) == ["README.txt", "pip", "pip-24.0.dist-info"]


def test_lock_f_pixi_lock_shared_wheel_keeps_each_platforms_needs(envkit_cli, work, tmp_path):
    """A pure wheel locked for both platforms, needing macdep on macOS: pixi reaches macdep from
    it on osx-arm64, as the wheel's metadata says."""
    spec = _two_pip_spec(work, tmp_path / "environment.yml", "purepkg")
    pixi = tmp_path / "pixi.lock"
    _lock(envkit_cli, pixi, spec, "--platform", "linux-64", "--platform", "osx-arm64", names=None)
    locked = {"linux-64": {"purepkg", "tinyreq"}, "osx-arm64": {"purepkg", "tinyreq", "macdep"}}
    assert pypi_reached(pixi, "purepkg") == {p: (locked[p], locked[p]) for p in TWO}


def test_lock_f_pixi_lock_and_update(envkit_cli, work, tmp_path):
    """A pixi.lock (v6) from `lock -f`: py-rattler reads every environment and platform, conda
    installs it; a `--update` re-lock of a conda-lock.yml: conda-lock's parser and conda."""
    spec = _spec(tmp_path / "environment.yml", work["channel"], ["python=3.11", "numpy"])
    pixi = tmp_path / "pixi.lock"
    _lock(envkit_cli, pixi, spec, "--platform", "linux-64")
    read = rattler(pixi)
    assert conda_creates(work, pixi) == read and ("numpy", "1.26.4") in read
    out = tmp_path / "conda-lock.yml"
    _lock(envkit_cli, out, spec, "--platform", "linux-64")
    text = out.read_text().replace("numpy-1.26.4", "numpy-1.26.3")  # an older lock to update from
    old = conda_lock_parser(out)
    r = envkit_cli("lock", "-f", str(spec), "-o", str(out), "--update", "numpy")
    assert r.exit_code == 0, r.stderr
    assert text  # the re-lock rewrote the file envkit wrote
    read = conda_lock_parser(out)
    assert read == old and conda_creates(work, out) == read


def test_lock_p_with_and_without_pip(envkit_cli, work, tmp_path):
    """`lock -p`: the conda-lock.yml and environment.lock.yml of a conda-only prefix make the same
    prefix in conda; with a pip package, conda refuses the conda-lock.yml (documented, said) and
    reads and solves the environment file."""
    conda = work["conda"]
    source = _conda_list(conda, work["prefix"])
    out = tmp_path / "plain" / "conda-lock.yml"
    out.parent.mkdir()
    r = envkit_cli("lock", "-p", str(work["prefix"]), "-o", str(out))
    assert r.exit_code == 0 and "note: conda cannot" not in r.stderr, r.stderr
    assert conda_lock_parser(out) == source
    assert conda_creates(work, out) == source
    assert conda_creates(work, out.parent / "environment.lock.yml") == source
    out = tmp_path / "pip" / "conda-lock.yml"
    out.parent.mkdir()
    r = envkit_cli("lock", "-p", str(work["pipd"]), "-o", str(out), env=PIP_ENV)
    assert r.exit_code == 0, r.stderr
    assert r.stderr.startswith("note: " + CONDA_CANNOT_READ_PIP.format(names="tinyreq")), r.stderr
    assert conda_lock_parser(out) == source
    conda_refuses_pip(work, out)
    env_lock = out.parent / "environment.lock.yml"
    assert "\n    - tinyreq @ file://" in env_lock.read_text()
    conda_dry_run(work, env_lock)


@pytest.mark.parametrize("fmt", ["yaml", "explicit", "conda-lock"])
def test_export_is_installed_by_conda(envkit_cli, work, tmp_path, fmt):
    """`export` of a conda-only prefix in each format conda reads makes the same prefix; of a prefix
    with a pip package: explicit (pip lines are comments) installs its conda part, yaml is read
    and solved, conda-lock is refused by conda (documented) and accepted by conda-lock."""
    conda = work["conda"]
    source = _conda_list(conda, work["prefix"])
    name = {"yaml": "environment.yml", "explicit": "spec-file.txt", "conda-lock": "conda-lock.yml"}[fmt]
    out = tmp_path / name
    r = envkit_cli("export", "-p", str(work["prefix"]), "-o", str(out))  # the name picks the format
    assert r.exit_code == 0, r.stderr
    assert (fmt == "yaml") == ("note: writing" not in r.stderr), r.stderr
    if fmt == "conda-lock":
        assert conda_lock_parser(out) == source
    assert conda_creates(work, out) == source
    out = tmp_path / "pip" / name
    out.parent.mkdir()
    r = envkit_cli("export", "-p", str(work["pipd"]), "-o", str(out), "--format", fmt)
    assert r.exit_code == 0, r.stderr
    if fmt == "yaml":
        conda_dry_run(work, out)
    elif fmt == "explicit":  # the conda lines conda installed above, and the pip one as a comment
        lines = out.read_text().splitlines()
        conda_only = (tmp_path / name).read_text().splitlines()
        assert [ln for ln in lines if not ln.startswith("#")] == [
            ln for ln in conda_only if not ln.startswith("#")
        ]
        assert lines[-1].startswith("# pip tinyreq @ file://")
    else:
        assert conda_lock_parser(out) == source
        conda_refuses_pip(work, out)


def test_normalize_outputs_are_read_by_their_readers(envkit_cli, work, tmp_path):
    """`normalize -o` of an environment.yml (conda solves it), a requirements file (`uv pip
    compile` resolves it), a conda-lock.yml (conda-lock and conda) and an explicit file (conda)."""
    conda = work["conda"]
    source = _conda_list(conda, work["prefix"])
    spec = _spec(tmp_path / "in.yml", work["channel"], ["numpy", "python=3.11", "numpy"])
    req = tmp_path / "requirements.in"
    req.write_text("TinyReq==2.0\n# a comment\n")
    locked = tmp_path / "in.conda-lock.yml"
    assert envkit_cli("lock", "-p", str(work["prefix"]), "-o", str(locked), "--no-env-lock").exit_code == 0
    explicit = tmp_path / "in-explicit.txt"
    assert envkit_cli("export", "-p", str(work["prefix"]), "-o", str(explicit)).exit_code == 0
    outs = {}
    for src, name in ((spec, "out.yml"), (req, "requirements.txt"), (locked, "out.conda-lock.yml")):
        outs[name] = tmp_path / name
        r = envkit_cli("normalize", str(src), "-o", str(outs[name]))
        assert r.exit_code == 0, r.stderr
    outs["explicit.txt"] = tmp_path / "explicit.txt"
    assert envkit_cli("normalize", str(explicit), "-o", str(outs["explicit.txt"])).exit_code == 0
    conda_dry_run(work, outs["out.yml"])
    assert "tinyreq==2.0" in uv_compiles(work, outs["requirements.txt"])
    assert conda_lock_parser(outs["out.conda-lock.yml"]) == source
    assert conda_creates(work, outs["out.conda-lock.yml"]) == source
    assert conda_creates(work, outs["explicit.txt"]) == source
