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


#: the architecture part of a conda subdir -> PEP 508's platform_machine (on Linux and macOS)
MACHINE = {
    "64": "x86_64",
    "aarch64": "aarch64",
    "ppc64le": "ppc64le",
    "arm64": "arm64",
    "s390x": "s390x",
    "32": "i686",
    "armv7l": "armv7l",
}


def target_markers(platform: str, python_version: str) -> dict[str, str]:
    """PEP 508 marker values of a conda `platform` running CPython `python_version`."""
    os_part, _, arch = platform.partition("-")
    machine = MACHINE.get(arch, arch)
    xy = ".".join(python_version.split(".")[:2])
    full = python_version if python_version.count(".") >= 2 else f"{xy}.0"
    if os_part == "osx":
        sysp, system, osname = "darwin", "Darwin", "posix"
    elif os_part == "win":
        sysp, system, osname = "win32", "Windows", "nt"
        machine = {"x86_64": "AMD64", "arm64": "ARM64", "i686": "x86"}.get(machine, machine)
    else:
        sysp, system, osname = "linux", "Linux", "posix"
    return {
        "sys_platform": sysp,
        "platform_system": system,
        "os_name": osname,
        "platform_machine": machine,
        "python_version": xy,
        "python_full_version": full,
        "implementation_name": "cpython",
        "implementation_version": full,
        "platform_python_implementation": "CPython",
        "platform_release": "",
        "platform_version": "",
    }
