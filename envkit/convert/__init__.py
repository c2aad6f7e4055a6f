"""`envkit convert`'s core: any format envkit reads -> any format it writes, saying what is lost.

    conversion = convert(model, "pixi", platform=None)
    conversion.text        the output text
    conversion.losses      what the target could not hold (Loss records), empty when lossless

What a target can hold is a set of features (FEATURES) per writer (HOLDS); what a source can carry
is a set per reader (CARRIES).  A conversion's losses are the features the model actually has that
the target does not hold, plus the packages a writer had to leave out (no artifact URL, no hash).
The same two tables give the lossless / dropped matrix of docs/commands/convert.md
(`loss_table_markdown`, checked by tests/convert/test_convert.py).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace

from envkit.convert.features import (
    CARRIES,
    FEATURES,
    HOLDS,
    KNOWN_GAPS,
    NEEDS_PLATFORM,
    SINGLE_PLATFORM,
    TARGETS,
    Loss,
    features_of,
    loss_table_markdown,
    losses_of,
    pair_losses,
)
from envkit.convert.refuse import refuse_unwritable
from envkit.convert.write import write
from envkit.errors import UsageError
from envkit.model import EnvSpec, Lock, resolved_view

__all__ = [
    "CARRIES",
    "FEATURES",
    "HOLDS",
    "KNOWN_GAPS",
    "SINGLE_PLATFORM",
    "TARGETS",
    "Conversion",
    "Loss",
    "convert",
    "features_of",
    "loss_table_markdown",
    "pair_losses",
]


@dataclass(frozen=True, slots=True, kw_only=True)
class Conversion:
    text: str
    source_format: str
    target: str
    platform: str | None
    losses: tuple[Loss, ...] = ()
    #: platforms of the source not written (a single-platform target, chosen with --platform)
    left_out_platforms: tuple[str, ...] = ()
    #: what was written: the source's lock (or spec) for the platforms written, to diff the output
    #: against (envkit.ops.convert reads the output back)
    written_from: Lock | EnvSpec | None = None
    #: a pixi.lock of several environments written whole (pixi targets): each environment's name
    #: and what was written from it (`written_from` is then None)
    environments: tuple[tuple[str, Lock], ...] = ()


def convert(model, target: str, *, source_format: str, platform: str | None = None) -> Conversion:
    """`model` (what envkit.formats.read_text returned for `source_format`) written as `target`.
    A mapping of environment names to Locks (every environment of a pixi.lock,
    envkit.formats.pixilock.read_pixi_environments) is written whole to a pixi target; to another
    target only when one environment has packages (`convert_environments`).

    Raises UsageError for an unknown target, a model the target cannot be made from, and a lock with
    several platforms written to a one-platform target without `platform`."""
    if target not in TARGETS:
        raise UsageError(f"unknown target format {target!r}; choose one of: {', '.join(TARGETS)}")
    if isinstance(model, Mapping):
        return convert_environments(model, target, source_format=source_format, platform=platform)
    view = resolved_view(model, platform)
    if view is not None and view.lock is not None:
        lock = view.lock
    elif model.kind == "spec" and target in ("env", "requirements"):
        return _spec_convert(model, target, source_format)
    elif source_format == "requirements":
        from envkit.formats.requirements import requirements_to_lock

        lock = requirements_to_lock(model)
    else:
        raise UsageError(
            "this environment file is a spec (loose versions), not a lock; it converts only to "
            "env or requirements",
            hint="lock it first: envkit lock -f FILE",
        )
    lock, left_out = _for_platform(lock, target, platform, source_format)
    refuse_unwritable(lock, target)
    dropped: list[tuple[str, str]] = []
    text = write(lock, target, dropped)
    return Conversion(
        text=text,
        source_format=source_format,
        target=target,
        platform=platform,
        losses=losses_of(lock, target, dropped, source_format, left_out=bool(left_out)),
        left_out_platforms=left_out,
        written_from=lock,
    )


def _for_platform(
    lock: Lock, target: str, platform: str | None, source_format: str
) -> tuple[Lock, tuple[str, ...]]:
    """`lock` as `target` takes it: the one `platform` of a one-platform target (with the platforms
    left out), or given to a lock that names none.  UsageError when `platform` is missing or not
    the lock's."""
    left_out: tuple[str, ...] = ()
    if platform is not None and lock.platforms:
        if platform not in lock.platforms:
            raise UsageError(
                f"the lock has no platform {platform!r}", hint=f"one of: {', '.join(lock.platforms)}"
            )
        if target in SINGLE_PLATFORM:
            left_out = tuple(p for p in lock.platforms if p != platform)
            lock = replace(
                lock,
                platforms=(platform,),
                packages=lock.for_platform(platform),
                content_hash=tuple((k, v) for k, v in lock.content_hash if k == platform),
            )
    elif len(lock.platforms) > 1 and target in SINGLE_PLATFORM and not _same_pip(lock, target):
        raise UsageError(
            f"the lock has {len(lock.platforms)} platforms ({', '.join(lock.platforms)}); {target} holds one",
            hint="choose one with --platform",
        )
    if not lock.platforms and target in NEEDS_PLATFORM:
        if any(p.manager == "pip" for p in lock.packages) and platform is None:
            raise UsageError(
                f"a {source_format} lock names no platform; {target} locks packages per platform",
                hint="say which with --platform (e.g. --platform linux-64)",
            )
        if platform is not None:
            lock = replace(
                lock,
                platforms=(platform,),
                packages=tuple(replace(p, platform=platform) for p in lock.packages),
            )
    return lock, left_out


