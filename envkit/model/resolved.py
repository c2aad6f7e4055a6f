"""One view over the three models: `resolved_view` (what is concrete) and its `Resolved`."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from envkit.model.records import _SIMPLE_VERSION, Channel, CondaDep, EnvSpec, LiveEnv, Lock, LockedPackage

#: One entry of a `conda env export`: `name=version=build`, or `name=version` (--no-builds).
#: (possessive: no part can give a character back to the next, which starts with one it excludes;
#: a 100,000-entry file's entries are refused without backtracking)
EXPORT_ENTRY = re.compile(
    r"^(?:[^:\s]++::)?(?P<name>[^=\s<>!~*,|\[]++)"
    r"==?(?P<version>(?:\d+!)?[^=\s<>!~*,|]++)(?:=(?P<build>[^=\s<>!~*,|\[\]]++))?$"
)


def looks_exported(conda: Sequence[CondaDep], *, has_prefix: bool) -> bool:
    """Whether an environment file's conda entries are a `conda env export`'s: every entry
    `name=version=build` (`name==version=build` too, as `--from-history` records an exact request);
    or nearly every entry `name=version=build` -- at least 5 of them and at most one in ten (at
    least one) other, the `- pip` or `- pytest` a person added by hand to an export (its resolved
    view keeps those unpinned); or (nearly) every entry `name=version` (`--no-builds`) with a
    `prefix:` line, which conda env export writes, or in the sorted order of an export.  The one
    definition: the environment.yml reader sets `EnvSpec.kind` from it, and `resolved_view` reads
    that kind."""
    if not conda:
        return False
    with_build = exact = 0
    names: list[str] = []
    for d in conda:
        m = EXPORT_ENTRY.match(d.raw.strip())
        if m is None:
            continue
        exact += 1
        names.append(d.name)
        if m.group("build"):
            with_build += 1
    n = len(conda)

    def nearly_all(k: int) -> bool:
        return k == n or (k >= 5 and n - k <= max(1, n // 10))

    if nearly_all(with_build):
        return True
    # --no-builds: every entry `name=version` but those added by hand, with the `prefix:` line, or
    # (the prefix removed, as it should be) in conda's sorted order with the packages no one asks
    # for by hand (`ca-certificates`, `_libgcc_mutex`)
    if with_build or not nearly_all(exact):
        return False
    return has_prefix or _conda_export_order(names)


def _conda_export_order(names: list[str]) -> bool:
    return (
        len(names) >= 10
        and names == sorted(names)
        and any(n == "ca-certificates" or n.startswith("_") for n in names)
    )


@dataclass(slots=True, kw_only=True, unsafe_hash=True)
class Resolved:
    """The concrete view of an environment: exact packages per platform.

    A Lock is one; so is a live environment (its packages, on its platform) and a `conda env
    export` (an EnvSpec of kind "export": its entries as packages, `lock` a Lock(kind="export") for
    the platform asked for, none when none was).  `origin` is the model the view was made from;
    `lock` the Lock it reads as (None for a live environment); `live` the live environment and
    `export` the export it was made from, when it was.  Only `resolved_view` makes these: every
    consumer asks the view its packages, channels and pip options, and a caller that needs what
    only one model records (a live prefix's channel priority, a lock's content hash) finds it on
    `live` or `lock`, never by testing the model's type.
    """

    origin: EnvSpec | Lock | LiveEnv
    lock: Lock | None = None
    live: LiveEnv | None = None
    export: EnvSpec | None = None

    @property
    def kind(self) -> str:
        """The lock's kind ("conda-lock", "pixi", "explicit", "export", ...) or "live"."""
        return self.lock.kind if self.lock is not None else "live"

    @property
    def all_packages(self) -> tuple[LockedPackage, ...]:
        """Every package, every platform, in file order."""
        if self.lock is not None:
            return self.lock.packages
        return self.live.packages if self.live is not None else ()

    @property
    def platforms(self) -> tuple[str, ...]:
        """The platforms it is for: a lock's own list (else those its packages name), a live
        environment's platform; () when nothing says."""
        if self.live is not None:
            return (self.live.platform,) if self.live.platform else ()
        assert self.lock is not None
        if self.lock.platforms:
            return self.lock.platforms
        return tuple(dict.fromkeys(p.platform for p in self.lock.packages if p.platform))

    @property
    def channels(self) -> tuple[Channel, ...]:
        """The channels recorded, in priority order."""
        return self.origin.channels

    @property
    def pip_options(self) -> tuple[str, ...]:
        """The pip options recorded (`--index-url URL`, ...), in order; () for a live environment."""
        return self.lock.pip_options if self.lock is not None else ()

    @property
    def channel_priority(self) -> str | None:
        """A live environment's effective channel priority; None where nothing records one."""
        return self.live.channel_priority if self.live is not None else None

    @property
    def owned(self) -> dict[str, tuple[str, ...]] | None:
        """conda package name -> the PyPI projects whose dist-info it owns (a live prefix's own
        record of it), or None where nothing records it (a lock, an export)."""
        if self.live is None:
            return None
        return dict(self.live.pypi_names)

    def packages(self, platform: str | None = None) -> tuple[LockedPackage, ...]:
        """The packages for `platform` (with those recorded for no platform), in file order; every
        package when `platform` is None.  A live environment is one platform: all of its packages."""
        if platform is None or self.live is not None:
            return self.all_packages
        return tuple(p for p in self.all_packages if p.platform in (platform, None))

    def by_platform(self) -> dict[str, tuple[LockedPackage, ...]]:
        """platform -> its packages in file order ("" for packages recorded for no platform)."""
        if self.live is not None:
            return {self.live.platform: self.live.packages}
        out: dict[str, list[LockedPackage]] = {}
        for p in self.all_packages:
            out.setdefault(p.platform or "", []).append(p)
        return {k: tuple(v) for k, v in out.items()}

    def on(self, platform: str | None) -> str:
        """ " on PLATFORM" where a lock has several platforms (for messages), else ""."""
        if self.lock is not None and platform and len(self.lock.platforms) > 1:
            return f" on {platform}"
        return ""


