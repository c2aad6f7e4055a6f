"""Pure verdicts over facts passed in (driver vs CUDA, cuDNN, GPU arch, /dev/shm, CUDA pins), so
tests can inject a GPU this machine lacks."""

from __future__ import annotations

import re
from collections.abc import Iterable

from .events import Fail, Skip, Warn

# Minimum Linux driver per CUDA release (the CUDA Toolkit release notes,
# https://docs.nvidia.com/cuda/cuda-toolkit-release-notes/index.html).
DRIVER_MINIMUM = {
    "11.8": "520.61.05",
    "12.0": "525.60.13",
    "12.1": "530.30.02",
    "12.2": "535.54.03",
    "12.3": "545.23.06",
    "12.4": "550.54.14",
    "12.5": "555.42.02",
    "12.6": "560.28.03",
    "12.8": "570.26",
    "12.9": "575.51.03",
    "13.0": "580.65.06",
    "13.1": "590.44.01",
}


# CUDA minor-version compatibility: a toolkit of this major runs (with limited features: no PTX JIT
# of newer PTX) on any driver at least this new.
MINOR_COMPAT_FLOOR = {"11": "450.80.02", "12": "525.60.13", "13": "580.65.06"}


def version_tuple(text: str | None) -> tuple[int, ...]:
    """'550.54.14' -> (550, 54, 14); non-numeric parts are dropped; None -> ()."""
    if not text:
        return ()
    return tuple(int(p) for p in re.findall(r"\d+", str(text)))


def capability_tuple(text: str) -> tuple[int, int]:
    """'8.6' -> (8, 6): a device's compute capability as torch reports it (major.minor)."""
    major, minor = text.split(".")
    return int(major), int(minor)


def min_driver_for(cuda: str) -> tuple[str | None, str | None]:
    """(minimum driver, table key used) for CUDA `cuda` ('12.8'); the nearest lower table entry
    when the exact release is not in the table; (None, None) when older than the table."""
    want = version_tuple(cuda)[:2]
    if not want:
        return None, None
    key = f"{want[0]}.{want[1]}"
    if key in DRIVER_MINIMUM:
        return DRIVER_MINIMUM[key], key
    lower = [k for k in DRIVER_MINIMUM if version_tuple(k) <= want]
    if not lower:
        return None, None
    best = max(lower, key=version_tuple)
    return DRIVER_MINIMUM[best], best


def driver_verdict(driver: str | None, cuda: str | None, api: str | None = None) -> tuple[str, str]:
    """(status, detail) for NVIDIA driver `driver` running a torch built with CUDA `cuda`.

    Without the driver's own version, `api` (the CUDA version the driver supports, from
    cuDriverGetVersion) decides: at least `cuda` passes, the same major warns (minor-version
    compatibility), an older major fails."""
    if not cuda:
        return "skip", "torch is not a CUDA build"
    if not driver and api:
        have, want = version_tuple(api)[:2], version_tuple(cuda)[:2]
        if have >= want:
            return "pass", f"the driver supports CUDA {api} >= {cuda}, torch's CUDA"
        if have[:1] == want[:1]:
            return "warn", (
                f"the driver supports CUDA {api} < {cuda}, torch's CUDA: it runs through CUDA "
                "minor-version compatibility with limited features; update the driver"
            )
        return "fail", (
            f"driver is too old: it supports CUDA {api}, torch needs CUDA {cuda}; update the "
            "NVIDIA driver or install a torch built for an older CUDA"
        )
    if not driver:
        return "skip", "no NVIDIA driver found (no nvidia-smi, no NVML, no /proc/driver/nvidia/version)"
    need, key = min_driver_for(cuda)
    if need is None:
        return "warn", f"CUDA {cuda} is older than the minimum-driver table; driver {driver} not checked"
    note = "" if key == ".".join(map(str, version_tuple(cuda)[:2])) else f" (table entry {key})"
    if version_tuple(driver) >= version_tuple(need):
        return "pass", f"driver {driver} >= {need}, the minimum for CUDA {cuda}{note}"
    floor = MINOR_COMPAT_FLOOR.get(str(version_tuple(cuda)[0]))
    if floor and version_tuple(driver) >= version_tuple(floor):
        return "warn", (
            f"driver {driver} is older than {need}, the minimum for CUDA {cuda}{note}; it runs "
            f"through CUDA minor-version compatibility (>= {floor}) with limited features "
            "(no JIT of newer PTX); update the driver"
        )
    floor_txt = f"; minor-version compatibility needs >= {floor}" if floor else ""
    return "fail", (
        f"driver {driver} is too old for CUDA {cuda}: it needs >= {need}{floor_txt}; "
        "update the NVIDIA driver or install a torch built for an older CUDA"
    )


