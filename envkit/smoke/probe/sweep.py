"""The DataLoader sweep: measure settings, extrapolate quick points, recommend the best."""

from __future__ import annotations

import time


def worker_candidates(max_workers: int) -> list[int]:
    """0, 1, 2, 4, 8, ... up to `max_workers`, which is always included."""
    out, w = [0], 1
    while w <= max_workers:
        out.append(w)
        w *= 2
    if max_workers >= 1 and out[-1] != max_workers:
        out.append(max_workers)
    return out


def recommend(sweep: list[dict], tolerance: float = 0.05) -> dict | None:
    """The recommended point of a sweep: the fewest workers within `tolerance` of the best
    throughput (leaving cores to the training loop), and among those the fastest."""
    measured = [p for p in sweep if p.get("samples_per_s")]
    if not measured:
        return None
    best = max(p["samples_per_s"] for p in measured)
    good = [p for p in measured if p["samples_per_s"] >= best * (1 - tolerance)]
    fewest = min(p["num_workers"] for p in good)
    return max((p for p in good if p["num_workers"] == fewest), key=lambda p: p["samples_per_s"])


def loader_kwargs(point: dict, batch_size: int) -> dict:
    """DataLoader keyword arguments for a sweep point (only those that apply)."""
    kw = {"batch_size": batch_size, "num_workers": point["num_workers"], "pin_memory": point["pin_memory"]}
    if point["num_workers"] > 0:
        kw["persistent_workers"] = point["persistent_workers"]
        kw["prefetch_factor"] = point.get("prefetch_factor") or 2
    return kw


def kwargs_text(kw: dict) -> str:
    return "DataLoader(dataset, " + ", ".join(f"{k}={v!r}" for k, v in kw.items()) + ")"


def _point_text(p: dict) -> str:
    return (
        f"num_workers={p['num_workers']} pin_memory={p['pin_memory']} "
        f"persistent_workers={p['persistent_workers']}: {p['samples_per_s']:.0f} samples/s"
    )


def measure_point(
    torch,
    make_dataset,
    w: dict,
    num_workers: int,
    pin: bool,
    persistent: bool,
    samples: int,
    epochs: int,
    device=None,
    on_iter=None,
) -> dict:
    """Time `epochs` passes of a DataLoader over `samples` synthetic samples, worker start-up
    included (that is what persistent_workers saves); returns one sweep point."""
    ds = make_dataset(samples)
    kw = loader_kwargs(
        {"num_workers": num_workers, "pin_memory": pin, "persistent_workers": persistent}, w["batch_size"]
    )
    t = time.perf_counter()
    loader = torch.utils.data.DataLoader(ds, **kw)
    seen = batches = 0
    first = 0.0  # summed over epochs: from asking for an iterator to its first batch
    for _ in range(epochs):
        t_epoch = time.perf_counter()
        it = iter(loader)
        if on_iter is not None:
            on_iter(it)
        got_first = False
        for x, meta in it:
            if not got_first:
                first += time.perf_counter() - t_epoch
                got_first = True
            if device is not None:
                x = x.to(device, non_blocking=pin)
            seen += int(meta.shape[0])
            batches += 1
    if device is not None:
        torch.cuda.synchronize()
    dt = time.perf_counter() - t
    it = getattr(loader, "_iterator", None)
    if it is not None and persistent:
        it._shutdown_workers()
    del loader
    return {
        "num_workers": num_workers,
        "pin_memory": pin,
        "persistent_workers": persistent if num_workers else False,
        "prefetch_factor": 2 if num_workers else None,
        "samples": seen,
        "seconds": round(dt, 4),
        "batches": batches,
        "epochs": epochs,
        "first_batch_seconds": round(first, 4),
        "samples_per_s": round(seen / dt, 2) if dt > 0 else None,
    }


