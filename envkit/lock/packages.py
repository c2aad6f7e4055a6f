"""Small helpers on locked package records: whether two depends lists agree, whether a spec accepts a
package, the lock's package order."""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

from envkit.model import CondaDep, LockedPackage

_NAME = re.compile(r"[A-Za-z0-9_.\-]+")


def same_depends(texts: Sequence[str], depends: Sequence[tuple[str, str]]) -> bool:
    """Whether `tuple(split_depend(t) for t in texts) == tuple(depends)`, without splitting: each
    text must be its pair joined by one space (the bare name for an empty spec), and each pair one
    that split_depend returns (a name of name characters; a spec with no whitespace around it and
    no newline), for which the split of the joined text is the pair itself.  A text written
    otherwise answers False even where its split would match: the caller splits it then."""
    if len(texts) != len(depends):
        return False
    for text, (name, rest) in zip(texts, depends, strict=True):
        if text != (f"{name} {rest}" if rest else name) or not _NAME.fullmatch(name):
            return False
        if rest and (rest != rest.strip() or "\n" in rest):
            return False
    return True


def accepts(dep: CondaDep, pkg: LockedPackage, *, with_channel: bool = False) -> bool:
    """Whether the conda match spec `dep` accepts the locked package `pkg` (and its channel, when
    `with_channel`)."""
    from envkit.conda.matchspec import matches

    channel = pkg.channel if with_channel else None
    return matches(
        dep,
        name=pkg.name,
        version=pkg.version,
        build=pkg.build,
        build_number=pkg.build_number,
        channel=channel,
    )


def pip_accepts(specifier: str, version: str) -> bool:
    """Whether a pip `version` meets the PEP 440 `specifier` text (pre-releases included); an
    unreadable specifier accepts nothing."""
    from packaging.specifiers import InvalidSpecifier, SpecifierSet

    from envkit.formats.pipreq import pip_version_satisfies

    try:
        return pip_version_satisfies(SpecifierSet(specifier), version)
    except InvalidSpecifier:
        return False


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
