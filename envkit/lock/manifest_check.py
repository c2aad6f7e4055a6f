"""Is a manifest's lock fresh, by its owner's definition?  pixi.toml / pyproject `[tool.pixi]` beside
pixi.lock (pixi's satisfiability: channels, platforms, every request satisfied by a locked record),
pyproject.toml beside uv.lock (`uv lock --check`: the lock's recorded root requirements equal what
the pyproject asks for), pyproject.toml beside a pylock.toml (by content: every requirement locked at
a version it accepts).

    check_manifest(...)   ManifestCheck: each Change (added / removed / changed / missing / ...)
                          with the manifest line, environment and platform
    lock_beside(path)     the lock that sits beside a manifest (pixi.toml -> pixi.lock, ...)
"""

from __future__ import annotations

import os
from dataclasses import dataclass

from envkit.errors import ParseError, Where
from envkit.formats import LOCK_NAMES, manifest_format
from envkit.lock.changes import Change


@dataclass(frozen=True, slots=True, kw_only=True)
class ManifestCheck:
    """The verdict: `tool` ("pixi", "uv", or "pylock" for a pylock.toml judged by its content, whose
    definition of fresh was applied) and `changes`."""

    tool: str
    manifest: str
    lock: str
    environments: tuple[str, ...] = ()
    changes: tuple[Change, ...] = ()
    #: the command that writes the lock again, where `tool` does not say (a pylock's writer)
    relock_command: str | None = None

    @property
    def ok(self) -> bool:
        return not any(c.severity == "stale" for c in self.changes)

    @property
    def relock(self) -> str:
        """The command that brings the lock up to date."""
        if self.relock_command:
            return self.relock_command
        return "pixi lock" if self.tool == "pixi" else "uv lock"


#: locks judged beside a manifest when its tool's own is not there
_ALSO = {"pyproject": ("pylock.toml",)}


def lock_names(fmt: str) -> tuple[str, ...]:
    """The names of the locks judged beside a manifest of `fmt`, in order of preference."""
    return (LOCK_NAMES[fmt], *_ALSO.get(fmt, ()))


def lock_beside(path: str, fmt: str) -> str | None:
    """The lock `fmt`'s tool writes beside the manifest at `path`, when it exists (a pyproject's
    uv.lock, else a pylock.toml).  A pyproject with `[tool.pixi]` reads as a pixi manifest: its lock
    is pixi.lock."""
    for name in lock_names(fmt):
        candidate = os.path.join(os.path.dirname(path), name)
        if os.path.isfile(candidate):
            return candidate
    return None


def check_manifest(
    manifest_text: str,
    manifest_path: str,
    lock_text: str,
    lock_path: str,
    *,
    environment: str | None = None,
) -> ManifestCheck:
    """Whether the lock at `lock_path` is fresh for the manifest, and why not (see the module doc).
    `environment` limits a pixi check to one environment (a uv check to one extra or group).
    Raises ParseError when the lock is not the one the manifest's tool writes (a uv.lock for a
    pixi.toml), and the readers' errors for unreadable files."""
    from envkit.formats import detect_format

    fmt = manifest_format(manifest_text, manifest_path)
    lock_fmt = detect_format(lock_text, lock_path)
    relock = None  # the command that writes the lock again, where the tool does not say
    if fmt == "pixi-manifest" and lock_fmt == "pixi":
        from envkit.lock.pixi_fresh import pixi_changes

        envs, changes = pixi_changes(manifest_text, manifest_path, lock_text, lock_path, environment)
        tool = "pixi"
    elif fmt == "pyproject" and lock_fmt == "uv-lock":
        from envkit.lock.uv_fresh import uv_changes

        envs, changes = uv_changes(manifest_text, manifest_path, lock_text, lock_path)
        tool = "uv"
    elif fmt == "pyproject" and lock_fmt == "pylock":
        from envkit.lock.pylock_fresh import pylock_changes

        envs, changes, relock = pylock_changes(manifest_text, manifest_path, lock_text, lock_path)
        tool = "pylock"
    else:
        want = LOCK_NAMES.get(fmt or "", "a pixi.lock or uv.lock")
        raise ParseError(
            f"not the lock of this manifest: {manifest_path} is locked in {want}, and this is {lock_fmt}",
            where=Where(file=lock_path),
        )
    return ManifestCheck(
        tool=tool,
        manifest=manifest_path,
        lock=lock_path,
        environments=tuple(envs),
        changes=tuple(changes),
        relock_command=relock,
    )
