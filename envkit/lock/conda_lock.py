"""conda-lock as the solver: its command line and its virtual-package file."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Sequence
from pathlib import Path

from envkit.backends.lock_metadata import lock_metadata
from envkit.errors import BackendError, Remedy, UsageError, Where
from envkit.lock.content_hash import spec_content_hash
from envkit.lock.packages import sort_packages
from envkit.lock.solve import check_platforms
from envkit.lock.spec_record import lock_pip_options
from envkit.lock.virtual import VirtualPackage, virtual_packages_for
from envkit.model import EnvSpec, Lock


def virtual_package_spec_yaml(platforms: Sequence[str], virtual_packages: Sequence[VirtualPackage]) -> str:
    """conda-lock's `--virtual-package-spec` file for these platforms and settings."""
    from envkit.formats._yaml import scalar

    lines = ["subdirs:"]
    for p in platforms:
        lines.append(f"  {p}:")
        lines.append("    packages:")
        for vp in virtual_packages_for(p, virtual_packages):
            value = vp.version if vp.build == "0" else f"{vp.version} {vp.build}"
            lines.append(f"      {vp.name}: {scalar(value)}")
    return "\n".join(lines) + "\n"


def conda_lock_argv(
    spec_file: str, platforms: Sequence[str], lockfile: str, conda_exe: str, vp_file: str
) -> list[str]:
    """The conda-lock command `solve_with_conda_lock` runs."""
    import sys

    argv = [
        sys.executable,
        "-m",
        "conda_lock",
        "lock",
        "--file",
        spec_file,
        "--lockfile",
        lockfile,
        "--conda",
        conda_exe,
        "--virtual-package-spec",
        vp_file,
        "--kind",
        "lock",
    ]
    for p in platforms:
        argv += ["--platform", p]
    return argv


def _conda_lock_exe(spec: EnvSpec) -> str:
    """The conda executable conda-lock is to use; UsageError for a spec conda-lock cannot read,
    BackendError when there is no executable."""
    option = next((p for p in spec.pip if p.kind == "option"), None)
    if option is not None:  # conda-lock reads each pip line as a requirement and stops at an option
        raise UsageError(
            f"conda-lock cannot read pip options in a pip section: {option.text!r}",
            where=Where(file=spec.source, line=option.line),
            hint="the default solver ({}) hands pip options to pip itself",
            remedy=Remedy(option="solver", value="rattler"),
        )
    from envkit.backends.condacli import find_executable

    try:
        return find_executable(None)
    except BackendError:
        raise BackendError(
            "--solver conda-lock needs a conda executable, and none was found "
            "(CONDA_EXE, MAMBA_EXE, conda, mamba, micromamba on PATH)",
            hint="install micromamba or conda, or use the default solver ({})",
            remedy=Remedy(option="solver", value="rattler"),
        ) from None


def solve_with_conda_lock(
    spec: EnvSpec,
    platforms: Sequence[str],
    *,
    virtual_packages: Sequence[VirtualPackage] = (),
) -> Lock:
    """Solve with conda-lock itself (it needs a conda, mamba or micromamba executable).

    The result is read back and given envkit's content hashes, so `envkit lock --check` works on it
    like on any envkit lock.  Raises BackendError when no conda executable exists or conda-lock fails.
    """
    if not spec.source:
        raise UsageError("--solver conda-lock needs the spec as a file (-f)")
    plats = check_platforms(platforms or spec.platforms)
    exe = _conda_lock_exe(spec)
    from dataclasses import replace

    from envkit._proc import run
    from envkit.formats.condalock import read_conda_lock

    with tempfile.TemporaryDirectory(prefix="envkit-conda-lock-") as tmp:
        out = os.path.join(tmp, "conda-lock.yml")
        vp_file = os.path.join(tmp, "virtual-packages.yml")
        Path(vp_file).write_text(virtual_package_spec_yaml(plats, virtual_packages), encoding="utf-8")
        run(
            conda_lock_argv(os.path.abspath(spec.source), plats, out, exe, vp_file),
            timeout=1800,
            cwd=os.path.dirname(os.path.abspath(spec.source)),
            what="conda-lock",
        )
        from envkit.io import read_text

        lock = read_conda_lock(read_text(out), filename=out)
    hashes = tuple((p, spec_content_hash(spec, p)) for p in plats)
    return replace(
        lock,
        kind="conda-lock",
        platforms=plats,
        packages=sort_packages(lock.packages),
        content_hash=hashes,
        sources=(os.path.basename(spec.source),),
        pip_options=lock_pip_options(spec),
        metadata=lock_metadata(lock.packages, spec.variables, lock.metadata),
    )
