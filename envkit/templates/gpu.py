"""`template --detect`: this machine's NVIDIA driver, and the CUDA variant it can run."""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

from envkit.conda.cuda_compat import MINOR_COMPAT_FLOOR, max_full_cuda_for_driver, min_driver, support
from envkit.conda.versions import minor_text, version_key
from envkit.errors import EnvkitError, Remedy, UsageError
from envkit.templates.matrix import ON_STYLE, Matrix, normalize_cuda

if TYPE_CHECKING:  # pragma: no cover
    from envkit._proc import Result


@dataclass(frozen=True, slots=True)
class GpuInfo:
    """What the machine's NVIDIA driver offers: the highest CUDA it runs, and its version."""

    cuda: str | None
    driver: str | None
    source: str  # "nvidia-smi", "py-rattler __cuda", "CONDA_OVERRIDE_CUDA", "none"
    detail: str = ""  # why nothing was found


_SMI_DRIVER = re.compile(r"Driver Version:\s*([0-9][0-9.]*)")
_SMI_CUDA = re.compile(r"CUDA Version:\s*([0-9]+\.[0-9]+)")


def parse_nvidia_smi(text: str) -> tuple[str | None, str | None]:
    """(driver version, CUDA version) from `nvidia-smi`'s banner; None for what it lacks."""
    d = _SMI_DRIVER.search(text)
    c = _SMI_CUDA.search(text)
    return (d.group(1) if d else None, c.group(1) if c else None)


def _rattler_cuda() -> str | None:
    from rattler import VirtualPackage, VirtualPackageOverrides

    for vp in VirtualPackage.detect(VirtualPackageOverrides.from_env()):
        g = vp.into_generic()
        if g.name.normalized == "__cuda":
            return str(g.version)
    return None


def detect_gpu(
    *,
    environ: Mapping[str, str] | None = None,
    which: Callable[[str], str | None] | None = None,
    run: Callable[..., Result] | None = None,
    rattler_cuda: Callable[[], str | None] | None = None,
) -> GpuInfo:
    """Find the NVIDIA driver's CUDA capability.

    Order: `CONDA_OVERRIDE_CUDA` (conda's own override; empty means no GPU), then `nvidia-smi`
    (driver version and "CUDA Version"), then py-rattler's `__cuda` virtual package detection.
    Never raises for a missing or failing nvidia-smi; returns GpuInfo(cuda=None, ...) then.
    """
    import shutil

    from envkit import _proc

    env = os.environ if environ is None else environ
    which = which or shutil.which
    run = run or _proc.run
    rattler_cuda = rattler_cuda or _rattler_cuda
    if "CONDA_OVERRIDE_CUDA" in env:
        return _overridden(env["CONDA_OVERRIDE_CUDA"].strip())
    details: list[str] = []
    smi = which("nvidia-smi")
    if smi is None:
        details.append("nvidia-smi not found")
    else:
        found = _from_nvidia_smi(smi, run, details)
        if found is not None:
            return found
    try:
        cuda = rattler_cuda()
    except Exception as exc:  # py-rattler's detection errors are not ours to crash on
        cuda = None
        details.append(f"py-rattler could not detect virtual packages: {exc}")
    if cuda:
        return GpuInfo(normalize_cuda(cuda), None, "py-rattler __cuda")
    details.append("py-rattler reports no __cuda virtual package")
    return GpuInfo(None, None, "none", "; ".join(details))


def _overridden(value: str) -> GpuInfo:
    """What CONDA_OVERRIDE_CUDA says: empty means no GPU."""
    if not value:
        return GpuInfo(None, None, "CONDA_OVERRIDE_CUDA", "CONDA_OVERRIDE_CUDA is set empty")
    try:
        return GpuInfo(normalize_cuda(value), None, "CONDA_OVERRIDE_CUDA")
    except UsageError:
        raise UsageError(
            f"CONDA_OVERRIDE_CUDA={value!r} is not a CUDA version",
            hint="set it to major.minor (12.6), or to nothing for no GPU",
        ) from None


def _from_nvidia_smi(smi: str, run: Callable[..., Result], details: list[str]) -> GpuInfo | None:
    """What nvidia-smi reports, or None with the reason appended to `details`."""
    try:
        res = run([smi], timeout=30, check=False, what="nvidia-smi")
    except EnvkitError as exc:
        details.append(f"nvidia-smi failed: {exc.message}")
        return None
    if not res.ok:
        last = (res.stdout or res.stderr).strip().splitlines()
        first = f": {last[0].strip()}" if last else ""
        details.append(f"nvidia-smi failed (exit {res.returncode}){first}")
        return None
    driver, cuda = parse_nvidia_smi(res.stdout)
    if driver and not cuda:
        cuda = max_full_cuda_for_driver(driver)
    if cuda:
        return GpuInfo(cuda, driver, "nvidia-smi")
    details.append("nvidia-smi printed no driver version")
    return None


@dataclass(frozen=True, slots=True)
class Detection:
    """What `--detect` chose: a CUDA version (None: CPU), with notes and warnings to show."""

    cuda: str | None
    messages: tuple[str, ...]
    warnings: tuple[str, ...]
    runs: bool = True  # False: no variant runs on the driver; `cuda` is the oldest, for the message
    full: bool = True  # False: `cuda` runs only through minor-version compatibility


