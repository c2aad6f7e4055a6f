"""Locking: a live environment or a spec (+ platforms) becomes a `Lock`; a lock is checked against its spec.

Three entry points, all returning data (only `envkit.commands.lock` prints or writes files):

* `lock_live(env)` (`live`) locks a live environment exactly (every conda record with URL, md5,
  sha256, depends; every pip distribution with version and, where the installation recorded them or
  pip resolved them (`artifacts.resolve_index_artifacts`), URL and sha256).  `live_env_spec(env)` is
  the matching exact `environment.lock.yml` model.
* `solve_spec(spec, platforms, ...)` (`solve`) solves the spec's conda dependencies for each platform
  with py-rattler (channel priority strict by default, virtual packages settable per platform), then
  locks its pip section per platform with pip's resolver (`pip install --dry-run --report`, see
  `pip.lock_pip`).  `solve_with_conda_lock(...)` (`conda_lock`) does the same through conda-lock itself.
* `relock_spec(spec, platforms, previous=LOCK, update=[...], cutoffs=...)` (`solve`, `relock`) is
  `solve_spec` keeping what a previous lock chose, with a report of what moved and why, solved as
  of a date when given cutoffs (`cutoff`); the spec is recorded in the lock (`spec_record`) so a
  stale lock can name the entries that changed.
* `check_lock(spec, lock)` (`check`) lists what makes a lock unfit for its spec: a stale content hash
  (`staleness`), a spec entry the locked packages do not satisfy (conda match semantics for conda
  entries, PEP 440 for pip).

The content hash (`content_hash.spec_content_hash`) is what `envkit check`'s stale-lock rule compares.
This module re-exports each submodule's public names, each loaded on first use: `from envkit.lock import
solve_spec` works and imports only `envkit.lock.solve`.
"""

from __future__ import annotations

from typing import Any

from envkit._lazy import lazy_exports

#: each public name -> the module that defines it; loaded on first use (PEP 562), so that
#: importing one submodule does not import them all
_HOME = {
    "OVER_CONDA_KEY": "envkit.backends.lock_metadata",
    "VARIABLES_KEY": "envkit.backends.lock_metadata",
    "lock_metadata": "envkit.backends.lock_metadata",
    "INDEX_URL": "envkit.lock.artifacts",
    "MAX_PIP_ATTEMPTS": "envkit.lock.artifacts",
    "MIN_ENV_PIP": "envkit.lock.artifacts",
    "MIN_PIP": "envkit.lock.artifacts",
    "UNRESOLVED_URL": "envkit.lock.artifacts",
    "IndexResolution": "envkit.lock.artifacts",
    "index_placeholder_url": "envkit.lock.artifacts",
    "is_index_placeholder": "envkit.lock.artifacts",
    "resolve_index_artifacts": "envkit.lock.artifacts",
    "unresolved_pip_error": "envkit.lock.artifacts",
    "resolve_or_refuse": "envkit.lock.artifacts",
    "EXCLUDE_NEWER_KEY": "envkit.lock.cutoff",
    "ExcludeNewer": "envkit.lock.cutoff",
    "parse_exclude_newer": "envkit.lock.cutoff",
    "read_exclude_newer": "envkit.lock.cutoff",
    "Move": "envkit.lock.relock",
    "Reason": "envkit.lock.relock",
    "SpecLock": "envkit.lock.solve",
    "relock_spec": "envkit.lock.solve",
    "SPEC_KEY": "envkit.lock.spec_record",
    "SpecChange": "envkit.lock.spec_record",
    "spec_changes": "envkit.lock.spec_record",
    "environ_virtual_packages": "envkit.lock.virtual",
    "LockProblem": "envkit.lock.check",
    "check_lock": "envkit.lock.check",
    "conda_lock_argv": "envkit.lock.conda_lock",
    "find_conda_executable": "envkit.lock.conda_lock",
    "solve_with_conda_lock": "envkit.lock.conda_lock",
    "virtual_package_spec_yaml": "envkit.lock.conda_lock",
    "CONTENT_HASH_VERSION": "envkit.lock.content_hash",
    "spec_content_hash": "envkit.lock.content_hash",
    "live_env_spec": "envkit.lock.live",
    "lock_live": "envkit.lock.live",
    "apply_lock_metadata": "envkit.lock.metadata",
    "lock_over_conda": "envkit.lock.metadata",
    "lock_variables": "envkit.lock.metadata",
    "sort_packages": "envkit.lock.packages",
    "split_depend": "envkit.lock.packages",
    "lock_pip": "envkit.lock.pip",
    "pip_argv": "envkit.lock.pip",
    "pip_requirements_text": "envkit.lock.pip",
    "target_markers": "envkit.lock.pip",
    "wheel_platform_tags": "envkit.lock.pip",
    "INDEX_KEY": "envkit.lock.pip_index",
    "CHANNEL_PRIORITIES": "envkit.lock.solve",
    "channel_sources": "envkit.lock.solve",
    "lock_pip_options": "envkit.lock.spec_record",
    "rebase_pip_options": "envkit.lock.spec_record",
    "record_to_package": "envkit.lock.solve",
    "solve_conda": "envkit.lock.solve",
    "solve_spec": "envkit.lock.solve",
    "CONDA_LOCK_MARK": "envkit.lock.staleness",
    "ENVKIT_MARK": "envkit.lock.staleness",
    "VIRTUAL_PACKAGE_FILES": "envkit.lock.staleness",
    "Staleness": "envkit.lock.staleness",
    "conda_lock_content_hashes": "envkit.lock.staleness",
    "conda_lock_version": "envkit.lock.staleness",
    "lock_staleness": "envkit.lock.staleness",
    "lock_writer": "envkit.lock.staleness",
    "DEFAULT_VIRTUAL_PACKAGES": "envkit.lock.virtual",
    "VirtualPackage": "envkit.lock.virtual",
    "parse_virtual_package": "envkit.lock.virtual",
    "virtual_packages_for": "envkit.lock.virtual",
}

