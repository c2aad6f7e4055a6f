"""PyTorch environment templates: the compatibility matrix as data, and options -> environment file.

The matrix and the template files live in the top-level `templates/` directory of the source tree
(`templates/pytorch/matrix.json`, `templates/pytorch/<style>.yml.in`); an installed wheel carries
the same files as package data under `envkit/_templates/` (see `matrix.templates_dir`).

Public API (pure; nothing here prints or runs a program, except `detect_gpu`), one concern a module:

* `matrix`: `load_matrix(path=None) -> Matrix`, the matrix, cached.  Useful calls for other modules::

      m = load_matrix()
      m.companions("2.7.1")            # {"torchvision": "0.22", "torchaudio": "2.7"}
      m.is_compatible("2.7.1", "torchvision", "0.22.1")   # True (None: torch unknown)
      m.cuda_variants("2.7", "pip")    # ("11.8", "12.6", "12.8")
      m.cuda_variants("2.7", "conda-forge")
      m.pythons("2.7"), m.default_cuda("2.7", "pip")

* `plan`: `plan_pytorch(matrix, options) -> TemplatePlan`: resolve defaults and refuse impossible
  combinations (UsageError listing what is possible, e.g.
  ``torch 2.7 has no CUDA 12.1 build; available: 11.8, 12.6, 12.8``);
* `text`: `render(plan) -> str`, the environment.yml text (byte-stable); `to_envspec(plan) -> EnvSpec`,
  the same environment as a model;
* `gpu`: `detect_gpu()` / `pick_detected_cuda(...)` / `choose_detected(...)`: `--detect` (nvidia-smi,
  then py-rattler's `__cuda`);
* `listing`: `render_list(matrix)`, `render_compatibility_markdown(matrix)`: `template list` and
  docs/compatibility.md.

This module re-exports each submodule's public names, each loaded on first use: `from envkit.templates
import load_matrix` works and imports only `envkit.templates.matrix`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from envkit._lazy import lazy_exports

if TYPE_CHECKING:  # pragma: no cover
    from typing import Any

#: each public name -> the module that defines it; loaded on first use (PEP 562), so that
#: importing one submodule does not import them all
_HOME = {
    "Detection": "envkit.templates.gpu",
    "GpuInfo": "envkit.templates.gpu",
    "choose_detected": "envkit.templates.gpu",
    "detect_gpu": "envkit.templates.gpu",
    "parse_nvidia_smi": "envkit.templates.gpu",
    "pick_detected_cuda": "envkit.templates.gpu",
    "render_compatibility_markdown": "envkit.templates.listing",
    "render_list": "envkit.templates.listing",
    "Matrix": "envkit.templates.matrix",
    "load_matrix": "envkit.templates.matrix",
    "normalize_cuda": "envkit.templates.matrix",
    "templates_dir": "envkit.templates.matrix",
    "PytorchOptions": "envkit.templates.plan",
    "TemplatePlan": "envkit.templates.plan",
    "plan_pytorch": "envkit.templates.plan",
    "render": "envkit.templates.text",
    "render_template": "envkit.templates.text",
    "to_envspec": "envkit.templates.text",
}

__all__ = list(_HOME)


_getattr, __dir__ = lazy_exports(__name__, _HOME)


def __getattr__(name: str) -> Any:  # a def, so that type checkers see the names as Any
    return _getattr(name)