def nccl_text(v) -> str | None:
    """NCCL's version as text from what `torch.cuda.nccl.version()` returns: a tuple
    (major, minor, patch) or (major, minor, patch, suffix) in torch >= 1.13 ((2, 26, 2) ->
    '2.26.2', (2, 21, 5, '+cuda12.4') -> '2.21.5+cuda12.4'); an int in older torch (2708 ->
    '2.7.8', 21602 -> '2.16.2'); None when unknown."""
    if v is None:
        return None
    if isinstance(v, (tuple, list)):
        nums = [str(x) for x in v[:3]]
        suffix = "".join(str(x) for x in v[3:])
        return ".".join(nums) + suffix
    if isinstance(v, int):
        if v >= 10000:  # NCCL >= 2.9 encodes major*10000 + minor*100 + patch
            return f"{v // 10000}.{(v % 10000) // 100}.{v % 100}"
        return f"{v // 1000}.{(v % 1000) // 100}.{v % 100}"
    return str(v)


def cuda_api_text(v: int | None) -> str | None:
    """The CUDA version a driver supports, from cuDriverGetVersion's integer (12080 -> '12.8')."""
    if not v:
        return None
    return f"{v // 1000}.{(v % 1000) // 10}"


def cudnn_verdict(
    runtime,
    compile_,
    *,
    is_cuda: bool = True,
    version_int: int | None = None,
    min_capability: tuple[int, int] | None = None,
) -> tuple[str, str]:
    """(status, detail) for the cuDNN torch loaded (`runtime`) against the one it was built with
    (`compile_`), both (major, minor, patch) as `torch._C._cudnn.getRuntimeVersion()` /
    `getCompileVersion()` return them.  The rule is torch's own (torch/backends/cudnn/__init__.py,
    `_init`): the major must match; from cuDNN 7 on a newer runtime minor is fine (backwards
    compatible), an older one is not; MIOpen (ROCm) must match exactly; cuDNN >= 9.11 refuses
    devices below sm_75."""
    rt, ct = tuple(runtime or ()), tuple(compile_ or ())
    if len(rt) < 2 or len(ct) < 2:
        return "skip", "cuDNN versions unknown"
    rts, cts = ".".join(map(str, rt)), ".".join(map(str, ct))
    if rt[0] != ct[0]:
        ok = False
    elif rt[0] < 7 or not is_cuda:
        ok = rt[1] == ct[1]
    else:
        ok = rt[1] >= ct[1]
    if not ok:
        return "fail", (
            f"cuDNN version incompatibility: torch was compiled against cuDNN {cts} but loads "
            f"{rts}: another cuDNN (LD_LIBRARY_PATH, a conda or pip cudnn package) shadows the "
            "one torch needs"
        )
    if version_int and version_int >= 91100 and min_capability and tuple(min_capability) < (7, 5):
        cap = f"sm_{min_capability[0]}{min_capability[1]}"
        return (
            "fail",
            f"cuDNN {rts} does not support devices below sm_75, and this machine has a {cap} device",
        )
    if rt == ct:
        return "pass", f"cuDNN runtime {rts} == compile {cts}"
    return (
        "pass",
        f"cuDNN runtime {rts}, compiled against {cts} (a newer minor of the same major is compatible)",
    )


def sm_number(arch: str) -> int | None:
    """'sm_90a' -> 90, 'compute_120' -> 120, 'sm_120f' -> 120; None when not an arch string."""
    m = re.match(r"^(?:sm|compute)_(\d+)[a-z]?$", arch.strip())
    return int(m.group(1)) if m else None


def _numbered(archs: Iterable[str]) -> list[tuple[str, int]]:
    """(arch, its sm number) of each arch string that has one."""
    return [(a, n) for a in archs if (n := sm_number(a)) is not None]