def _full_rate(point: dict, samples: int, epochs: int, batch_size: int, startups: int) -> float | None:
    """Samples/s of `point` over `samples` x `epochs` with its workers started `startups` times:
    its steady time per batch (the batches after each epoch's first) scaled to the full number of
    batches, plus the start-up each first batch took beyond that; its own samples/s when one
    batch per epoch leaves nothing to tell them apart."""
    dt, n, e = point.get("seconds") or 0.0, point.get("batches") or 0, point.get("epochs") or 1
    first = point.get("first_batch_seconds") or 0.0
    if dt <= 0 or n <= e:
        return point.get("samples_per_s")
    per_batch = max(dt - first, 0.0) / (n - e)
    startup = max(first - e * per_batch, 0.0) / e
    t_full = startup * startups + per_batch * (-(-samples // batch_size) * epochs)
    return round(samples * epochs / t_full, 2) if t_full > 0 else point.get("samples_per_s")


def persistent_estimate(point: dict, samples: int, epochs: int, batch_size: int) -> dict:
    """The sweep point `point` would give with persistent_workers=True, estimated (not measured):
    the workers start once instead of once per epoch."""
    est = {k: v for k, v in point.items() if k not in ("measured_samples_per_s",)}
    est.update(persistent_workers=True, estimated=True, extrapolated=True)
    est["samples_per_s"] = _full_rate(point, samples, epochs, batch_size, 1)
    return est


def extrapolate(point: dict, samples: int, epochs: int, batch_size: int) -> float | None:
    """Samples/s that `point`, measured on fewer samples, would reach on `samples` x `epochs`.

    A short run overweights worker start-up, which made the quick search favour fewer workers than
    the full sweep would.  The full run keeps the start-up of every epoch (without persistent
    workers each starts its workers again) and scales the steady part to its number of batches."""
    return _full_rate(point, samples, epochs, batch_size, epochs)


def sweep_dataloader(
    torch,
    make_dataset,
    w: dict,
    *,
    quick: bool,
    pin_choices=(False,),
    device=None,
    on_point=None,
    on_iter=None,
) -> dict:
    """Sweep DataLoader settings over the synthetic workload `w`.

    Exhaustive: every num_workers in 0, 1, 2, 4, ... max_workers x pin_memory (only swept with CUDA)
    x persistent_workers (only with workers).  Quick: one epoch of a quarter of the samples per
    point (at least two batches per worker plus two), each point's throughput extrapolated to the
    full workload (`extrapolate`: start-up per epoch kept, steady state scaled; the measured value
    stays in `measured_samples_per_s`), a hill-climb over num_workers (from 2 on, stop at the first
    step that gains < 10 % over the best so far), then persistent_workers estimated at the winner
    from its measured start-up (`persistent_estimate`, marked `estimated`), and with CUDA
    pin_memory tried at the winner.
    """
    t0 = time.perf_counter()
    cands = worker_candidates(int(w["max_workers"]))
    samples, epochs = int(w["samples"]), int(w["epochs"])
    sweep: list[dict] = []

    def point(nw, pin, persistent, n, ep=epochs):
        p = measure_point(torch, make_dataset, w, nw, pin, persistent, n, ep, device, on_iter)
        if n < samples or ep < epochs:
            # quick: compare settings at the full workload's scale (see extrapolate)
            p["measured_samples_per_s"] = p["samples_per_s"]
            p["samples_per_s"] = extrapolate(p, samples, epochs, int(w["batch_size"]))
            p["extrapolated"] = True
        sweep.append(p)
        if on_point:
            on_point(p)
        return p

    if not quick:
        for nw in cands:
            for pin in pin_choices:
                for persistent in [False, True] if nw else [False]:
                    point(nw, pin, persistent, samples)
        search = "exhaustive"
    else:
        _quick_search(point, cands, w, pin_choices, sweep, on_point)
        search = "quick (adaptive)"
    return _summary(sweep, cands, w, search, t0)


def _quick_search(point, cands: list[int], w: dict, pin_choices, sweep: list[dict], on_point) -> None:
    """The quick search of `sweep_dataloader`: a hill-climb over num_workers, persistent_workers
    estimated at the winner, pin_memory tried there; each measured point goes through `point`."""
    samples, epochs = int(w["samples"]), int(w["epochs"])
    bs = int(w["batch_size"])
    base_pin = bool(pin_choices[-1])  # with CUDA, climb with pinned memory on (the usual winner)

    def size(nw):
        # one epoch of a quarter of the workload, but at least two batches per worker plus two:
        # the steady state needs batches beyond each worker's first to be measured at all
        return min(samples, max(samples // 4, bs * (2 * nw + 2)))

    best = point(0, False, False, size(0), 1)
    for nw in cands[1:]:
        p = point(nw, base_pin, False, size(nw), 1)
        gain = (p["samples_per_s"] or 0) / (best["samples_per_s"] or 1)
        if gain > 1.0:
            best = p
        # One worker only overlaps loading with the loop, so it says little about scaling:
        # always go on to two before judging.
        if nw >= 2 and gain < 1.10:
            break
    if best["num_workers"] and epochs > 1:
        # persistent_workers saves the start-up of every epoch after the first: estimated from
        # the start-up the climb measured, not run again
        est = persistent_estimate(best, samples, epochs, bs)
        sweep.append(est)
        if on_point:
            on_point(est)
        if (est["samples_per_s"] or 0) > (best["samples_per_s"] or 0):
            best = est
    if best["num_workers"] and len(pin_choices) > 1:
        nw = best["num_workers"]
        trial = point(nw, not best["pin_memory"], False, size(nw), 1)
        if (trial["samples_per_s"] or 0) > (best["samples_per_s"] or 0) * 1.02:
            best = trial


def _summary(sweep: list[dict], cands: list[int], w: dict, search: str, t0: float) -> dict:
    """The `dataloader` part of the report: speedups over num_workers=0 and the recommendation."""
    base = [p for p in sweep if p["num_workers"] == 0 and p["samples_per_s"]]
    base_tp = max((p["samples_per_s"] for p in base), default=None)
    for p in sweep:
        p["speedup"] = round(p["samples_per_s"] / base_tp, 3) if base_tp and p["samples_per_s"] else None
    rec = recommend(sweep)
    kwargs = loader_kwargs(rec, int(w["batch_size"])) if rec else None
    best_tp = max((p["samples_per_s"] or 0 for p in sweep), default=0)
    return {
        "search": search,
        "worker_candidates": cands,
        "sweep": sweep,
        "recommended": kwargs,
        "recommended_kwargs": kwargs_text(kwargs) if kwargs else None,
        "recommended_samples_per_s": rec["samples_per_s"] if rec else None,
        "baseline_samples_per_s": base_tp,
        "best_samples_per_s": best_tp,
        "speedup": round((rec["samples_per_s"] / base_tp), 3) if rec and base_tp else None,
        "seconds": round(time.perf_counter() - t0, 3),
    }
