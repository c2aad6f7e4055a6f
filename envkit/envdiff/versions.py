"""Version order: conda's (py-rattler) for conda packages, PEP 440 for pip packages."""

from __future__ import annotations

import re
from functools import lru_cache

from envkit.conda.versions import minor_text


@lru_cache(maxsize=65536)
def _conda_version(text: str):
    from rattler import Version

    try:
        return Version(text)
    except Exception:  # rattler raises its own error type for an invalid version
        return None


@lru_cache(maxsize=65536)
def _pep440(text: str):
    from packaging.version import InvalidVersion, Version

    try:
        return Version(text)
    except InvalidVersion:
        return None


def compare_versions(a: str, b: str, manager: str = "conda") -> int | None:
    """-1, 0 or 1 comparing version `a` with `b` (conda order via py-rattler for conda packages, PEP
    440 for pip packages, each falling back to the other); None when neither can order them."""
    if a == b:
        return 0
    order = (_pep440, _conda_version) if manager == "pip" else (_conda_version, _pep440)
    for parse in order:
        va, vb = parse(a), parse(b)
        if va is not None and vb is not None:
            return (va > vb) - (va < vb)
    return None


def _split_local(version: str) -> tuple[str, str]:
    public, _, local = version.partition("+")
    return public, local


def _major_minor(version: str) -> str:
    """The major.minor a diff shows (envkit.conda.versions); a version without a minor is shown
    whole (a build's `cuda11` says CUDA 11, not 11.0)."""
    return minor_text(version) or version


def _major(version: str) -> str:
    return re.split(r"[.+_-]", version)[0]
