"""Solving a spec for its platforms with py-rattler, then its pip section with pip."""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace

from envkit.backends.lock_metadata import add_custom_metadata, lock_metadata
from envkit.conda.channels import channel_of_url, parse_channel
from envkit.errors import BackendError, ParseError, Remedy, SolveError, UsageError, Where
from envkit.lock.content_hash import spec_content_hash
from envkit.lock.cutoff import EXCLUDE_NEWER_KEY, ExcludeNewer
from envkit.lock.packages import same_depends, sort_packages
from envkit.lock.pip import lock_pip_kept, pip_moves
from envkit.lock.pip_index import INDEX_KEY, index_mismatches, index_record
from envkit.lock.relock import Move, PlatformSolver, relock_platform
from envkit.lock.solve_errors import solve_failure
from envkit.lock.spec_record import SPEC_KEY, lock_pip_options, spec_record
from envkit.lock.virtual import VirtualPackage, virtual_advice, virtual_packages_for
from envkit.model import Channel, EnvSpec, Lock, LockedPackage, split_depend
from envkit.secrets import may_hold_credentials
from envkit.urls import redact_url

CHANNEL_PRIORITIES = ("strict", "flexible", "disabled")


def channel_sources(channels: Sequence[Channel], platform: str) -> list[str]:
    """The channel URLs (or names) rattler is given, in priority order.  `defaults` becomes
    Anaconda's main and r channels (and msys2 on Windows); `nodefaults` is dropped."""
    out: list[str] = []
    for ch in channels:
        if ch.name == "nodefaults":
            continue
        if ch.name == "defaults":
            extra = ["https://repo.anaconda.com/pkgs/main", "https://repo.anaconda.com/pkgs/r"]
            if platform.startswith("win-"):
                extra.append("https://repo.anaconda.com/pkgs/msys2")
            out.extend(extra)
        else:
            out.append(ch.url or ch.name)
    return list(dict.fromkeys(out))


def record_to_package(
    record, platform: str, previous: Mapping[str, LockedPackage] | None = None
) -> LockedPackage:
    """A py-rattler RepoDataRecord as a locked conda package for `platform`.  `previous` (a
    previous lock's conda packages of `platform`, by name): the package it has under the record's
    name is returned, not a new one, when it is exactly what the record converts to."""
    name = record.name.normalized
    old = previous.get(name) if previous is not None else None
    if old is not None:
        kept = _unchanged(record, platform, old)
        if kept is not None:
            return kept
    url = redact_url(str(record.url))[0]
    channel = _channel_name(record, url)
    return LockedPackage(
        manager="conda",
        name=name,
        version=str(record.version),
        build=str(record.build),
        build_number=int(record.build_number),
        channel=channel,
        platform=platform,
        subdir=str(record.subdir),
        url=url,
        md5=record.md5.hex() if record.md5 else None,
        sha256=record.sha256.hex() if record.sha256 else None,
        depends=tuple(split_depend(d) for d in record.depends),
    )


def _channel_name(record, url: str) -> str:
    """The channel of a RepoDataRecord as a lock names it: its own channel, else its URL's."""
    chan_text = str(record.channel) if record.channel else ""
    return parse_channel(chan_text).name if chan_text else channel_of_url(url)[0].name


def _unchanged(record, platform: str, old: LockedPackage) -> LockedPackage | None:
    """`old` when `record_to_package(record, platform)` equals it in every field (with no file line,
    as a new package has none), else None.  A re-lock keeps most packages where they were, and
    comparing a field costs less than building it (the URL's redaction, the depends split, a new
    record); a field that cannot be compared cheaply sends the record to the full conversion."""
    if (
        old.platform != platform
        or old.manager != "conda"
        or old.category != "main"
        or old.optional
        or old.editable
        or old.marker is not None
        or old.index is not None
        or old.other_files
        or str(record.version) != old.version
        or str(record.build) != old.build
        or int(record.build_number) != old.build_number
        or str(record.subdir) != old.subdir
    ):
        return None
    md5, sha256 = record.md5, record.sha256
    if (md5.hex() if md5 else None) != old.md5 or (sha256.hex() if sha256 else None) != old.sha256:
        return None
    url = str(record.url)
    if url != old.url or may_hold_credentials(url) or not same_depends(record.depends, old.depends):
        return None
    if _channel_name(record, url) != old.channel:
        return None
    if old.line is not None or old.requested is not None or old.constrains:
        # fields equality leaves out: what a lock read from a file carries
        return replace(old, line=None, requested=None, constrains=())
    return old


