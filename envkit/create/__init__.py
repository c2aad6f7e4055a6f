"""Create an environment from a lock, without solving.

`create_from_lock(lock, prefix)` installs exactly the locked packages of one platform:

1. the conda packages, with py-rattler (`rattler.install`), or with a conda/mamba/micromamba
   executable and an explicit file (`backend="conda"|"mamba"|"micromamba"`);
2. then the pip packages, with the new environment's own Python and pip: `pip install --no-deps`
   from the locked URLs, with `--require-hashes` when every pip package has a sha256.

Hashes are verified: py-rattler checks the sha256 of what it downloads over HTTP, but not of
`file://` packages, so envkit checks local archives itself (md5 and sha256, before anything is
linked).  Any failure (a hash mismatch, a failed download, pip failing) removes the half-made
prefix before the error is raised: a prefix either holds the whole lock or does not exist.

One concern a module: `target` (the platform, the prefix), `hashes`, `rattler_install`,
`conda_install`, `pip_install`, `state` (environment variables), and `from_lock`, which runs them.
This module re-exports the names used elsewhere: `from envkit.create import create_from_lock` works.
"""

from __future__ import annotations

from envkit.backends.prefix_scan import host_platform
from envkit.create.from_lock import create_from_lock
from envkit.create.hashes import file_hashes, validate_hashes
from envkit.create.pip_install import pip_option_lines, pip_requirement_lines, uninstall_dists
from envkit.create.rattler_install import to_repodata_records
from envkit.create.state import write_state_variables
from envkit.create.target import choose_platform, new_env_prefix, remove_tree

__all__ = [
    "create_from_lock",
    "choose_platform",
    "new_env_prefix",
    "remove_tree",
    "host_platform",
    "file_hashes",
    "validate_hashes",
    "to_repodata_records",
    "pip_option_lines",
    "pip_requirement_lines",
    "uninstall_dists",
    "write_state_variables",
]
