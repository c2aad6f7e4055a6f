"""Conda channels: canonical names, base URLs, credentials removed.

Canonicalisation follows conda: `https://conda.anaconda.org/conda-forge/` and `conda-forge` are the
same channel; a trailing platform subdir (`.../conda-forge/linux-64`) is not part of the channel;
`https://repo.anaconda.com/pkgs/main` is `pkgs/main`, one of the `defaults` channels.
Order is never changed here: a channel list is a priority list.
"""

from __future__ import annotations

import re
from functools import lru_cache

from envkit.model import Channel
from envkit.urls import SCHEME_PREFIX, has_placeholder, redact_url, strip_credentials

ANACONDA_ORG = "https://conda.anaconda.org"
REPO_ANACONDA = "https://repo.anaconda.com"

#: `defaults` and the names that mean (part of) it.
DEFAULTS_NAMES = frozenset(
    {
        "defaults",
        "main",
        "anaconda",
        "r",
        "msys2",
        "free",
        "pro",
        "pkgs/main",
        "pkgs/r",
        "pkgs/msys2",
        "pkgs/free",
        "pkgs/pro",
    }
)

KNOWN_SUBDIRS = frozenset(
    {
        "noarch",
        "linux-64",
        "linux-32",
        "linux-aarch64",
        "linux-armv6l",
        "linux-armv7l",
        "linux-ppc64le",
        "linux-ppc64",
        "linux-s390x",
        "linux-riscv64",
        "osx-64",
        "osx-arm64",
        "win-64",
        "win-32",
        "win-arm64",
        "emscripten-wasm32",
        "wasi-wasm32",
        "zos-z",
    }
)


def is_platform(subdir: str) -> bool:
    """Whether `subdir` is a conda platform: a known subdir other than noarch."""
    return subdir in KNOWN_SUBDIRS and subdir != "noarch"


@lru_cache(maxsize=4096)
def parse_channel(text: str) -> Channel:
    """Parse a channel as written in a file, a .condarc, a match spec or a package URL's base.

    Returns a Channel whose `name` is canonical and free of credentials.
    """
    raw = text.strip()
    redacted, had = redact_url(raw)
    # an already redacted URL (`/t/<TOKEN>/`) still stands for a channel that needs credentials
    had = had or has_placeholder(raw)
    if raw in ("defaults", "nodefaults"):
        return Channel(name=raw)
    if not SCHEME_PREFIX.match(raw):
        # a name like conda-forge or nvidia/label/cuda-11.7.0, possibly with a subdir on the end
        name = _strip_subdir(raw.strip("/"))
        if name.startswith("pkgs/"):
            return Channel(name=name, url=f"{REPO_ANACONDA}/{name}")
        return Channel(name=name, url=f"{ANACONDA_ORG}/{name}")
    base = _strip_subdir(strip_credentials(raw).rstrip("/"))
    for host in (
        ANACONDA_ORG,
        "http://conda.anaconda.org",
        "https://anaconda.org",
        "https://conda.anaconda.org/conda.anaconda.org",
    ):
        if base.startswith(host + "/"):
            name = base[len(host) + 1 :]
            written = _written_url(redacted, name)
            return Channel(name=name, url=f"{ANACONDA_ORG}/{name}", had_credentials=had, redacted_url=written)
    written = _written_url(redacted)
    if base.startswith(REPO_ANACONDA + "/"):
        name = base[len(REPO_ANACONDA) + 1 :]
        return Channel(name=name, url=base, had_credentials=had, redacted_url=written)
    return Channel(name=base, url=base, had_credentials=had, redacted_url=written)


_ANACONDA_CREDENTIALS = (
    r"^[A-Za-z][A-Za-z0-9+.-]*://(?:(?P<user>[^/@\s]+)@)?[^/]+(?:/conda\.anaconda\.org)?"
    r"(?:/t/(?P<token>[^/\s]+)(?=/))?"
)


def _written_url(redacted: str, anaconda_name: str | None = None) -> str:
    """The base URL to write back for a channel URL whose credentials are already redacted: the
    credentials where they were, the subdir and trailing slash gone; "" when the URL carries none.
    anaconda.org channels (`anaconda_name`) are written on conda.anaconda.org, as conda does."""
    if strip_credentials(redacted) == redacted:
        return ""
    path, sep, query = redacted.partition("?")
    tail = f"?{query}" if sep else ""
    if anaconda_name is None:
        return _strip_subdir(path.rstrip("/")) + tail
    m = re.match(_ANACONDA_CREDENTIALS, path)
    user = f"{m.group('user')}@" if m and m.group("user") else ""
    token = f"/t/{m.group('token')}" if m and m.group("token") else ""
    return f"https://{user}{ANACONDA_ORG[len('https://') :]}{token}/{anaconda_name}{tail}"


def _strip_subdir(path: str) -> str:
    head, _, last = path.rpartition("/")
    if head and last in KNOWN_SUBDIRS:
        return head
    return path


def is_defaults(name: str) -> bool:
    """True for `defaults` and the channels it stands for (main, r, msys2, anaconda, pkgs/*)."""
    return name in DEFAULTS_NAMES or name.startswith("pkgs/")


def channel_of_url(url: str) -> tuple[Channel, str | None]:
    """Split a package URL (`.../conda-forge/linux-64/numpy-1.26.4-....conda`) into its channel and
    subdir."""
    clean = strip_credentials(url)
    base, _, _fn = clean.rpartition("/")
    head, _, subdir = base.rpartition("/")
    if subdir in KNOWN_SUBDIRS:
        return parse_channel(head), subdir
    return parse_channel(base), None
