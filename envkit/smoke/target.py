"""The target of a smoke test: a named environment, a prefix or an interpreter, resolved to the
Python to run the probe with and the environment variables its activation sets."""

from __future__ import annotations

import os
import re
import shutil
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from envkit.backends.prefix_scan import read_state
from envkit.errors import EnvironmentNotFound, UsageError


@dataclass(frozen=True, slots=True, kw_only=True)
class Target:
    """What the smoke test runs in: an interpreter plus the variables its activation would set."""

    kind: str  # python | prefix | name | create
    python: str
    prefix: str | None = None
    name: str | None = None
    source: str | None = None
    env: tuple[tuple[str, str], ...] = ()
    skipped_scripts: tuple[str, ...] = ()

    def describe(self) -> dict:
        out: dict[str, Any] = {"kind": self.kind, "python": self.python}
        for key in ("prefix", "name", "source"):
            if getattr(self, key):
                out[key] = getattr(self, key)
        if self.skipped_scripts:
            out["activation_scripts_not_run"] = list(self.skipped_scripts)
        return out


# ---------------------------------------------------------------------------------------------
# finding the interpreter


def prefix_python(prefix: Path) -> Path:
    """The interpreter of a conda prefix (bin/python, or python.exe on Windows)."""
    for cand in (prefix / "bin" / "python", prefix / "python.exe", prefix / "bin" / "python3"):
        if cand.exists():
            return cand
    raise EnvironmentNotFound(
        f"{prefix} has no Python interpreter (bin/python)",
        hint="the smoke test needs python and torch installed in the environment",
    )


_EXPORT = re.compile(r"^\s*export\s+([A-Za-z_][A-Za-z0-9_]*)=(.*?)\s*$")


def activation_env(prefix: Path, base_env: dict[str, str] | None = None) -> tuple[dict[str, str], list[str]]:
    """The variables `conda activate PREFIX` would set, as far as that is cheap to know:
    PATH, CONDA_PREFIX, CONDA_DEFAULT_ENV, conda's env config vars (`conda-meta/state`) and plain
    `export NAME=VALUE` lines of `etc/conda/activate.d/*.sh`.  Returns (variables, scripts whose
    other lines were not evaluated)."""
    base = dict(os.environ if base_env is None else base_env)
    out: dict[str, str] = {}
    bindirs = (
        [prefix / "bin"] if os.name != "nt" else [prefix, prefix / "Library" / "bin", prefix / "Scripts"]
    )
    out["PATH"] = os.pathsep.join([str(b) for b in bindirs] + ([base["PATH"]] if base.get("PATH") else []))
    out["CONDA_PREFIX"] = str(prefix)
    out["CONDA_DEFAULT_ENV"] = prefix.name
    out.update(read_state(str(prefix)))
    skipped: list[str] = []
    act = prefix / "etc" / "conda" / "activate.d"
    for script in sorted(act.glob("*.sh")) if act.is_dir() else []:
        complex_lines = 0
        try:
            text = script.read_text(errors="replace")
        except OSError:
            continue
        for line in text.splitlines():
            s = line.strip()
            if not s or s.startswith("#"):
                continue
            m = _EXPORT.match(line)
            value = m.group(2) if m else ""
            if m and not re.search(r"[`]|\$\(|\$\{?(?!CONDA_PREFIX\b)[A-Za-z_]", value):
                value = value.strip("'\"")
                value = value.replace("${CONDA_PREFIX}", str(prefix)).replace("$CONDA_PREFIX", str(prefix))
                out[m.group(1)] = value
            else:
                complex_lines += 1
        if complex_lines:
            skipped.append(str(script))
    return out, skipped


def env_target(kind: str, prefix: Path, python: str | None = None, **kw: str | None) -> Target:
    """A Target in conda prefix `prefix` (its own interpreter unless `python` is given), with the
    variables its activation sets."""
    python = python or str(prefix_python(prefix))
    env, skipped = activation_env(prefix)
    return Target(
        kind=kind,
        python=python,
        prefix=str(prefix),
        env=tuple(sorted(env.items())),
        skipped_scripts=tuple(skipped),
        **kw,
    )


def resolve_target(
    *, name: str | None = None, prefix: str | None = None, python: str | None = None
) -> Target:
    """The Target for `-n NAME`, `-p PREFIX` or `--python EXE` (the current interpreter when none);
    raises EnvironmentNotFound / UsageError."""
    given = [x for x in (name, prefix, python) if x]
    if len(given) > 1:
        raise UsageError("give only one of -n NAME, -p PREFIX, --python EXE, --create FILE")
    if python:
        python = os.path.expanduser(python)
        exe = shutil.which(python) if os.sep not in python else python
        if not exe or not os.path.exists(exe):
            raise EnvironmentNotFound(f"no such interpreter: {python}")
        if not os.access(exe, os.X_OK):
            raise EnvironmentNotFound(f"not executable: {python}")
        exe = os.path.abspath(exe)  # the probe runs in a scratch directory; symlinks stay (venvs need them)
        # A conda env's own python gets that env's activation too.
        root = Path(exe).resolve().parent.parent if Path(exe).parent.name == "bin" else None
        if root is not None and (root / "conda-meta").is_dir() and Path(exe).parent.parent.resolve() == root:
            return env_target("python", Path(exe).parent.parent, python=str(exe))
        return Target(kind="python", python=str(exe))
    from envkit.backends.envs import resolve_name

    # a name is resolved as `envkit export -n` resolves it (envs dirs, environments.txt, `conda info`)
    where = Path(resolve_name(name)) if name else Path(prefix).expanduser() if prefix else None
    if where is not None:
        # Absolute: the probe runs with the scratch directory as its working directory, and
        # CONDA_PREFIX/PATH must name the prefix from anywhere.  abspath, not resolve: a
        # symlinked prefix keeps the path the user gave.
        p = Path(os.path.abspath(where))
        if not p.is_dir():
            raise EnvironmentNotFound(f"no such environment prefix: {p}")
        return env_target("name" if name else "prefix", p, name=name)
    return Target(kind="python", python=sys.executable)
