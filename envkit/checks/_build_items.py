"""The package view shared by the CUDA and torch-pairing rules: one item per spec entry or
locked/installed package, with the version, build and recorded dependencies those rules compare."""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from envkit.checks._helpers import pinned_series, pip_pinned_version
from envkit.conda import families
from envkit.conda.versions import major_minor, mm_text
from envkit.model import pep503

if TYPE_CHECKING:  # pragma: no cover
    from envkit.model import EnvSpec, LockedPackage


@dataclass(frozen=True)
class BuildItem:
    """One package (spec entry or installed/locked package) seen by cuda-mismatch and torch-pairing."""

    name: str
    manager: str
    version: str | None  # exact or series version when known
    build: str | None
    line: int | None
    label: str  # how to show it: `pytorch=2.1.0=cpu_...`, `torch==2.3.1+cu121`
    runtime: tuple[str, str] | None = None  # (CUDA version, why): a pip wheel's locked CUDA runtime
    depends: tuple[tuple[str, str], ...] = ()  # a locked or installed record's dependencies


_RUNTIME_DEP = r"^nvidia-cuda-runtime-cu\d+$"
#: the names whose items cuda-mismatch and torch-pairing read: the CUDA pins, the torch builds and
#: selectors, the companions.  Besides these they read only conda items whose build names CUDA (`cu`
#: in it), so a large file's other entries need no item at all.
_RELEVANT = frozenset(
    families.CUDA_PINS
    + families.CUDA_COMPONENTS
    + families.TORCH_BUILDS
    + families.COMPANIONS
    + ("torch", "torchvision", "torchaudio", "pytorch-cuda", "cpuonly", "pytorch-mutex")
)


def wheel_runtime(depends: tuple[tuple[str, str], ...]) -> tuple[str, str] | None:
    """The CUDA a pip wheel is built for, from the `nvidia-cuda-runtime-cuXX` version its locked
    dependencies pin (PyPI's torch 2.3.1 wheel: `nvidia-cuda-runtime-cu12 12.1.105` -> "12.1")."""
    runtime_dep = re.compile(_RUNTIME_DEP).match
    for name, spec in depends:
        if runtime_dep(name):
            mm = major_minor((spec or "").strip().lstrip("=").strip())
            if mm:
                return mm_text(mm), f"its {name} {spec.strip().lstrip('=').strip()}"
    return None


def items_of_spec(spec: EnvSpec) -> list[BuildItem]:
    """The items of a spec's entries that the CUDA and torch-pairing rules look at (see
    `target_items`), in file order."""
    out = []
    for d in spec.conda:
        if d.name not in _RELEVANT and not (d.build and "cu" in d.build.lower()):
            continue
        label = (d.raw or d.spec()).strip()
        out.append(BuildItem(d.name, "conda", pinned_series(d), d.build, d.line, label))
    for p in spec.pip:
        if p.kind == "requirement" and p.name:
            if (p.key or p.name) not in _RELEVANT:
                continue
            out.append(BuildItem(p.key or p.name, "pip", pip_pinned_version(p), None, p.line, p.text))
    return out


def items_of_packages(pkgs: Iterable[LockedPackage]) -> list[BuildItem]:
    """The items of locked or installed packages that the CUDA and torch-pairing rules look at
    (see `target_items`), in order."""
    out = []
    for p in pkgs:
        if p.manager == "conda":
            if p.name in _RELEVANT or (p.build and "cu" in p.build.lower()):
                label = f"{p.name}={p.version}={p.build}" if p.build else f"{p.name}={p.version}"
                out.append(BuildItem(p.name, "conda", p.version, p.build, p.line, label, depends=p.depends))
        # the pip items those rules read are the torch family's, whose every name says torch
        elif "torch" in p.name.lower() and pep503(p.name) in _RELEVANT:
            name = pep503(p.name)
            runtime = wheel_runtime(p.depends) if name == "torch" and p.depends else None
            label = f"{p.name}=={p.version}"
            out.append(BuildItem(name, "pip", p.version, None, p.line, label, runtime, p.depends))
    return out


def target_items(target) -> list[tuple[str, list[BuildItem]]]:  # target: envkit.checks.core.Target
    """(the ` on PLATFORM` of messages, its items) for each platform of a target's resolved view,
    or one ("", items) for a loose spec; [] for a target with neither.  Only the items the CUDA and
    torch-pairing rules read, in file order, made once per target for both rules."""
    cached = target.cache.get("build_items")
    if cached is None:
        view = target.view
        if view is None:
            spec = target.loose
            cached = [("", items_of_spec(spec))] if spec is not None else []
        else:
            cached = [
                (view.on(platform), items_of_packages(pkgs)) for platform, pkgs in view.by_platform().items()
            ]
        target.cache["build_items"] = cached
    return cached
