"""The create operation in two steps: `plan_create` reads the lock and says what will be installed
where (and what the user must know first); `run_create` installs it, without solving."""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from envkit.errors import ParseError, Remedy, UsageError, Where

if TYPE_CHECKING:  # pragma: no cover
    from envkit.create.from_lock import CreateResult
    from envkit.model import Lock, LockedPackage


@dataclass(frozen=True, slots=True, kw_only=True)
class CreatePlan:
    """The Lock read from `source`, the `target` prefix, the packages of the `platform` that will
    be installed, a pixi.lock's environments (name -> platforms, when the one chosen lacks the
    platform), and the warnings to show before installing (conda+pip duplicates, pip options)."""

    source: str
    lock: Lock
    target: str
    platform: str | None
    packages: tuple[LockedPackage, ...]
    environments: dict[str, tuple[str, ...]] | None = None
    warnings: tuple[str, ...] = ()

    @property
    def conda_count(self) -> int:
        return sum(1 for p in self.packages if p.manager == "conda")


@dataclass(frozen=True, slots=True, kw_only=True)
class CreateOutcome:
    """The CreateResult, and what the user must know about the new environment."""

    result: CreateResult
    warnings: tuple[str, ...] = ()


def plan_create(
    lock_file: str | os.PathLike[str],
    *,
    prefix: str | os.PathLike[str] | None = None,
    name: str | None = None,
    platform: str | None = None,
    environment: str | None = None,
    format: str | None = None,
) -> CreatePlan:
    """Read the lock `lock_file` (as `format`; a pixi.lock's `environment`) and choose where it
    goes: `prefix`, or the environment `name` (exactly one).  Raises UsageError, the ParseError
    family (a spec is no lock)."""
    from envkit.create import choose_platform, new_env_prefix, pip_option_lines
    from envkit.ops._duplicates import duplicate_messages

    lock_file = os.fspath(lock_file)
    prefix = None if prefix is None else os.fspath(prefix)
    if bool(prefix) == bool(name):
        raise UsageError(
            "give exactly one place to create the environment: a prefix or a name",
            hint="pass {} or {}",
            remedy=(Remedy(option="prefix", metavar="PREFIX"), Remedy(option="name", metavar="NAME")),
        )
    text, lk = _read_lock(lock_file, format, environment)
    environments = pixi_environments(text, lk, lock_file, platform)
    warnings = list(duplicate_messages(lk))
    target = prefix or new_env_prefix(name or "")
    if lk.pip_options:
        warnings += pip_option_lines(lk.pip_options)[1]
    try:
        chosen: str | None = choose_platform(lk, platform, environments=environments)
    except UsageError:
        chosen = None  # create_from_lock reports it, after the warnings
    packages = tuple(lk.for_platform(chosen)) if chosen else ()
    return CreatePlan(
        source=lock_file,
        lock=lk,
        target=target,
        platform=platform,
        packages=packages,
        environments=environments,
        warnings=tuple(warnings),
    )


def create_from_lock(
    lock: Lock | str | os.PathLike[str],
    prefix: str | os.PathLike[str],
    *,
    platform: str | None = None,
    backend: str = "rattler",
    executable: str | os.PathLike[str] | None = None,
    cache_dir: str | os.PathLike[str] | None = None,
    timeout: float = 1800,
    environments: Mapping[str, Sequence[str]] | None = None,
    show_progress: bool = False,
) -> CreateResult:
    """Create `prefix` with exactly the packages `lock` (a Lock, or the path of a lock file) has
    for `platform` (default: this machine's), without solving; `timeout` in seconds.  Returns a
    CreateResult.  Raises UsageError, ParseError (a file that is no lock), IntegrityError,
    BackendError (see envkit.create.create_from_lock)."""
    from envkit.create import create_from_lock as create
    from envkit.ops._inputs import model_or_path, opt_path, seconds

    return create(
        model_or_path("create_from_lock", "lock", lock, ("Lock",)),
        os.fspath(prefix),
        platform=platform,
        backend=backend,
        executable=opt_path(executable),
        cache_dir=opt_path(cache_dir),
        timeout=seconds("create_from_lock", "timeout", timeout),
        environments=environments,
        show_progress=show_progress,
    )


def run_create(plan: CreatePlan, *, backend: str = "rattler", show_progress: bool = False) -> CreateOutcome:
    """Create `plan.target` with exactly the packages of the plan (see create_from_lock).
    Raises UsageError, IntegrityError, BackendError."""
    result = create_from_lock(
        plan.lock,
        plan.target,
        platform=plan.platform,
        backend=backend,
        environments=plan.environments,
        show_progress=show_progress,
    )
    return CreateOutcome(result=result, warnings=_result_warnings(result))


def _read_lock(lock_file: str, format: str | None, environment: str | None) -> tuple[str, Lock]:
    """(text, Lock) of `lock_file`; ParseError for a file that is no lock, UsageError for an
    environment asked of a lock that holds one."""
    from envkit.lock.read import read_lock_file
    from envkit.model import env_file, resolved_view

    text, read = read_lock_file(lock_file, format, environment)
    # an environment file is no lock, an export neither: it records no URLs to install from
    view = resolved_view(read) if env_file(read) is None else None
    if view is None or view.lock is None:
        raise ParseError(
            "not a lock file (it reads as an environment spec, which needs solving)",
            where=Where(file=lock_file),
            hint="lock it first (envkit lock, envkit.lock_spec)",
        )
    if environment and view.lock.kind != "pixi":
        raise UsageError(
            f"an environment is picked from a pixi.lock; this is a {view.lock.kind} lock, which holds "
            "one environment",
            where=Where(file=lock_file),
            hint="leave out {}",
            remedy=Remedy(option="environment"),
        )
    return text, view.lock


def pixi_environments(
    text: str, lk: Lock, lock_file: str, platform: str | None
) -> dict[str, tuple[str, ...]] | None:
    """For a pixi.lock whose environment lacks the platform: every environment's platforms, so
    that the error says which have it (a second parse, only on this error path)."""
    from envkit.create import host_platform

    if lk.kind != "pixi" or (platform or host_platform()) in lk.platforms:
        return None
    from envkit.formats.pixilock import read_pixi_environments

    return {n: e.platforms for n, e in read_pixi_environments(text, lock_file).items()}


def _result_warnings(result: CreateResult) -> tuple[str, ...]:
    """Pip packages installed without hash checking, and variables the lock has no value for."""
    out: list[str] = []
    if result.replaced:
        out.append(f"{result.prefix} was left incomplete by an earlier `envkit create`; replaced")
    if result.by_pin:
        out.append(
            f"{len(result.by_pin)} pip package(s) had no artifact in the lock (#envkit-unresolved) and "
            "were installed by pin from the configured index, without hash checking: "
            f"{', '.join(result.by_pin)}"
        )
    if result.unset_variables:
        names = " ".join(f"{n}=..." for n in result.unset_variables)
        out.append(
            f"the lock records {len(result.unset_variables)} environment variable(s) without their "
            "value (a credential, redacted when it was locked), not set: "
            f"{', '.join(result.unset_variables)}; set them with "
            f"`conda env config vars set {names} -p {result.prefix}`"
        )
    return tuple(out)
