"""The synthetic dataset the DataLoader checks load (I/O latency and CPU decode simulated)."""

from __future__ import annotations

import os
import time


def _spin(iterations: int, seed: int) -> int:
    x = seed & 0x7FFFFFFF
    for _ in range(iterations):
        x = (x * 1103515245 + 12345) & 0x7FFFFFFF
    return x


def calibrate_spin(target_s: float = 0.05) -> float:
    """Busy-loop iterations per millisecond on one core of this machine."""
    n = 20000
    while True:
        t = time.perf_counter()
        _spin(n, 1)
        dt = time.perf_counter() - t
        if dt >= target_s or n > 50_000_000:
            return n / (dt * 1000.0)
        n *= 2


class SyntheticDataset:
    """Per-sample I/O latency (sleep) + decode CPU work (busy loop) + a float32 tensor of `shape`.

    Fault knobs, for tests of the runner: `hang_at` (a sample index at which __getitem__ blocks
    forever), `crash_at` with `crash` ('SIGBUS', 'SIGSEGV', 'exit') kills the worker process that
    loads that sample (the probe itself too with `crash_main`), `pid_file` appends each worker's pid,
    `cuda_in_getitem` touches CUDA.
    """

    def __init__(self, n: int, shape, latency_ms: float = 0.0, decode_iters: int = 0, **faults) -> None:
        self.n = int(n)
        self.shape = tuple(int(s) for s in shape)
        self.latency = float(latency_ms) / 1000.0
        self.decode_iters = int(decode_iters)
        self.hang_at = faults.get("hang_at")
        self.crash_at = faults.get("crash_at")
        self.crash = faults.get("crash") or "SIGBUS"
        self.crash_main = bool(faults.get("crash_main"))  # crash the probe itself (num_workers=0)
        self.pid_file = faults.get("pid_file")
        self.cuda_in_getitem = bool(faults.get("cuda_in_getitem"))
        self._pid_logged: int | None = None

    def __len__(self) -> int:
        return self.n

    def __getitem__(self, i: int):
        import torch

        if self.pid_file and self._pid_logged != os.getpid():
            self._pid_logged = os.getpid()
            with open(self.pid_file, "a") as f:
                f.write(f"{os.getpid()}\n")
        in_worker = torch.utils.data.get_worker_info() is not None
        if self.hang_at is not None and i >= int(self.hang_at):
            while True:
                time.sleep(3600)
        if self.crash_at is not None and i >= int(self.crash_at) and (in_worker or self.crash_main):
            if self.crash == "exit":
                os._exit(3)
            import signal as _signal

            os.kill(os.getpid(), getattr(_signal, self.crash))
        if self.cuda_in_getitem:
            torch.zeros(1, device="cuda")
        if self.latency:
            time.sleep(self.latency)
        v = _spin(self.decode_iters, i) if self.decode_iters else i
        return torch.full(self.shape, float(v % 251)), torch.tensor([i, os.getpid()])
