"""Locking: a live environment or a spec (+ platforms) becomes a `Lock`; a lock is checked against its spec.

Three entry points, all returning data (only `envkit.commands.lock` prints or writes files):

* `lock_live(env)` (`live`) locks a live environment exactly (every conda record with URL, md5,
  sha256, depends; every pip distribution with version and, where the installation recorded them or
  pip resolved them (`artifacts.resolve_index_artifacts`), URL and sha256).  `live_env_spec(env)` is
  the matching exact `environment.lock.yml` model.
* `solve.relock_spec(spec, platforms, ...)` solves the spec's conda dependencies for each platform
  with py-rattler (channel priority strict by default, virtual packages settable per platform), then
  locks its pip section per platform with pip's resolver (`pip install --dry-run --report`, see
  `pip.lock_pip`); with `previous=LOCK, update=[...]` it keeps what a previous lock chose, with a
  report of what moved and why (`relock`), solved as of a date when given cutoffs (`cutoff`); the
  spec is recorded in the lock (`spec_record`) so a stale lock can name the entries that changed.
  `conda_lock.solve_with_conda_lock(...)` does the same through conda-lock itself.
* `check_lock(spec, lock)` (`check`) lists what makes a lock unfit for its spec: a stale content hash
  (`staleness`), a spec entry the locked packages do not satisfy (conda match semantics for conda
  entries, PEP 440 for pip).

The content hash (`content_hash.spec_content_hash`) is what `envkit check`'s stale-lock rule compares.
This module re-exports the submodules' names other modules use, each loaded on first use: `from
envkit.lock import check_lock` works and imports only `envkit.lock.check`.
"""

from __future__ import annotations

from typing import Any

from envkit._lazy import lazy_exports

#: each public name -> the module that defines it; loaded on first use (PEP 562), so that
#: importing one submodule does not import them all
_HOME = {
    "lock_metadata": "envkit.backends.lock_metadata",
    "MAX_PIP_ATTEMPTS": "envkit.lock.artifacts",
    "index_placeholder_url": "envkit.lock.artifacts",
    "is_index_placeholder": "envkit.lock.artifacts",
    "resolve_index_artifacts": "envkit.lock.artifacts",
    "unresolved_pip_error": "envkit.lock.artifacts",
    "LockProblem": "envkit.lock.check",
    "check_lock": "envkit.lock.check",
    "conda_lock_argv": "envkit.lock.conda_lock",
    "virtual_package_spec_yaml": "envkit.lock.conda_lock",
    "spec_content_hash": "envkit.lock.content_hash",
    "live_env_spec": "envkit.lock.live",
    "lock_live": "envkit.lock.live",
    "apply_lock_metadata": "envkit.lock.metadata",
    "lock_over_conda": "envkit.lock.metadata",
    "lock_variables": "envkit.lock.metadata",
    "split_depend": "envkit.model",
    "target_markers": "envkit.lock.pip",
    "wheel_platform_tags": "envkit.lock.pip",
    "lock_pip_options": "envkit.lock.spec_record",
    "rebase_pip_options": "envkit.lock.spec_record",
    "record_to_package": "envkit.lock.solve",
    "conda_lock_content_hashes": "envkit.lock.staleness",
    "lock_staleness": "envkit.lock.staleness",
    "lock_writer": "envkit.lock.staleness",
    "VirtualPackage": "envkit.lock.virtual",
    "parse_virtual_package": "envkit.lock.virtual",
    "virtual_packages_for": "envkit.lock.virtual",
}

__all__ = list(_HOME)


_getattr, __dir__ = lazy_exports(__name__, _HOME)


def __getattr__(name: str) -> Any:  # a def, so that type checkers see the names as Any
    return _getattr(name)
