"""envkit: reproducible conda environments.

Lock the environment that works, check environment files in CI, and explain why two environments
differ.  The package root stays import-light: `envkit --version` must not pull in YAML engines,
py-rattler, conda-lock or torch, so the public API below is loaded on first attribute access.
"""
from __future__ import annotations

__version__ = "0.1.0"

__all__ = [
    "__version__",
    "EnvkitError",
    "read_file",
]

_LAZY = {
    "EnvkitError": ("envkit.errors", "EnvkitError"),
    "read_file": ("envkit.formats", "read_file"),
}


def __getattr__(name: str):
    try:
        module_name, attr = _LAZY[name]
    except KeyError:
        raise AttributeError(f"module 'envkit' has no attribute {name!r}") from None
    import importlib

    value = getattr(importlib.import_module(module_name), attr)
    globals()[name] = value
    return value
