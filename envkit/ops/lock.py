"""Locking as an operation: what `envkit lock` does, typed, for the CLI and `import envkit` alike.

* `lock_spec` solves an environment file into a Lock; over a previous lock it keeps what that lock
  chose (`update` names what may move, `update_all` re-solves everything), with an optional
  cutoff (`exclude_newer`), and `CONDA_OVERRIDE_*` read from `environ` as conda reads them.
* `lock_live` locks a live environment exactly, asking pip for the artifacts of index installs,
  and fails when pip cannot name one (unless `allow_unhashed_pip`): the CLI and the library give
  the same answer for the same prefix.
* `check_lock` says whether a lock still fits its spec, and why not: each spec entry added,
  removed or changed since it was locked, per platform.

Each returns a result object and prints nothing; the errors are envkit's (UsageError, ParseError,
SolveError, BackendError).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from envkit.errors import ParseError, Remedy, UsageError, Where
from envkit.lock.check import LockProblem
from envkit.lock.cutoff import ExcludeNewer
from envkit.lock.relock import Move
from envkit.lock.spec_record import SpecChange
from envkit.lock.staleness import Staleness
from envkit.lock.virtual import VirtualPackage
from envkit.model import EnvSpec, LiveEnv, Lock


@dataclass(frozen=True, slots=True, kw_only=True)
class SpecLockResult:
    """What `lock_spec` made: the `lock`, the `moves` from the previous lock (empty without one;
    `relocked` says whether there was one), the cutoff in force (`exclude_newer`, None for none),
    the virtual packages set beyond the defaults (`virtual_packages`: given, then from
    CONDA_OVERRIDE_*), the solver's `warnings`, and `untimed`: (platform, count) of the records a
    cutoff kept because they have no upload time (envkit.render.lock_text words them)."""

    lock: Lock
    moves: tuple[Move, ...] = ()
    exclude_newer: ExcludeNewer | None = None
    virtual_packages: tuple[VirtualPackage, ...] = ()
    warnings: tuple[str, ...] = ()
    untimed: tuple[tuple[str, int], ...] = ()
    relocked: bool = False


def refuse_nothing_to_lock(spec: EnvSpec) -> None:
    """ParseError for a spec with no dependencies (a typo'd `dependencies:` key looks like that),
    or a requirements file (it has no channels to solve its conda side from)."""
    path = spec.source
    if spec.kind == "requirements" and not spec.channels:
        name = os.path.basename(path) if path else "requirements.txt"
        raise ParseError(
            "this is a pip requirements file: `envkit lock` solves conda environments, from a "
            "`channels:` list",
            where=Where(file=path),
            hint="list it in an environment.yml: `channels: [conda-forge]`, `dependencies: [python, pip, "
            f"{{pip: [-r {name}]}}]`, then `envkit lock -f environment.yml`",
        )
    if not spec.conda and not any(p.kind != "option" for p in spec.pip):
        raise ParseError(
            "the environment file lists no dependencies: nothing to lock",
            where=Where(file=path, line=spec.line_of("dependencies")),
            hint="add a `dependencies:` list",
        )


def _check_update(update: Sequence[str], spec: EnvSpec, previous: Lock | None) -> tuple[str, ...]:
    from envkit.model import pep503

    names = tuple(dict.fromkeys(n.strip().lower() for n in update if n.strip()))
    if not names:
        return ()
    if previous is None:
        raise UsageError(
            f"nothing to update {', '.join(names)} from: there is no previous lock",
            hint="lock it first (a first lock solves everything), or name the previous lock to read",
        )
    # the PEP 503 forms of every name only when some asked name is not spelt as the lock has it
    known = {p.name for p in previous.packages} | {d.name for d in spec.conda}
    unknown = [n for n in names if n not in known]
    if unknown:
        known |= {pep503(p.name) for p in previous.packages} | {pep503(p.name) for p in spec.pip if p.name}
        unknown = [n for n in unknown if n not in known and pep503(n) not in known]
    if unknown:
        raise UsageError(
            f"cannot update {', '.join(unknown)}: neither the previous lock nor the spec has "
            f"{'it' if len(unknown) == 1 else 'them'}",
            where=Where(file=previous.source),
            hint="name packages of the lock (a new dependency goes into the environment file)",
        )
    return names


def previous_cutoff(previous: Lock | None) -> ExcludeNewer | None:
    """The cutoff `previous` was solved with (recorded in its metadata), or None."""
    if previous is None:
        return None
    from envkit.formats.condalock import custom_metadata
    from envkit.lock.cutoff import read_exclude_newer

    return read_exclude_newer(custom_metadata(previous))


def lock_spec(
    spec: EnvSpec | str | os.PathLike[str],
    *,
    platforms: Sequence[str] = (),
    previous: Lock | str | os.PathLike[str] | None = None,
    update: Sequence[str] = (),
    update_all: bool = False,
    exclude_newer: ExcludeNewer | str | None = None,
    channel_priority: str = "strict",
    virtual_packages: Sequence[VirtualPackage | str] = (),
    environ: Mapping[str, str] | None = None,
    solver: str = "rattler",
    lock_pip_section: bool = True,
    progress: Callable[[str], None] | None = None,
) -> SpecLockResult:
    """Lock `spec` (an EnvSpec or the path of an environment file) for `platforms` (a list;
    default: its `platforms:`, else the previous lock's, else this machine's).

    With `previous` (the lock being replaced, or its path), every package it locked stays, except
    those in `update`, those the spec no longer accepts and those an updated package forces to
    move; with `update_all` everything is solved afresh.  `exclude_newer` (an ExcludeNewer, or its
    text: `2024-06-01`, `30d`; default: the cutoff `previous` records) solves as the channels were
    then.  `virtual_packages` (text too: `__cuda=12.4`) beat CONDA_OVERRIDE_CUDA / _GLIBC / _OSX
    read from `environ` (default os.environ).  `solver="conda-lock"` runs conda-lock (a fresh
    solve: no previous lock, no cutoff).  Raises ParseError (nothing to lock, a file of the
    wrong kind), UsageError (an update without a previous lock, a name neither has, an option the
    solver lacks), SolveError, BackendError.
    """
    from envkit.lock.solve import relock_spec
    from envkit.lock.virtual import environ_virtual_packages
    from envkit.ops._inputs import virtual_packages as vp_arg

    spec_m, prev, plats, names, cutoff = _lock_inputs(spec, previous, platforms, update, exclude_newer)
    cutoffs = cutoff if cutoff is not None else previous_cutoff(prev)
    vps = vp_arg("lock_spec", virtual_packages)
    vps += environ_virtual_packages(os.environ if environ is None else environ, plats, vps)
    if solver == "conda-lock":
        lock = _solve_with_conda_lock(spec_m, plats, vps, lock_pip_section, channel_priority, names, cutoff)
        return SpecLockResult(lock=lock, virtual_packages=vps)
    result = relock_spec(
        spec_m,
        plats,
        previous=None if update_all else prev,
        update=names,
        cutoffs=cutoffs or None,
        channel_priority=channel_priority,
        virtual_packages=vps,
        lock_pip_section=lock_pip_section,
        progress=progress,
    )
    return SpecLockResult(
        lock=result.lock,
        moves=_all_moves(prev, result.lock) if update_all and prev is not None else result.moves,
        exclude_newer=cutoffs or None,
        virtual_packages=vps,
        warnings=tuple(result.notes),
        untimed=tuple(result.untimed),
        relocked=prev is not None,
    )


def _lock_inputs(
    spec: EnvSpec | str | os.PathLike[str],
    previous: Lock | str | os.PathLike[str] | None,
    platforms: Sequence[str],
    update: Sequence[str],
    exclude_newer: ExcludeNewer | str | None,
) -> tuple[EnvSpec, Lock | None, list[str], tuple[str, ...], ExcludeNewer | None]:
    """lock_spec's arguments read: (spec, previous lock, platforms, names to update, cutoff).
    A re-lock keeps the previous lock's platforms unless told otherwise."""
    from envkit.backends.prefix_scan import host_platform
    from envkit.ops._inputs import model_or_path, str_list

    spec_m: EnvSpec = model_or_path("lock_spec", "spec", spec, ("EnvSpec",))
    prev: Lock | None = None
    if previous is not None:
        prev = model_or_path("lock_spec", "previous", previous, ("Lock",))
    plats_given = str_list("lock_spec", "platforms", platforms, "platform names")
    names_given = str_list("lock_spec", "update", update, "package names")
    cutoff = exclude_newer
    if isinstance(cutoff, str):
        from envkit.lock.cutoff import parse_exclude_newer

        cutoff = parse_exclude_newer(cutoff)
    refuse_nothing_to_lock(spec_m)
    plats = list(plats_given or spec_m.platforms or (prev.platforms if prev else ())) or [host_platform()]
    return spec_m, prev, plats, _check_update(names_given, spec_m, prev), cutoff


def _solve_with_conda_lock(
    spec: EnvSpec,
    platforms: list[str],
    vps: tuple[VirtualPackage, ...],
    lock_pip_section: bool,
    channel_priority: str,
    update: tuple[str, ...],
    cutoff: ExcludeNewer | None,
) -> Lock:
    """The lock conda-lock solves; UsageError for a setting conda-lock has no equivalent of."""
    from envkit.lock.conda_lock import solve_with_conda_lock

    if not lock_pip_section or channel_priority != "strict":
        raise UsageError(
            "the pip-section and channel-priority settings apply to the rattler solver; conda-lock "
            "reads channel_priority from .condarc and always locks the pip section",
            hint="use the default solver ({}) for them",
            remedy=Remedy(option="solver", value="rattler"),
        )
    if update or cutoff:
        raise UsageError(
            "updating packages and exclude-newer cutoffs need the rattler solver",
            hint="use the default solver ({})",
            remedy=Remedy(option="solver", value="rattler"),
        )
    return solve_with_conda_lock(spec, platforms, virtual_packages=vps)


def _all_moves(previous: Lock, lock: Lock) -> tuple[Move, ...]:
    """Every package that moved from `previous` to `lock` (a fresh solve, `update_all`)."""
    from envkit.lock.pip import pip_moves
    from envkit.lock.relock import moves_between

    moves: tuple[Move, ...] = ()
    for p in lock.platforms:
        old, new = previous.for_platform(p), lock.for_platform(p)
        moves += tuple(moves_between(p, old, new, {}, ()))
        moves += tuple(
            pip_moves(p, [x for x in old if x.manager == "pip"], [x for x in new if x.manager == "pip"], ())
        )
    return moves


def solve_spec(
    spec: EnvSpec | str | os.PathLike[str],
    platforms: Sequence[str] | None = None,
    *,
    channel_priority: str = "strict",
    virtual_packages: Sequence[VirtualPackage | str] = (),
    lock_pip_section: bool = True,
    pip_timeout: float = 600,
    solve_timeout: float | None = 600,
    progress: Callable[[str], None] | None = None,
) -> Lock:
    """Solve `spec` (an EnvSpec or the path of an environment file) afresh for each of `platforms`
    (a list; None: the spec's own `platforms:`) and return the Lock: no previous lock, no cutoff
    (lock_spec does both).  `virtual_packages` may be text (`__cuda=12.4`); the timeouts are
    seconds.  Raises SolveError, UsageError, BackendError."""
    from envkit.lock.solve import relock_spec
    from envkit.ops._inputs import model_or_path, seconds, str_list
    from envkit.ops._inputs import virtual_packages as vp_arg

    limit = None if solve_timeout is None else seconds("solve_spec", "solve_timeout", solve_timeout)
    return relock_spec(
        model_or_path("solve_spec", "spec", spec, ("EnvSpec",)),
        str_list("solve_spec", "platforms", platforms, "platform names"),
        channel_priority=channel_priority,
        virtual_packages=vp_arg("solve_spec", virtual_packages),
        lock_pip_section=lock_pip_section,
        pip_timeout=seconds("solve_spec", "pip_timeout", pip_timeout),
        solve_timeout=limit,
        progress=progress,
    ).lock


def read_previous(
    path: str | None, *, environment: str | None = None, format_hint: str | None = None
) -> Lock | None:
    """The lock at `path` a re-lock starts from: None when there is no file (or an empty one).
    A conda-lock.yml or a pixi.lock (versions up to 7; `environment`, default "default").
    Raises ParseError when the file is not a lock."""
    if not path or path == "-" or not os.path.isfile(path):
        return None
    from envkit.lock.read import read_lock_file

    if os.path.getsize(path) == 0:
        return None
    _text, model = read_lock_file(path, None, environment, format_hint=format_hint)
    if not isinstance(model, Lock):
        raise ParseError("not a lock file (it reads as an environment file)", where=Where(file=path))
    return model


@dataclass(frozen=True, slots=True, kw_only=True)
class LiveLockResult:
    """What `lock_live` made: the `lock`, the exact environment file's model (`env_spec`), and the
    `warnings` to show (the reader's, and pip's for artifacts locked without a hash)."""

    lock: Lock
    env_spec: EnvSpec
    warnings: tuple[str, ...] = ()


def lock_live(
    env: LiveEnv,
    *,
    allow_unhashed_pip: bool = False,
    index_artifacts: Mapping[str, tuple[str, str | None]] | None = None,
    progress: Callable[[str], None] | None = None,
) -> LiveLockResult:
    """Lock the live environment `env` (envkit.open_env reads one) exactly, for its own platform:
    what `envkit lock -n/-p` writes.

    pip is asked for the artifact (URL, sha256) of each pip package installed from an index
    (unless `index_artifacts` gives them: PEP 503 name -> (URL, sha256)); when it cannot name one,
    BackendError unless `allow_unhashed_pip`, which locks it with the #envkit-unresolved marker
    and a warning.  The result's `warnings` are the reader's and pip's."""
    from envkit.lock import live_env_spec
    from envkit.lock import lock_live as lock_live_core
    from envkit.ops._inputs import model_or_path

    model_or_path("lock_live", "env", env, ("LiveEnv",), paths=False)
    warnings = tuple(env.warnings)
    if index_artifacts is None:
        from envkit.lock.artifacts import resolve_or_refuse

        pending = sum(1 for p in env.pip_packages() if not p.url)
        if progress and pending:
            progress(
                f"asking pip for the artifacts (URL, sha256) of {pending} pip package(s) installed "
                "from an index"
            )
        resolution = resolve_or_refuse(env, allow_unhashed_pip=allow_unhashed_pip)
        index_artifacts, warnings = resolution.found, warnings + tuple(resolution.warnings)
    lock = lock_live_core(env, index_artifacts=index_artifacts, allow_unhashed_pip=allow_unhashed_pip)
    return LiveLockResult(lock=lock, env_spec=live_env_spec(env), warnings=warnings)


def _cutoff_problem(recorded: ExcludeNewer | None, wanted: ExcludeNewer | None) -> list[LockProblem]:
    """A stale-lock problem when the cutoff `wanted` is not the one the lock `recorded`."""
    if wanted is None or (recorded is not None and recorded.to_json() == wanted.to_json()):
        return []
    was = recorded.describe() if recorded else "none"
    message = f"solved with exclude-newer {was}, not {wanted.describe()}"
    return [LockProblem(kind="stale", platform=None, message=message)]


@dataclass(frozen=True, slots=True, kw_only=True)
class LockCheck:
    """`check_lock`'s verdict: `problems` (LockProblem; empty when the lock fits), `staleness` per
    platform, `changes` (the spec entries changed since the lock was made, when it recorded its
    spec; None when it did not), `stale_platforms`, and the cutoff it was solved with."""

    lock: Lock
    problems: tuple[LockProblem, ...] = ()
    staleness: tuple[Staleness, ...] = ()
    changes: tuple[SpecChange, ...] | None = None
    stale_platforms: tuple[str, ...] = ()
    exclude_newer: ExcludeNewer | None = None
    notes: tuple[str, ...] = ()

    @property
    def ok(self) -> bool:
        return not self.problems


def check_lock(
    spec: EnvSpec | str | os.PathLike[str],
    lock: Lock | str | os.PathLike[str],
    *,
    platforms: Sequence[str] | None = None,
    lock_text: str | None = None,
    virtual_packages: Sequence[VirtualPackage | str] = (),
    exclude_newer: ExcludeNewer | None = None,
) -> LockCheck:
    """Whether `lock` fits `spec`, and why not: `problems` is empty when it fits.  Each may be a
    path (read with envkit.formats.read_file); `platforms` (a list) are checked, default the
    lock's.  `exclude_newer`, when given, must be the cutoff the lock records (a different one
    makes the lock stale: it was solved as of another date).  Raises UsageError when nothing
    would be checked (no platform), ParseError for a file of the wrong kind."""
    from envkit.create import validate_hashes
    from envkit.formats.condalock import custom_metadata
    from envkit.lock import check_lock as check_core
    from envkit.lock import lock_staleness
    from envkit.lock.spec_record import recorded_spec, spec_changes
    from envkit.ops._inputs import model_or_path, str_list
    from envkit.ops._inputs import virtual_packages as vp_arg

    spec_m: EnvSpec = model_or_path("check_lock", "spec", spec, ("EnvSpec",))
    lock_m: Lock = model_or_path("check_lock", "lock", lock, ("Lock",))
    plats = str_list("check_lock", "platforms", platforms, "platform names") or None
    if not (plats or lock_m.platforms):
        raise UsageError(
            "the lock names no platform, so nothing would be checked",
            where=Where(file=lock_m.source),
            hint="pass {}",
            remedy=Remedy(option="platforms", many=True),
        )
    vps = vp_arg("check_lock", virtual_packages)
    validate_hashes(lock_m.packages, source=lock_m.source)  # a hash `envkit create` would refuse fails too
    staleness = lock_staleness(
        spec_m, lock_m, spec_m.source, lock_text=lock_text, platforms=plats, virtual_packages=vps
    )
    problems = list(check_core(spec_m, lock_m, platforms=plats, staleness=staleness))
    stale = tuple(s.platform for s in staleness if s.status == "stale")
    record = recorded_spec(custom_metadata(lock_m))
    changes = None
    if record is not None:
        channels = [c.name for c in lock_m.channels]
        # pip options are not compared: the lock holds them rebased to its own directory
        changes = tuple(spec_changes(record, spec_m, channels))
    recorded_cut = previous_cutoff(lock_m)
    problems += _cutoff_problem(recorded_cut, exclude_newer)
    notes = tuple(str(s) for s in staleness if s.status == "not-comparable")
    return LockCheck(
        lock=lock_m,
        problems=tuple(problems),
        staleness=tuple(staleness),
        changes=changes,
        stale_platforms=stale,
        exclude_newer=recorded_cut,
        notes=notes,
    )
