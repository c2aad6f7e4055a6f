"""A manifest (pixi.toml, pyproject.toml) checked with its lock: paired when the lock its tool writes
sits beside it, and judged by the owner's definition of fresh (envkit.lock.manifest_check); the
verdict's changes become the lock rules' problems (`stale-lock`, `lock-unsatisfied`)."""

from __future__ import annotations

import os
import re
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # pragma: no cover
    from envkit.checks.core import Target

#: the manifests and the locks their tools write that `envkit check` finds in a folder (after
#: targets.DISCOVER's files): pixi.lock is among those already
DISCOVER_MANIFESTS = ("pixi.toml", "pyproject.toml", "uv.lock", "pylock.toml")
#: a pyproject.toml that asks for packages (one of tool settings only is not a spec)
_PYPROJECT_SPEC = r"(?m)^\[(?:project|dependency-groups|tool\.uv|tool\.pixi)[.\]]"

#: a verdict's change -> the LockProblem kind the lock rules report
_KINDS = {"added": "missing", "changed": "unsatisfied", "missing-platform": "missing-platform"}


def discover_manifests(directory: str | os.PathLike[str]) -> list[str]:
    """The files of DISCOVER_MANIFESTS in `directory` (a pyproject.toml only when it asks for
    packages), as paths joined to it."""
    out = []
    for name in DISCOVER_MANIFESTS:
        path = os.path.join(directory, name)
        if not os.path.isfile(path):
            continue
        if name == "pyproject.toml":
            with open(path, encoding="utf-8", errors="replace") as f:
                if not re.search(_PYPROJECT_SPEC, f.read()):
                    continue
        out.append(path)
    return out


def manifest_format_of(target: Target) -> str | None:
    """ "pixi-manifest" / "pyproject" when the spec target is a manifest, else None."""
    if target.kind != "spec" or not target.text:
        return None
    from envkit.formats import manifest_format

    return manifest_format(target.text, target.path)


def pair_manifests(targets: list[Target]) -> None:
    """Pair each manifest target not yet paired with the lock target its tool writes beside it
    (pixi.toml or a pyproject with [tool.pixi] -> pixi.lock, pyproject.toml -> uv.lock, else a
    pylock.toml), in place."""
    locks = {os.path.realpath(t.path): t for t in targets if t.kind == "lock"}
    for t in targets:
        fmt = manifest_format_of(t) if t.lock is None else None
        if fmt is None:
            continue
        from envkit.lock.manifest_check import lock_names  # only for a manifest: no lock code otherwise

        here = os.path.dirname(t.path)
        found = (locks.get(os.path.realpath(os.path.join(here, n))) for n in lock_names(fmt))
        lock = next((x for x in found if x is not None), None)
        if lock is not None:
            t.lock = lock
            lock.spec = lock.spec or t


def manifest_problems(spec_target: Target, lock_target: Target) -> list | None:
    """The LockProblems of a manifest and its lock (None when the spec is not a manifest): each
    stale change; an environment of a pixi lock that the lock target holds, else every one."""
    if manifest_format_of(spec_target) is None or not lock_target.text:
        return None
    from envkit.lock.check import LockProblem
    from envkit.lock.manifest_check import check_manifest

    verdict = check_manifest(spec_target.text or "", spec_target.path, lock_target.text, lock_target.path)
    only = getattr(lock_target.lock_model, "environment", None)
    out = []
    for c in verdict.changes:
        if c.severity != "stale" or (only and c.environment not in (only, None, "project")):
            continue
        scope = "/".join(x for x in (c.environment, c.platform) if x) or verdict.tool
        kind = _KINDS.get(c.what, "stale")
        out.append(
            LockProblem(
                kind=kind,
                platform=scope if kind != "missing-platform" else c.platform,
                message=c.message,
                name=c.name,
                line=c.line,
            )
        )
    return out
