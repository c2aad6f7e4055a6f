"""Nothing `envkit create` leaves behind keeps a credential of the lock's URLs: conda packages
from a channel and a pip package from a URL, both behind a token (`/t/TOKEN/`, `TOKEN@`,
`user:TOKEN@`, `?token=`), served by a real HTTP server; every file of the new environment
(conda-meta records and history, pip's direct_url.json, INSTALLER, RECORD), of its directory's
parent (staging) and of the package cache is searched for the token."""

from __future__ import annotations

import base64
import functools
import hashlib
import http.server
import json
import os
import threading
from dataclasses import replace
from pathlib import Path

import pytest
from support.condafactory import build_wheel, copy_prefix, pip_install

pytestmark = pytest.mark.slow

TOKEN = "tk-0123456789abcdef"


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass

    def translate_path(self, path):
        return super().translate_path(path.split("?", 1)[0])


@pytest.fixture(scope="module")
def served(tmp_path_factory, default_channel, default_prefix):
    """(host:port, the lock of a prefix with a pip package installed from a wheel URL, the
    default channel's URL, the wheel's file URL)."""
    from envkit.backends import open_env
    from envkit.lock import lock_live

    root = tmp_path_factory.mktemp("served")
    src = copy_prefix(default_prefix, root / "src")
    wheel = build_wheel(root / "wheels", "helper", "1.1")
    pip_install(src, wheel, direct=True)
    www = root / "www"
    (www / "t" / TOKEN).mkdir(parents=True)
    for base in (www, www / "t" / TOKEN):
        os.symlink(default_channel.root, base / "local")
        os.symlink(root / "wheels", base / "wheels")
    handler = functools.partial(_QuietHandler, directory=str(www))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"127.0.0.1:{server.server_address[1]}", lock_live(open_env(prefix=str(src))), root
    server.shutdown()
    server.server_close()


def _with_token(url: str, host: str, form: str, local_root: str, base: str) -> str:
    rest = url.replace(local_root, "", 1)
    if form == "path":
        return f"http://{host}/t/{TOKEN}/{base}{rest}"
    if form == "query":
        return f"http://{host}/{base}{rest}?token={TOKEN}"
    userinfo = {"user": f"{TOKEN}@", "userpass": f"user:{TOKEN}@"}[form]
    return f"http://{userinfo}{host}/{base}{rest}"


@pytest.mark.parametrize("form", ["path", "user", "userpass", "query"])
def test_a_created_environment_keeps_no_token(tmp_path, served, default_channel, form):
    from envkit.create import create_from_lock

    host, lock, root = served
    wheels = (root / "wheels").as_uri()
    pkgs = []
    for p in lock.packages:
        if p.manager == "conda" and form != "query":  # a channel takes no query string
            p = replace(p, url=_with_token(p.url, host, form, default_channel.url, "local"))
        elif p.manager == "pip" and p.url and p.url.startswith(wheels):
            p = replace(p, url=_with_token(p.url, host, form, wheels, "wheels"))
        pkgs.append(p)
    assert any(TOKEN in (p.url or "") for p in pkgs if p.manager == "pip")
    target = tmp_path / "env"
    result = create_from_lock(replace(lock, packages=tuple(pkgs)), target, cache_dir=tmp_path / "cache")
    assert result.pip >= 1
    leaks = [
        str(path.relative_to(tmp_path))
        for path in sorted(Path(tmp_path).rglob("*"))
        if path.is_file() and TOKEN.encode() in path.read_bytes()
    ]
    assert leaks == []
    direct = next(target.glob("lib/python*/site-packages/helper-1.1.dist-info/direct_url.json"))
    assert json.loads(direct.read_text())["url"] == f"http://{host}/wheels/helper-1.1-py3-none-any.whl"
    # RECORD says the rewritten file's hash and size, as pip wrote them for the original
    digest = base64.urlsafe_b64encode(hashlib.sha256(direct.read_bytes()).digest()).rstrip(b"=").decode()
    line = f"helper-1.1.dist-info/direct_url.json,sha256={digest},{direct.stat().st_size}"
    assert line in (direct.parent / "RECORD").read_text().splitlines()
