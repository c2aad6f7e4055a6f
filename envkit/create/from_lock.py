"""`create_from_lock`: the steps of creating an environment from a lock, in order, and its result."""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from envkit.create.conda_install import install_conda
from envkit.create.hashes import validate_hashes, verify_local_archives
from envkit.create.pip_install import install_pip, uninstall_dists
from envkit.create.rattler_install import install_rattler
from envkit.create.state import write_state_variables
from envkit.create.target import choose_platform, prepare_prefix, remove_tree
from envkit.errors import UsageError
from envkit.model import Lock

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
    conda or pip failure).  On any error after the prefix was started it is removed again.
    """
    from envkit.conda.names import pep503
    from envkit.lock import apply_lock_metadata, lock_over_conda, lock_variables

    if backend not in BACKENDS:
        raise UsageError(f"unknown backend {backend!r}", hint="use one of: " + ", ".join(BACKENDS))
    lock = apply_lock_metadata(lock)  # editable pip packages recorded in custom_metadata
    plat = choose_platform(lock, platform, environments=environments)
    target = os.path.abspath(os.fspath(prefix))
    prepare_prefix(target)
    pkgs = lock.for_platform(plat)
    conda = [p for p in pkgs if p.manager == "conda"]
    pip = [p for p in pkgs if p.manager == "pip"]
    validate_hashes(pkgs, source=lock.source)  # pip's too: a malformed one must not turn hash checking off
    verify_local_archives(conda, source=lock.source)
    try:
        if backend == "rattler":
            # the history block conda writes for `create --file` (the conda backend writes its own)
            cmd = ["envkit", "create", *(["--lock", lock.source] if lock.source else []), "-p", target]
            install_rattler(
                conda, target, plat, cache_dir=cache_dir, history_cmd=cmd, show_progress=show_progress
            )
        else:
            install_conda(lock, plat, target, backend, executable, timeout=timeout)
        # relative paths in the lock's pip options (`--find-links ./wheels`) are the lock's
        lock_dir = (
            os.path.dirname(os.path.abspath(lock.source))
            if lock.source and os.path.isfile(lock.source)
            else None
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
    except BaseException:
        remove_tree(target)
        raise
    from envkit.lock import is_index_placeholder

    by_pin = tuple(f"{p.name}=={p.version}" for p in pip if is_index_placeholder(p))
    return CreateResult(
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
