"""Where live environments come from: one interface, two backends.

`open_env(name=None, prefix=None, backend="native")` returns a LiveEnv:

* `native` (default) reads the prefix itself (envkit.backends.native; the scan is the stdlib-only
  envkit.backends.prefix_scan, which also runs on remote machines);
* `conda`, `mamba`, `micromamba` ask that executable's `--json` commands (envkit.backends.condacli).

`-n NAME` is resolved by envkit.backends.envs (envs_dirs, environments.txt, `conda info --json`).
With neither a name nor a prefix, the active environment (`CONDA_PREFIX`) is used.
"""

from __future__ import annotations

import os
from collections.abc import Mapping

from envkit.model import LiveEnv

BACKENDS = ("native", "conda", "mamba", "micromamba")

__all__ = ["BACKENDS", "open_env"]


def open_env(
    name: str | None = None,
    prefix: str | os.PathLike[str] | None = None,
    backend: str = "native",
    *,
    exe: str | None = None,
    environ: Mapping[str, str] | None = None,
    strict: bool = True,
    timeout: float | None = None,
) -> LiveEnv:
    """Read the live environment named `name` or at `prefix` with `backend`.

    `exe` is an explicit conda/mamba/micromamba path for the CLI backends.  Raises UsageError for
    both or neither of name/prefix (when no environment is active), EnvironmentNotFound for an
    unknown name or a directory that is not a prefix, ParseError for a corrupt record (native),
    BackendError when the executable is missing or fails.
    """
    from envkit.errors import Remedy, UsageError

    env = os.environ if environ is None else environ
    if backend not in BACKENDS:
        raise UsageError(f"unknown backend {backend!r}", hint="choose one of " + ", ".join(BACKENDS))
    if name is not None and prefix is not None:
        raise UsageError(
            "an environment is named by a name or a prefix, not both",
            hint="pass only {} or {}",
            remedy=(Remedy(option="name", metavar="NAME"), Remedy(option="prefix", metavar="PREFIX")),
        )
    if name is None and prefix is None:
        active = env.get("CONDA_PREFIX")
        if not active:
            raise UsageError(
                "no environment given and none is active",
                hint="pass {} or {}, or activate the environment",
                remedy=(Remedy(option="name", metavar="NAME"), Remedy(option="prefix", metavar="PREFIX")),
            )
        prefix = active
    if backend == "native":
        from envkit.backends.native import read_prefix

        if name is not None:
            from envkit.backends.envs import resolve_name

            prefix = resolve_name(name, env, conda_exe=exe)
        assert prefix is not None  # given, resolved from the name, or the active environment
        return read_prefix(prefix, name=name, environ=env, strict=strict)
    from envkit.backends.condacli import DEFAULT_TIMEOUT, CondaCli, find_executable

    path = find_executable(backend, exe=exe, environ=env)
    cli = CondaCli(path, environ=env, timeout=timeout or DEFAULT_TIMEOUT)
    if prefix is not None:
        prefix = os.path.abspath(os.fspath(prefix))
    return cli.read_env(prefix=prefix, name=name)
