"""A hostile conda package: its `info/paths.json` names a file outside the prefix.  py-rattler's
linker aborted the process on an absolute path (exit 134, the staging directory left behind);
`create` refuses the package before anything is linked."""

from __future__ import annotations

import hashlib
import os

import pytest
from support.condafactory import ChannelBuilder, Pkg

pytestmark = pytest.mark.slow


def _lock_of(path, archive) -> None:
    data = archive.read_bytes()
    name = archive.name.split("-")[0]
    path.write_text(
        "version: 1\nmetadata:\n  content_hash:\n    linux-64: " + "c" * 64 + "\n  channels:\n"
        "  - url: local\n    used_env_vars: []\n  platforms:\n  - linux-64\n  sources:\n"
        f"  - environment.yml\npackage:\n- name: {name}\n  version: '1.0'\n  manager: conda\n"
        f"  platform: linux-64\n  dependencies: {{}}\n  url: {archive.as_uri()}\n  hash:\n"
        f"    md5: {hashlib.md5(data).hexdigest()}\n    sha256: {hashlib.sha256(data).hexdigest()}\n"
        "  category: main\n  optional: false\n"
    )


@pytest.mark.parametrize(("name", "inside"), [("abspath", "/{tmp}/escaped"), ("dotdot", "lib/../../escaped")])
def test_a_package_writing_outside_the_prefix_is_refused_before_linking(envkit_cli, tmp_path, name, inside):
    path = inside.format(tmp=str(tmp_path).strip("/"))
    chan = ChannelBuilder(tmp_path / "chan", name="local")
    chan.add(Pkg(name=name, version="1.0", build="h0_0", files={path: "x\n", "lib/ok.txt": "ok\n"}))
    lock = tmp_path / "conda-lock.yml"
    _lock_of(lock, tmp_path / "chan" / "linux-64" / f"{name}-1.0-h0_0.tar.bz2")
    r = envkit_cli("create", "--lock", str(lock), "-p", str(tmp_path / "env"))
    assert r.exit_code == 2, r.stderr
    assert r.stderr == (
        f"error: {lock}:13: {name}=1.0: the package's info/paths.json names {path!r}, outside the "
        "environment; nothing was installed\nhint: the package is malformed or hostile: do not install it\n"
    )
    assert sorted(os.listdir(tmp_path)) == ["chan", "conda-lock.yml"]
