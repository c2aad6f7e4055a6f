"""`envkit create` keeps the archives it downloads: a second create of the same lock fetches none,
taking each archive from the cache once its hashes match the lock's; a cached archive that does
not match (cut short, altered) is fetched again.  Real `envkit create` processes, a real HTTP server
on 127.0.0.1 that counts the archives it serves, the cache in tmp_path (XDG_CACHE_HOME,
RATTLER_CACHE_DIR)."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest
from support.condafactory import ChannelBuilder, Pkg
from support.faultprocs import finish, start_envkit
from support.httpchannel import served  # noqa: F401 (the fixture)

pytestmark = pytest.mark.slow


def _lock(path: Path, archives: list[Path], base: str) -> None:
    entries = []
    for a in archives:
        data = a.read_bytes()
        name, version, _ = a.name.rsplit("-", 2)
        entries.append(
            f"- name: {name}\n  version: '{version}'\n  manager: conda\n  platform: linux-64\n"
            f"  dependencies: {{}}\n  url: {base}/linux-64/{a.name}\n  hash:\n"
            f"    md5: {hashlib.md5(data).hexdigest()}\n    sha256: {hashlib.sha256(data).hexdigest()}\n"
            "  category: main\n  optional: false\n"
        )
    path.write_text(
        "version: 1\nmetadata:\n  content_hash:\n    linux-64: " + "c" * 64 + "\n  channels:\n"
        "  - url: local\n    used_env_vars: []\n  platforms:\n  - linux-64\n  sources:\n"
        "  - environment.yml\npackage:\n" + "".join(entries)
    )


def _create(tmp_path: Path, lock: Path, prefix: str) -> dict:
    cache = tmp_path / "cache"
    env = {"XDG_CACHE_HOME": str(cache), "RATTLER_CACHE_DIR": str(cache / "rattler"), "HOME": str(tmp_path)}
    code, out, err = finish(
        start_envkit("create", "--lock", str(lock), "-p", str(tmp_path / prefix), env=env)
    )
    assert (code, err) == (0, ""), out
    meta = tmp_path / prefix / "conda-meta"
    return {p.name: json.loads(p.read_text())["url"] for p in sorted(meta.glob("*.json"))}


def test_a_second_create_fetches_no_archive(tmp_path, served):  # noqa: F811
    root, base, fetched = served
    chan = ChannelBuilder(root, name="local")
    chan.add(
        Pkg(name="alpha", version="1.0", build="h0_0", files={"share/alpha.txt": "a\n"}),
        Pkg(name="beta", version="2.0", build="h0_0", files={"share/beta.txt": "b\n"}),
    )
    archives = [root / "linux-64" / "alpha-1.0-h0_0.tar.bz2", root / "linux-64" / "beta-2.0-h0_0.tar.bz2"]
    lock = tmp_path / "conda-lock.yml"
    _lock(lock, archives, base)
    urls = {
        "alpha-1.0-h0_0.json": f"{base}/linux-64/alpha-1.0-h0_0.tar.bz2",
        "beta-2.0-h0_0.json": f"{base}/linux-64/beta-2.0-h0_0.tar.bz2",
    }

    assert _create(tmp_path, lock, "env1") == urls
    assert sorted(fetched) == ["/linux-64/alpha-1.0-h0_0.tar.bz2", "/linux-64/beta-2.0-h0_0.tar.bz2"]

    assert _create(tmp_path, lock, "env2") == urls
    assert len(fetched) == 2  # the second create fetched nothing
    assert (tmp_path / "env2" / "share" / "beta.txt").read_text() == "b\n"

    # a cached archive that no longer matches the lock's hashes is fetched again, and replaced
    sha = hashlib.sha256(archives[1].read_bytes()).hexdigest()
    kept = tmp_path / "cache" / "envkit" / "archives" / sha / "beta-2.0-h0_0.tar.bz2"
    assert kept.read_bytes() == archives[1].read_bytes()
    kept.write_bytes(kept.read_bytes()[:100])
    assert _create(tmp_path, lock, "env3") == urls
    assert fetched[2:] == ["/linux-64/beta-2.0-h0_0.tar.bz2"]
    assert kept.read_bytes() == archives[1].read_bytes()
    assert (tmp_path / "env3" / "share" / "beta.txt").read_text() == "b\n"
