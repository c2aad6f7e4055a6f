"""What went wrong in a py-rattler solve, as an envkit error that names the real cause.

Only a failure to fetch a channel's repodata is about the network; a bad spec, a bad channel name
or an unsolvable spec gets no network hint (it would send users looking in the wrong place).
"""

from __future__ import annotations

import re
from collections.abc import Collection, Sequence
from typing import TYPE_CHECKING

from envkit.errors import SolveError, Where
from envkit.lock.virtual import VirtualPackage, virtual_advice

if TYPE_CHECKING:  # pragma: no cover
    from envkit.lock.cutoff import ExcludeNewer
    from envkit.model import CondaDep, EnvSpec

#: rattler exception classes raised while fetching repodata (a network, proxy or URL problem).
_FETCH = ("FetchRepoDataError", "GatewayError", "CacheDirError", "IoError", "AuthenticationStorageError")
#: rattler exception classes raised for malformed input: the spec's fault, not the network's.
_INPUT = (
    "InvalidMatchSpecError",
    "InvalidPackageNameError",
    "InvalidVersionError",
    "InvalidVersionSpecError",
    "InvalidChannelError",
    "InvalidUrlError",
    "ParseSubdirError",
)


def solve_failure(
    exc: BaseException,
    platform: str,
    source: str | None,
    channels: Sequence[str] = (),
    *,
    virtual: Sequence[VirtualPackage] = (),
    spec: EnvSpec | None = None,
    cutoffs: ExcludeNewer | None = None,
    excluded: Collection[tuple[str, str, str]] = (),
) -> SolveError:
    """The SolveError for `exc`, raised by py-rattler while solving `source` for `platform` from
    `channels` (the URLs it was given, in priority order) with the virtual packages `virtual`.
    An unsolvable `spec` is blamed at the line of the entry the solver names first; with
    `cutoffs`, the records they `excluded` (name, version, build) that the entry would take are
    counted in the hint."""
    name = type(exc).__name__
    text = str(exc).strip()
    where = Where(file=source)
    if name in ("SolverError", "UnsolvableError"):
        return _unsolvable(text, platform, source, virtual, spec, cutoffs, excluded)
    if name in _INPUT:
        return SolveError(f"{platform}: py-rattler cannot read the spec: {text}", where=where)
    if name in _FETCH:
        from envkit.urls import redact_url

        listed = ", ".join(redact_url(c)[0] for c in channels) or "none"
        return SolveError(
            f"{platform}: cannot fetch the channels' repodata: {redact_url(text)[0]}",
            where=where,
            hint=f"channels tried, in order: {listed}; check their URLs, and your network "
            "or proxy settings for remote ones",
        )
    return SolveError(f"{platform}: {name}: {text}", where=where)


#: the entries rattler's unsolvable message names: no candidates at all, then the roots of its tree
_NO_CANDIDATES = re.compile(r"No candidates were found for (\S+)")
_ROOT = re.compile(r"^[\u251c\u2514]\u2500 (\S+)", re.MULTILINE)


def _unsolvable(
    text: str,
    platform: str,
    source: str | None,
    virtual: Sequence[VirtualPackage],
    spec: EnvSpec | None,
    cutoffs: ExcludeNewer | None,
    excluded: Collection[tuple[str, str, str]],
) -> SolveError:
    # a package that needs a GPU driver the solve was not told of: say how to tell it
    # (or a newer glibc than the one assumed)
    given = {x.name for x in virtual}
    missing = [v for v in ("__cuda", "__glibc") if v in text and (v == "__glibc" or v not in given)]
    advice = virtual_advice(platform, missing[0]) if missing else {}
    dep = _blamed(text, spec)
    where = Where(file=source, line=dep.line if dep is not None else None)
    note = _cutoff_note(dep, text, cutoffs, excluded) if dep is not None and cutoffs else None
    if note and not advice:
        advice = {"hint": note}
    elif note:
        advice = dict(advice, hint=f"{note}; {advice['hint']}")
    what = f"cannot solve {dep.raw or dep.spec()}" if dep is not None else "cannot solve the spec"
    return SolveError(f"{platform}: {what}", where=where, text=text, **advice)


def _blamed(text: str, spec: EnvSpec | None) -> CondaDep | None:
    """The spec entry the solver's message names first: one with no candidates, else a root of
    its conflict tree; None when it names none of the spec's entries."""
    if spec is None:
        return None
    by_name = {d.name: d for d in spec.conda}
    for found in _NO_CANDIDATES.findall(text) + _ROOT.findall(text):
        dep = by_name.get(found.lower())
        if dep is not None:
            return dep
    return None


def _cutoff_note(
    dep: CondaDep, text: str, cutoffs: ExcludeNewer, excluded: Collection[tuple[str, str, str]]
) -> str | None:
    """`python 3.11.*: 2 records, all indexed after the exclude-newer cutoff ...` when the cutoff
    left out records that `dep` would take; None when it left out none."""
    from envkit.conda.matchspec import matches
    from envkit.lock.cutoff import iso

    gone = [(v, b) for n, v, b in excluded if n == dep.name and matches(dep, name=n, version=v, build=b)]
    if not gone:
        return None
    limit = cutoffs.cutoff(dep.name, dep.channel)
    after = "after the exclude-newer cutoff" + (f" {iso(limit)}" if limit else "")
    records = f"{len(gone)} record{'s' if len(gone) != 1 else ''}"
    if dep.name in (n.lower() for n in _NO_CANDIDATES.findall(text)):
        return f"{dep.raw or dep.spec()}: {records}, all indexed {after}"
    return f"{dep.raw or dep.spec()}: {records} indexed {after} left out"
