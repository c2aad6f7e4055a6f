"""Which GPU architectures a torch build has kernels for (envkit/data/torch_cuda_arch.json),
against each GPU's compute capability: the `machine-gpu-arch` rule of `envkit check --machine`
and `template pytorch --machine`."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources

from envkit.conda.families import TORCH
from envkit.conda.versions import minor_text, version_key
from envkit.machine.fit import Issue, package_label
from envkit.machine.profile import Gpu, MachineProfile
from envkit.model import LockedPackage

# --------------------------------------------------------------------------------------------
# torch GPU architectures


@dataclass(frozen=True, slots=True)
class ArchRow:
    torch: str
    cuda: str
    sm: tuple[str, ...]
    ptx: str | None
    sources: tuple[str, ...]


@lru_cache(maxsize=1)
def arch_table() -> tuple[tuple[ArchRow, ...], dict]:
    """(rows, sources) of envkit/data/torch_cuda_arch.json."""
    data = json.loads(resources.files("envkit.data").joinpath("torch_cuda_arch.json").read_text("utf-8"))
    rows = tuple(
        ArchRow(r["torch"], r["cuda"], tuple(r["sm"]), r.get("ptx"), tuple(r["sources"]))
        for r in data["rows"]
    )
    return rows, data["sources"]


def arch_row(torch: str, cuda: str) -> ArchRow | None:
    """The row for torch `2.7.1` built with CUDA `12.8`, or None when the table has none."""
    minor, mm = minor_text(torch), minor_text(cuda)
    return next((r for r in arch_table()[0] if r.torch == minor and r.cuda == mm), None)


def runs_on(row: ArchRow, cc: str) -> str | None:
    """How a build runs on a GPU of compute capability `cc`: "cubin" (machine code for it: same
    major, minor at or below, the binary compatibility rule of the CUDA programming guide; an
    arch-specific `9.0a` only on 9.0 itself), "ptx" (JIT from the shipped PTX), or None."""
    have = version_key(cc)
    if len(have) < 2:
        return None
    for sm in row.sm:
        key = version_key(sm)
        if sm.endswith(("a", "f")):
            if key == have:
                return "cubin"
            continue
        if key[0] == have[0] and key[1] <= have[1]:
            return "cubin"
    if row.ptx and version_key(row.ptx) <= have:
        return "ptx"
    return None


def torch_builds(
    pkgs: Sequence[LockedPackage], *, pypi_linux: bool = False
) -> list[tuple[LockedPackage, str, str]]:
    """(package, torch version, CUDA) of each official PyTorch CUDA build: the pytorch channel's
    `py3.11_cuda12.1_cudnn...` builds, pip `torch==X+cuXYZ`, PyPI torch wheels whose recorded
    `nvidia-cuda-runtime-cuXX` dependency names their CUDA, and with `pypi_linux` (pip takes
    torch from PyPI, for Linux) a pip `torch==X` without either: PyPI's Linux wheel of a release
    is its default CUDA build (the PyTorch compatibility matrix).  conda-forge's builds are
    skipped."""
    from envkit.conda.buildstr import decode

    out = []
    for p in pkgs:
        name = p.name.lower()
        if name not in TORCH:
            continue
        if p.manager == "conda":
            conda_forge = "conda-forge" in (p.channel or "") or "conda-forge" in (p.url or "")
            info = decode(p.build, p.version, name)
            if info.cuda and not conda_forge and (p.build or "").startswith("py"):
                out.append((p, p.version, info.cuda))
            continue
        info = decode(None, p.version, None)
        if info.cuda:
            out.append((p, p.version, info.cuda))
            continue
        runtime = next((spec for dep, spec in p.depends if dep.startswith("nvidia-cuda-runtime-cu")), None)
        if runtime is not None:
            mm = minor_text((runtime or "").strip().lstrip("="))
            if mm:
                out.append((p, p.version, mm))
        elif pypi_linux and name == "torch" and not info.cpu and _from_pypi(p):
            default = _pypi_default_cuda(p.version)
            if default:
                out.append((p, p.version, default))
    return out


def _from_pypi(p: LockedPackage) -> bool:
    return "+" not in p.version and (not p.url or "pythonhosted.org" in p.url)


def _pypi_default_cuda(version: str) -> str | None:
    from envkit.errors import EnvkitError
    from envkit.templates import load_matrix

    try:
        return load_matrix().default_cuda(version, "pip") or None
    except EnvkitError:  # a release the matrix does not know
        return None


def arch_issues(pkgs: Sequence[LockedPackage], profile: MachineProfile, *, pypi: bool = True) -> list[Issue]:
    """Each GPU whose compute capability a torch build has no kernels for (error), or only PTX to
    JIT-compile (warning).  Builds without a table row, and GPUs of unknown capability, are skipped.
    `pypi`: pip takes torch from PyPI (no PyTorch index named), whose Linux wheel is a CUDA build."""
    out = []
    pypi_linux = pypi and profile.platform.startswith("linux")
    for p, version, cuda in torch_builds(pkgs, pypi_linux=pypi_linux):
        row = arch_row(version, cuda)
        if row is None:
            continue
        kinds: dict[tuple[str, str], list[Gpu]] = {}
        for gpu in profile.gpus:  # identical cards are one finding
            if gpu.compute_capability:
                kinds.setdefault((gpu.name, gpu.compute_capability), []).append(gpu)
        for (gname, cc), same in kinds.items():
            how = runs_on(row, cc)
            if how == "cubin":
                continue
            built = ", ".join("sm_" + s.replace(".", "") for s in row.sm)
            which = ("GPU " if len(same) == 1 else "GPUs ") + ", ".join(str(g.index) for g in same)
            detail = (
                f"only compute_{row.ptx.replace('.', '')} PTX, JIT-compiled at first use"
                if how == "ptx" and row.ptx
                else ""
            )
            out.append(
                Issue(
                    kind="arch",
                    level="warning" if how == "ptx" else "error",
                    need=f"built for {built}",
                    have=f"{which} ({gname}), {same[0].sm}, compute capability {cc}",
                    package=package_label(p),
                    line=p.line,
                    fix=_arch_fix(version, same[0]),
                    detail=detail,
                )
            )
    return out


def _arch_fix(version: str, gpu: Gpu) -> str:
    minor = minor_text(version) or version
    rows = [r for r in arch_table()[0] if runs_on(r, gpu.compute_capability or "") == "cubin"]
    same = [r for r in rows if r.torch == minor]
    if same:
        r = max(same, key=lambda r: version_key(r.cuda))
        return (
            f"use torch {minor}'s CUDA {r.cuda} build (`envkit template pytorch --torch {minor} "
            f"--cuda {r.cuda} --style pip`)"
        )
    if rows:
        r = min(rows, key=lambda r: (version_key(r.torch), -version_key(r.cuda)[0]))
        return (
            f"torch {minor} has no build for {gpu.sm}; the first that does is torch {r.torch} with "
            f"CUDA {r.cuda} (`envkit template pytorch --torch {r.torch} --cuda {r.cuda} --style pip`)"
        )
    return f"no official torch build in envkit's table has kernels for {gpu.sm}"


# --------------------------------------------------------------------------------------------
# template pytorch --machine


def gpu_info(profile: MachineProfile, label: str):
    """The machine's driver as envkit.templates.GpuInfo, for `template pytorch --machine`."""
    from envkit.templates import GpuInfo

    if not profile.driver_cuda:
        return GpuInfo(None, profile.driver, "none", f"no NVIDIA driver in {label}")
    return GpuInfo(profile.driver_cuda, profile.driver, f"profile {label}")


def variant_arch_warnings(torch: str, cuda: str, style: str, profile: MachineProfile) -> tuple[str, ...]:
    """Warnings for GPUs of the machine that torch `torch`'s CUDA `cuda` build (official wheels and
    pytorch channel; conda-forge's lists are not known) has no kernels for."""
    if style == "conda-forge":
        return ()
    row = arch_row(torch, cuda)
    if row is None:
        return ()
    out: dict[tuple[str, str | None], str] = {}
    for gpu in profile.gpus:
        if gpu.compute_capability and runs_on(row, gpu.compute_capability) != "cubin":
            out.setdefault(
                (gpu.name, gpu.sm),
                f"torch {row.torch} with CUDA {cuda} has no kernels for "
                f"the {gpu.name} ({gpu.sm}): {_arch_fix(torch, gpu)}",
            )
    return tuple(out.values())
