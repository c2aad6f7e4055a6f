"""What went wrong in a py-rattler solve, as an envkit error that names the real cause.

Only a failure to fetch a channel's repodata is about the network; a bad spec, a bad channel name
or an unsolvable spec gets no network hint (it would send users looking in the wrong place).
"""

from __future__ import annotations

from collections.abc import Sequence

from envkit.errors import SolveError, Where
from envkit.lock.virtual import VirtualPackage, virtual_advice

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
) -> SolveError:
    """The SolveError for `exc`, raised by py-rattler while solving `source` for `platform` from
    `channels` (the URLs it was given, in priority order) with the virtual packages `virtual`."""
    name = type(exc).__name__
    text = str(exc).strip()
    where = Where(file=source)
    if isinstance(exc, SolveError):
        return exc
    if name in ("SolverError", "UnsolvableError"):
        # a package that needs a GPU driver the solve was not told of: say how to tell it
        # (or a newer glibc than the one assumed)
        missing = [
            v
            for v in ("__cuda", "__glibc")
            if v in text and (v == "__glibc" or not any(x.name == v for x in virtual))
        ]
        advice = virtual_advice(platform, missing[0]) if missing else {}
        return SolveError(f"{platform}: cannot solve the spec", where=where, text=text, **advice)
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