__all__ = [
    "DEFAULT_VIRTUAL_PACKAGES",
    "VirtualPackage",
    "parse_virtual_package",
    "virtual_packages_for",
    "CONTENT_HASH_VERSION",
    "spec_content_hash",
    "split_depend",
    "sort_packages",
    "VARIABLES_KEY",
    "OVER_CONDA_KEY",
    "lock_metadata",
    "apply_lock_metadata",
    "lock_over_conda",
    "lock_variables",
    "INDEX_KEY",
    "UNRESOLVED_URL",
    "INDEX_URL",
    "index_placeholder_url",
    "is_index_placeholder",
    "IndexResolution",
    "MAX_PIP_ATTEMPTS",
    "resolve_index_artifacts",
    "MIN_ENV_PIP",
    "MIN_PIP",
    "unresolved_pip_error",
    "resolve_or_refuse",
    "EXCLUDE_NEWER_KEY",
    "ExcludeNewer",
    "parse_exclude_newer",
    "read_exclude_newer",
    "Move",
    "Reason",
    "SpecLock",
    "relock_spec",
    "SPEC_KEY",
    "SpecChange",
    "spec_changes",
    "environ_virtual_packages",
    "live_env_spec",
    "lock_live",
    "target_markers",
    "wheel_platform_tags",
    "pip_argv",
    "pip_requirements_text",
    "lock_pip",
    "CHANNEL_PRIORITIES",
    "channel_sources",
    "record_to_package",
    "solve_conda",
    "solve_spec",
    "rebase_pip_options",
    "lock_pip_options",
    "find_conda_executable",
    "virtual_package_spec_yaml",
    "conda_lock_argv",
    "solve_with_conda_lock",
    "ENVKIT_MARK",
    "CONDA_LOCK_MARK",
    "VIRTUAL_PACKAGE_FILES",
    "lock_writer",
    "conda_lock_version",
    "conda_lock_content_hashes",
    "Staleness",
    "lock_staleness",
    "LockProblem",
    "check_lock",
]


_getattr, __dir__ = lazy_exports(__name__, _HOME)


def __getattr__(name: str) -> Any:  # a def, so that type checkers see the names as Any
    return _getattr(name)
