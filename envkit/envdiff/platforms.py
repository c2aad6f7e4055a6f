"""Which platform each side is for: a lock's platforms, the host's, or a guess from an export's packages."""

from __future__ import annotations

import re
from collections.abc import Iterable

from envkit.backends.prefix_scan import host_platform as this_platform
from envkit.errors import Remedy, UsageError
from envkit.model import EnvSpec, LiveEnv, Lock, resolved_view


def platforms_differ(a: str | None, b: str | None) -> bool:
    """Whether two platforms (or OS families, "osx") are known to differ."""
    if not a or not b:
        return False
    if platform_family(a) != platform_family(b):
        return True
    return "-" in a and "-" in b and a != b


def platform_family(platform: str | None) -> str | None:
    """'linux', 'osx', 'win', ... (the part before the dash), or None."""
    if not platform:
        return None
    return platform.split("-", 1)[0]


def model_platforms(model: EnvSpec | Lock | LiveEnv) -> tuple[str, ...]:
    """The platforms a model is for: a lock's platforms, a live env's platform, () for a spec."""
    view = resolved_view(model)
    if view is None:
        return ()
    if view.export is not None:
        guess = _guess_export(view.export)
        return (guess,) if guess and "-" in guess else ()
    return view.platforms


def _guess_export(spec: EnvSpec) -> str | None:
    return guess_platform(((d.name, d.build) for d in spec.conda), spec.prefix)


def pick_platforms(
    a: EnvSpec | Lock | LiveEnv,
    b: EnvSpec | Lock | LiveEnv,
    *,
    platform: str | None = None,
    host_platform: str | None = None,
    labels: tuple[str, str] = ("A", "B"),
) -> tuple[str | None, str | None]:
    """The platform to compare on each side.

    A multi-platform lock uses `platform` when given (UsageError when it lacks it); otherwise the
    other side's platform when the other side has exactly one, else the host's; a single-platform
    source uses its own.  Raises UsageError when a multi-platform lock has none of those.
    """
    pa, pb = model_platforms(a), model_platforms(b)
    # a `conda env export` may name only its OS family ("win"): take the other side's platform of
    # that family (a Windows export against a lock for linux-64, osx-*, win-64)
    pa = pa or _family_platform(a, pb, b, platform)
    pb = pb or _family_platform(b, pa, a, platform)

    def choose(model, mine: tuple[str, ...], other: tuple[str, ...], label: str) -> str | None:
        view = resolved_view(model)
        # a lock file (not an export, which is for the platform it was made on, nor a live prefix)
        if (
            platform is not None
            and view is not None
            and view.lock is not None
            and view.export is None
            and mine
        ):
            if platform not in mine:
                raise UsageError(
                    f"{label} has no platform {platform}; it has {', '.join(mine)}",
                    hint="pick one of those with {}",
                    remedy=Remedy(option="platform"),
                )
            return platform
        if len(mine) <= 1:
            return mine[0] if mine else None
        if len(other) == 1 and other[0] in mine:
            return other[0]
        # looked up only here: it imports py-rattler, a start-up cost only a multi-platform lock needs
        host = host_platform or this_platform()
        if host in mine:
            return host
        theirs = f" or the other side's ({other[0]})" if len(other) == 1 else ""
        raise UsageError(
            f"{label} is locked for several platforms ({', '.join(mine)}) and none is this "
            f"machine's ({host}){theirs}",
            hint="say which with {}, e.g. {}",
            remedy=(Remedy(option="platform"), Remedy(option="platform", value=mine[0])),
        )

    return choose(a, pa, pb, labels[0]), choose(b, pb, pa, labels[1])


def _family_platform(model, other: tuple[str, ...], other_model, platform: str | None) -> tuple[str, ...]:
    """For an export whose guessed platform is an OS family only ("win", "osx"), the platform of
    that family the other side has: `--platform` when it is of that family, the only one, or (a lock
    with osx-64 and osx-arm64) the one whose packages share the most exact builds with the export.
    () when the export says nothing or the other side has no platform of its family."""
    view = resolved_view(model)
    export = view.export if view is not None else None
    if export is None:
        return ()
    family = _guess_export(export)
    if not family or "-" in family:
        return ()
    if platform is not None and platform_family(platform) == family and (not other or platform in other):
        return (platform,)
    candidates = [p for p in other if platform_family(p) == family]
    if len(candidates) <= 1:
        return tuple(candidates)
    mine = {(d.name, d.version.removeprefix("==") if d.version else None, d.build) for d in export.conda}
    theirs = resolved_view(other_model)
    packages = theirs.all_packages if theirs is not None and theirs.export is None else ()

    def shared(plat: str) -> int:
        return sum(1 for p in packages if p.platform == plat and (p.name, p.version, p.build) in mine)

    best = max(candidates, key=lambda c: (shared(c), -candidates.index(c)))
    return (best,)


_ARCH_IN_BUILD = re.compile(r"(?:^|_)(linux64|linuxaarch64|linuxppc64le|osx64|osxarm64|win64)(?:_|$)")


_ARCH_NAMES = {
    "linux64": "linux-64",
    "linuxaarch64": "linux-aarch64",
    "linuxppc64le": "linux-ppc64le",
    "osx64": "osx-64",
    "osxarm64": "osx-arm64",
    "win64": "win-64",
}


_LINUX_MARKERS = frozenset(
    {
        "_libgcc_mutex",
        "libgcc-ng",
        "libstdcxx-ng",
        "libgcc",
        "libstdcxx",
        "libgomp",
        "_openmp_mutex",
        "libuuid",
        "libnsl",
        "libxcrypt",
    }
)


_OSX_MARKERS = frozenset({"libcxx", "libcxxabi", "appnope", "tapi", "cctools", "ld64"})


_WIN_MARKERS = frozenset(
    {
        "vc",
        "vs2015_runtime",
        "vc14_runtime",
        "ucrt",
        "wincertstore",
        "pywin32",
        "m2w64-gcc-libs",
        "winpty",
        "pywinpty",
    }
)


def guess_platform(names_builds: Iterable[tuple[str, str | None]], prefix: str | None = None) -> str | None:
    """The platform a `conda env export` was made on, from what it contains (a `conda env export`
    does not record it): `ld_impl_linux-64` or a `20_linux64_openblas` BLAS build name the platform;
    `libgcc-ng`, `libcxx`, `vc` (and the `prefix:` path) name only the OS family, which is returned
    alone ("osx").  None when nothing tells."""
    family = None
    for name, build in names_builds:
        n = name.lower()
        m = re.search(r"_(linux-64|linux-aarch64|linux-ppc64le|osx-64|osx-arm64|win-64)$", n)
        if m:
            return m.group(1)
        if build:
            m = _ARCH_IN_BUILD.search(build.lower())
            if m:
                return _ARCH_NAMES[m.group(1)]
        if family is None:
            if n in _LINUX_MARKERS:
                family = "linux"
            elif n in _OSX_MARKERS:
                family = "osx"
            elif n in _WIN_MARKERS or n.startswith("m2w64-"):
                family = "win"
    if family is None and prefix:
        if prefix.startswith("/Users/"):
            family = "osx"
        elif re.match(r"^[A-Za-z]:[\\/]", prefix):
            family = "win"
        elif prefix.startswith("/home/"):
            family = "linux"
    return family
