"""envkit.envdiff: why do two environments differ?

`diff(a, b) -> EnvDiff`, a pure function over envkit's models.

Each side is any model envkit reads: an `EnvSpec` (a hand-written spec, a requirements file, or a
`conda env export`), a `Lock` (conda-lock, pixi, explicit, `conda list`), or a `LiveEnv` (a prefix).

* Two concrete sides (locks, exports with versions, live environments) are compared package by
  package: added, removed, upgraded, downgraded (conda's version order from py-rattler; PEP 440 for
  pip packages), rebuilt (same version, only hash/build number), build variant changed (the decoded
  build string says something different: CPU vs CUDA, MKL vs OpenBLAS, another Python ABI), channel
  changed, manager changed (conda <-> pip, PyPI names mapped to conda names), and duplicates (one
  project installed by both conda and pip on one side only).
* A spec against a concrete side gives, per spec entry, satisfied / not satisfied / missing (conda's
  match semantics, PEP 440 for pip), plus the concrete packages the spec does not mention.
* Two specs are compared entry by entry.

Each change gets an impact (high / medium / low) and a one-line reason, and a group: "matter" (the
"likely to matter" section: Python, PyTorch, CUDA, cuDNN, NCCL, BLAS, compiler runtimes, numpy,
duplicates, conda<->pip moves), "platform" (expected differences between two platforms: packages only
one OS has, and the same version built per platform), or "other".  Channels (list, order, priority),
pip index options and environment variables are compared too.  Nothing here prints or reads files.
"""

from __future__ import annotations

from envkit.envdiff.categories import blas_of, category_of, is_platform_only
from envkit.envdiff.compare import record_differences
from envkit.envdiff.core import diff
from envkit.envdiff.pip_origin import entry_source, name_from_source
from envkit.envdiff.platforms import guess_platform, pick_platforms
from envkit.envdiff.records import (
    EXPORT_JSON_BACKEND,
    GROUPS,
    IMPACTS,
    KIND_TITLES,
    KINDS,
    NOT_RECORDED,
    Change,
    DiffNote,
    EnvDiff,
    PackageState,
)
from envkit.envdiff.versions import compare_versions

__all__ = [
    "EXPORT_JSON_BACKEND",
    "GROUPS",
    "IMPACTS",
    "KINDS",
    "KIND_TITLES",
    "NOT_RECORDED",
    "Change",
    "DiffNote",
    "EnvDiff",
    "PackageState",
    "blas_of",
    "category_of",
    "compare_versions",
    "diff",
    "entry_source",
    "guess_platform",
    "is_platform_only",
    "name_from_source",
    "pick_platforms",
    "record_differences",
]