def _require_virtual(spec: EnvSpec, platform: str, vps: Sequence[VirtualPackage]) -> None:
    """Refuse a spec asking for a virtual package (`__cuda >=12`) not set for `platform`: it is a
    requirement on the target machine, not a package, so the solve honours it through `vps`."""
    for d in spec.conda:
        if d.name.startswith("__") and not any(v.name == d.name for v in vps):
            raise SolveError(
                f"{platform}: the spec requires virtual package {d.spec()!r}, which is not set for "
                "this platform",
                where=Where(file=spec.source, line=d.line, key="dependencies"),
                **virtual_advice(platform, d.name),
            )


@dataclass(frozen=True, slots=True, kw_only=True)
class PlatformSolve:
    """One platform's conda solve: the packages, what moved from a previous lock, and how many
    records the cutoff kept for want of an upload time."""

    packages: tuple[LockedPackage, ...]
    moves: tuple[Move, ...] = ()
    untimed: int = 0


def _solve_many(
    spec: EnvSpec,
    platforms: Sequence[str],
    *,
    channel_priority: str,
    virtual_packages: Sequence[VirtualPackage],
    timeout: float | None,
    previous: Lock | None = None,
    update: Sequence[str] = (),
    cutoffs: ExcludeNewer | None = None,
) -> dict[str, PlatformSolve]:
    import asyncio

    import rattler

    from envkit.conda.matchspec import to_rattler

    priority = _rattler_priority(channel_priority)
    # MatchSpec objects, not strings: rattler reads strings strictly and refuses `name=1.2=build`
    specs = [to_rattler(d, source=spec.source) for d in spec.conda]
    # the channels named by `chan::pkg` dependencies, in file order
    spec_channels = [parse_channel(n) for n in dict.fromkeys(d.channel for d in spec.conda if d.channel)]
    gateway = rattler.Gateway()  # one per lock: each channel's repodata is fetched once

    async def one(platform: str) -> tuple[str, PlatformSolve]:
        sources = _platform_sources(spec, spec_channels, platform)
        vps = virtual_packages_for(platform, virtual_packages)
        _require_virtual(spec, platform, vps)
        generic = [
            rattler.GenericVirtualPackage(
                rattler.PackageName(v.name), rattler.Version(v.version), rattler.BuildString(v.build)
            )
            for v in vps
        ]
        solver = PlatformSolver(
            platform=platform,
            sources=sources,
            specs=specs,
            virtual_packages=generic,
            priority=priority,
            timeout=timeout,
            cutoffs=cutoffs,
            gateway=gateway,
        )
        return platform, await _solve_platform(solver, spec, vps, previous, update)

    out: dict[str, PlatformSolve] = {}

    async def main() -> None:
        # the results are stored, not returned: asyncio.run's SIGINT handler is a partial holding
        # the main task, and restoring the handler formats its repr, with the task's result in it
        # (every locked package, twice), in a ValueError it discards
        out.update(await asyncio.gather(*(one(p) for p in platforms)))

    asyncio.run(main())
    return out


def _rattler_priority(channel_priority: str):
    """rattler's ChannelPriority for one of CHANNEL_PRIORITIES; UsageError for another name."""
    import rattler

    if channel_priority not in CHANNEL_PRIORITIES:
        raise UsageError(
            f"unknown channel priority {channel_priority!r}",
            hint="use one of: " + ", ".join(CHANNEL_PRIORITIES),
        )
    return getattr(rattler.ChannelPriority, channel_priority.capitalize())


def _platform_sources(spec: EnvSpec, spec_channels: Sequence[Channel], platform: str) -> list[str]:
    """The channels `platform` is solved from: the spec's, then the ones its `chan::pkg` entries
    name.  SolveError when the spec lists none."""
    sources = channel_sources(spec.channels, platform)
    if sources:
        # conda searches a `chan::pkg` spec's channel even when `channels:` does not list it (after
        # the listed ones); rattler only searches its sources, so they must include it.
        sources = list(dict.fromkeys(sources + channel_sources(spec_channels, platform)))
    if not sources:
        raise SolveError(
            f"{platform}: the spec lists no channels to solve from",
            where=Where(file=spec.source, line=spec.line_of("channels"), key="channels"),
            hint="add a `channels:` list (e.g. conda-forge) to the environment file",
        )
    return sources