def pick_detected_cuda(matrix: Matrix, torch: str, style: str, gpu: GpuInfo) -> Detection:
    """Pick the highest CUDA variant of `torch` in `style` that `gpu` runs.

    No GPU: CPU, and a message saying so.  A driver too old for every variant: the oldest
    variant, with a warning naming the driver it needs.
    """
    if gpu.cuda is None:
        why = f" ({gpu.detail})" if gpu.detail else ""
        return Detection(None, (f"no NVIDIA GPU detected{why}; generating a CPU environment",), ())
    gpu_cuda = gpu.cuda  # a str from here on, also inside the closures below
    variants = matrix.cuda_variants(torch, style)
    have = f"driver {gpu.driver}, CUDA {gpu.cuda}" if gpu.driver else f"CUDA {gpu.cuda}"

    def full(v: str) -> bool:
        if gpu.driver:
            return support(v, gpu.driver).how == "full"
        return version_key(v) <= version_key(gpu_cuda)  # only the driver's CUDA version is known (__cuda)

    def minor_compat(v: str) -> bool:
        # NVIDIA's minor-version compatibility (envkit.conda.cuda_compat): a CUDA 12.x build runs on any
        # driver >= 525.60.13, not only on the one its toolkit shipped with
        if gpu.driver:
            return support(v, gpu.driver).ok
        major = version_key(v)[:1]
        return bool(major) and major == version_key(gpu_cuda)[:1] and major[0] in MINOR_COMPAT_FLOOR

    # an experimental variant (new GPUs, whose support needs the newer driver anyway) only with
    # full support; a stable one through minor-version compatibility too
    release = matrix.find_release(torch)
    experimental = set(release.experimental_cuda) if release and style == "pip" else set()
    # a variant the driver supports fully first: what `check --machine` then passes without a note
    fitting = [v for v in variants if full(v)] or [
        v for v in variants if v not in experimental and minor_compat(v)
    ]
    if fitting:
        chosen = max(fitting, key=version_key)
        notes = [f"detected NVIDIA {have} ({gpu.source}); picked CUDA {chosen}"]
        if version_key(chosen) > version_key(gpu.cuda):
            need = min_driver(chosen)
            notes.append(
                f"CUDA {chosen} runs on this driver through NVIDIA's minor-version compatibility "
                f"(limited feature set); kernels JIT-compiled from PTX need the full driver"
                f"{f' (>= {need})' if need else ''}"
            )
        return Detection(chosen, tuple(notes), (), full=full(chosen))
    return _none_runs(torch, min(variants, key=version_key), gpu, have)


def _none_runs(torch: str, chosen: str, gpu: GpuInfo, have: str) -> Detection:
    """No variant of `torch` runs on `gpu`: the oldest (`chosen`), with a warning naming the driver
    it needs."""
    need = min_driver(chosen)
    need_text = f"an NVIDIA driver >= {need}" if need else f"a driver that supports CUDA {chosen}"
    here = (
        f"driver {gpu.driver} supports CUDA {gpu.cuda}"
        if gpu.driver
        else f"driver supports CUDA {gpu.cuda} only"
    )
    warning = (
        f"CUDA {chosen} needs {need_text}, but this machine's {here} ({gpu.source}); "
        "update the driver, or use --cpu"
    )
    return Detection(
        chosen,
        (
            f"detected NVIDIA {have} ({gpu.source}); no CUDA variant of torch "
            f"{minor_text(torch)} runs on it; picked the oldest, CUDA {chosen}",
        ),
        (warning,),
        runs=False,
    )


def choose_detected(
    matrix: Matrix, torch: str | None, style: str, gpu: GpuInfo, fits: Callable[[str], bool] | None = None
) -> tuple[str, Detection]:
    """(torch release, CUDA variant) for `gpu`: with `torch` given, its best variant; without, the
    newest release (that `fits`, e.g. has the Python asked for) with a variant the driver runs.

    Raises UsageError when no variant runs, rather than writing an environment that cannot: the
    hint names the newest torch that would, and --cpu.
    """
    newest = [t for t in reversed(matrix.torch_versions(style)) if fits is None or fits(t)]
    if gpu.cuda is None or torch is None and not newest:
        t = torch or matrix.newest(style)
        return t, pick_detected_cuda(matrix, t, style, gpu)
    # the newest release with a variant the driver supports fully (what `check --machine` passes
    # without a note), unless only one of an older torch major does: then the newest that runs
    # through minor-version compatibility
    found = [(t, pick_detected_cuda(matrix, t, style, gpu)) for t in newest]
    runs = next(((t, d) for t, d in found if d.runs), None)
    fully = next(((t, d) for t, d in found if d.runs and d.full), None)
    if runs is not None and fully is not None and version_key(fully[0])[:1] == version_key(runs[0])[:1]:
        runs = fully
    have = f"driver {gpu.driver} (CUDA {gpu.cuda})" if gpu.driver else f"a driver with CUDA {gpu.cuda}"
    if torch is None:
        if runs is None:
            raise UsageError(
                f"no torch release{ON_STYLE[style]} has a CUDA variant that runs on {have} ({gpu.source})",
                hint="update the NVIDIA driver, or write a CPU environment with {}",
                remedy=Remedy(option="cpu", value=True),
            )
        t, d = runs
        if t != newest[0]:
            first = min(matrix.cuda_variants(newest[0], style), key=version_key)
            note = (
                f"torch {t} is the newest release with a CUDA variant this driver runs "
                f"(torch {newest[0]} needs CUDA >= {first})"
            )
            d = Detection(d.cuda, d.messages + (note,), d.warnings)
        return t, d
    d = pick_detected_cuda(matrix, torch, style, gpu)
    if d.runs:
        return torch, d
    alt = f"torch {runs[0]} has CUDA {runs[1].cuda}, which does; " if runs else ""
    raise UsageError(
        f"no CUDA variant of torch {minor_text(torch)}{ON_STYLE[style]} runs on {have} "
        f"({gpu.source}): it has {', '.join(matrix.cuda_variants(torch, style))}",
        hint=f"{alt}update the NVIDIA driver, or write a CPU environment with {{}}",
        remedy=Remedy(option="cpu", value=True),
    )
