"""The test factory itself builds real channels, prefixes and pip installs (tests/support)."""

from __future__ import annotations

import json

import pytest
from support.condafactory import (
    ChannelBuilder,
    Pkg,
    build_wheel,
    copy_prefix,
    large_prefix,
    pip_install,
    pip_overwrite,
    python_pkg,
    site_packages,
    solve,
    write_direct_url,
)

pytestmark = pytest.mark.slow


def test_default_prefix_has_the_solved_records(default_prefix):
    names = sorted(p.name.split("-")[0] for p in (default_prefix / "conda-meta").glob("*.json"))
    assert names == ["ca", "idna", "numpy", "openssl", "pip", "python", "requests", "urllib3", "zlib"]
    rec = json.loads(next((default_prefix / "conda-meta").glob("numpy-*.json")).read_text())
    assert rec["build"] == "py311h64a7726_0"
    assert "lib/python3.11/site-packages/numpy-1.26.4.dist-info/INSTALLER" in rec["files"]
    hist = (default_prefix / "conda-meta" / "history").read_text()
    assert "# update specs: ['python=3.11', 'numpy', 'requests', 'pip']" in hist


def test_virtual_cuda_selects_the_cuda_build(default_channel):
    builds = {
        str(r.name.normalized): str(r.build)
        for r in solve([default_channel], ["pytorch"], virtual={"__cuda": "12.4"})
    }
    assert builds["pytorch"] == "cuda120_py311h0_300"
    builds = {str(r.name.normalized): str(r.build) for r in solve([default_channel], ["pytorch"])}
    assert builds["pytorch"] == "cpu_py311h0_0"


def test_pip_installs_and_direct_url(tmp_path, default_prefix):
    env = copy_prefix(default_prefix, tmp_path / "env")
    whl = build_wheel(tmp_path / "wheels", "tinyreq", "2.0")
    plain = pip_install(env, whl)
    assert (plain / "INSTALLER").read_text().strip() == "pip"
    assert not (plain / "direct_url.json").exists()
    vcs = pip_install(env, build_wheel(tmp_path / "wheels", "fromgit", "0.1"))
    write_direct_url(vcs, "https://github.com/o/fromgit.git", vcs="git", commit="a" * 40)
    assert json.loads((vcs / "direct_url.json").read_text())["vcs_info"]["commit_id"] == "a" * 40


def test_pip_overwrite_removes_the_conda_dist_info(tmp_path, default_prefix):
    env = copy_prefix(default_prefix, tmp_path / "env")
    new = pip_overwrite(env, build_wheel(tmp_path / "wheels", "numpy", "2.0.0"))
    sp = site_packages(env)
    assert new.name == "numpy-2.0.0.dist-info"
    assert not (sp / "numpy-1.26.4.dist-info").exists()
    assert (sp / "numpy" / "__init__.py").read_text() == '__version__ = "2.0.0"\n'
    assert list((env / "conda-meta").glob("numpy-1.26.4-*.json"))


def test_large_prefix_is_readable_by_rattler(tmp_path):
    from rattler import PrefixRecord

    prefix = large_prefix(tmp_path / "big", n=50, pip=3)
    recs = [PrefixRecord.from_path(p) for p in sorted((prefix / "conda-meta").glob("*.json"))]
    assert len(recs) == 50
    assert len(list(site_packages(prefix).glob("pippkg*.dist-info"))) == 3


def test_noarch_generic_and_custom_channel(tmp_path):
    chan = ChannelBuilder(tmp_path / "c", name="mine")
    chan.add(
        Pkg(name="data", version="1.0", noarch="generic", files={"share/data.txt": "x"}),
        python_pkg("py-opencv", "4.9.0", pypi_name="opencv-python"),
    )
    chan.index()
    assert (tmp_path / "c" / "noarch" / "repodata.json").exists()
    recs = solve([chan], ["data"])
    assert [(str(r.name.normalized), str(r.version)) for r in recs] == [("data", "1.0")]
