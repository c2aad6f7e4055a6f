"""The native backend on real prefixes built by tests/support/condafactory."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from conftest import REPO
from support.condafactory import (
    ChannelBuilder,
    build_wheel,
    copy_prefix,
    make_prefix,
    pip_install,
    pip_overwrite,
    put_token_in_zlib_record,
    python_pkg,
    solve,
    write_condarc,
    write_direct_url,
    write_history,
    write_state,
)

from envkit.backends import open_env
from envkit.backends.native import live_env_from_scan, read_prefix
from envkit.backends.prefix_scan import scan
from envkit.conda.history import parse_history
from envkit.errors import EnvironmentNotFound, ParseError, UsageError

pytestmark = pytest.mark.slow


def test_packages_equal_the_solved_set(isolated_conda, default_channel, default_prefix):
    env = read_prefix(default_prefix)
    solved = solve([default_channel], ["python=3.11", "numpy", "requests", "pip"])
    want = sorted((str(r.name.normalized), str(r.version), str(r.build), r.md5.hex()) for r in solved)
    got = sorted((p.name, p.version, p.build, p.md5) for p in env.conda_packages())
    assert got == want
    assert env.platform == "linux-64"
    assert env.python_version == "3.11.8"
    assert env.pip_dists == ()
    assert env.warnings == ()
    assert [d.spec() for d in env.requested] == ["python=3.11", "numpy", "requests", "pip"]
    assert {p.name for p in env.conda_packages() if p.requested} == {"python", "numpy", "requests", "pip"}
    numpy = next(p for p in env.packages if p.name == "numpy")
    assert numpy.channel == default_channel.url
    assert numpy.url == f"{default_channel.url}/linux-64/numpy-1.26.4-py311h64a7726_0.tar.bz2"
    assert ("python", ">=3.11,<3.12.0a0") in numpy.depends
    assert dict(env.pypi_names)["numpy"] == ("numpy",)


def test_pypi_names_come_from_the_dist_info_each_record_owns(tmp_path, isolated_conda):
    chan = ChannelBuilder(tmp_path / "c")
    from support.condafactory import Pkg, python_interpreter_pkg

    chan.add(
        Pkg(name="zlib", version="1.3"),
        Pkg(name="openssl", version="3.0"),
        python_interpreter_pkg("3.11.8"),
        python_pkg("pytorch", "2.2.1", pypi_name="torch"),
        python_pkg("pyyaml", "6.0.1", pypi_name="PyYAML"),
    )
    prefix = make_prefix(tmp_path / "env", [chan], ["pytorch", "pyyaml"])
    env = read_prefix(prefix)
    assert dict(env.pypi_names) == {"pytorch": ("torch",), "pyyaml": ("pyyaml",)}


def test_history_replay_like_conda(tmp_path, isolated_conda, default_channel, default_prefix):
    prefix = copy_prefix(default_prefix, tmp_path / "env")
    write_history(
        prefix,
        [
            {"cmd": "conda install -c conda-forge six", "update_specs": ["conda-forge::six"]},
            {"cmd": "conda install numpy=1.26", "update_specs": ["numpy=1.26"]},
            {"cmd": "conda remove requests", "remove_specs": ["requests"]},
            {"cmd": "conda update --all", "neutered_specs": ["python=3.11.8"]},
        ],
    )
    # six is in the history but not installed: conda drops such specs, and so does envkit
    env = read_prefix(prefix)
    assert [d.spec() for d in env.requested] == ["python=3.11.8", "numpy=1.26", "pip"]


def test_parse_history_old_spec_format_and_channels():
    text = (
        "==> 2017-01-01 00:00:00 <==\n"
        "# cmd: /opt/conda/bin/conda create -n x -c bioconda --channel=conda-forge python>=3.5.1,jupyter "
        ">=1.0.0,<2.0\n"
        "+defaults::python-3.5.1-0\n"
        "# install specs: python>=3.5.1,jupyter >=1.0.0,<2.0,matplotlib >=1.5.1,<2.0\n"
        "==> 2017-01-02 00:00:00 <==\n"
        "# cmd: conda remove matplotlib\n"
        "# remove specs: ['matplotlib']\n"
    )
    got = parse_history(text)
    assert got["requested"] == ["python>=3.5.1", "jupyter >=1.0.0,<2.0"]
    assert got["channels"] == ["bioconda", "conda-forge"]
    assert got["commands"] == 2
    assert got["override_channels"] is False


def test_requested_specs_from_records_when_no_history(tmp_path, isolated_conda, default_prefix):
    prefix = copy_prefix(default_prefix, tmp_path / "env")
    (prefix / "conda-meta" / "history").unlink()
    env = read_prefix(prefix)  # rattler wrote requested_specs into the records it installed
    assert sorted(d.spec() for d in env.requested) == ["numpy", "pip", "python=3.11", "requests"]


def test_channel_priority_order_from_condarc_search_path(
    tmp_path, isolated_conda, default_prefix, monkeypatch
):
    prefix = copy_prefix(default_prefix, tmp_path / "env")
    (prefix / "conda-meta" / "history").unlink()
    write_condarc(isolated_conda / ".condarc", channels=["defaults", "bioconda"], channel_priority="flexible")
    write_condarc(isolated_conda / ".config" / "conda" / "condarc", channels=["defaults", "zeta"])
    write_condarc(prefix / ".condarc", channels=["pytorch", "defaults"])
    rc = write_condarc(tmp_path / "extra.condarc", channels=["conda-forge"], channel_priority="strict")
    monkeypatch.setenv("CONDARC", str(rc))
    env = read_prefix(prefix)
    # highest-priority file first: $CONDARC, the env's own .condarc, ~/.condarc, ~/.config/conda/condarc
    assert [c.name for c in env.channels] == ["conda-forge", "pytorch", "defaults", "bioconda", "zeta"]
    assert env.channel_priority == "strict"
    monkeypatch.setenv("CONDA_CHANNEL_PRIORITY", "disabled")
    assert read_prefix(prefix).channel_priority == "disabled"


def test_history_channels_come_first(tmp_path, isolated_conda, default_prefix):
    prefix = copy_prefix(default_prefix, tmp_path / "env")
    write_condarc(isolated_conda / ".condarc", channels=["defaults"])
    env = read_prefix(prefix)
    assert [c.name for c in env.channels][-1] == "defaults"
    assert env.channels[0].name.startswith("file://")


def test_pip_dists_and_direct_urls(tmp_path, isolated_conda, default_prefix):
    prefix = copy_prefix(default_prefix, tmp_path / "env")
    wheels = tmp_path / "wheels"
    pip_install(prefix, build_wheel(wheels, "tinyreq", "2.0"))
    archive = pip_install(prefix, build_wheel(wheels, "fromurl", "1.0"), direct=True)
    vcs = pip_install(prefix, build_wheel(wheels, "fromgit", "0.1"))
    write_direct_url(vcs, "https://github.com/o/fromgit.git", vcs="git", commit="c" * 40)
    ed = pip_install(prefix, build_wheel(wheels, "mine", "0.3"))
    write_direct_url(ed, "file:///home/me/src/mine", editable=True)
    env = read_prefix(prefix)
    dists = {d.name: d for d in env.pip_dists}
    assert sorted(dists) == ["fromgit", "fromurl", "mine", "tinyreq"]
    assert dists["tinyreq"].installer == "pip" and dists["tinyreq"].url is None
    assert dists["fromurl"].url == (wheels / "fromurl-1.0-py3-none-any.whl").resolve().as_uri()
    assert (
        dists["fromurl"].sha256
        == json.loads((archive / "direct_url.json").read_text())["archive_info"]["hashes"]["sha256"]
    )
    assert (dists["fromgit"].vcs, dists["fromgit"].commit) == ("git", "c" * 40)
    assert dists["mine"].editable is True
    assert [p.name for p in env.pip_packages()] == ["fromgit", "fromurl", "mine", "tinyreq"]


def test_pip_overwriting_a_conda_package_is_a_warning(tmp_path, isolated_conda, default_prefix):
    prefix = copy_prefix(default_prefix, tmp_path / "env")
    pip_overwrite(prefix, build_wheel(tmp_path / "w", "numpy", "2.0.0"))
    env = read_prefix(prefix)
    assert env.warnings == (
        "pip package 'numpy' 2.0.0 overwrote conda package 'numpy' 1.26.4: the conda record's files are "
        "gone (lib/python3.11/site-packages/numpy-1.26.4.dist-info); reinstall one of them so that conda "
        "and pip agree",
    )
    assert [(p.manager, p.version) for p in env.packages if p.name == "numpy"] == [
        ("conda", "1.26.4"),
        ("pip", "2.0.0"),
    ]


def test_corrupt_record_is_an_error_with_its_path(tmp_path, isolated_conda, default_prefix):
    prefix = copy_prefix(default_prefix, tmp_path / "env")
    bad = next((prefix / "conda-meta").glob("idna-*.json"))
    bad.write_text('{"name": "idna", "version": ')
    with pytest.raises(ParseError) as exc:
        read_prefix(prefix)
    assert str(bad) in str(exc.value)
    assert "invalid JSON" in str(exc.value)
    env = read_prefix(prefix, strict=False)
    assert "idna" not in {p.name for p in env.packages}
    assert env.warnings[0].startswith(f"{bad}: skipped unreadable conda package record")
    # its dist-info now has no record; INSTALLER says conda, so it is not taken for pip's
    assert env.warnings[1] == (
        "lib/python3.11/site-packages/idna-3.6.dist-info: installed by conda, but no "
        "conda-meta record owns it (the record was deleted or is unreadable); left out"
    )


def test_state_variables(tmp_path, isolated_conda, default_prefix):
    prefix = copy_prefix(default_prefix, tmp_path / "env")
    write_state(prefix, {"OMP_NUM_THREADS": "4", "A": "b c"})
    assert read_prefix(prefix).variables == (("OMP_NUM_THREADS", "4"), ("A", "b c"))


def test_not_a_prefix(tmp_path, isolated_conda):
    with pytest.raises(EnvironmentNotFound, match="not a conda environment"):
        read_prefix(tmp_path)
    with pytest.raises(EnvironmentNotFound, match="no such environment"):
        read_prefix(tmp_path / "nope")


def test_open_env_usage(isolated_conda, default_prefix, monkeypatch):
    with pytest.raises(UsageError, match="not both"):
        open_env(name="x", prefix="/y")
    with pytest.raises(UsageError, match="none is active"):
        open_env()
    monkeypatch.setenv("CONDA_PREFIX", str(default_prefix))
    assert open_env().prefix == str(default_prefix)
    with pytest.raises(UsageError, match="unknown backend"):
        open_env(prefix=default_prefix, backend="pixi")


def test_standalone_scan_matches_native(tmp_path, isolated_conda, default_prefix):
    """prefix_scan.py runs in an isolated interpreter (-I: no site-packages, no envkit) and its
    JSON maps to exactly the LiveEnv the native reader gives."""
    prefix = copy_prefix(default_prefix, tmp_path / "env")
    pip_install(prefix, build_wheel(tmp_path / "w", "tinyreq", "2.0"))
    script = REPO / "envkit" / "backends" / "prefix_scan.py"
    out = subprocess.run(
        [sys.executable, "-I", str(script), str(prefix), "--home", str(isolated_conda)],
        capture_output=True,
        text=True,
        check=True,
        cwd=tmp_path,
        env={"PATH": "/usr/bin:/bin", "HOME": str(isolated_conda)},
    )
    data = json.loads(out.stdout)
    assert data["scan_version"] == 1
    assert live_env_from_scan(data) == read_prefix(prefix)
    assert scan(prefix)["records"] == data["records"]


def test_standalone_scan_parses_as_python_3_6_and_evaluates_no_annotation():
    """prefix_scan.py is streamed to remote hosts whose python3 may be 3.6: its grammar must be 3.6's,
    and an annotation (evaluated at definition without `from __future__ import annotations`, as
    `str | None` is before 3.10) would fail there as the script loads."""
    import ast

    script = REPO / "envkit" / "backends" / "prefix_scan.py"
    tree = ast.parse(script.read_text(encoding="utf-8"), feature_version=(3, 6))
    annotated = [
        n.lineno
        for n in ast.walk(tree)
        if isinstance(n, ast.AnnAssign)
        or (isinstance(n, ast.arg) and n.annotation is not None)
        or (isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef) and n.returns is not None)
    ]
    assert annotated == []


def test_scan_of_an_unknown_version_is_refused():
    with pytest.raises(ParseError, match="version 99"):
        live_env_from_scan({"scan_version": 99, "prefix": "/x"})


def test_credentials_in_record_urls_are_redacted(tmp_path, isolated_conda, default_prefix):
    prefix = copy_prefix(default_prefix, tmp_path / "env")
    put_token_in_zlib_record(prefix)
    zlib = next(p for p in read_prefix(prefix).packages if p.name == "zlib")
    assert zlib.channel == "private"
    assert zlib.url == "https://conda.anaconda.org/t/<TOKEN>/private/linux-64/zlib-1.3.1-h4ab18f5_1.conda"


def test_egg_info_file_and_directory(tmp_path, isolated_conda, default_prefix):
    prefix = copy_prefix(default_prefix, tmp_path / "env")
    sp = prefix / "lib" / "python3.11" / "site-packages"
    (sp / "oldlib-0.5-py3.11.egg-info").write_text("Metadata-Version: 1.0\nName: oldlib\nVersion: 0.5\n\n")
    (sp / "devlib.egg-info").mkdir()
    (sp / "devlib.egg-info" / "PKG-INFO").write_text(
        "Metadata-Version: 2.1\nName: devlib\nVersion: 1.2.dev0\n"
    )
    dists = {d.name: d.version for d in read_prefix(prefix).pip_dists}
    assert dists == {"oldlib": "0.5", "devlib": "1.2.dev0"}


def test_pip_entry_forms():
    from envkit.backends.live_models import pip_entry
    from envkit.model import PipDist

    assert pip_entry(PipDist(name="a", version="1")).text == "a==1"
    assert (
        pip_entry(
            PipDist(
                name="b", version="1", url="https://github.com/o/b", vcs="git", commit="f" * 8, editable=True
            )
        ).text
        == "-e git+https://github.com/o/b@ffffffff#egg=b"
    )
    assert (
        pip_entry(PipDist(name="c", version="1", url="https://u:p@host/c-1.tar.gz")).text
        == "c @ https://<USER>:<PASSWORD>@host/c-1.tar.gz"
    )
    assert (
        pip_entry(PipDist(name="d", version="1", url="file:///src/my%20d", editable=True)).text
        == "-e /src/my d"
    )


def test_parse_history_applies_a_block_like_conda():
    """conda applies remove, then update, then neutered specs per block, and ignores blocks with
    no `# cmd:` line (History.get_user_requests)."""
    text = (
        "==> 2024-01-01 00:00:00 <==\n"
        "# cmd: conda create -n x python=3.11 numpy\n"
        "# update specs: ['python=3.11', 'numpy']\n"
        "==> 2024-01-02 00:00:00 <==\n"
        "# cmd: conda install numpy=1.26\n"
        "# update specs: ['numpy=1.26']\n"
        "# remove specs: ['numpy']\n"
        "==> 2024-01-03 00:00:00 <==\n"
        "+conda-forge/linux-64::scipy-1.12.0-py311h0_0\n"
        "# update specs: ['scipy']\n"
        "==> 2024-01-04 00:00:00 <==\n"
        "# cmd: conda update --all\n"
        "# neutered specs: ['python=3.11.8']\n"
        "# update specs: ['python']\n"
    )
    assert parse_history(text)["requested"] == ["python=3.11.8", "numpy=1.26"]


def test_spec_name_gets_past_url_channels():
    from envkit.conda.history import spec_name

    assert [
        spec_name(s)
        for s in (
            "file:///tmp/w/local::zlib",
            "https://conda.anaconda.org/t/tk-1/private::zlib>=1.3",
            "https://[::1]:8080/c/linux-64::six 1.*",
            "conda-forge/linux-64::numpy=1",
            " pkgs/main::python=3.11",
            "numpy>=1",
            "zlib[build=x::y]",
            "defaults::python[version='>=3']",
            "Pillow",
        )
    ] == ["zlib", "zlib", "six", "numpy", "python", "numpy", "zlib", "python", "pillow"]


def test_vcs_pip_package_url_is_pip_installable_with_its_commit(tmp_path, isolated_conda, default_prefix):
    # direct_url.json keeps the repository URL and the commit apart; the package's URL joins them
    prefix = copy_prefix(default_prefix, tmp_path / "env")
    d = pip_install(prefix, build_wheel(tmp_path / "w", "mylib", "0.3"), direct=True)
    commit = "3f1c0a9d0e7b6f2a1c4d5e6f7a8b9c0d1e2f3a4b"
    write_direct_url(d, "https://github.com/me/mylib.git", vcs="git", commit=commit)
    env = read_prefix(prefix)
    [pkg] = env.pip_packages()
    assert pkg.url == f"git+https://github.com/me/mylib.git@{commit}"
    assert env.pip_dists[0].url == "https://github.com/me/mylib.git"  # PipDist keeps direct_url.json's url


def test_pip_reinstall_of_the_same_version_over_conda_is_pip_installed_over_conda(
    tmp_path, isolated_conda, default_prefix
):
    # `pip install --force-reinstall numpy==1.26.4` over conda's numpy 1.26.4: the dist-info keeps its
    # name (the conda record still lists it) but pip rewrote it, INSTALLER included
    prefix = copy_prefix(default_prefix, tmp_path / "env")
    pip_install(prefix, build_wheel(tmp_path / "w", "numpy", "1.26.4"))
    dist = "lib/python3.11/site-packages/numpy-1.26.4.dist-info"
    assert (prefix / dist / "INSTALLER").read_text() == "pip\n"
    env = read_prefix(prefix)
    assert env.warnings == (
        "pip package 'numpy' 1.26.4 overwrote conda package 'numpy' 1.26.4: pip reinstalled it over the "
        "conda "
        f"record's files ({dist} now says INSTALLER pip); reinstall one of them so that conda and pip agree",
    )
    assert [(p.name, p.version) for p in env.pip_packages()] == [("numpy", "1.26.4")]
    assert [(d.name, d.installer, d.path) for d in env.pip_dists] == [("numpy", "pip", dist)]
    assert "numpy" in [p.name for p in env.conda_packages()]  # the record stays, as conda sees it
    # an untouched copy: conda's own dist-infos are conda's
    assert read_prefix(default_prefix).warnings == () and read_prefix(default_prefix).pip_packages() == ()


def test_reinstalled_over_conda_compares_installer_with_the_record(tmp_path):
    from envkit.backends.prefix_scan import reinstalled_over_conda

    d = tmp_path / "site" / "x-1.dist-info"
    d.mkdir(parents=True)
    (d / "INSTALLER").write_text("pip\n")
    import hashlib

    same = hashlib.sha256(b"pip\n").hexdigest()
    rel = "site/x-1.dist-info"
    # the package itself shipped INSTALLER=pip (some builds do): the record's hash matches, conda's
    assert reinstalled_over_conda(str(tmp_path), rel, {"listed": True, "sha256": same}) is False
    assert reinstalled_over_conda(str(tmp_path), rel, {"listed": True, "sha256": "0" * 64}) is True
    assert reinstalled_over_conda(str(tmp_path), rel, {"listed": False, "sha256": None}) is True
    assert reinstalled_over_conda(str(tmp_path), rel, {"listed": True, "sha256": None}) is True
    (d / "INSTALLER").write_text("conda\n")
    assert reinstalled_over_conda(str(tmp_path), rel, {"listed": True, "sha256": "0" * 64}) is False
    (d / "INSTALLER").unlink()
    assert reinstalled_over_conda(str(tmp_path), rel, {"listed": False, "sha256": None}) is False
