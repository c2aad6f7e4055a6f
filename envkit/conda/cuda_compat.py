"""NVIDIA driver <-> CUDA toolkit compatibility: which CUDA a driver runs, and how.

Two facts from NVIDIA, kept here as data (one home: `template --detect`, `envkit machine` and the
machine rules of `envkit check` all ask this module):

* each CUDA toolkit release has a minimum driver that supports all of its features (the CUDA
  Toolkit release notes, "CUDA Toolkit and Corresponding Driver Versions", Linux x86_64 column);
* from CUDA 11 on, an application built with any toolkit of a major release also runs, with a
  limited feature set (no PTX JIT of newer PTX, for one), on an older driver of the same major
  family: 11.x on >= 450.80.02, 12.x on >= 525.60.13, 13.x on >= 580.65.06 (the CUDA Compatibility
  guide, "Minor Version Compatibility", table 1).

NOTE for the integrator: i12 builds the same table for `template --detect`; merge the two here.
"""
from __future__ import annotations

#: (CUDA major.minor, minimum Linux x86_64 driver for the full feature set), oldest first.
TOOLKIT_DRIVERS: tuple[tuple[str, str], ...] = (
    ("10.0", "410.48"), ("10.1", "418.39"), ("10.2", "440.33"),
    ("11.0", "450.36.06"), ("11.1", "455.23"), ("11.2", "460.27.03"), ("11.3", "465.19.01"),
    ("11.4", "470.42.01"), ("11.5", "495.29.05"), ("11.6", "510.39.01"), ("11.7", "515.43.04"),
    ("11.8", "520.61.05"),
    ("12.0", "525.60.13"), ("12.1", "530.30.02"), ("12.2", "535.54.03"), ("12.3", "545.23.06"),
    ("12.4", "550.54.14"), ("12.5", "555.42.02"), ("12.6", "560.28.03"), ("12.8", "570.26"),
    ("12.9", "575.51.03"),
    ("13.0", "580.65.06"), ("13.1", "590.44.01"),
)

#: CUDA major -> the oldest driver that runs every toolkit of that major (minor-version compatibility).
MINOR_VERSION_FLOOR: dict[str, str] = {"11": "450.80.02", "12": "525.60.13", "13": "580.65.06"}

SOURCES: dict[str, tuple[str, str]] = {
    "NV-RN": ("NVIDIA CUDA Toolkit release notes, table 3: CUDA Toolkit and corresponding driver versions",
              "https://docs.nvidia.com/cuda/cuda-toolkit-release-notes/index.html"),
    "NV-COMPAT": ("NVIDIA CUDA Compatibility guide, Minor Version Compatibility, table 1",
                  "https://docs.nvidia.com/deploy/cuda-compatibility/minor-version-compatibility.html"),
}


def version_key(text: str) -> tuple[int, ...]:
    """`570.86.15` -> (570, 86, 15); non-numeric parts end the key (`12.4.1a` -> (12, 4, 1))."""
    out: list[int] = []
    for part in text.strip().split("."):
        digits = ""
        for ch in part:
            if not ch.isdigit():
                break
            digits += ch
        if not digits:
            break
        out.append(int(digits))
        if len(digits) != len(part):
            break
    return tuple(out)


def major_minor(cuda: str) -> str | None:
    """`12.4.131` -> "12.4", `12` -> "12", "" -> None."""
    key = version_key(cuda)
    if not key:
        return None
    return ".".join(str(k) for k in key[:2])


def min_driver(cuda: str) -> str | None:
    """The driver that runs CUDA `cuda` (`12.6`, `12.6.3`) with every feature; None when the table
    has no such release (`12.7`, `13.2`)."""
    mm = major_minor(cuda)
    for c, drv in TOOLKIT_DRIVERS:
        if c == mm:
            return drv
    return None


def max_cuda_for_driver(driver: str) -> str | None:
    """The newest CUDA (major.minor) of the table whose full minimum `driver` meets, or None for a
    driver older than every row (or no version at all)."""
    have = version_key(driver)
    if not have:
        return None
    best = None
    for c, drv in TOOLKIT_DRIVERS:
        if have >= version_key(drv):
            best = c
    return best


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
        newest = max_cuda_for_driver(driver)
        if newest is not None and version_key(newest) >= want[:2]:
            return "full"
    floor = MINOR_VERSION_FLOOR.get(str(want[0]))
    if floor is not None and have >= version_key(floor):
        return "minor"
    return None


def driver_supports(cuda: str, driver: str) -> bool:
    """True when code built with CUDA `cuda` runs on `driver`, counting NVIDIA's minor-version
    compatibility (`driver_supports("12.8", "535.104.05")` is True: 12.x runs on >= 525.60.13)."""
    return compatibility(cuda, driver) is not None
