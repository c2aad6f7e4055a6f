"""Small helpers on locked package records: a depends entry's parts, the lock's package order."""

from __future__ import annotations

import re
from collections.abc import Iterable

from envkit.model import LockedPackage

_DEP = re.compile(r"^\s*(?P<name>[A-Za-z0-9_.\-]+)\s*(?P<rest>.*?)\s*$")


def split_depend(text: str) -> tuple[str, str]:
    """`"python >=3.11,<3.12.0a0"` -> `("python", ">=3.11,<3.12.0a0")`; a bare name gets `""`."""
    m = _DEP.match(text)
    if not m:
        return (text.strip(), "")
    return (m.group("name"), m.group("rest"))


def _sort_key(pkg: LockedPackage) -> tuple:
    return (
        pkg.platform or "",
        0 if pkg.manager == "conda" else 1,
        pkg.name.lower(),
        pkg.version,
        pkg.build or "",
        pkg.url or "",
    )


def sort_packages(packages: Iterable[LockedPackage]) -> tuple[LockedPackage, ...]:
    """Packages in lock order: platform, conda before pip, then name (a new tuple; input untouched)."""
    return tuple(sorted(packages, key=_sort_key))
