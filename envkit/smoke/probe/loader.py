"""The DataLoader and distributed checks."""

from __future__ import annotations

import math
import os
import time

from .dataset import SyntheticDataset, calibrate_spin
from .distributed import launch_distributed
from .events import Fail, Skip, Warn, emit, progress
from .helpers import _first_line, _worker_error, announce_workers, worker_deaths
from .host import usable_cores
from .settings import CHECKS
from .state import ProbeState
from .sweep import _point_text, sweep_dataloader
from .verdicts import _raise_for, shm_verdict

#: the workload's fault knobs (for tests of the runner): passed to the datasets, not reported
_FAULTS = ("hang_at", "crash_at", "crash", "crash_main", "pid_file")


class LoaderChecks(ProbeState):
    """Checks of the probe (mixed into `Probe`, whose state they use)."""

    # -- checks: DataLoader -----------------------------------------------------------------------

    def dataset(self, n: int, shape=(3, 8, 8), latency_ms: float = 0.0, decode_iters: int = 0, **extra):
        faults = {k: v for k, v in (self.config.get("workload") or {}).items() if k in _FAULTS}
        faults.update(extra)
        return SyntheticDataset(n, shape, latency_ms, decode_iters, **faults)

    def _loader(self, ds, **kw):
        return self.torch.utils.data.DataLoader(ds, **kw)

    def _drain(self, loader, check: str) -> tuple[set, set, int]:
        """Iterate a loader once: (sample indices, worker pids, batches)."""
        idx: set[int] = set()
        pids: set[int] = set()
        batches = 0
        it = iter(loader)
        announce_workers(it, check)
        try:
            for _x, meta in it:
                batches += 1
                idx.update(int(i) for i in meta[:, 0])
                pids.update(int(p) for p in meta[:, 1])
        except RuntimeError as e:
            dead, deaths = worker_deaths(it)
            if dead:
                # torch words one death two ways, by which of its handlers saw it first ("(pid N) is
                # killed by signal" or "(pid(s) N) exited unexpectedly"): say it one way
                listed = ", ".join(str(p) for p in dead)
                raise Fail(
                    f"DataLoader worker (pid(s) {listed}) exited unexpectedly: {deaths}"
                    f" (torch: {_first_line(e)})"
                ) from None
            raise Fail(f"RuntimeError: {str(e).strip()}") from None
        return idx, pids, batches

    def check_workers(self, method: str, spawn_check: bool = False) -> str:
        import multiprocessing as mp

        name = f"dataloader.workers.{method}"
        if spawn_check and self.default_start_method() == "spawn":
            raise Skip("spawn is this platform's default start method: covered by dataloader.workers.spawn")
        if method not in mp.get_all_start_methods():
            raise Skip(f"start method {method!r} is not available on this platform")
        workers = 1 if spawn_check and self.mode != "full" else 2
        n = 32
        ds = self.dataset(n)
        t = time.perf_counter()
        loader = self._loader(ds, batch_size=4, num_workers=workers, multiprocessing_context=method)
        idx, pids, _ = self._drain(loader, name)
        dt = time.perf_counter() - t
        if idx != set(range(n)):
            raise Fail(f"{workers} workers ({method}) delivered {len(idx)}/{n} distinct samples")
        child = pids - {os.getpid()}
        if len(child) != workers:
            raise Fail(f"expected {workers} worker processes ({method}), saw {len(child)}")
        return f"{workers} worker(s) started with {method!r} and delivered {n}/{n} samples in {dt:.2f} s"

    def check_pin_memory(self) -> str:
        self.need_cuda("DataLoader ignores pin_memory without an accelerator")
        loader = self._loader(self.dataset(16), batch_size=4, num_workers=1, pin_memory=True)
        pinned = [x.is_pinned() for x, _ in loader]
        if not all(pinned):
            raise Fail(f"pin_memory=True but {pinned.count(False)}/{len(pinned)} batches were not pinned")
        return f"{len(pinned)} batches arrived in pinned memory (pin-memory thread works)"

    def check_persistent(self) -> str:
        loader = self._loader(self.dataset(16), batch_size=4, num_workers=2, persistent_workers=True)
        _, p1, _ = self._drain(loader, "dataloader.persistent_workers")
        _, p2, _ = self._drain(loader, "dataloader.persistent_workers")
        p1.discard(os.getpid())
        p2.discard(os.getpid())
        it = getattr(loader, "_iterator", None)
        if it is not None:
            it._shutdown_workers()
        if p1 != p2:
            raise Fail(
                f"persistent_workers=True but epoch 2 used other workers ({sorted(p1)} vs {sorted(p2)})"
            )
        return f"the same 2 workers ({', '.join(map(str, sorted(p1)))}) served both epochs"

    def check_prefetch(self) -> str:
        loader = self._loader(self.dataset(24), batch_size=4, num_workers=1, prefetch_factor=4)
        idx, _, batches = self._drain(loader, "dataloader.prefetch_factor")
        if idx != set(range(24)):
            raise Fail(f"prefetch_factor=4 delivered {len(idx)}/24 samples")
        try:
            self._loader(self.dataset(4), num_workers=0, prefetch_factor=4)
            rejected = "accepted (unexpected)"
        except ValueError:
            rejected = "rejected with ValueError, as documented"
        return (
            f"prefetch_factor=4 with 1 worker delivered {batches} batches; "
            f"with num_workers=0 it is {rejected}"
        )

    def check_shm(self) -> str:
        info = self.environment.get("shm")
        if info is None:
            raise Skip(
                f"no {self.config.get('shm_path')} on this platform (workers share memory another way)"
            )
        w = self.workload()
        batch_bytes = 4 * w["batch_size"] * math.prod(w["sample_shape"])
        workers = max(1, int(w["max_workers"]))
        in_flight = batch_bytes * workers * 2  # prefetch_factor 2 batches per worker
        st, detail = shm_verdict(info["total"], info["free"], in_flight)
        detail += f" ({workers} workers x prefetch 2 x {batch_bytes / 2**20:.1f} MiB batches)"
        # What an ImageNet-style loader would need: 8 workers x 2 x batch 256 of 3x224x224 float32.
        big = 8 * 2 * 256 * 3 * 224 * 224 * 4
        if st == "pass" and big > info["free"]:
            detail += (
                f"; note: 8 workers x prefetch 2 x batches of 256 224x224 images ({big / 2**30:.1f} GiB) "
                "would not fit"
            )
        return _raise_for(st, detail)

    def check_cuda_fork(self) -> str:
        import multiprocessing as mp

        torch = self.torch
        self.need_cuda()
        if "fork" not in mp.get_all_start_methods():
            raise Skip("no fork start method on this platform")
        initialised = torch.cuda.is_initialized()
        default = self.default_start_method()
        loader = self._loader(
            self.dataset(4, cuda_in_getitem=True), batch_size=2, num_workers=1, multiprocessing_context="fork"
        )
        try:
            for _ in loader:
                pass
            forked = "a forked worker used CUDA without error (unexpected)"
            ok_fork = False
        except Exception as e:  # the worker's exception, re-raised by the DataLoader with its type
            msg = str(e)
            ok_fork = "Cannot re-initialize CUDA in forked subprocess" in msg
            forked = (
                "a forked worker touching CUDA fails with 'Cannot re-initialize CUDA in forked subprocess'"
                if ok_fork
                else f"a forked worker touching CUDA failed differently: {_worker_error(e)}"
            )
        loader = self._loader(
            self.dataset(4, cuda_in_getitem=True),
            batch_size=2,
            num_workers=1,
            multiprocessing_context="spawn",
        )
        try:
            for _ in loader:
                pass
        except Exception as e:
            raise Fail(
                f"CUDA initialised in the parent: {initialised}; {forked}; and with "
                "multiprocessing_context='spawn' a worker touching CUDA failed too: "
                f"{_worker_error(e)}"
            ) from None
        text = (
            f"CUDA initialised in the parent: {initialised}; {forked}; with "
            "multiprocessing_context='spawn' the same dataset works. Explanation: once the parent process "
            "has initialised CUDA, workers forked from it cannot use CUDA; keep CUDA out of "
            "Dataset.__getitem__/collate_fn, or pass multiprocessing_context='spawn' (or 'forkserver')"
        )
        if default == "fork":
            text += "; this platform's default start method is fork"
        if not ok_fork:
            raise Warn(text)
        return text

    # -- DataLoader throughput ----------------------------------------------------------------------

    def check_throughput(self) -> str:
        w = self.workload()
        spin_rate = calibrate_spin()
        decode_iters = int(w["decode_ms"] * spin_rate)
        pin_choices = [False, True] if self.cuda_ok else [False]
        quick = self.mode == "quick"
        result = sweep_dataloader(
            self.torch,
            lambda n: self.dataset(n, w["sample_shape"], w["latency_ms"], decode_iters),
            w,
            quick=quick,
            pin_choices=pin_choices,
            device="cuda" if self.cuda_ok else None,
            on_point=lambda p: progress("dataloader.throughput", _point_text(p)),
            on_iter=lambda it: announce_workers(it, "dataloader.throughput"),
        )
        workload = dict(w)
        workload.update(
            decode_iterations=decode_iters,
            spin_iterations_per_ms=round(spin_rate, 1),
            usable_cores=usable_cores(),
            pin_memory_swept=self.cuda_ok,
            batch_bytes=4 * w["batch_size"] * math.prod(w["sample_shape"]),
            cuda_initialised_before_workers=bool(self.cuda_ok and self.torch.cuda.is_initialized()),
        )
        result["workload"] = {k: v for k, v in workload.items() if k not in _FAULTS}
        self.dataloader = result
        emit({"event": "dataloader", "dataloader": result})
        rec = result["recommended"]
        if rec is None:
            raise Fail("no sweep point finished")
        return (
            f"{len(result['sweep'])} settings ({result['search']}): best {result['best_samples_per_s']:.0f} "
            f"samples/s, {result['speedup']:.1f}x over num_workers=0; recommended "
            f"{result['recommended_kwargs']}"
        )

    # -- distributed ------------------------------------------------------------------------------

    def check_distributed(self, backend: str) -> str:
        torch = self.torch
        import torch.distributed as dist

        if not dist.is_available():
            raise Skip("this torch build has no torch.distributed")
        if backend == "gloo":
            if not dist.is_gloo_available():
                raise Skip("this torch build has no gloo backend")
            world = 2
        else:
            self.need_cuda("NCCL needs GPUs")
            if not dist.is_nccl_available():
                raise Fail("this CUDA torch build has no NCCL backend: multi-GPU jobs cannot use nccl")
            world = torch.cuda.device_count()
        own = (
            self.config.get("dist_timeout")
            or self.timeout_of(f"distributed.{backend}", dict(CHECKS)[f"distributed.{backend}"]) * 0.8
        )
        return launch_distributed(
            backend,
            world,
            timeout=float(own),
            fail_rank=self.config.get("dist_fail_rank"),
            hang_rank=self.config.get("dist_hang_rank"),
        )