async def _solve_platform(
    solver: PlatformSolver,
    spec: EnvSpec,
    vps: Sequence[VirtualPackage],
    previous: Lock | None,
    update: Sequence[str],
) -> PlatformSolve:
    """One platform's solve, a re-lock of `previous` when there is one; SolveError when it fails."""
    platform = solver.platform
    moves: list[Move] = []
    try:
        if previous is not None:
            packages, moves = await relock_platform(
                solver,
                spec,
                previous.for_platform(platform),
                update,
                record_to_package=record_to_package,
                lock_file=previous.source,
            )
        else:
            packages = [record_to_package(r, platform) for r in await solver.solve()]
    except ParseError:  # a previous lock's record: it names that file, not the spec
        raise
    except Exception as exc:  # rattler raises its own exception classes
        raise solve_failure(
            exc,
            platform,
            spec.source,
            solver.sources,
            virtual=vps,
            spec=spec,
            cutoffs=solver.cutoffs,
            excluded=solver.excluded,
        ) from None
    return PlatformSolve(packages=tuple(packages), moves=tuple(moves), untimed=solver.untimed)


@dataclass(frozen=True, slots=True, kw_only=True)
class SpecLock:
    """A spec's lock and what the solve has to say about it: `moves` from the previous lock (each
    platform's, conda then pip), `untimed` (per platform: records a cutoff kept for want of an
    upload time), `notes` (things to tell the user, e.g. a pip section re-resolved freely)."""

    lock: Lock
    moves: tuple[Move, ...] = ()
    untimed: tuple[tuple[str, int], ...] = ()
    notes: tuple[str, ...] = ()


def relock_spec(
    spec: EnvSpec,
    platforms: Sequence[str],
    *,
    previous: Lock | None = None,
    update: Sequence[str] = (),
    cutoffs: ExcludeNewer | None = None,
    channel_priority: str = "strict",
    virtual_packages: Sequence[VirtualPackage] = (),
    lock_pip_section: bool = True,
    pip_timeout: float = 600,
    solve_timeout: float | None = 600,
    progress: Callable[[str], None] | None = None,
) -> SpecLock:
    """Solve `spec` for every platform in `platforms`: its conda dependencies with py-rattler, then
    (when the spec has one) its pip section per platform with pip, for the python the conda solve
    chose.  With `previous` (a lock of this spec) what it chose is kept: every locked package stays
    unless it is in `update`, the spec no longer accepts it, or an updated package's newest version
    forces it to move (see `envkit.lock.relock`); pip packages are kept through pip constraints.
    `cutoffs` solve as the channels were then (`envkit.lock.cutoff`), and are recorded in the lock.
    Raises SolveError when a platform cannot be solved, UsageError for an unknown platform or
    channel priority, BackendError when pip fails."""
    plats = check_platforms(platforms or spec.platforms)
    say = progress or (lambda _m: None)
    say(f"solving {', '.join(plats)} with py-rattler (fetching the channels' repodata)")
    solved = _solve_many(
        spec,
        plats,
        channel_priority=channel_priority,
        virtual_packages=virtual_packages,
        timeout=solve_timeout,
        previous=previous,
        update=update,
        cutoffs=cutoffs,
    )
    packages: list[LockedPackage] = []
    moves: list[Move] = []
    notes: list[str] = []
    with_pip = lock_pip_section and any(p.kind != "option" for p in spec.pip)
    for platform in plats:
        conda = solved[platform].packages
        moves.extend(solved[platform].moves)
        say(f"{platform}: {len(conda)} conda packages solved")
        packages.extend(conda)
        if with_pip:
            old_pip = [p for p in previous.for_platform(platform) if p.manager == "pip"] if previous else []
            pip, note = _lock_pip_section(
                spec, platform, conda, old_pip, update, virtual_packages, pip_timeout, say
            )
            if note:
                notes.append(note)
            packages.extend(pip)
            if previous is not None:
                moves.extend(pip_moves(platform, old_pip, pip, update))
    lock = _spec_lock(spec, plats, packages, cutoffs, lock_pip_section)
    untimed = tuple((p, solved[p].untimed) for p in plats if solved[p].untimed)
    return SpecLock(lock=lock, moves=tuple(moves), untimed=untimed, notes=tuple(notes))


