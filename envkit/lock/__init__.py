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
* `check_lock(spec, lock)` (`check`) lists what makes a lock unfit for its spec: a stale content hash
  (`staleness`), a spec entry the locked packages do not satisfy (conda match semantics for conda
  entries, PEP 440 for pip).

The content hash (`content_hash.spec_content_hash`) is what `envkit check`'s stale-lock rule compares.
This module re-exports each submodule's public names: `from envkit.lock import solve_spec` works.
"""

from __future__ import annotations

from envkit.backends.lock_metadata import OVER_CONDA_KEY, VARIABLES_KEY, lock_metadata
from envkit.lock.artifacts import (
    INDEX_URL,
    MAX_PIP_ATTEMPTS,
    MIN_ENV_PIP,
    MIN_PIP,
    UNRESOLVED_URL,
    IndexResolution,
    index_placeholder_url,
    is_index_placeholder,
    resolve_index_artifacts,
    unresolved_pip_error,
)
from envkit.lock.check import LockProblem, check_lock
from envkit.lock.conda_lock import (
    conda_lock_argv,
    find_conda_executable,
    solve_with_conda_lock,
    virtual_package_spec_yaml,
)
from envkit.lock.content_hash import CONTENT_HASH_VERSION, spec_content_hash
from envkit.lock.live import live_env_spec, lock_live
from envkit.lock.metadata import apply_lock_metadata, lock_over_conda, lock_variables
from envkit.lock.packages import sort_packages, split_depend
from envkit.lock.pip import lock_pip, pip_argv, pip_requirements_text, target_markers, wheel_platform_tags
from envkit.lock.pip_index import INDEX_KEY
from envkit.lock.solve import (
    CHANNEL_PRIORITIES,
    channel_sources,
    lock_pip_options,
    rebase_pip_options,
    record_to_package,
    solve_conda,
    solve_spec,
)
from envkit.lock.staleness import (
    CONDA_LOCK_MARK,
    ENVKIT_MARK,
    VIRTUAL_PACKAGE_FILES,
    Staleness,
    conda_lock_content_hashes,
    conda_lock_version,
    lock_staleness,
    lock_writer,
)
from envkit.lock.virtual import (
    DEFAULT_VIRTUAL_PACKAGES,
    VirtualPackage,
    parse_virtual_package,
    virtual_packages_for,
)

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
