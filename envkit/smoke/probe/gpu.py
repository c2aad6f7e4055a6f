"""The CUDA and compute checks: availability, arch, driver, matmul, conv2d, cuDNN, SDPA, bandwidth."""

from __future__ import annotations

import math
import os
import re
import warnings

from .events import Fail, Skip, Warn, emit
from .helpers import _count, _first_line, copy_gbps, device_groups, rel_err
from .state import ProbeState
from .verdicts import (
    _combine,
    _raise_for,
    arch_verdict,
    capability_tuple,
    cudnn_verdict,
    driver_verdict,
    version_tuple,
)


class GpuChecks(ProbeState):
    """Checks of the probe (mixed into `Probe`, whose state they use)."""

    # -- checks: imports, build, CUDA ---------------------------------------------------------

    def check_numpy(self) -> str:
        torch = self.torch
        numpy_warn = [w for w in self.import_warnings if "numpy" in w.lower()]
        if self.np is None:
            raise Skip("numpy is not installed in this environment")
        np = self.np
        a = np.arange(12, dtype=np.float32).reshape(3, 4)
        t = torch.from_numpy(a)
        a[0, 0] = 42.0  # from_numpy shares memory
        if float(t[0, 0]) != 42.0:
            raise Fail("torch.from_numpy does not share memory with the array")
        back = (t * 2).numpy()
        if not np.array_equal(back, a * 2):
            raise Fail("tensor.numpy() returned wrong values")
        if numpy_warn:
            raise Warn(f"numpy {np.__version__} works, but torch warned at import: {numpy_warn[0]}")
        return f"numpy {np.__version__}: from_numpy shares memory, .numpy() round-trips"

    def check_build(self) -> str:
        t = self.environment["torch"]
        pins = self.pins
        if t["build"] == "cpu":
            if pins:
                raise Fail(
                    f"CPU-only torch ({t['version']}) in an environment that pins CUDA "
                    f"({', '.join(pins)}): the solver or pip picked the CPU variant"
                )
            return f"CPU build {t['version']}; the environment pins no CUDA"
        if t["build"] == "rocm":
            return f"ROCm build {t['version']} (HIP {t['hip']})"
        want = [p for p in pins if re.search(r"(?:cuda-version|pytorch-cuda|cudatoolkit)=", p)]
        mism = [p for p in want if version_tuple(p.split("=", 1)[1])[:1] != version_tuple(t["cuda"])[:1]]
        if mism:
            raise Warn(
                f"torch {t['version']} is built for CUDA {t['cuda']}, but the environment pins "
                f"{', '.join(mism)} (another CUDA major)"
            )
        pinned = f"; pins: {', '.join(pins)}" if pins else ""
        return f"CUDA build {t['version']} (CUDA {t['cuda']}){pinned}"

    def cuda_expected(self) -> list[str]:
        why = []
        if self.config.get("require_cuda"):
            why.append("--require-cuda was given")
        if self.gpu.get("present"):
            where = ", ".join(self.gpu.get("dev_nodes") or []) or "nvidia-smi lists a GPU"
            why.append(f"a GPU is present ({where})")
        if self.pins:
            why.append(f"the environment pins CUDA ({', '.join(self.pins)})")
        return why

    def check_cuda_available(self) -> str:
        torch = self.torch
        t = self.environment["torch"]
        cinfo = self.environment["cuda"]
        expected = self.cuda_expected()
        available = bool(torch.cuda.is_available()) if t["cuda"] or t["hip"] else False
        if available:
            devices = _devices(torch, t)
            cinfo.update(available=True, device_count=len(devices), devices=devices)
            emit({"event": "environment", "environment": self.environment})
            if not devices:
                raise Fail("torch.cuda.is_available() is True but torch.cuda.device_count() is 0")
            names = ", ".join(
                f"{_count(ix)}{d['name']} ({d['sm']}, {d['total_memory'] / 2**30:.0f} GiB)"
                for ix, d in device_groups(devices)
            )
            try:
                self.first_kernel()
            except Exception as e:
                raise Fail(
                    f"CUDA {t['cuda'] or t['hip']} lists {len(devices)} device(s) ({names}), but the first "
                    f"kernel on cuda:0 failed: {type(e).__name__}: {_first_line(e)}"
                ) from None
            self.cuda_ok = True
            return f"CUDA {t['cuda'] or t['hip']} available: {len(devices)} device(s): {names}"
        reasons = self.unavailable_reasons(t)
        if not expected:
            raise Skip(
                f"no GPU on this machine and none required ({'; '.join(reasons) or 'CUDA unavailable'})"
            )
        raise Fail(
            f"CUDA unavailable but expected ({'; '.join(expected)}): {'; '.join(reasons) or 'unknown reason'}"
        )

    def unavailable_reasons(self, t: dict) -> list:
        """Why CUDA is unavailable with torch `t` (the environment's torch facts), as far as known."""
        reasons = []
        if t["build"] == "cpu":
            reasons.append(f"torch {t['version']} is a CPU-only build")
            if self.pins:
                reasons.append(f"a CPU-only torch in an environment that pins CUDA ({', '.join(self.pins)})")
            return reasons
        try:
            self.torch.cuda.init()
        except Exception as e:
            reasons.append(str(e).strip().splitlines()[0])
        vis = os.environ.get("CUDA_VISIBLE_DEVICES")
        if vis is not None and vis.strip() in ("", "-1", "none", "NoDevFiles"):
            reasons.append(f"CUDA_VISIBLE_DEVICES={vis!r} hides every GPU")
        if not self.gpu.get("dev_nodes"):
            reasons.append("no /dev/nvidia* device nodes (no GPU, or a container started without --gpus)")
        st, detail = driver_verdict(self.gpu.get("driver_version"), t["cuda"])
        if st == "fail":
            reasons.append(detail)
        return reasons

    def first_kernel(self) -> None:
        """Allocate on cuda:0 and run one elementwise kernel and a reduction: is_available() only
        counts devices, this is where a missing kernel image or a broken driver shows."""
        torch = self.torch
        x = torch.ones(4, device="cuda")
        got = float((x * 2).sum().item())
        torch.cuda.synchronize()
        if got != 8.0:
            raise RuntimeError(f"(ones(4) * 2).sum() gave {got}, expected 8.0")

    def need_cuda(self, what: str = "") -> None:
        """Raise Skip unless CUDA works here (the reason differs when devices exist but failed)."""
        if self.cuda_ok:
            return
        if self.environment.get("cuda", {}).get("devices"):
            raise Skip("CUDA is not usable (see cuda.available)" + (f": {what}" if what else ""))
        raise Skip("CUDA not available" + (f": {what}" if what else ""))

    def check_arch(self) -> str:
        cinfo = self.environment["cuda"]
        if not cinfo.get("devices"):
            raise Skip("CUDA not available")
        if self.environment["torch"]["hip"]:
            raise Skip("ROCm build: gfx arch checks are not implemented")
        return _combine(
            [
                arch_verdict(
                    capability_tuple(d["capability"]), cinfo["arch_list"], f"{_count(ix)}{d['name']}"
                )
                for ix, d in device_groups(cinfo["devices"])
            ]
        )

    def check_driver(self) -> str:
        t = self.environment["torch"]
        if not t["cuda"]:
            raise Skip("torch is not a CUDA build")
        api = self.environment["cuda"].get("cuda_driver_api")
        driver = self.gpu.get("driver_version")
        st, detail = driver_verdict(driver, t["cuda"], api)
        if driver and api:
            detail += f"; the driver supports CUDA {api}"
        if driver:
            detail += f" (driver version from {self.gpu.get('driver_source')})"
        return _raise_for(st, detail)

    # -- checks: compute ----------------------------------------------------------------------

    def device(self):
        return self.torch.device("cuda" if self.cuda_ok else "cpu")

    def check_matmul(self) -> str:
        torch = self.torch
        dev = self.device()
        g = torch.Generator().manual_seed(0)
        n = 256 if self.mode == "quick" else 512
        a = torch.randn(n, n, generator=g)
        b = torch.randn(n, n, generator=g)
        ref = a.double() @ b.double()
        out = (a.to(dev) @ b.to(dev)).cpu().double()
        err = rel_err(out, ref)
        tol = 5e-3 if dev.type == "cuda" else 1e-4
        parts = [f"float32 {n}x{n} on {dev}: relative error {err:.1e} (tolerance {tol:.0e})"]
        if not math.isfinite(err) or err > tol:
            raise Fail(parts[0] + " vs the float64 CPU reference")
        if dev.type == "cuda":
            out16 = (a.to(dev).half() @ b.to(dev).half()).float().cpu().double()
            e16 = rel_err(out16, ref)
            parts.append(f"float16: {e16:.1e}")
            if not math.isfinite(e16) or e16 > 2e-2:
                raise Fail("; ".join(parts) + " (float16 out of tolerance 2e-2)")
            # Every other visible GPU too: one bad device in a node otherwise shows only as an NCCL hang.
            others = list(range(1, int(torch.cuda.device_count())))
            for i in others:
                try:
                    d = torch.device("cuda", i)
                    ei = rel_err((a.to(d) @ b.to(d)).cpu().double(), ref)
                except Exception as e:
                    raise Fail(
                        "; ".join(parts) + f"; on cuda:{i} it failed: {type(e).__name__}: {_first_line(e)}"
                    ) from None
                if not math.isfinite(ei) or ei > tol:
                    raise Fail(
                        "; ".join(parts) + f"; on cuda:{i} float32 relative error {ei:.1e} > {tol:.0e}"
                    )
            if others:
                parts.append(f"float32 also within tolerance on cuda:1..{others[-1]}")
        return "; ".join(parts)

    def check_conv2d(self) -> str:
        torch = self.torch
        dev = self.device()
        g = torch.Generator().manual_seed(1)
        x = torch.randn(8, 16, 32, 32, generator=g)
        w = torch.randn(32, 16, 3, 3, generator=g)
        ref = torch.nn.functional.conv2d(x.double(), w.double(), padding=1)
        out = torch.nn.functional.conv2d(x.to(dev), w.to(dev), padding=1).cpu().double()
        err = rel_err(out, ref)
        # cuDNN may use TF32 for convolutions (torch's default): ~1e-3 relative.
        tol = 1e-2 if dev.type == "cuda" else 1e-4
        text = f"conv2d 8x16x32x32 * 32x16x3x3 on {dev}: relative error {err:.1e} (tolerance {tol:.0e})"
        if not math.isfinite(err) or err > tol:
            raise Fail(text + " vs the float64 CPU reference")
        if dev.type == "cuda":
            with torch.autocast("cuda", dtype=torch.float16):
                o16 = torch.nn.functional.conv2d(x.to(dev), w.to(dev), padding=1)
            e16 = rel_err(o16.float().cpu().double(), ref)
            text += f"; autocast float16: {e16:.1e}"
            if not math.isfinite(e16) or e16 > 2e-2:
                raise Fail(text + " (autocast out of tolerance 2e-2)")
        return text

    def check_cudnn(self) -> str:
        self.need_cuda()
        if self.environment["torch"]["hip"]:
            raise Skip("ROCm build: MIOpen, not cuDNN")
        torch = self.torch
        info = self._cudnn_versions() or {}
        self.environment["torch"]["cudnn"] = info
        if not info.get("available"):
            raise Fail(
                "cuDNN is not available to this CUDA torch build (torch.backends.cudnn.is_available() "
                "is False): its cuDNN library is missing or cannot be loaded"
            )
        if not info.get("enabled"):
            raise Fail("cuDNN is disabled (torch.backends.cudnn.enabled is False)")
        caps = [capability_tuple(d["capability"]) for d in self.environment["cuda"]["devices"]]
        st, detail = cudnn_verdict(
            info.get("runtime_tuple"),
            info.get("compile_tuple"),
            is_cuda=info.get("is_cuda", True),
            version_int=info.get("version_int"),
            min_capability=min(caps) if caps else None,
        )
        if st == "skip":
            detail = f"cuDNN versions unknown ({info.get('error') or 'torch._C._cudnn missing'})"
            st = "warn"
        if info.get("torch_error"):
            # torch.backends.cudnn.version() refused the pair itself: its words are the verdict
            if os.environ.get("PYTORCH_SKIP_CUDNN_COMPATIBILITY_CHECK") != "1":
                raise Fail(f"torch.backends.cudnn.version() failed: {info['torch_error']}")
        if st == "fail":
            if os.environ.get("PYTORCH_SKIP_CUDNN_COMPATIBILITY_CHECK") == "1":
                raise Warn(detail + " (PYTORCH_SKIP_CUDNN_COMPATIBILITY_CHECK=1 hides this from torch)")
            raise Fail(detail)
        g = torch.Generator().manual_seed(3)
        x = torch.randn(2, 3, 16, 16, generator=g)
        w = torch.randn(4, 3, 3, 3, generator=g)
        ref = torch.nn.functional.conv2d(x.double(), w.double())
        out = torch.nn.functional.conv2d(x.cuda(), w.cuda())
        torch.cuda.synchronize()
        err = rel_err(out.cpu().double(), ref)
        if not math.isfinite(err) or err > 1e-2:
            raise Fail(f"{detail}; a cuDNN convolution is off by {err:.1e} (relative) from the CPU reference")
        return _raise_for(st, f"{detail}; enabled; a cuDNN convolution matches the CPU reference ({err:.1e})")

    def check_sdpa(self) -> str:
        """scaled_dot_product_attention against a float64 reference: float32 on the device, and on
        CUDA float16 and bfloat16 (native bf16 only: sm_80+) through the default dispatch and
        through each fused backend (flash, memory-efficient, cuDNN) that accepts the inputs; a
        backend that has no kernel for them is reported as n/a, not as a failure."""
        torch = self.torch
        F = torch.nn.functional
        dev = self.device()
        g = torch.Generator().manual_seed(2)
        q, k, v = (torch.randn(2, 4, 64, 32, generator=g) for _ in range(3))
        scores = (q.double() @ k.double().transpose(-2, -1)) / math.sqrt(q.shape[-1])
        ref = scores.softmax(-1) @ v.double()
        dtypes = [torch.float32]
        if dev.type == "cuda":
            dtypes.append(torch.float16)
            if self._native_bf16():
                dtypes.append(torch.bfloat16)
        backends = self._sdpa_backends() if dev.type == "cuda" else []
        parts, na = [], []
        for dt in dtypes:
            name = str(dt).replace("torch.", "")
            tol = 1e-4 if dt == torch.float32 and dev.type == "cpu" else 5e-3 if dt == torch.float32 else 3e-2
            runs = [("default", None)] + ([(b, kind) for b, kind in backends] if dt != torch.float32 else [])
            for label, kind in runs:
                try:
                    if kind is None:
                        out = F.scaled_dot_product_attention(q.to(dev, dt), k.to(dev, dt), v.to(dev, dt))
                    else:
                        from torch.nn.attention import sdpa_kernel

                        with warnings.catch_warnings():
                            warnings.simplefilter("ignore")  # "Flash attention requires ..." per refusal
                            with sdpa_kernel([kind]):
                                out = F.scaled_dot_product_attention(
                                    q.to(dev, dt), k.to(dev, dt), v.to(dev, dt)
                                )
                except RuntimeError as e:
                    if kind is not None and "No available kernel" in str(e):
                        na.append(f"{label} {name}")
                        continue
                    raise Fail(
                        f"scaled_dot_product_attention ({label}, {name} on {dev}) raised: {_first_line(e)}"
                    ) from None
                out = out.float().cpu().double()
                where = f"{name} on {dev}" + ("" if kind is None else f", {label} backend")
                if torch.isnan(out).any():
                    raise Fail(
                        f"scaled_dot_product_attention returned NaN ({where}): a known symptom of a "
                        "broken cuDNN/CUDA pairing (pytorch#167602)"
                    )
                err = rel_err(out, ref)
                if err > tol:
                    raise Fail(
                        f"scaled_dot_product_attention ({where}): relative error {err:.1e} > {tol:.0e}"
                    )
                parts.append(f"{name}{'' if kind is None else ' ' + label} {err:.1e}")
        text = f"scaled_dot_product_attention on {dev}, no NaN; relative error {', '.join(parts)}"
        if na:
            text += f"; no kernel for these inputs: {', '.join(na)}"
        return text

    def _native_bf16(self) -> bool:
        """bfloat16 in hardware on every visible device (sm_80+); is_bf16_supported()'s default
        also counts emulation, which SDPA's fused kernels do not offer."""
        torch = self.torch
        try:
            return bool(torch.cuda.is_bf16_supported(including_emulation=False))
        except TypeError:  # torch < 2.3 has no including_emulation
            return all(int(d["capability"].split(".")[0]) >= 8 for d in self.environment["cuda"]["devices"])

    def _sdpa_backends(self) -> list:
        """[(label, torch.nn.attention.SDPBackend member)] for the fused CUDA backends this torch
        has; [] before torch 2.3 (no torch.nn.attention)."""
        try:
            from torch.nn.attention import SDPBackend
        except Exception:
            return []
        names = [
            ("flash", "FLASH_ATTENTION"),
            ("mem-efficient", "EFFICIENT_ATTENTION"),
            ("cudnn", "CUDNN_ATTENTION"),
        ]
        return [(label, getattr(SDPBackend, attr)) for label, attr in names if hasattr(SDPBackend, attr)]

    def check_bandwidth(self) -> str:
        self.need_cuda("no host<->device copies to measure")
        torch = self.torch
        mib = 16 if self.mode == "quick" else 64
        n = mib * 1024 * 1024 // 4
        pinned = torch.arange(n, dtype=torch.float32).pin_memory()
        if not pinned.is_pinned():
            raise Fail("Tensor.pin_memory() returned memory that is not page-locked")
        pageable = torch.arange(n, dtype=torch.float32)  # a fresh allocation: never pinned
        dev = torch.empty(n, dtype=torch.float32, device="cuda")
        back = torch.empty(n, dtype=torch.float32, pin_memory=True)
        nbytes = n * 4
        h2d = copy_gbps(torch, lambda: dev.copy_(pinned, non_blocking=True), nbytes)
        d2h = copy_gbps(torch, lambda: back.copy_(dev, non_blocking=True), nbytes)
        h2d_pageable = copy_gbps(torch, lambda: dev.copy_(pageable), nbytes)
        if not torch.equal(back, pinned):
            raise Fail("host->device->host copy of pinned memory changed the data")
        text = (
            f"pinned {mib} MiB: host->device {h2d:.1f} GB/s, device->host {d2h:.1f} GB/s; "
            f"pageable host->device {h2d_pageable:.1f} GB/s (CUDA events)"
        )
        if h2d < 2.0:
            raise Warn(
                text + ": under 2 GB/s, the GPU will starve on input (PCIe link width/generation, "
                "virtualisation or IOMMU?)"
            )
        return text


def _devices(torch, t: dict) -> list:
    """The CUDA devices torch sees (index, name, capability, memory); Fail for one it cannot query."""
    devices = []
    count = int(torch.cuda.device_count())
    for i in range(count):
        try:
            p = torch.cuda.get_device_properties(i)
        except Exception as e:
            raise Fail(
                f"CUDA {t['cuda'] or t['hip']} reports {count} device(s), but device {i} cannot be "
                f"queried: {type(e).__name__}: {_first_line(e)}"
            ) from None
        devices.append(
            {
                "index": i,
                "name": str(p.name),
                "capability": f"{p.major}.{p.minor}",
                "sm": f"sm_{p.major}{p.minor}",
                "total_memory": int(p.total_memory),
                "multiprocessors": int(p.multi_processor_count),
            }
        )
    return devices
