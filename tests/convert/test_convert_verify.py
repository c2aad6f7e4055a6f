"""`envkit convert` proves itself: it reads its output back and diffs it against the source; what
gets installed differently exits 1 (unless --allow-loss), what the target cannot hold by definition is
a note (exit 0).  On real files: uv.lock forks (pallets/markupsafe, pallets/click), a pixi.lock with
same-name depends (prefix-dev/pixi), a pip-written pylock.toml with its version-less project
(cal-itp/benefits), a prefix.dev channel, a file:// channel."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import tomllib
from conftest import CORPUS, run_envkit

HERE = Path(__file__).parent
CONDA_LOCK = CORPUS / "51_Cecca__repro-course-ci__conda-lock.yml"
MARKUPSAFE_UV = CORPUS / "81_pallets__markupsafe__uv.lock"
CLICK_UV = CORPUS / "82_pallets__click__uv.lock"
PIXI_DUP_DEPENDS = CORPUS / "79_prefix-dev__pixi__pixi.lock"
PREFIX_DEV = CORPUS / "66_prefix-dev__pixi__pixi.lock"
EXPLICIT = CORPUS / "48_Cecca__repro-course-ci__conda-linux-64.lock"


def _convert(*args: str):
    r = run_envkit("convert", *args, "--format", "json")
    return r, json.loads(r.stdout) if r.stdout.startswith("{") else None


def test_conda_lock_to_explicit_is_conda_lock_render_exit_0_with_notes(tmp_path):
    """`conda-lock render -k explicit` done by envkit: depends and channel order are notes."""
    from envkit.formats import read_file

    src = read_file(CONDA_LOCK)
    with_deps = [p for p in src.for_platform("linux-64") if p.depends]
    out = tmp_path / "x.lock"
    r, doc = _convert(str(CONDA_LOCK), "-o", str(out), "--platform", "linux-64")
    assert r.exit_code == 0, r.stderr
    assert (doc["verified"], doc["losses"], doc["changes_install"]) == (True, [], [])
    assert doc["lossless"] is False
    notes = {n["feature"]: n for n in doc["notes"]}
    assert list(notes) == ["depends", "channels"]
    assert notes["depends"]["count"] == len(with_deps) == 37
    assert (notes["channels"]["count"], notes["channels"]["packages"]) == (1, ["conda-forge"])
    assert r.stderr.splitlines() == [
        f"note: writing an explicit file (@EXPLICIT) (explicit): the name {out} says so; "
        "--to chooses another",
        "note: only linux-64 written; left out: osx-64, osx-arm64, win-64",
        "note: explicit cannot hold dependencies (_openmp_mutex==4.5, bzip2==1.0.8, joblib==1.4.2, "
        "libblas==3.9.0, libcblas==3.9.0, ... (37 in all)): installs the same",
        "note: explicit cannot hold channel order (conda-forge): installs the same",
    ]


def test_a_user_who_passed_allow_loss_is_not_told_to_pass_it(tmp_path):
    out = tmp_path / "pylock.toml"
    r = run_envkit("convert", str(CONDA_LOCK), "-o", str(out), "--platform", "linux-64")
    assert r.exit_code == 1
    assert r.stderr.splitlines()[-1] == (
        f"warning: {CONDA_LOCK} -> {out} changes what gets installed; pass --allow-loss to accept it"
    )
    r, doc = _convert(str(CONDA_LOCK), "-o", str(out), "--platform", "linux-64", "--allow-loss")
    assert r.exit_code == 0
    assert "pass --allow-loss" not in r.stderr
    assert r.stderr.splitlines()[-1] == (
        f"note: {CONDA_LOCK} -> {out} changes what gets installed (accepted: --allow-loss)"
    )
    # the read-back diff: every conda package of linux-64 is gone, counted once each
    removed = sorted(c["name"] for c in doc["changes_install"])
    assert [c["kind"] for c in doc["changes_install"]] == ["removed"] * 42
    assert removed[:3] == ["_libgcc_mutex", "_openmp_mutex", "bzip2"]
    assert f"read back differs from {CONDA_LOCK} in 42 package(s): removed 42: " in r.stderr


# --- uv.lock forks: one name, one version per Python ----------------------------------------------

#: each forked package's `resolution-markers`, joined with `or`
_NEW = "python_full_version >= '3.11'"  # as `uv export` writes it (the edge's marker)
FORKS = {
    MARKUPSAFE_UV: {"sphinx==8.1.3 ; python_full_version < '3.11'", f"sphinx==8.2.3 ; {_NEW}"},
    CLICK_UV: {
        "sphinx==8.1.3 ; python_full_version < '3.11'",
        f"sphinx==8.2.3 ; {_NEW}",
        "sphinx-autobuild==2024.10.3 ; python_full_version < '3.11'",
        f"sphinx-autobuild==2025.8.25 ; {_NEW}",
    },
}


def _forked(pins: set[str]) -> set[str]:
    return {p for p in pins if " ; " in p and p.split("==")[0] in ("sphinx", "sphinx-autobuild")}


def _pins(text: str) -> set[str]:
    return {ln.rstrip(" \\") for ln in text.splitlines() if ln.startswith("sphinx")}


@pytest.mark.parametrize("src", sorted(FORKS), ids=lambda p: p.name.split("_")[0])
def test_uv_lock_forks_to_requirements_keep_the_markers(src, tmp_path):
    out = tmp_path / "requirements.txt"
    r, doc = _convert(str(src), "-o", str(out), "--all-groups")  # sphinx is in the `docs` group
    assert r.exit_code == 0, r.stderr
    assert (doc["verified"], doc["losses"], doc["changes_install"]) == (True, [], [])
    assert [n["feature"] for n in doc["notes"]] == ["pip-urls", "depends"]
    assert _forked(_pins(out.read_text())) == FORKS[src]


@pytest.mark.parametrize("src", sorted(FORKS), ids=lambda p: p.name.split("_")[0])
def test_uv_lock_forks_to_pylock_keep_the_markers(src, tmp_path):
    from packaging.pylock import Pylock

    out = tmp_path / "pylock.toml"
    r, doc = _convert(str(src), "-o", str(out), "--all-groups")
    assert r.exit_code == 0, r.stderr
    assert (doc["lossless"], doc["verified"]) == (True, True)
    data = tomllib.loads(out.read_text())
    Pylock.from_dict(data)  # packaging's PEP 751 validation
    got = {f"{p['name']}=={p['version']} ; {p['marker']}" for p in data["packages"] if "marker" in p}
    assert _forked(got) == FORKS[src]


def test_uv_lock_forks_to_a_one_version_target_are_refused(tmp_path):
    r = run_envkit(
        "convert",
        str(CLICK_UV),
        "-o",
        str(tmp_path / "conda-lock.yml"),
        "--platform",
        "linux-64",
        "--all-groups",
    )
    assert r.exit_code == 2
    assert r.stderr == (
        "error: the lock installs sphinx, sphinx-autobuild at several versions, one per environment "
        "marker (a resolution forked by Python version); conda-lock holds one version per name and no "
        "markers\nhint: convert to requirements or pylock, which keep the markers\n"
    )


# --- pixi.lock with same-name depends --------------------------------------------------------------


def test_pixi_lock_same_name_depends_survive_conda_lock(tmp_path):
    """prefix-dev/pixi's lock lists `python >=3.10` beside `python` (and similar) for one package;
    conda-lock.yml holds a mapping, one spec per name: the read-back diff finds no rebuilt package
    (it found 10 when envkit's diff compared the two spellings), only the editable install
    conda-lock.yml cannot hold."""
    from envkit.formats import read_file

    src = read_file(PIXI_DUP_DEPENDS)
    dup = [p for p in src.packages if len({n for n, _ in p.depends}) < len(p.depends)]
    assert len(dup) == 33
    out = tmp_path / "conda-lock.yml"
    r, doc = _convert(str(PIXI_DUP_DEPENDS), "-o", str(out), "--allow-loss", "--env", "default")
    assert r.exit_code == 0
    assert {(c["name"], c["kind"]) for c in doc["changes_install"]} == {("docker-project", "source")}
    assert [x["feature"] for x in doc["losses"]] == ["editable"]
    for plat in src.platforms:
        d = json.loads(
            run_envkit("diff", str(PIXI_DUP_DEPENDS), str(out), "--platform", plat, "--format", "json").stdout
        )
        assert [(c["name"], c["kind"]) for c in d["changes"]] == [("docker-project", "source")], plat


# --- pylock.toml: the version-less project pip writes ----------------------------------------------

#: what `pip lock .` writes for the project itself, as cal-itp/benefits' bin/dependencies.sh spells
#: it (the script removes it; the blank lines left behind show where it was)
BENEFITS_STANZA = '[[packages]]\nname = "benefits"\n\n[packages.directory]\npath = "."'


def test_pylock_to_pylock_keeps_a_version_less_directory_package(tmp_path):
    from packaging.pylock import Pylock

    text = (HERE / "data" / "cal-itp__benefits__pylock.toml").read_text()
    assert text.count("\n\n\n\n") == 1
    src = tmp_path / "pylock.toml"
    src.write_text(text.replace("\n\n\n\n", f"\n\n{BENEFITS_STANZA}\n\n", 1))
    out = tmp_path / "out" / "pylock.toml"
    out.parent.mkdir()
    r, doc = _convert(str(src), "-o", str(out))
    assert r.exit_code == 0, r.stderr
    assert (doc["lossless"], doc["verified"]) == (True, True)
    written = out.read_text()
    assert '[[packages]]\nname = "benefits"\n[packages.directory]\npath = "."\n' in written
    Pylock.from_dict(tomllib.loads(written))
    assert len(tomllib.loads(written)["packages"]) == len(tomllib.loads(src.read_text())["packages"]) == 50


# --- conda list --export of channels not on anaconda.org -------------------------------------------


def test_conda_list_export_of_a_prefix_dev_channel(tmp_path):
    """A pixi.lock of https://prefix.dev/conda-forge: `channel::name=version=build` with the channel
    URL (conda's MatchSpec splits at the last `::`); only pixi's source package is left out."""
    out = tmp_path / "list.txt"
    r, doc = _convert(str(PREFIX_DEV), "-o", str(out), "--to", "conda-list-export", "--platform", "linux-64")
    assert r.exit_code == 1, r.stderr
    assert "version" not in r.stderr.split("warning: conda-list-export cannot hold")[0]
    assert [(x["feature"], x["packages"]) for x in doc["losses"]] == [
        ("conda-no-url", ["sdl_example==0.1.0"])
    ]
    assert [(c["name"], c["kind"]) for c in doc["changes_install"]] == [("sdl_example", "removed")]
    lines = out.read_text().splitlines()
    assert lines[lines.index("# platform: linux-64") + 1].startswith(
        "https://prefix.dev/conda-forge::_libgcc_mutex=0.1="
    )
    assert all(ln.startswith("https://prefix.dev/conda-forge::") for ln in lines if not ln.startswith("#"))


@pytest.mark.parametrize(
    "channel",
    [
        "https://artifactory.example.com/artifactory/api/conda/conda-forge",
        "https://nexus.example.com:8443/repository/conda-proxy",
        "file:///srv/channels/local",
    ],
)
def test_conda_list_export_round_trips_any_channel_url(channel, tmp_path):
    text = EXPLICIT.read_text().replace("https://conda.anaconda.org/conda-forge", channel)
    src = tmp_path / "explicit.lock"
    src.write_text(text)
    out = tmp_path / "list.txt"
    r, doc = _convert(str(src), "-o", str(out), "--to", "conda-list-export")
    assert r.exit_code == 0, r.stderr
    assert doc["changes_install"] == []
    conda = [ln for ln in out.read_text().splitlines() if not ln.startswith("#") and "=pypi_0" not in ln]
    assert len(conda) == 42 and all(ln.startswith(f"{channel}::") for ln in conda)


# --- pixi.lock of a file:// channel, read by py-rattler --------------------------------------------


@pytest.mark.parametrize("target", ["pixi", "pixi-v7"])
def test_py_rattler_reads_a_pixi_lock_of_a_file_channel(target, tmp_path):
    from rattler import LockFile

    chan = (tmp_path / "channel").as_uri()
    src = tmp_path / "explicit.lock"
    src.write_text(EXPLICIT.read_text().replace("https://conda.anaconda.org/conda-forge", chan))
    out = tmp_path / "pixi.lock"
    r, doc = _convert(str(src), "-o", str(out), "--to", target)
    assert (r.exit_code, doc["changes_install"]) == (0, []), r.stderr
    env = LockFile.from_path(out).default_environment()
    pkgs = env.conda_repodata_records_for_platform(env.platforms()[0])
    assert len(pkgs) == len(_explicit_urls(src)) == 42
    assert {p.subdir for p in pkgs} == {"linux-64", "noarch"}
    assert all(str(p.url).startswith(chan) for p in pkgs)


def _explicit_urls(path: Path) -> list[str]:
    return [ln for ln in path.read_text().splitlines() if "://" in ln and not ln.startswith("#")]


def test_a_pip_wheel_by_file_url_converts_to_explicit_without_a_false_loss(tmp_path):
    """A local wheel (`file:///.../tinyreq-2.0-py3-none-any.whl`) names its version: the explicit
    file's `# pip NAME @ URL` line installs the same, and nothing is reported dropped (a directory,
    which names none, still is: test_loss_table_cells_hold_on_real_conversions)."""
    from envkit.formats.condalock import write_conda_lock
    from envkit.model import Lock, LockedPackage

    cf = "https://conda.anaconda.org/conda-forge/linux-64"
    wheel = "file:///work/wheels/tinyreq-2.0-py3-none-any.whl"
    pkgs = (
        LockedPackage(
            manager="conda",
            name="python",
            version="3.12.5",
            build="h2ad013b_0",
            platform="linux-64",
            url=f"{cf}/python-3.12.5-h2ad013b_0.conda",
            md5="a" * 32,
            sha256="b" * 64,
            subdir="linux-64",
        ),
        LockedPackage(
            manager="pip", name="tinyreq", version="2.0", platform="linux-64", url=wheel, sha256="c" * 64
        ),
    )
    src = tmp_path / "conda-lock.yml"
    src.write_text(write_conda_lock(Lock(kind="conda-lock", platforms=("linux-64",), packages=pkgs)))
    out = tmp_path / "explicit.txt"
    r = run_envkit("convert", str(src), "-o", str(out), "--to", "explicit")
    assert (r.exit_code, r.stderr) == (0, "")
    assert out.read_text().splitlines()[-1] == f"# pip tinyreq @ {wheel}#sha256={'c' * 64}"
