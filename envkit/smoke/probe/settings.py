"""The checks in order with their time limits, the synthetic workloads, and the default config."""

from __future__ import annotations

from typing import Any

# Default per-check timeouts (seconds); the runner kills the whole process group when a check
# exceeds its timeout (or the overall one) and reports the check as hung.
CHECKS = [
    ("import.torch", 180),
    ("import.numpy", 30),
    ("torch.build", 30),
    ("torch.origin", 15),
    ("cuda.available", 90),
    ("cuda.arch", 30),
    ("cuda.driver", 30),
    ("compute.matmul", 60),
    ("compute.conv2d", 60),
    ("compute.cudnn", 30),
    ("compute.sdpa", 60),
    ("compute.bandwidth", 60),
    ("dataloader.workers.default", 90),
    ("dataloader.workers.spawn", 120),
    ("dataloader.pin_memory", 60),
    ("dataloader.persistent_workers", 90),
    ("dataloader.prefetch_factor", 60),
    ("dataloader.shm", 15),
    ("dataloader.cuda_fork", 120),
    ("dataloader.throughput", 900),
    ("distributed.gloo", 120),
    ("distributed.nccl", 180),
]


# The synthetic DataLoader workload per mode.  latency_ms models per-sample I/O (sleep, releases the
# CPU), decode_ms models CPU work (a calibrated busy loop, so it competes for cores like real
# decoding does).  `max_workers: null` means "the usable cores" (x2 in full mode, because I/O-bound
# loaders gain from more workers than cores).
_WORKLOAD: dict[str, Any] = {
    "samples": 256,
    "batch_size": 32,
    "latency_ms": 2.0,
    "decode_ms": 1.0,
    "sample_shape": [3, 64, 64],
    "epochs": 2,
    "max_workers": None,
}
WORKLOADS: dict[str, dict[str, Any]] = {
    "quick": _WORKLOAD,
    "default": _WORKLOAD,
    "full": {**_WORKLOAD, "samples": 1024},
}


DEFAULT_CONFIG = {
    "mode": "default",  # quick | default | full
    "require_cuda": False,
    "only": None,  # list of check names / prefixes to run (others are not reported)
    "cuda_pins": [],  # extra CUDA pins known to the caller (e.g. from the spec)
    "prefix": None,  # where to look for conda-meta (default: sys.prefix)
    "dev_glob": "/dev/nvidia[0-9]*",
    "nvidia_smi": "nvidia-smi",
    "proc_driver": "/proc/driver/nvidia/version",
    "shm_path": "/dev/shm",
    "workload": {},  # overrides of WORKLOADS[mode]
    "check_timeout": None,  # overrides every per-check timeout but import.torch's
    "patch_file": None,  # test knob: a Python file run after `import torch` (fake torch.cuda)
    "dist_fail_rank": None,  # test knob: this distributed rank exits at once with an error
    "dist_hang_rank": None,  # test knob: this distributed rank blocks before joining
    "dist_timeout": None,  # test knob: the distributed checks' own limit (default 0.8 x the check's)
}
