"""`create_from_lock`: the steps of creating an environment from a lock, in order, and its result."""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from envkit.create.claim import check_target, claim_prefix, mark_complete, mark_incomplete
from envkit.create.conda_install import install_conda
from envkit.create.fetch import check_archive_paths
from envkit.create.hashes import validate_hashes, verify_local_archives
from envkit.create.pip_install import install_pip, uninstall_dists
from envkit.create.rattler_install import PrefixTaken, install_rattler, to_repodata_records
from envkit.create.state import write_state_variables
from envkit.create.target import choose_platform, remove_tree
from envkit.errors import UsageError
from envkit.model import Lock, LockedPackage

BACKENDS = ("rattler", "conda", "mamba", "micromamba")


@dataclass(frozen=True, slots=True, kw_only=True)
class CreateResult:
    """What `create_from_lock` made: the prefix, the platform installed, and package counts."""

    prefix: str
    platform: str
    conda: int
    pip: int
    backend: str
    require_hashes: bool
    #: pip packages locked without an artifact (envkit.lock's #envkit-unresolved marker), as
    #: `name==version`: installed by pin from the configured index, without hash checking
    by_pin: tuple[str, ...] = ()
    #: names of the environment variables written to conda-meta/state (from the lock's
    #: `custom_metadata`, envkit.lock.VARIABLES_KEY)
    variables: tuple[str, ...] = ()
    #: names of the variables the lock records without their value (a credential, redacted when it
    #: was locked): not set; the user sets them (`conda env config vars set`)
    unset_variables: tuple[str, ...] = ()
    #: an earlier `create` of this prefix had not finished: its remains were replaced
    replaced: bool = False


def create_from_lock(
    lock: Lock,
    prefix: str | os.PathLike[str],
    *,
    platform: str | None = None,
    backend: str = "rattler",
    executable: str | None = None,
    cache_dir: str | os.PathLike[str] | None = None,
    timeout: float = 1800,
    environments: Mapping[str, Sequence[str]] | None = None,
    show_progress: bool = False,
) -> CreateResult:
    """Create `prefix` holding exactly the packages `lock` has for `platform` (default: this machine's).

    `environments`: for a pixi.lock, every environment's locked platforms (see `choose_platform`),
    so that a platform the chosen environment lacks is answered with the ones that have it.

    Raises UsageError (existing non-empty prefix, platform not locked, missing URL/hash),
    IntegrityError (a package does not match its recorded hash) and BackendError (download, link,
    conda or pip failure).  One process creates a prefix at a time (envkit.create.claim); on any
    error after the prefix was started, what this run made is removed again.
    """
    from envkit.formats.condalock import apply_editable

    if backend not in BACKENDS:
        raise UsageError(f"unknown backend {backend!r}", hint="use one of: " + ", ".join(BACKENDS))
    lock = apply_editable(lock)  # editable pip packages recorded in custom_metadata
    plat = choose_platform(lock, platform, environments=environments)
    target = os.path.abspath(os.fspath(prefix))
    check_target(target)
    pkgs = lock.for_platform(plat)
    conda = [p for p in pkgs if p.manager == "conda"]
    pip = [p for p in pkgs if p.manager == "pip"]
    _check_entries(pkgs, conda, plat, lock.source)
    kw = dict(
        backend=backend,
        executable=executable,
        cache_dir=cache_dir,
        timeout=timeout,
        show_progress=show_progress,
    )
    replaced, (hashed, written, unset) = _claimed_install(lock, target, plat, conda, pip, **kw)
    from envkit.lock import is_index_placeholder

    by_pin = tuple(f"{p.name}=={p.version}" for p in pip if is_index_placeholder(p))
    return CreateResult(
        replaced=replaced,
        prefix=target,
        platform=plat,
        conda=len(conda),
        pip=len(pip),
        backend=backend,
        require_hashes=hashed,
        by_pin=by_pin,
        variables=written,
        unset_variables=unset,
    )


def _check_entries(
    pkgs: Sequence[LockedPackage], conda: Sequence[LockedPackage], plat: str, source: str | None
) -> None:
    """Everything about the lock's entries that can be refused before any work: malformed hashes
    (pip's too: one must not turn hash checking off), entries conda cannot link, local archives that
    do not match their hashes or write outside the prefix."""
    validate_hashes(pkgs, source=source)
    to_repodata_records(conda, plat, source=source)  # before any file is read
    verify_local_archives(conda, source=source)
    check_archive_paths(conda, source=source)


def _claimed_install(
    lock: Lock, target: str, plat: str, conda: Sequence[LockedPackage], pip: Sequence[LockedPackage], **kw
) -> tuple[bool, tuple[bool, tuple[str, ...], tuple[str, ...]]]:
    """`_install` with the claim on `target` held; on failure, what it made is removed (an empty
    directory that was there is made again).  Returns (an unfinished prefix was replaced, what
    `_install` returns)."""
    with claim_prefix(target) as replaced:
        existed = os.path.isdir(target)  # an empty directory to create the environment in
        try:
            return replaced, _install(lock, target, plat, conda, pip, **kw)
        except PrefixTaken:
            raise
        except BaseException:
            # the claim is held and `target` was missing or empty: what is there now is this run's
            remove_tree(target)
            if existed:
                os.mkdir(target)
            raise


def _install(
    lock: Lock,
    target: str,
    plat: str,
    conda: Sequence[LockedPackage],
    pip: Sequence[LockedPackage],
    *,
    backend: str,
    executable: str | None,
    cache_dir: str | os.PathLike[str] | None,
    timeout: float,
    show_progress: bool,
) -> tuple[bool, tuple[str, ...], tuple[str, ...]]:
    """The steps of `create_from_lock` inside the claim: conda packages (the prefix marked
    incomplete from the moment it exists), pip packages, variables, and the mark removed last.
    Returns (pip hashes required, variables set, variables left unset)."""
    from envkit.conda.names import pep503
    from envkit.io import fault_point
    from envkit.lock import lock_over_conda, lock_variables

    if backend == "rattler":
        # the history block conda writes for `create --file` (the conda backend writes its own)
        cmd = ["envkit", "create", *(["--lock", lock.source] if lock.source else []), "-p", target]
        install_rattler(
            conda,
            target,
            plat,
            cache_dir=cache_dir,
            history_cmd=cmd,
            show_progress=show_progress,
            source=lock.source,
        )
    else:
        install_conda(lock, plat, target, backend, executable, timeout=timeout)
        mark_incomplete(target)
    fault_point("create:pip")
    # relative paths in the lock's pip options (`--find-links ./wheels`) are the lock's
    lock_dir = (
        os.path.dirname(os.path.abspath(lock.source)) if lock.source and os.path.isfile(lock.source) else None
    )
    # pip packages that were installed over a conda package's files in the locked environment:
    # pip uninstalled conda's copy first, so do the same (whether or not this pip sees it)
    over = set(lock_over_conda(lock)) & {pep503(p.name) for p in pip}
    if over:
        uninstall_dists(target, over)
    hashed = (
        install_pip(target, plat, pip, options=lock.pip_options, timeout=timeout, cwd=lock_dir)
        if pip
        else False
    )
    written, unset = write_state_variables(target, lock_variables(lock))
    fault_point("create:finish")
    mark_complete(target)
    return hashed, written, unset
