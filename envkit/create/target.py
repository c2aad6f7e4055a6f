"""Where an environment is created: the platform to install, the prefix (new, empty, or
removed again after a failure)."""

from __future__ import annotations

import os
import shutil
from collections.abc import Mapping, Sequence

from envkit.backends.prefix_scan import host_platform
from envkit.errors import Remedy, UsageError, Where
from envkit.model import Lock


def choose_platform(
    lock: Lock, platform: str | None, *, environments: Mapping[str, Sequence[str]] | None = None
) -> str:
    """The platform to install: `platform` when given (it must be locked), else this machine's.

    `environments` (a pixi.lock's environments, name -> locked platforms) lets the error point to
    the ones that have the platform.  Raises UsageError saying what the lock (or the pixi.lock
    environment) has, with a hint naming only options `envkit create` has (--env, --platform).
    """
    wanted = platform or host_platform()
    if wanted in lock.platforms:
        return wanted
    pixi = lock.kind == "pixi"
    what = f"pixi.lock environment {lock.environment!r}" if pixi and lock.environment else "the lock"
    locked = ", ".join(lock.platforms)
    if not lock.platforms:
        message = f"{what} has no packages"
    elif platform:
        message = f"{what} has no packages for {platform} (locked: {locked})"
    else:
        message = f"{what} has no packages for this machine's platform {wanted} (locked: {locked})"
    others = {n: tuple(p) for n, p in (environments or {}).items() if n != lock.environment and p}
    if others:
        message += "; its other environments: " + ", ".join(
            f"{n} ({', '.join(p)})" for n, p in others.items()
        )
    hints, remedies = [], []
    fits = [n for n, p in others.items() if wanted in p]
    if len(fits) == 1:
        hints.append(f"pass {{}} (it has {wanted})")
        remedies.append(Remedy(option="environment", value=fits[0]))
    elif fits:
        hints.append(f"pass {{}}: {', '.join(fits)} have {wanted}")
        remedies.append(Remedy(option="environment", metavar="NAME"))
    elif others:
        hints.append("choose another environment with {}")
        remedies.append(Remedy(option="environment", metavar="NAME"))
    if lock.platforms and not platform:
        hints.append(f"pass {{}} to install another locked platform ({locked})")
        remedies.append(Remedy(option="platform"))
    hint = "; or ".join(hints) or None
    raise UsageError(message, where=Where(file=lock.source), hint=hint, remedy=remedies)


def remove_tree(path: str, *, settle: float = 5.0) -> None:
    """Remove `path` and make sure it stays removed.

    After a failed install, py-rattler's linking threads that were already running finish their
    current files (they cannot be cancelled), so a tree removed at once can reappear; remove it again
    until it has stayed gone for a short while, at most `settle` seconds.
    """
    import time

    deadline = time.monotonic() + settle
    while True:
        shutil.rmtree(path, ignore_errors=True)
        time.sleep(0.05)
        if not os.path.lexists(path):
            time.sleep(0.15)
            if not os.path.lexists(path) or time.monotonic() > deadline:
                return
        elif time.monotonic() > deadline:
            return


def new_env_prefix(name: str) -> str:
    """Where `-n NAME` creates an environment: NAME under the first envs directory (conda's order:
    CONDA_ENVS_PATH / CONDA_ENVS_DIRS, `envs_dirs` of the .condarc search path, the root prefix's
    envs/, ~/.conda/envs).  Raises UsageError for a name that is a path."""
    from envkit.backends.envs import envs_dirs

    if not name or "/" in name or os.sep in name or name in (".", ".."):
        raise UsageError(
            f"invalid environment name {name!r}",
            hint="use {} for a path",
            remedy=Remedy(option="prefix", metavar="PATH"),
        )
    return os.path.join(envs_dirs()[0], name)
