"""Which CUDA toolkit releases an NVIDIA driver runs: the one home of the CUDA/driver table.

`template --detect`, `template --machine`, `envkit machine` and the machine rules of `envkit check`
all ask this module.

Two rules from NVIDIA's CUDA Compatibility guide
(https://docs.nvidia.com/deploy/cuda-compatibility/minor-version-compatibility.html):

- *Full support*: the driver is at least the one the toolkit release shipped with (the toolkit
  release notes' table 3, https://docs.nvidia.com/cuda/cuda-toolkit-release-notes/index.html).
- *Minor-version compatibility* (CUDA 11 and later): an application built with any CUDA X.y runs,
  "with limited feature-set", on a driver of at least the major release's floor: 11.x >= 450.80.02,
  12.x >= 525.60.13, 13.x >= 580 (580.65.06, CUDA 13.0's driver).  PyTorch's wheels and conda-forge's
  builds ship their CUDA runtime and rely on it: torch 2.7+cu126 runs on driver 550.

PTX/JIT limit: PTX produced by toolkit X.y needs a driver that supports X.y to be JIT-compiled
(the same guide, "Using PTX"), and minor-version compatibility does not cover it.  A binary whose
kernels must be JIT-compiled from PTX on this GPU (its architecture is not among the binary's SASS
targets) therefore needs full support.  `driver_supports(..., ptx_jit=True)` applies that rule.
"""

from __future__ import annotations

from dataclasses import dataclass

from envkit.conda.versions import minor_text, version_key

#: (CUDA toolkit release, minimum Linux x86_64 driver), oldest first: the toolkit release notes.
TOOLKIT_DRIVERS: tuple[tuple[str, str], ...] = (
    ("10.0", "410.48"),
    ("10.1", "418.39"),
    ("10.2", "440.33"),
    ("11.0", "450.51.06"),
    ("11.1", "455.23"),
    ("11.2", "460.27.03"),
    ("11.3", "465.19.01"),
    ("11.4", "470.42.01"),
    ("11.5", "495.29.05"),
    ("11.6", "510.39.01"),
    ("11.7", "515.43.04"),
    ("11.8", "520.61.05"),
    ("12.0", "525.60.13"),
    ("12.1", "530.30.02"),
    ("12.2", "535.54.03"),
    ("12.3", "545.23.06"),
    ("12.4", "550.54.14"),
    ("12.5", "555.42.02"),
    ("12.6", "560.28.03"),
    ("12.8", "570.26"),
    ("12.9", "575.51.03"),
    ("13.0", "580.65.06"),
    ("13.1", "590.44.01"),
)
#: CUDA major release -> the oldest Linux driver that runs every minor release of it (minor-version
#: compatibility); none before CUDA 11.
MINOR_COMPAT_FLOOR: dict[int, str] = {11: "450.80.02", 12: "525.60.13", 13: "580.65.06"}


def min_driver(cuda_version: str) -> str | None:
    """The driver CUDA `cuda_version` (`12.6`, `12.6.3`) shipped with (full support), or None when
    the table does not know that release."""
    mm = minor_text(cuda_version)
    return next((d for c, d in TOOLKIT_DRIVERS if c == mm), None)


@dataclass(frozen=True, slots=True, kw_only=True)
class Support:
    """How a driver runs a CUDA release: `ok`, and `how` it does ("full", "minor-version
    compatibility", or "no")."""

    ok: bool
    how: str


def support(cuda_version: str, driver_version: str, *, ptx_jit: bool = False) -> Support:
    """How driver `driver_version` (`550.54.15`) runs code built with CUDA `cuda_version` (`12.6`).

    `ptx_jit`: the code must be JIT-compiled from PTX on this GPU, which minor-version
    compatibility does not cover (see the module docstring)."""
    full = min_driver(cuda_version)
    if full and version_key(driver_version) >= version_key(full):
        return Support(ok=True, how="full")
    floor = MINOR_COMPAT_FLOOR.get(next(iter(version_key(cuda_version)), 0))
    if full is None and floor is None:
        return Support(ok=False, how="no")
    if not ptx_jit and floor and version_key(driver_version) >= version_key(floor):
        return Support(ok=True, how="minor-version compatibility")
    return Support(ok=False, how="no")


def driver_supports(cuda_version: str, driver_version: str, *, ptx_jit: bool = False) -> bool:
    """Whether driver `driver_version` runs code built with CUDA `cuda_version`: full support, or
    minor-version compatibility within the major release (not for PTX JIT)."""
    return support(cuda_version, driver_version, ptx_jit=ptx_jit).ok


def max_cuda_for_driver(driver_version: str, *, ptx_jit: bool = False) -> str | None:
    """The newest CUDA release (major.minor, from TOOLKIT_DRIVERS) that `driver_version` runs, or
    None for a driver older than every release in the table.  With minor-version compatibility
    that is the newest release of the newest major whose floor the driver meets (driver 550 ->
    13.x no, 12.x yes -> `12.9`); with `ptx_jit`, the newest one it fully supports (550 -> `12.4`)."""
    runs = [c for c, _ in TOOLKIT_DRIVERS if driver_supports(c, driver_version, ptx_jit=ptx_jit)]
    return max(runs, key=version_key) if runs else None


def max_full_cuda_for_driver(driver_version: str) -> str | None:
    """The newest CUDA release `driver_version` supports fully (what `nvidia-smi` prints as
    "CUDA Version"), or None."""
    return max_cuda_for_driver(driver_version, ptx_jit=True)


def compatibility(cuda: str, driver: str) -> str | None:
    """How `driver` runs code built with CUDA `cuda`: "full" (the toolkit's own minimum is met),
    "minor" (only through minor-version compatibility: same major, driver >= the major's floor,
    reduced features), or None (it does not run).  A CUDA release missing from the table counts as
    the newest listed release of its major or the major's floor, whichever applies."""
    have = version_key(driver)
    want = version_key(cuda)
    if not have or not want:
        return None
    need = min_driver(cuda)
    if need is not None and have >= version_key(need):
        return "full"
    if need is None:
        newest = max_full_cuda_for_driver(driver)
        if newest is not None and version_key(newest) >= want[:2]:
            return "full"
    floor = MINOR_COMPAT_FLOOR.get(want[0])
    if floor is not None and have >= version_key(floor):
        return "minor"
    return None
