"""Where a pip lock installs, read from its wheels' tags: the platforms and Pythons that every
package has an artifact for (a package with an sdist, or a pure `none-any` wheel, installs anywhere)."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from envkit.model import LockedPackage

#: a wheel platform tag -> the platforms it installs on (OS and machine, as users name them)
_PLATFORM_PATTERNS = (
    (re.compile(r"^manylinux\w*?_(?P<m>x86_64|aarch64|i686|ppc64le|s390x|armv7l|riscv64)$"), "Linux {m}"),
    (re.compile(r"^musllinux_\d+_\d+_(?P<m>\w+)$"), "Linux (musl) {m}"),
    (re.compile(r"^linux_(?P<m>\w+)$"), "Linux {m}"),
    (re.compile(r"^macosx_\d+_\d+_(?P<m>x86_64|arm64)$"), "macOS {m}"),
    (re.compile(r"^win_amd64$"), "Windows x86-64"),
    (re.compile(r"^win_arm64$"), "Windows arm64"),
    (re.compile(r"^win32$"), "Windows x86"),
)


@dataclass(frozen=True, slots=True)
class Reach:
    """The platforms and Pythons (`CPython 3.11`) every package of a lock installs on, with the
    packages that narrow them; None in a field: not narrowed."""

    platforms: frozenset[str] | None
    pythons: frozenset[str] | None
    narrowing: tuple[LockedPackage, ...]


def _platforms_of(tag: str) -> set[str] | None:
    """The platforms of one wheel platform tag; None for `any` (or a tag envkit does not know)."""
    if tag == "any":
        return None
    if tag.startswith("macosx_") and tag.endswith(("_universal2", "_universal")):
        return {"macOS x86_64", "macOS arm64"}
    for pattern, label in _PLATFORM_PATTERNS:
        m = pattern.match(tag)
        if m:
            return {label.format(**m.groupdict())}
    return None


def _python_of(interpreter: str, abi: str) -> str | None:
    """`CPython 3.11` for a `cp311-cp311` wheel; None for a wheel any Python 3 takes (py3, abi3)."""
    m = re.fullmatch(r"cp(\d)(\d+)", interpreter)
    if m is None or abi == "abi3":
        return None
    return f"CPython {m.group(1)}.{m.group(2)}"


def _reach_of(pkg: LockedPackage) -> tuple[set[str] | None, set[str] | None]:
    """(platforms, pythons) one package installs on; None where it is not narrowed."""
    from packaging.tags import parse_tag

    files = ([pkg.url] if pkg.url else []) + [u for u, _ in pkg.other_files]
    if not files or pkg.editable:
        return None, None
    platforms: set[str] = set()
    pythons: set[str] = set()
    any_platform = any_python = False
    for url in files:
        name = url.rsplit("/", 1)[-1].split("#", 1)[0]
        if not name.endswith(".whl"):
            return None, None  # an sdist, an archive, a VCS checkout or a folder builds anywhere
        parts = name[: -len(".whl")].split("-")
        if len(parts) < 5:
            return None, None
        for tag in parse_tag("-".join(parts[-3:])):
            where = _platforms_of(tag.platform)
            any_platform = any_platform or where is None
            platforms |= where or set()
            python = _python_of(tag.interpreter, tag.abi)
            any_python = any_python or python is None
            pythons |= {python} if python else set()
    return (None if any_platform else platforms), (None if any_python else pythons)


def lock_reach(packages: Sequence[LockedPackage]) -> Reach:
    """Where every one of `packages` installs (each package's reach, intersected)."""
    platforms: frozenset[str] | None = None
    pythons: frozenset[str] | None = None
    narrowing = []
    for p in packages:
        where, python = _reach_of(p)
        if where is None and python is None:
            continue
        narrowing.append(p)
        if where is not None:
            platforms = frozenset(where) if platforms is None else platforms & where
        if python is not None:
            pythons = frozenset(python) if pythons is None else pythons & python
    return Reach(platforms=platforms, pythons=pythons, narrowing=tuple(narrowing))