def _lock_pip_section(
    spec: EnvSpec,
    platform: str,
    conda: Sequence[LockedPackage],
    old_pip: Sequence[LockedPackage],
    update: Sequence[str],
    virtual_packages: Sequence[VirtualPackage],
    timeout: float,
    say: Callable[[str], None],
) -> tuple[tuple[LockedPackage, ...], str | None]:
    """The pip section of `spec` locked for `platform` on the python of its conda solution `conda`,
    keeping the versions of `old_pip` (see `lock_pip_kept`), and a note when it could not."""
    python = next((p for p in conda if p.name == "python"), None)
    if python is None:
        raise SolveError(
            f"{platform}: the spec has a pip section but the solution has no python",
            where=Where(file=spec.source, line=spec.line_of("dependencies")),
            hint="add python (e.g. python=3.11) to the conda dependencies",
        )
    say(f"{platform}: locking the pip section with pip (python {python.version})")
    pip, note = lock_pip_kept(spec, platform, python.version, old_pip, update, virtual_packages, timeout)
    _require_named_index(spec, platform, pip)
    return pip, note


def _spec_lock(
    spec: EnvSpec,
    plats: tuple[str, ...],
    packages: Sequence[LockedPackage],
    cutoffs: ExcludeNewer | None,
    lock_pip_section: bool,
) -> Lock:
    """The conda-lock Lock of `spec` holding `packages`, with the spec's record, the index of each
    pip artifact and the cutoffs in its custom metadata."""
    pip_options = lock_pip_options(spec)
    indexes = index_record(packages, pip_options) if lock_pip_section else {}
    custom = {SPEC_KEY: spec_record(spec)}
    if indexes:  # where each pip artifact came from (which of the spec's indexes)
        custom[INDEX_KEY] = json.dumps(indexes, separators=(",", ":"))
    if cutoffs:
        custom[EXCLUDE_NEWER_KEY] = cutoffs.to_json()
    return Lock(
        kind="conda-lock",
        platforms=plats,
        packages=sort_packages(packages),
        channels=tuple(c for c in spec.channels if c.name != "nodefaults"),
        content_hash=tuple((p, spec_content_hash(spec, p)) for p in plats),
        sources=(os.path.basename(spec.source),) if spec.source else (),
        pip_options=pip_options,
        metadata=add_custom_metadata(lock_metadata(packages, spec.variables), custom),
    )


def _require_named_index(spec: EnvSpec, platform: str, pip: Sequence[LockedPackage]) -> None:
    """Raise BackendError when a PyTorch-family package the pip section asks for was locked from
    another index than the PyTorch wheel index the section names (pip fell back to an extra index,
    PyPI, because that one was unreachable or lacks the release)."""
    requested = [d.name for d in spec.pip if d.kind != "option" and d.name]
    bad = index_mismatches(requested, pip, lock_pip_options(spec))
    if not bad:
        return
    b = bad[0]
    others = f" (and {', '.join(x.name for x in bad[1:])})" if len(bad) > 1 else ""
    came = f"from {b.got}" if b.got else f"from {b.url}"
    raise BackendError(
        f"{platform}: pip locked {b.name}=={b.version}{others} {came}, not from the index the pip section "
        f"names for it, {b.wanted}: that index was unreachable or lacks the release, and pip fell back to "
        "another index",
        where=Where(file=spec.source, line=spec.line_of("dependencies")),
        hint=f"check that {b.wanted} is reachable (network, proxy, PIP_* settings) and has that release; "
        "nothing was written",
    )


def check_platforms(platforms: Sequence[str]) -> tuple[str, ...]:
    from envkit.conda.channels import is_platform

    if not platforms:
        raise UsageError(
            "no platform to lock for",
            hint="pass {} (e.g. {})",
            remedy=(
                Remedy(option="platforms", many=True),
                Remedy(option="platforms", value="linux-64", many=True),
            ),
        )
    for p in platforms:
        if not is_platform(p):
            raise UsageError(
                f"unknown platform {p!r}",
                hint="use a conda subdir such as linux-64, linux-aarch64, osx-64, osx-arm64, win-64",
            )
    return tuple(sorted(set(platforms)))
