"""A hostile conda package fetched over HTTP from a channel (not a local file): its `info/paths.json`
names a file outside the prefix.  py-rattler's linker aborts the whole process on an absolute path
(exit 134, the staging directory left); `create` refuses the package before anything is linked,
whether the archive is a local file, a `file://` URL or a download.  A real `envkit create` process
and a real HTTP server."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

import pytest
from support.condafactory import ChannelBuilder, Pkg
from support.faultprocs import finish, start_envkit
from support.httpchannel import served  # noqa: F401 (the fixture)

pytestmark = pytest.mark.slow


def _lock_of(path: Path, archive: Path, url: str) -> None:
    data = archive.read_bytes()
    name = archive.name.split("-")[0]
    path.write_text(
        "version: 1\nmetadata:\n  content_hash:\n    linux-64: " + "c" * 64 + "\n  channels:\n"
        "  - url: local\n    used_env_vars: []\n  platforms:\n  - linux-64\n  sources:\n"
        f"  - environment.yml\npackage:\n- name: {name}\n  version: '1.0'\n  manager: conda\n"
        f"  platform: linux-64\n  dependencies: {{}}\n  url: {url}\n  hash:\n"
        f"    md5: {hashlib.md5(data).hexdigest()}\n    sha256: {hashlib.sha256(data).hexdigest()}\n"
        "  category: main\n  optional: false\n"
    )


@pytest.mark.parametrize("via", ["http", "file"])
@pytest.mark.parametrize(("name", "inside"), [("abspath", "/{tmp}/escaped"), ("dotdot", "lib/../../escaped")])
def test_a_fetched_package_writing_outside_the_prefix_is_refused(tmp_path, served, via, name, inside):  # noqa: F811
    root, base, _ = served
    path = inside.format(tmp=str(tmp_path).strip("/"))
    chan = ChannelBuilder(root, name="local")
    chan.add(Pkg(name=name, version="1.0", build="h0_0", files={path: "x\n", "lib/ok.txt": "ok\n"}))
    archive = root / "linux-64" / f"{name}-1.0-h0_0.tar.bz2"
    url = f"{base}/linux-64/{archive.name}" if via == "http" else archive.as_uri()
    lock = tmp_path / "conda-lock.yml"
    _lock_of(lock, archive, url)
    cache = tmp_path / "cache"
    cache_env = {"RATTLER_CACHE_DIR": str(cache), "XDG_CACHE_HOME": str(cache)}
    code, out, err = finish(
        start_envkit("create", "--lock", str(lock), "-p", str(tmp_path / "env"), env=cache_env)
    )
    assert (code, out) == (2, ""), err
    assert err == (
        f"error: {lock}:13: {name}=1.0: the package's info/paths.json names {path!r}, outside the "
        "environment; nothing was installed\nhint: the package is malformed or hostile: do not install it\n"
    )
    made = ["cache"] if cache.exists() else []
    assert sorted(os.listdir(tmp_path)) == sorted(["chan", "conda-lock.yml", *made])
    assert not (tmp_path / "escaped").exists() and not Path("/" + path).exists()