def resolved_view(
    model: EnvSpec | Lock | LiveEnv | Resolved | None, platform: str | None = None
) -> Resolved | None:
    """The concrete view of `model`, or None for a loose spec (hand-written, requirements).

    The one place that decides what is concrete: a Lock, a live environment, and an EnvSpec the
    reader found to be a `conda env export` (kind "export"; a conda requirements file of exact
    `name==version=build` lines reads as one too).  An export records no platform: its packages get
    `platform` (None: none)."""
    if model is None or isinstance(model, Resolved):
        return model
    if isinstance(model, Lock):
        return Resolved(origin=model, lock=model)
    if isinstance(model, LiveEnv):
        return Resolved(origin=model, live=model)
    spec = env_file(model)  # (None for what is no model at all: the caller's TypeError to raise)
    if spec is not None and spec.kind == "export" and spec.conda:
        return Resolved(origin=spec, lock=_export_lock(spec, platform), export=spec)
    return None


def env_file(model: EnvSpec | Lock | LiveEnv | None) -> EnvSpec | None:
    """`model` when it is an environment file as written (a loose spec, an export, a requirements
    file): what rules about a file's own text (its channel list, pip options, variables, keys) read,
    whether or not it is concrete.  None for a lock or a live environment."""
    return model if isinstance(model, EnvSpec) else None


def loose_spec(model: EnvSpec | Lock | LiveEnv | None) -> EnvSpec | None:
    """`model` when it is a spec that is not concrete (see `resolved_view`), else None."""
    spec = env_file(model)
    return spec if spec is not None and resolved_view(spec) is None else None


def _export_lock(spec: EnvSpec, platform: str | None) -> Lock:
    """An export's entries as a Lock(kind="export") for `platform`.

    Conda entries become conda packages with the exact version and build written; pip entries pinned
    with `==` become pip packages.  Pip entries that pin nothing (a hand-appended `gdown`, a git URL)
    are kept with an empty version, never dropped; so are conda entries that pin nothing exactly (a
    `- pytest` added by hand to an export: version "" and no build).
    """
    pkgs: list[LockedPackage] = []
    for d in spec.conda:
        m = EXPORT_ENTRY.match(d.raw.strip()) if d.raw else None
        if m is not None:
            version, build = m.group("version"), m.group("build")
        elif d.version and d.version.startswith("==") and _SIMPLE_VERSION.fullmatch(d.version[2:]):
            version, build = d.version[2:], d.build
        else:
            # a loose entry added by hand to an export (`- pip`): kept, with nothing pinned, so a
            # diff still shows it; never dropped
            version, build = "", None
        pkgs.append(
            LockedPackage(
                manager="conda",
                name=d.name,
                version=version,
                build=build,
                channel=d.channel,
                platform=platform,
                subdir=d.subdir,
                line=d.line,
            )
        )
    for p in spec.pip:
        if p.kind == "option":
            continue
        version = ""
        if p.kind == "requirement" and p.specifier.startswith("==") and "," not in p.specifier:
            version = p.specifier[2:]
        pkgs.append(
            LockedPackage(
                manager="pip",
                name=p.name or p.text,
                version=version,
                platform=platform,
                url=p.url,
                editable=p.editable,
                line=p.line,
            )
        )
    return Lock(
        kind="export",
        platforms=(platform,) if platform else (),
        packages=tuple(pkgs),
        channels=spec.channels,
        environment=spec.name,
        pip_options=tuple(p.text for p in spec.pip if p.kind == "option"),
        source=spec.source,
    )