def convert_environments(
    envs: Mapping[str, Lock], target: str, *, source_format: str, platform: str | None = None
) -> Conversion:
    """Every environment of a pixi.lock (name -> Lock) written as `target`: all of them to a pixi
    target (with every platform), else the one environment that has packages.  Raises UsageError,
    naming the environments and `--env NAME`, when that is ambiguous or nothing is locked: a
    conversion of the `default` environment alone would drop the others silently."""
    from envkit.errors import Remedy, Where

    full = {n: lk for n, lk in envs.items() if lk.packages}
    if len(envs) > 1 and full and target in ("pixi", "pixi-v7"):
        return _convert_all(envs, target, source_format)
    if len(full) == 1 and (len(envs) == 1 or "default" in full):  # nothing else to lose
        return convert(next(iter(full.values())), target, source_format=source_format, platform=platform)
    source = next(iter(envs.values())).source if envs else None
    listed = ", ".join(
        f"{n} ({', '.join(lk.platforms)})" if lk.packages else f"{n} (no packages)" for n, lk in envs.items()
    )
    if not full:
        message = "the pixi.lock has no packages in any environment" + (f" ({listed})" if envs else "")
        raise UsageError(message, where=Where(file=source))
    if "default" not in full:  # as `envkit create` says it: the environment asked for is empty
        others = ", ".join(f"{n} ({', '.join(lk.platforms)})" for n, lk in full.items())
        message = f"pixi.lock environment 'default' has no packages; its other environments: {others}"
    else:
        message = f"the pixi.lock has {len(envs)} environments ({listed}); {target} holds one"
    raise UsageError(
        message,
        where=Where(file=source),
        hint="choose one with {}" + (" (pixi and pixi-v7 keep them all)" if len(full) > 1 else ""),
        remedy=Remedy(option="environment", metavar="NAME"),
    )


def _convert_all(envs: Mapping[str, Lock], target: str, source_format: str) -> Conversion:
    """Every environment of a pixi.lock written to one pixi.lock of `target`'s version; the losses
    are those of each environment's own conversion, merged."""
    from envkit.formats.pixiwrite import write_pixi_environments

    done = {n: convert(lk, target, source_format=source_format) for n, lk in envs.items()}
    written = {n: c.written_from for n, c in done.items() if isinstance(c.written_from, Lock)}
    text = write_pixi_environments(written, version=7 if target == "pixi-v7" else 6)
    by_feature: dict[str, list[Loss]] = {}
    for c in done.values():
        for loss in c.losses:
            by_feature.setdefault(loss.feature, []).append(loss)
    losses = []
    for feature, same in by_feature.items():
        names = tuple(dict.fromkeys(n for x in same for n in x.packages))
        losses.append(
            Loss(feature=feature, count=max(x.count for x in same), packages=names[:5], detail=same[0].detail)
        )
    return Conversion(
        text=text,
        source_format=source_format,
        target=target,
        platform=None,
        losses=tuple(losses),
        environments=tuple(written.items()),
    )


def _same_pip(lock: Lock, target: str) -> bool:
    if target != "pylock" and target != "requirements":
        return False
    sets = {
        tuple((p.name, p.version, p.url) for p in lock.for_platform(pl) if p.manager == "pip")
        for pl in lock.platforms
    }
    return len(sets) == 1


def _spec_convert(spec: EnvSpec, target: str, source_format: str) -> Conversion:
    from envkit.formats import write_text

    if target == "requirements" and spec.conda:
        raise UsageError("an environment spec with conda dependencies cannot be written as requirements.txt")
    return Conversion(
        text=write_text(spec, target),
        source_format=source_format,
        target=target,
        platform=None,
        written_from=spec,
    )
