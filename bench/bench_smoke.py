"""`envkit smoke --quick`'s adaptive DataLoader search against the exhaustive sweep.

Two workloads (the issue's): 10 ms of simulated I/O per sample with batch 32, and CPU-bound decoding
(3 ms of busy work per sample, batch 32).  For each, the measured command is the quick search and
the floor is the exhaustive sweep over the same space (num_workers 0, 1, 2, 4, ... up to the usable
cores x persistent_workers; pin_memory too when CUDA is present), so the time ratio is the
"found in <= 1/3 of the sweep's time" target.  The quality target (the quick recommendation's
throughput >= 90 % of the exhaustive best) is read from the exhaustive sweep itself, so both numbers
compare like with like; it is reported in the case's notes.

Standalone: `python bench/bench_smoke.py` runs each workload once and prints both numbers.
"""

from __future__ import annotations

import importlib
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent

WORKLOADS = {
    "io-bound (10 ms I/O per sample, batch 32)": {
        "samples": 256,
        "batch_size": 32,
        "latency_ms": 10.0,
        "decode_ms": 0.0,
        "sample_shape": [3, 64, 64],
        "epochs": 2,
    },
    "cpu-bound (3 ms decode per sample, batch 32)": {
        "samples": 256,
        "batch_size": 32,
        "latency_ms": 0.0,
        "decode_ms": 3.0,
        "sample_shape": [3, 64, 64],
        "epochs": 2,
    },
}


def load_probe():
    # imported by name, so that DataLoader workers (spawn) find the dataset class by module name
    import types

    mods = [importlib.import_module("envkit.smoke.probe." + m) for m in ("host", "dataset", "sweep")]
    return types.SimpleNamespace(
        usable_cores=mods[0].usable_cores,
        calibrate_spin=mods[1].calibrate_spin,
        SyntheticDataset=mods[1].SyntheticDataset,
        sweep_dataloader=mods[2].sweep_dataloader,
    )


class Workload:
    """One workload: runs the quick search or the exhaustive sweep and remembers the last result."""

    def __init__(self, probe, w: dict) -> None:
        import torch

        self.probe, self.torch = probe, torch
        self.w = dict(w)
        self.w.setdefault("max_workers", probe.usable_cores())
        self.iters = int(self.w["decode_ms"] * probe.calibrate_spin())
        self.last: dict[str, dict] = {}

    def make(self, n: int):
        return self.probe.SyntheticDataset(n, self.w["sample_shape"], self.w["latency_ms"], self.iters)

    def run(self, quick: bool) -> dict:
        res = self.probe.sweep_dataloader(self.torch, self.make, self.w, quick=quick)
        self.last["quick" if quick else "exhaustive"] = res
        return res

    def quality(self) -> tuple[float, str]:
        """(ratio, text): the quick recommendation's throughput in the exhaustive sweep / its best."""
        q, e = self.last["quick"], self.last["exhaustive"]
        rec = q["recommended"]
        key = (rec["num_workers"], rec["pin_memory"], rec.get("persistent_workers", False))
        table = {
            (p["num_workers"], p["pin_memory"], p["persistent_workers"]): p["samples_per_s"]
            for p in e["sweep"]
        }
        got = table[key]
        best = max(e["sweep"], key=lambda p: p["samples_per_s"])
        ratio = got / best["samples_per_s"]
        text = (
            f"quick picked num_workers={key[0]} persistent_workers={key[2]} after {len(q['sweep'])} settings "
            f"in {q['seconds']:.1f} s; in the exhaustive sweep ({len(e['sweep'])} settings, "
            f"{e['seconds']:.1f} s) it does {got:.0f} samples/s = {ratio:.0%} of the best "
            f"({best['samples_per_s']:.0f} samples/s at num_workers={best['num_workers']} "
            f"persistent_workers={best['persistent_workers']}; target >= 90%)"
        )
        return ratio, text


def cases(work):
    import run
    from run import Case, skipped

    names = [f"smoke --quick DataLoader search, {name}" for name in WORKLOADS]
    try:
        import torch  # noqa: F401
    except ImportError:
        return [
            skipped(n, "torch is not installed (pip install 'torch==2.13.0' for the CPU wheel)")
            for n in names
        ]
    if run.QUICK:
        return [skipped(n, "not in --quick (the exhaustive sweep takes half a minute)") for n in names]
    probe = load_probe()
    out = []
    for name, w in WORKLOADS.items():
        wl = Workload(probe, w)
        case = Case(
            name=f"smoke --quick DataLoader search, {name}",
            measure=lambda wl=wl: wl.run(True),
            floor=None,
            floor_label="exhaustive sweep",
            target=0.33,
            repeat=1,
            notes="(quality filled in after the runs)",
        )

        def floor(wl=wl, case=case):
            wl.run(False)
            # The harness runs measure then floor and prints the notes afterwards: fill them in now.
            case.notes = wl.quality()[1]

        case.floor = floor
        case.others = []
        case.check = lambda wl=wl: wl.quality()[0] >= 0.9  # the quick pick's throughput target
        out.append(case)
    return out


def main() -> int:
    probe = load_probe()
    for name, w in WORKLOADS.items():
        wl = Workload(probe, w)
        t = time.perf_counter()
        wl.run(False)
        te = time.perf_counter() - t
        t = time.perf_counter()
        wl.run(True)
        tq = time.perf_counter() - t
        ratio, text = wl.quality()
        print(
            f"{name}: quick {tq:.1f} s vs exhaustive {te:.1f} s = {tq / te:.2f}x (target <= 0.33); "
            f"throughput {ratio:.0%} (target >= 90%)\n  {text}",
            flush=True,
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