def arch_verdict(capability: tuple[int, int], arch_list: list[str], name: str = "GPU") -> tuple[str, str]:
    """(status, detail): can a device of compute `capability` run this torch's kernels?

    An exact `sm_XY` cubin passes; a cubin of the same major and a lower-or-equal minor passes
    (binary compatible within a major); only PTX (`compute_XY`, XY <= capability) warns (JIT at
    first use); nothing usable fails with torch's own wording.
    """
    major, minor = capability
    cap = major * 10 + minor
    sms = _numbered(a for a in arch_list if a.startswith("sm_"))
    ptx = _numbered(a for a in arch_list if a.startswith("compute_"))
    listed = " ".join(arch_list) or "(empty)"
    if not arch_list:
        return "skip", "torch reports no compiled CUDA architectures"
    exact = [a for a, n in sms if n == cap]
    if exact:
        return "pass", f"{name} is sm_{cap}; {exact[0]} is in the arch list ({listed})"
    compatible = [a for a, n in sms if n // 10 == major and n <= cap]
    if compatible:
        return "pass", (
            f"{name} is sm_{cap}; runs the {compatible[-1]} cubin (binary compatible within "
            f"major {major}); arch list: {listed}"
        )
    jit = [a for a, n in ptx if n <= cap]
    if jit:
        return "warn", (
            f"{name} is sm_{cap}; no cubin for it, kernels are JIT-compiled from "
            f"{jit[-1]} PTX on first use (slow start); arch list: {listed}"
        )
    return "fail", (
        f"{name} with CUDA capability sm_{cap} is not compatible with the current PyTorch "
        f"installation, which supports {listed}: unsupported GPU arch"
    )


def shm_verdict(total: int, free: int, in_flight: int) -> tuple[str, str]:
    """(status, detail) for a /dev/shm of `total`/`free` bytes when `in_flight` bytes of batches are
    shared by DataLoader workers at once."""
    mib = 1024 * 1024
    fix = (
        "in Docker start the container with --shm-size=8g (or --ipc=host); in Kubernetes mount an "
        "emptyDir with medium: Memory at /dev/shm"
    )
    text = (
        f"/dev/shm {total / mib:.0f} MiB (free {free / mib:.0f} MiB); batches in flight "
        f"{in_flight / mib:.1f} MiB"
    )
    if in_flight > free:
        return "fail", (f"{text}: workers will die with 'Bus error' / 'No space left on device'; {fix}")
    if in_flight > free / 2 or total < 256 * mib:
        why = "Docker's 64 MiB default?" if total <= 64 * mib else "little headroom"
        return "warn", (
            f"{text}: {why} larger batches or more workers will hit 'Bus error' in DataLoader workers; {fix}"
        )
    return "pass", f"{text}: enough room"


def cuda_pins_from_records(records: list[dict]) -> list[str]:
    """Which installed conda packages (conda-meta records: name/version/build) pin CUDA."""
    pins = []
    for r in records:
        name, version, build = r.get("name", ""), str(r.get("version", "")), str(r.get("build", ""))
        if name in ("cuda-version", "pytorch-cuda", "cudatoolkit"):
            pins.append(f"{name}={version}")
        elif name in ("pytorch", "pytorch-gpu", "libtorch") and build.startswith("cuda"):
            pins.append(f"{name}={version}={build}")
    return sorted(set(pins))


def cuda_pins_from_dists(names: list[str]) -> list[str]:
    """Which pip distributions (names) mean "a CUDA torch was meant": NVIDIA runtime wheels."""
    norms = (re.sub(r"[-_.]+", "-", n).lower() for n in names)
    return sorted({f"{norm} (pip)" for norm in norms if norm.startswith("nvidia-cuda-runtime")})


def _combine(verdicts: list[tuple[str, str]]) -> str:
    order = {"fail": 3, "warn": 2, "pass": 1, "skip": 0}
    worst = max((v[0] for v in verdicts), key=lambda status: order[status], default="skip")
    return _raise_for(worst, "; ".join(v[1] for v in verdicts) or "no devices")


_RAISED = {"fail": Fail, "warn": Warn, "skip": Skip}


def _raise_for(status: str, detail: str) -> str:
    if status in _RAISED:
        raise _RAISED[status](detail)
    return detail
