"""The conda packages installed with a conda, mamba or micromamba executable and an explicit file."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from envkit.errors import BackendError, Remedy
from envkit.model import Lock


def find_backend_executable(backend: str) -> str:
    """The executable for `backend` (envkit.backends.condacli.find_executable's lookup); BackendError
    naming the option when there is none."""
    from envkit.backends.condacli import find_executable

    try:
        return find_executable(backend)
    except BackendError:
        var = "CONDA_EXE" if backend == "conda" else "MAMBA_EXE"
        raise BackendError(
            f"--backend {backend}: no {backend} executable found ({var} or PATH)",
            hint="install it, or use the default backend ({})",
            remedy=Remedy(option="backend", value="rattler"),
        ) from None


def install_conda(
    lock: Lock, platform: str, prefix: str, backend: str, executable: str | None, *, timeout: float
) -> None:
    from envkit._proc import run
    from envkit.formats.explicit import write_explicit

    exe = executable or find_backend_executable(backend)
    with tempfile.TemporaryDirectory(prefix="envkit-create-") as tmp:
        explicit = os.path.join(tmp, f"explicit-{platform}.txt")
        Path(explicit).write_text(write_explicit(lock, platform), encoding="utf-8")
        # conda, mamba and micromamba take the same words
        run([exe, "create", "--yes", "--prefix", prefix, "--file", explicit], timeout=timeout, what=backend)
    if not os.path.isdir(os.path.join(prefix, "conda-meta")):
        raise BackendError(f"{backend} finished but {prefix} is not a conda environment")
