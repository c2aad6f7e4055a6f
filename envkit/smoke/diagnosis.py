"""Known smoke-test failures: the patterns that recognise them, and the problem and hint each gets."""

from __future__ import annotations

import re

#: (pattern over check details + stderr, problem, hint)
KNOWN = [
    (
        r"No module named '?torch'?|torch is not importable",
        "torch is missing from the environment",
        "install it into that environment (conda: `pytorch` from conda-forge; pip: `pip install torch`), "
        "or point envkit at the environment that has it (-n/-p/--python)",
    ),
    (
        r"Cannot re-initialize CUDA in forked subprocess",
        "CUDA was initialised in the parent before DataLoader workers were forked",
        "keep CUDA out of Dataset.__getitem__/collate_fn and out of module import time, or create the "
        "DataLoader with multiprocessing_context='spawn' (or 'forkserver')",
    ),
    (
        r"[Bb]us error|insufficient shared memory|No space left on device|unable to write to file </torch_",
        "DataLoader workers ran out of shared memory (/dev/shm)",
        "in Docker, run with --shm-size=8g or --ipc=host; in Kubernetes mount an emptyDir "
        "(medium: Memory) at /dev/shm; or torch.multiprocessing.set_sharing_strategy('file_system')",
    ),
    (
        r"is not compatible with the current PyTorch installation|no kernel image is available"
        r"|unsupported GPU arch",
        "the GPU's architecture is not in this torch build's arch list",
        "install a torch build compiled for this GPU (e.g. a newer CUDA variant: cu128+ for Blackwell "
        "sm_100/sm_120; cu126 for Maxwell/Pascal/Volta)",
    ),
    (
        r"CPU-only torch in an environment that pins CUDA",
        "a CPU-only torch was installed although the environment pins CUDA",
        "conda: require a CUDA build with `pytorch=*=cuda*` (conda-forge) plus `cuda-version=12.x`; "
        "pip: install from https://download.pytorch.org/whl/cu128 (or another cuXXX index)",
    ),
    (
        r"CUDA unavailable but expected.*CPU-only build",
        "CUDA is required but torch is a CPU-only build",
        "install a CUDA build of torch: conda `pytorch=*=cuda*` with `cuda-version`, or pip from "
        "https://download.pytorch.org/whl/cuXXX",
    ),
    (
        r"driver .* is too old|NVIDIA driver on your system is too old|driver version is insufficient",
        "the NVIDIA driver is too old for this torch's CUDA",
        "update the driver, or install a torch built for an older CUDA (see the minimum-driver table in "
        "docs/commands/smoke.md)",
    ),
    (
        r"Found no NVIDIA driver|no /dev/nvidia\* device nodes|hides every GPU",
        "the process cannot see a GPU",
        "check `nvidia-smi`; in a container start it with --gpus all (NVIDIA Container Toolkit); check "
        "CUDA_VISIBLE_DEVICES",
    ),
    (
        r"DataLoader worker \(pid\(s\)? [^)]*\) exited unexpectedly|killed by signal",
        "a DataLoader worker process died",
        "the worker's signal says why: Bus error -> shared memory (see above); Killed -> out of memory "
        "(fewer workers or smaller prefetch_factor); Segmentation fault -> a native extension in the dataset",
    ),
    (
        r"DataLoader timed out after",
        "a DataLoader worker stopped delivering batches",
        "a sample load hangs (network filesystem, a lock taken before fork); "
        "run with num_workers=0 to find it",
    ),
    (
        r"^the overall (?:--timeout|time limit) of",
        "the whole run took longer than the overall time limit",
        "no check hung on its own: raise --timeout (defaults: 600 s with --quick, 900 s, "
        "1800 s with --full), or use --quick for a shorter run",
    ),
    (
        r"^hung: ",
        "a check hung and was stopped",
        "the named check never finished: for DataLoader checks suspect /dev/shm or a blocking dataset; "
        "for distributed checks a firewall or the wrong network interface "
        "(GLOO_SOCKET_IFNAME/NCCL_SOCKET_IFNAME)",
    ),
    (
        r"Unable to resolve hostname|Connection refused.*(gloo|c10d)|ProcessGroupGloo",
        "torch.distributed could not connect its ranks",
        "set GLOO_SOCKET_IFNAME=lo (single node) or the right interface; make MASTER_ADDR resolvable",
    ),
]


def diagnose(report: dict, stderr: str = "") -> list[dict]:
    """Known problems found in the failed/warned checks (and the probe's stderr), each with a hint."""
    texts = [(c["name"], c["detail"]) for c in report.get("checks") or [] if c["status"] in ("fail", "warn")]
    if stderr and not report.get("ok"):
        texts.append((None, stderr))
    out: list[dict] = []
    seen: set[str] = set()
    for check, text in texts:
        for pattern, problem, hint in KNOWN:
            if problem not in seen and re.search(pattern, text, re.M):
                seen.add(problem)
                out.append({"check": check, "problem": problem, "hint": hint})
    return out


def hint_for_text(text: str) -> str | None:
    """The hint of the first known problem found in `text` (None when none is)."""
    found = diagnose({}, text)
    return found[0]["hint"] if found else None
