"""A directory served over HTTP on 127.0.0.1 for the length of a test, counting what it serves."""

from __future__ import annotations

import contextlib
import functools
import http.server
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest


@contextlib.contextmanager
def serve(directory: Path) -> Iterator[tuple[str, list[str]]]:
    """(the http:// URL of `directory`, the paths of every GET so far, in order)."""
    served: list[str] = []

    class Handler(http.server.SimpleHTTPRequestHandler):
        def do_GET(self):
            served.append(self.path)
            super().do_GET()

        def log_message(self, *args):
            pass

    server = http.server.ThreadingHTTPServer(
        ("127.0.0.1", 0), functools.partial(Handler, directory=str(directory))
    )
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}", served
    finally:
        server.shutdown()
        server.server_close()


@pytest.fixture
def served(tmp_path):
    """(channel directory tmp_path/chan, its http:// URL on 127.0.0.1, the paths served so far)."""
    root = tmp_path / "chan"
    root.mkdir()
    with serve(root) as (url, paths):
        yield root, url, paths
