"""The layout of a prefix on a conda platform, and a platform's PEP 508 marker values.

This machine's own platform is `envkit.backends.prefix_scan.host_platform` (the standalone scan
script answers it remotely too, so it is computed there once).
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from packaging.markers import Marker


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


def marker_holds(marker: str | Marker, env: Mapping[str, str], extras: Iterable[str] = ("",)) -> bool:
    """Whether the PEP 508 `marker` holds in `env` (target_markers) for one of `extras` ("": none
    asked for, as pip evaluates a requirement outside an extra).  A marker that cannot be judged
    holds, so its entry is checked rather than silently skipped: unreadable, or naming a variable
    only a lock file sets (PEP 751's `extras`, `dependency_groups`)."""
    from packaging.markers import InvalidMarker, Marker, UndefinedComparison, UndefinedEnvironmentName

    try:
        m = marker if isinstance(marker, Marker) else Marker(marker)
        return any(m.evaluate({**env, "extra": x}) for x in extras)
    except (InvalidMarker, UndefinedComparison, UndefinedEnvironmentName):
        return True


def marker_text(marker: str | None) -> str:
    """A PEP 508 marker in packaging's normal form, for comparing (`python_version>'3.8'` and
    `python_version > "3.8"` are one marker); "" for none; an unreadable one as written, stripped."""
    from packaging.markers import InvalidMarker, Marker

    if not marker or not marker.strip():
        return ""
    try:
        return str(Marker(marker))
    except InvalidMarker:
        return marker.strip()


#: the glibc version each legacy manylinux tag stands for (PEP 600)
LEGACY_MANYLINUX = {"manylinux1": (2, 5), "manylinux2010": (2, 12), "manylinux2014": (2, 17)}
_FLOOR_TAG = re.compile(r"^(?P<kind>manylinux|macosx)_(?P<a>\d+)_(?P<b>\d+)_")


def wheel_tag_floor(tag: str) -> tuple[str, tuple[int, int]] | None:
    """("manylinux", glibc) or ("macosx", macOS version) that one wheel platform tag needs
    (`manylinux_2_28_x86_64` -> glibc 2.28, `manylinux2014_ppc64le` -> 2.17, `macosx_11_0_arm64`
    -> 11.0); None for a tag that sets no floor (`any`, `musllinux_*` (musl, not glibc), `win_*`)."""
    legacy = LEGACY_MANYLINUX.get(tag.split("_", 1)[0])
    if legacy is not None and "_" in tag:
        return "manylinux", legacy
    m = _FLOOR_TAG.match(tag)
    return (m.group("kind"), (int(m.group("a")), int(m.group("b")))) if m else None
