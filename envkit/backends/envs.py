"""Resolve `-n NAME` to a prefix, the way conda does, without needing conda.

Where environments are looked for, in order:

1. `envs_dirs` from the .condarc search path (every location, `CONDARC` included) and
   `CONDA_ENVS_PATH` / `CONDA_ENVS_DIRS`;
2. the default envs dirs: `<root prefix>/envs` (root from `CONDA_ROOT`, `CONDA_EXE`,
   `MAMBA_ROOT_PREFIX` or the .condarc `root_prefix`) and `~/.conda/envs`;
3. the prefixes listed in `~/.conda/environments.txt` (named by their last path component);
4. `conda info --json` (its root prefix, `envs_dirs` and `envs`; micromamba's `env list --json`
   for the last) when a conda, mamba or micromamba executable is found.

`base` is the root prefix.  An unknown name is an EnvironmentNotFound error that lists the nearest
known names.
"""

from __future__ import annotations

import difflib
import os
from collections.abc import Mapping
from dataclasses import dataclass

from envkit.errors import EnvironmentNotFound


@dataclass(frozen=True, slots=True)
class KnownEnv:
    """A named environment found on this machine: its name and prefix."""

    name: str
    prefix: str


def _environ(environ: Mapping[str, str] | None) -> Mapping[str, str]:
    return os.environ if environ is None else environ


def _home(environ: Mapping[str, str]) -> str:
    return environ.get("HOME") or os.path.expanduser("~")


def root_prefix(environ: Mapping[str, str] | None = None, conf: Mapping | None = None) -> str | None:
    """The conda installation's root prefix (base env), or None when it cannot be told."""
    env = _environ(environ)
    for var in ("CONDA_ROOT", "MAMBA_ROOT_PREFIX"):
        if env.get(var):
            return env[var]
    if env.get("CONDA_EXE"):
        # <root>/bin/conda or <root>/condabin/conda
        return os.path.dirname(os.path.dirname(env["CONDA_EXE"]))
    if conf and conf.get("root_prefix"):
        return os.path.expanduser(str(conf["root_prefix"]))
    return None


def envs_dirs(environ: Mapping[str, str] | None = None) -> list[str]:
    """The directories that hold named environments, highest priority first (as conda orders them)."""
    from envkit.backends.native import merged_condarc
    from envkit.backends.prefix_scan import condarc_files

    env = _environ(environ)
    home = _home(env)
    conf = merged_condarc(condarc_files("", environ=env, home=home))
    dirs: list[str] = []
    for var in ("CONDA_ENVS_PATH", "CONDA_ENVS_DIRS"):
        if env.get(var):
            dirs += [d for d in env[var].split(os.pathsep) if d]
    dirs += conf["envs_dirs"]
    root = root_prefix(env, conf)
    if root:
        dirs.append(os.path.join(root, "envs"))
    dirs.append(os.path.join(home, ".conda", "envs"))
    out: list[str] = []
    for d in dirs:
        d = os.path.abspath(os.path.expanduser(os.path.expandvars(d)))
        if d not in out:
            out.append(d)
    return out


def known_envs(environ: Mapping[str, str] | None = None) -> list[KnownEnv]:
    """Every named environment envkit can find without a conda executable (first occurrence of
    each name wins)."""
    env = _environ(environ)
    found: dict[str, KnownEnv] = {}
    root = root_prefix(env)
    if root and os.path.isdir(os.path.join(root, "conda-meta")):
        found["base"] = KnownEnv("base", root)
    for d in envs_dirs(env):
        for ke in _envs_in(d):
            found.setdefault(ke.name, ke)
    txt = os.path.join(_home(env), ".conda", "environments.txt")
    try:
        with open(txt, encoding="utf-8", errors="replace") as fh:
            lines = [ln.strip() for ln in fh]
    except OSError:
        lines = []
    for p in lines:
        if not p or p.startswith("#"):
            continue
        n = os.path.basename(p.rstrip("/\\"))
        if n and n not in found and os.path.isdir(os.path.join(p, "conda-meta")):
            found[n] = KnownEnv(n, p)
    return list(found.values())


def _envs_in(envs_dir: str) -> list[KnownEnv]:
    """The environments in `envs_dir` (its folders holding conda-meta/), by name; none when it
    cannot be listed."""
    try:
        names = sorted(os.listdir(envs_dir))
    except OSError:
        return []
    return [
        KnownEnv(n, os.path.join(envs_dir, n))
        for n in names
        if os.path.isdir(os.path.join(envs_dir, n, "conda-meta"))
    ]


def _conda_info_envs(exe: str, environ: Mapping[str, str]) -> list[KnownEnv]:
    """The environments `<exe> info --json` knows: its root prefix (`base`), the environments in
    its `envs_dirs` (named by their directory, as `-n` finds them) and its `envs` list.  micromamba
    and mamba 2.x have no `envs` in `info`; their `env list --json` is asked instead."""
    from envkit.backends.condacli import CondaCli
    from envkit.errors import BackendError

    cli = CondaCli(exe, environ=environ)
    info = cli.info()
    root = str(info.get("root_prefix") or info.get("base environment") or "")
    out = []
    if root and os.path.isdir(os.path.join(root, "conda-meta")):
        out.append(KnownEnv("base", root))
    for d in info.get("envs_dirs") or ():
        out += _envs_in(str(d))
    if isinstance(info.get("envs"), list):
        prefixes = [str(p) for p in info["envs"]]
    else:
        try:
            prefixes = cli.env_list()
        except BackendError:
            prefixes = []
    for p in prefixes:
        name = "base" if root and os.path.normpath(p) == os.path.normpath(root) else os.path.basename(p)
        out.append(KnownEnv(name, p))
    return out


def resolve_name(name: str, environ: Mapping[str, str] | None = None, *, conda_exe: str | None = None) -> str:
    """The prefix of the environment called `name`.

    Looks through the envs dirs and environments.txt first and asks `conda info --json` only
    when that fails and a conda executable is known (`conda_exe`, or CONDA_EXE / MAMBA_EXE /
    `conda` on PATH).  Raises EnvironmentNotFound with the nearest known names otherwise.
    """
    env = _environ(environ)
    local = known_envs(env)
    for ke in local:
        if ke.name == name:
            return ke.prefix
    if conda_exe is None:
        from envkit.backends.condacli import find_executable
        from envkit.errors import BackendError

        try:
            conda_exe = find_executable(None, environ=env)
        except BackendError:
            pass
    everything = local
    if conda_exe:
        try:
            everything = local + _conda_info_envs(conda_exe, env)
        except Exception:  # a broken conda must not hide the real answer: the name is unknown
            everything = local
        for ke in everything:
            if ke.name == name:
                return ke.prefix
    names = sorted({ke.name for ke in everything})
    near = difflib.get_close_matches(name, names, n=3, cutoff=0.5)
    if near:
        hint = "did you mean " + " or ".join(repr(n) for n in near) + "?"
    elif names:
        hint = "known environments: " + ", ".join(names[:12]) + (" ..." if len(names) > 12 else "")
    else:
        hint = (
            "no named environments found; looked in "
            + ", ".join(envs_dirs(env))
            + " and ~/.conda/environments.txt; use -p PREFIX"
        )
    raise EnvironmentNotFound(f"no conda environment named {name!r}", hint=hint)
