"""Small helpers shared by the checks: worker pids and deaths, copy bandwidth, device groups, errors."""

from __future__ import annotations

from .events import Fail, emit


def announce_workers(iterator, check: str) -> None:
    """Tell the runner which worker processes a DataLoader iterator started (for hang reports)."""
    workers = getattr(iterator, "_workers", None) or []
    pids = [w.pid for w in workers if getattr(w, "pid", None)]
    if pids:
        emit({"event": "pids", "check": check, "pids": pids})


def worker_deaths(iterator) -> tuple[list[int], str]:
    """The iterator's dead workers and how they ended: ([12], 'worker pid 12 killed by signal SIGBUS
    (Bus error)')."""
    import signal as _signal

    pids: list[int] = []
    out = []
    for w in getattr(iterator, "_workers", None) or []:
        code = getattr(w, "exitcode", None)
        if code is None or code == 0:
            continue
        pids.append(w.pid)
        if code < 0:
            try:
                sig = _signal.Signals(-code)
                desc = _signal.strsignal(sig) if hasattr(_signal, "strsignal") else sig.name
                out.append(f"worker pid {w.pid} killed by signal {sig.name} ({desc})")
            except ValueError:
                out.append(f"worker pid {w.pid} killed by signal {-code}")
        else:
            out.append(f"worker pid {w.pid} exited with code {code}")
    return pids, "; ".join(out)


def copy_gbps(torch, fn, nbytes: int, reps: int = 5) -> float:
    """GB/s of `reps` calls of the copy `fn` (each moving `nbytes`), timed with CUDA events on the
    current stream after one warm-up call: events time the copies on the device, not the host's
    view of asynchronous launches.  Event.elapsed_time() is in milliseconds."""
    fn()
    torch.cuda.synchronize()
    start = torch.cuda.Event(enable_timing=True)
    end = torch.cuda.Event(enable_timing=True)
    start.record()
    for _ in range(reps):
        fn()
    end.record()
    end.synchronize()
    ms = float(start.elapsed_time(end))
    if ms <= 0:
        raise Fail(f"CUDA events timed {reps} copies of {nbytes} bytes at {ms} ms")
    return reps * nbytes / (ms / 1000.0) / 1e9


def device_groups(devices: list[dict]) -> list[tuple[list[int], dict]]:
    """Devices grouped by (name, capability, memory), in index order: an 8-GPU node is one group."""
    groups: dict[tuple, tuple[list[int], dict]] = {}
    for d in devices:
        key = (d["name"], d["capability"], d["total_memory"])
        groups.setdefault(key, ([], d))[0].append(d["index"])
    return list(groups.values())


def _count(indices: list[int]) -> str:
    return f"{len(indices)}x " if len(indices) > 1 else ""


def _worker_error(e: BaseException) -> str:
    """A DataLoader worker's original error from the exception the loader re-raised ("Caught
    RuntimeError in DataLoader worker process 0. Original Traceback ...: RuntimeError: TEXT" ->
    "RuntimeError: TEXT"); "Type: first line" when there is no worker traceback."""
    msg = str(e)
    lines = [ln.strip() for ln in msg.strip().splitlines() if ln.strip()]
    if "Original Traceback" in msg and lines:
        return lines[-1][:400]
    return f"{type(e).__name__}: {lines[0][:400] if lines else '(no message)'}"


def _first_line(e: BaseException) -> str:
    text = str(e).strip()
    return text.splitlines()[0][:400] if text else type(e).__name__


def rel_err(out, ref) -> float:
    den = float(ref.norm())
    return float((out - ref).norm()) / (den or 1.0)
