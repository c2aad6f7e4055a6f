"""Helpers shared by the command modules (CLI side only: these may print)."""
from __future__ import annotations

from typing import Iterable

from envkit.cli import warn
from envkit.conda.names import Duplicate, duplicate_warning, find_duplicates
from envkit.model import EnvSpec, LiveEnv, Lock


def duplicates_of(env: EnvSpec | Lock | LiveEnv, *, extra=None) -> list[Duplicate]:
    """Projects that both conda and pip provide in `env` (a spec, a lock on any platform, or a
    live environment, where the prefix's own dist-info ownership is used)."""
    if isinstance(env, EnvSpec):
        conda = [d.name for d in env.conda]
        pip = [p.name for p in env.pip if p.name]
        return find_duplicates(conda, pip, extra=extra)
    if isinstance(env, LiveEnv):
        conda = [p.name for p in env.packages if p.manager == "conda"]
        pip = [p.name for p in env.packages if p.manager == "pip"]
        return find_duplicates(conda, pip, extra=extra, owned=dict(env.pypi_names))
    found: dict[tuple[str, str], Duplicate] = {}
    for platform in env.platforms or (None,):
        pkgs = env.packages if platform is None else env.for_platform(platform)
        conda = [p.name for p in pkgs if p.manager == "conda"]
        pip = [p.name for p in pkgs if p.manager == "pip"]
        for d in find_duplicates(conda, pip, extra=extra):
            found.setdefault((d.conda_name, d.project), d)
    return sorted(found.values(), key=lambda d: (d.project, d.conda_name))


def warn_duplicates(envs: Iterable[EnvSpec | Lock | LiveEnv], *, label: bool = False) -> None:
    """The mission's warning: print one stderr line per project installed by both conda and pip.

    Every command that reads an environment (export, lock, diff, check, smoke --create) calls this.
    With `label`, each line names the source it came from.
    """
    for env in envs:
        where = getattr(env, "source", None) or getattr(env, "prefix", None)
        for d in duplicates_of(env):
            msg = duplicate_warning(d)
            warn(f"{where}: {msg}" if label and where else msg)
