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
      m.pythons("2.7"), m.default_cuda("2.7", "pip"), m.min_driver("12.6")

* `plan`: `plan_pytorch(matrix, options) -> TemplatePlan`: resolve defaults and refuse impossible
  combinations (UsageError listing what is possible, e.g.
  ``torch 2.7 has no CUDA 12.1 build; available: 11.8, 12.6, 12.8``);
* `render`: `render(plan) -> str`, the environment.yml text (byte-stable); `to_envspec(plan) -> EnvSpec`,
  the same environment as a model;
* `gpu`: `detect_gpu()` / `pick_detected_cuda(...)` / `choose_detected(...)`: `--detect` (nvidia-smi,
  then py-rattler's `__cuda`);
* `listing`: `render_list(matrix)`, `render_compatibility_markdown(matrix)`: `template list` and
  docs/compatibility.md.

This module re-exports each submodule's public names: `from envkit.templates import load_matrix` works.
"""

from __future__ import annotations

from envkit.templates.gpu import (
    Detection,
    GpuInfo,
    choose_detected,
    detect_gpu,
    parse_nvidia_smi,
    pick_detected_cuda,
)
from envkit.templates.listing import list_rows, render_compatibility_markdown, render_list
from envkit.templates.matrix import (
    COMPANIONS,
    DEFAULT_STYLE,
    DEFAULT_WITH,
    STYLE_HELP,
    STYLES,
    ChannelRow,
    Matrix,
    Release,
    load_matrix,
    normalize_cuda,
    templates_dir,
    torch_minor,
    vkey,
)
from envkit.templates.plan import PytorchOptions, TemplatePlan, plan_pytorch
from envkit.templates.render import render, render_template, to_envspec

__all__ = [
    "STYLES",
    "DEFAULT_STYLE",
    "DEFAULT_WITH",
    "COMPANIONS",
    "STYLE_HELP",
    "templates_dir",
    "vkey",
    "torch_minor",
    "normalize_cuda",
    "Release",
    "ChannelRow",
    "Matrix",
    "load_matrix",
    "PytorchOptions",
    "TemplatePlan",
    "plan_pytorch",
    "render_template",
    "render",
    "to_envspec",
    "GpuInfo",
    "parse_nvidia_smi",
    "choose_detected",
    "detect_gpu",
    "Detection",
    "pick_detected_cuda",
    "list_rows",
    "render_list",
    "render_compatibility_markdown",
]
