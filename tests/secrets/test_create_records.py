"""`envkit create` from a lock whose URLs carry credentials (a token path `/t/TOKEN/`, a
`user:password@` or `TOKEN@` user part): the packages are fetched with them, and the
environment's conda-meta records keep none, as conda writes them."""

from __future__ import annotations

import functools
import http.server
import json
import os
import threading
from dataclasses import replace

import pytest

pytestmark = pytest.mark.slow

TOKEN = "tk-0123456789abcdef"


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


@pytest.fixture
def served_channel(tmp_path, default_channel):
    """The default channel over HTTP, also under `/t/TOKEN/` (anaconda.org's token path)."""
    root = tmp_path / "www"
    (root / "t" / TOKEN).mkdir(parents=True)
    os.symlink(default_channel.root, root / "t" / TOKEN / "local")
    os.symlink(default_channel.root, root / "local")
    handler = functools.partial(_QuietHandler, directory=str(root))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


@pytest.mark.parametrize(
    "base",
    [
        f"http://{{host}}/t/{TOKEN}/local",
        f"http://{TOKEN}@{{host}}/local",
        f"http://user:{TOKEN}@{{host}}/local",
    ],
)
def test_created_records_hold_no_credentials(tmp_path, default_channel, default_prefix, served_channel, base):
    from envkit.backends import open_env
    from envkit.create import create_from_lock
    from envkit.lock import lock_live

    lock = lock_live(open_env(prefix=str(default_prefix)))
    chan = base.format(host=served_channel)
    pkgs = tuple(
        replace(p, url=p.url.replace(default_channel.url, chan))
        for p in lock.packages
        if p.manager == "conda"
    )
    target = tmp_path / "env"
    create_from_lock(replace(lock, packages=pkgs), target, cache_dir=tmp_path / "cache")
    records = sorted((target / "conda-meta").glob("*.json"))
    assert len(records) == len(pkgs)
    texts = [r.read_text() for r in records]
    assert [t for t in texts if TOKEN in t] == []
    zlib = json.loads(next(t for t in texts if '"name": "zlib"' in t))
    plain = f"http://{served_channel}/local"
    assert zlib["url"].startswith(f"{plain}/linux-64/zlib-")
    assert zlib["channel"] == f"{plain}/"
    assert TOKEN not in (target / "conda-meta" / "history").read_text()
