"""The probe: runs the checks in order, collects the environment, and prints the report."""

from __future__ import annotations

import json
import os
import sys
import time
import traceback

from .distributed import _watch_parent, dist_worker
from .environment import EnvironmentChecks
from .events import SCHEMA, Fail, Skip, Warn, emit
from .gpu import GpuChecks
from .host import usable_cores
from .loader import LoaderChecks
from .settings import CHECKS, DEFAULT_CONFIG, WORKLOADS


class Probe(EnvironmentChecks, GpuChecks, LoaderChecks):
    """The checks, run in order by `run`; each group of checks is a mixin of its own module."""

    def __init__(self, config: dict) -> None:
        self.config = {**DEFAULT_CONFIG, **(config or {})}
        self.mode = self.config["mode"] if self.config["mode"] in WORKLOADS else "default"
        self.checks = []
        self.environment = {"probe_schema": SCHEMA}
        self.dataloader = None
        self.torch = None
        self.np = None
        self.cuda_ok = False
        self.gpu = {}
        self.pins = []
        self.start = time.perf_counter()
        self.import_warnings = []

    # -- plumbing ---------------------------------------------------------------------------

    def wanted(self, name: str) -> bool:
        only = self.config.get("only")
        if not only or name == "import.torch":  # every run imports torch
            return True
        return any(name == o or name.startswith(o.rstrip(".") + ".") for o in only)

    def timeout_of(self, name: str, default: float) -> float:
        t = self.config.get("check_timeout")
        # the override is for the checks under test; `import torch` keeps its own limit, so that a
        # slow import on a loaded machine is not taken for the hang a test injects later
        return float(t) if t and name != "import.torch" else float(default)

    def plan(self) -> list[dict]:
        names = []
        for name, t in CHECKS:
            if name == "dataloader.workers.default":
                name = f"dataloader.workers.{self.default_start_method()}"
            if self.wanted(name):
                names.append({"name": name, "timeout": self.timeout_of(name, t)})
        return names

    def run_check(self, name: str, fn, default_timeout: float | None = None) -> dict | None:
        if not self.wanted(name):
            return None
        timeout = self.timeout_of(name, default_timeout or dict(CHECKS).get(name, 60))
        emit({"event": "start", "check": name, "timeout": timeout})
        t0 = time.perf_counter()
        try:
            status, detail = "pass", fn()
        except Skip as e:
            status, detail = "skip", str(e)
        except Warn as e:
            status, detail = "warn", str(e)
        except Fail as e:
            status, detail = "fail", str(e)
        except Exception as e:  # a check that blows up is a failed check, with the exception text
            tb = traceback.format_exc(limit=3)
            status, detail = "fail", f"{type(e).__name__}: {e}".strip()
            sys.stderr.write(f"[{name}] {tb}\n")
        result = {
            "name": name,
            "status": status,
            "detail": str(detail or ""),
            "seconds": round(time.perf_counter() - t0, 3),
        }
        self.checks.append(result)
        emit({"event": "result", "check": result})
        return result

    def default_start_method(self) -> str:
        import multiprocessing as mp

        try:
            return mp.get_start_method(allow_none=True) or mp.get_context().get_start_method()
        except Exception:
            return "fork" if sys.platform.startswith("linux") else "spawn"

    def workload(self) -> dict:
        w = dict(WORKLOADS[self.mode])
        w.update(self.config.get("workload") or {})
        if not w.get("max_workers"):
            cores = usable_cores()
            # More workers than batches per epoch cannot help (each worker loads whole batches),
            # and on a 192-core GPU node 384 workers x every sweep point would outlast the check.
            batches = max(1, int(w["samples"]) // int(w["batch_size"]))
            w["max_workers"] = min(cores * 2 if self.mode == "full" else cores, batches)
        return w

    # -- main -------------------------------------------------------------------------------

    def run(self) -> dict:
        emit({"event": "hello", "pid": os.getpid(), "plan": self.plan(), "mode": self.mode})
        imported = self.run_check("import.torch", self.check_import_torch)
        if imported and imported["status"] == "pass":
            if self.config.get("patch_file"):
                self.apply_patch_file(self.config["patch_file"])
            emit({"event": "start", "check": "environment", "timeout": 60})
            self.collect_environment()
            emit({"event": "environment", "environment": self.environment})
            self.run_check("import.numpy", self.check_numpy)
            self.run_check("torch.build", self.check_build)
            self.run_check("torch.origin", self.check_origin)
            self.run_check("cuda.available", self.check_cuda_available)
            self.run_check("cuda.arch", self.check_arch)
            self.run_check("cuda.driver", self.check_driver)
            self.run_check("compute.matmul", self.check_matmul)
            self.run_check("compute.conv2d", self.check_conv2d)
            self.run_check("compute.cudnn", self.check_cudnn)
            self.run_check("compute.sdpa", self.check_sdpa)
            self.run_check("compute.bandwidth", self.check_bandwidth)
            method = self.default_start_method()
            self.run_check(
                f"dataloader.workers.{method}",
                lambda: self.check_workers(method),
                dict(CHECKS)["dataloader.workers.default"],
            )
            self.run_check("dataloader.workers.spawn", lambda: self.check_workers("spawn", spawn_check=True))
            self.run_check("dataloader.pin_memory", self.check_pin_memory)
            self.run_check("dataloader.persistent_workers", self.check_persistent)
            self.run_check("dataloader.prefetch_factor", self.check_prefetch)
            self.run_check("dataloader.shm", self.check_shm)
            self.run_check("dataloader.cuda_fork", self.check_cuda_fork)
            self.run_check("dataloader.throughput", self.check_throughput)
            self.run_check("distributed.gloo", lambda: self.check_distributed("gloo"))
            self.run_check("distributed.nccl", lambda: self.check_distributed("nccl"))
        report = {
            "schema": SCHEMA,
            "ok": not any(c["status"] == "fail" for c in self.checks),
            "environment": self.environment,
            "checks": self.checks,
            "dataloader": self.dataloader,
            "seconds": round(time.perf_counter() - self.start, 3),
        }
        emit({"event": "report", "report": report})
        return report


def main(argv: list[str]) -> int:
    if argv[:1] == ["--dist-worker"]:
        opts = dict(zip(argv[2::2], argv[3::2], strict=False))
        rank = os.environ.get("RANK", "0")
        if opts.get("--dist-dir"):
            _watch_parent()
        return dist_worker(
            argv[1],
            int(opts.get("--dist-timeout", 60)),
            fail=opts.get("--dist-fail") == rank,
            out_dir=opts.get("--dist-dir"),
            hang=opts.get("--dist-hang") == rank,
        )
    config = {}
    if len(argv) >= 2 and argv[0] == "--config":
        config = json.loads(argv[1])
    Probe(config).run()
    return 0
