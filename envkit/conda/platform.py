"""This machine's conda platform (subdir), and the layout of a prefix on a platform.

Computed from the standard library, not py-rattler, so that commands which only read files need not
load rattler to know where they run.
"""

from __future__ import annotations

import os
import platform as _platform
import sys

#: platform.machine() (lower-cased) -> the architecture part of a conda subdir
_ARCH = {
    "x86_64": "64",
    "amd64": "64",
    "aarch64": "aarch64",
    "arm64": "arm64",
    "ppc64le": "ppc64le",
    "s390x": "s390x",
    "i686": "32",
    "i386": "32",
}


def host_platform() -> str:
    """The conda subdir of this machine (`linux-64`, `osx-arm64`, `win-64`, ...)."""
    machine = _platform.machine().lower()
    arch = _ARCH.get(machine, machine)
    if sys.platform.startswith("linux"):
        return "linux-" + arch
    if sys.platform == "darwin":
        return "osx-" + ("arm64" if arch in ("arm64", "aarch64") else "64")
    if sys.platform.startswith("win"):
        return "win-" + ("arm64" if arch in ("arm64", "aarch64") else arch)
    return sys.platform + "-" + arch


def python_of(prefix: str, platform: str) -> str:
    """The Python executable inside a prefix for `platform`."""
    if platform.startswith("win-"):
        return os.path.join(prefix, "python.exe")
    return os.path.join(prefix, "bin", "python")
