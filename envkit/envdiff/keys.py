"""How packages are matched across the sides: (manager, canonical name) keys and channel names."""

from __future__ import annotations

from collections.abc import Iterable
from functools import lru_cache

from envkit.model import LockedPackage, pep503


def _chan_names(channels) -> tuple[str, ...]:
    return tuple(dict.fromkeys(str(c) for c in channels))


def _key(p: LockedPackage) -> tuple[str, str]:
    if p.manager == "pip":
        return ("pip", _pep503(p.name))
    return ("conda", p.name.lower())


_pep503 = lru_cache(maxsize=65536)(pep503)


def _index(pkgs: Iterable[LockedPackage]) -> dict[tuple[str, str], LockedPackage]:
    out: dict[tuple[str, str], LockedPackage] = {}
    for p in pkgs:
        # _key inlined: a call per package is a third of this loop on a 30,000-package lock
        k = ("pip", _pep503(p.name)) if p.manager == "pip" else ("conda", p.name.lower())
        if k not in out:
            out[k] = p
    return out
