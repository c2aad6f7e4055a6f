"""torch.distributed, launched by torchrun itself (torch.distributed.run: its elastic agent, its
c10d rendezvous, the environment it gives every rank)."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import time
from typing import Any

from .events import Fail, Skip, emit
from .helpers import _first_line


def script_path() -> str:
    """What `python` runs: this package's folder (it has a `__main__.py`), as the runner copied it
    into its scratch directory."""
    return os.path.dirname(os.path.abspath(__file__))


def torchrun_argv(world: int, script_args: list[str]) -> list[str]:
    """The torchrun command line for `world` ranks on this node running this probe with
    `script_args`: `python -m torch.distributed.run --standalone --nnodes=1 --nproc_per_node=N
    --max_restarts=0 --monitor_interval=0.5 PROBE_DIR ...` (the underscore spellings are the ones
    every torchrun since 1.10 accepts)."""
    return [
        sys.executable,
        "-m",
        "torch.distributed.run",
        "--standalone",
        "--nnodes=1",
        f"--nproc_per_node={int(world)}",
        "--max_restarts=0",
        "--monitor_interval=0.5",
        script_path(),
    ] + list(script_args)


def torchrun_root_cause(text: str) -> tuple[int | None, int | None]:
    """(rank, exit code) of the first failure in torchrun's ChildFailedError summary
    ("Root Cause (first observed failure): ... rank : 1 (local_rank: 1) ... exitcode : 3 (pid: 12)");
    (None, None) when the text has none."""
    part = text.split("Root Cause", 1)[1] if "Root Cause" in text else text
    rank = re.search(r"^\s*rank\s*:\s*(\d+)", part, re.M)
    code = re.search(r"^\s*exitcode\s*:\s*(-?\d+)", part, re.M)
    return (int(rank.group(1)) if rank else None, int(code.group(1)) if code else None)


def _read(path: str) -> str:
    try:
        with open(path, errors="replace") as f:
            return f.read()
    except OSError:
        return ""


def _worker_args(
    backend: str, work: str, timeout: float, fail_rank: int | None, hang_rank: int | None
) -> list[str]:
    """The probe's `--dist-worker` arguments each rank runs with (see `main` in core.py)."""
    args = ["--dist-worker", backend, "--dist-dir", work, "--dist-timeout", str(int(max(10, timeout - 5)))]
    if fail_rank is not None:
        args += ["--dist-fail", str(int(fail_rank))]
    if hang_rank is not None:
        args += ["--dist-hang", str(int(hang_rank))]
    return args


class _Torchrun:
    """A running torchrun (`proc`) and the ranks it started, which write their pids to `work`."""

    def __init__(self, proc: subprocess.Popen, work: str, world: int, backend: str) -> None:
        self.proc, self.work, self.world, self.backend = proc, work, world, backend
        self.announced: set[int] = set()

    def announce(self) -> None:
        """Tell the runner the pids of the ranks that started since the last call."""
        new = []
        for r in range(self.world):
            text = _read(os.path.join(self.work, f"rank{r}.pid")).strip()
            if text.isdigit() and int(text) not in self.announced:
                self.announced.add(int(text))
                new.append(int(text))
        if new:
            emit({"event": "pids", "check": f"distributed.{self.backend}", "pids": new})

    def stop(self) -> None:
        """Stop torchrun and kill every rank it leaves behind."""
        import signal as _signal

        if self.proc.poll() is None:
            self.proc.send_signal(_signal.SIGTERM)  # torchrun's agent stops its ranks on SIGTERM
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.announce()
        for pid in self.announced:  # whatever the agent left behind (ranks run in their own sessions)
            try:
                os.kill(pid, _signal.SIGKILL)
            except OSError:
                pass


def launch_distributed(
    backend: str,
    world: int,
    timeout: float = 90.0,
    fail_rank: int | None = None,
    hang_rank: int | None = None,
) -> str:
    """Run an all_reduce across `world` ranks started by torchrun (see torchrun_argv); return a
    detail line or raise Fail.

    Each rank writes its pid when it starts (announced to the runner: torchrun starts every rank in
    a session of its own, outside the probe's process group), then its result or its error, to a
    scratch directory.  torchrun stops the other ranks when one fails; its exit status and its
    root-cause summary name the rank, the rank's own file says why.  On `timeout` torchrun is asked
    to stop (SIGTERM: it stops its ranks), then everything left is killed.  `fail_rank` /
    `hang_rank` (test knobs) make that rank exit with an error / block before joining."""
    import importlib.util
    import tempfile

    if importlib.util.find_spec("torch.distributed.run") is None:
        raise Skip("this torch has no torchrun (torch.distributed.run)")
    t0 = time.perf_counter()
    # next to this file: the runner's scratch directory, removed even when the probe is killed
    work = tempfile.mkdtemp(prefix="dist-", dir=os.path.dirname(script_path()))
    args = _worker_args(backend, work, timeout, fail_rank, hang_rank)
    out = open(os.path.join(work, "torchrun.out"), "w+")
    err = open(os.path.join(work, "torchrun.err"), "w+")
    proc = subprocess.Popen(torchrun_argv(world, args), stdout=out, stderr=err, stdin=subprocess.DEVNULL)
    emit({"event": "pids", "check": f"distributed.{backend}", "pids": [proc.pid]})
    run = _Torchrun(proc, work, world, backend)

    try:
        deadline = time.monotonic() + timeout
        while proc.poll() is None:
            run.announce()
            if time.monotonic() > deadline:  # (`finally` stops torchrun and its ranks)
                raise Fail(
                    f"{backend} all_reduce across {world} processes (torchrun) did not finish within "
                    f"{timeout:.0f} s (rendezvous hang: firewall, wrong interface? try "
                    "GLOO_SOCKET_IFNAME/NCCL_SOCKET_IFNAME=lo)"
                )
            time.sleep(0.05)
        run.announce()
        results = _rank_results(work, world, proc.returncode, err.name, backend)
    finally:
        run.stop()
        out.close()
        err.close()
        shutil.rmtree(work, ignore_errors=True)
    return _all_reduce_detail(results, world, backend, time.perf_counter() - t0)


def _all_reduce_detail(results: list[dict], world: int, backend: str, dt: float) -> str:
    """The detail line of a distributed check whose ranks all finished; Fail on a wrong sum."""
    want = world * (world + 1) / 2
    bad = [r for r in results if abs(r["value"] - want) > 1e-6]
    if bad:
        raise Fail(f"{backend} all_reduce gave {bad[0]['value']} on rank {bad[0]['rank']}, expected {want}")
    devs = sorted({r.get("device", "cpu") for r in results})
    dev = devs[0] if len(devs) == 1 else ", ".join(devs)
    return (
        f"all_reduce(SUM) across {world} process(es) with {backend} on {dev} = {want:g} on every rank, "
        f"launched by torchrun (--standalone, env:// rendezvous) in {dt:.1f} s"
    )


def _rank_results(work: str, world: int, returncode: int, err_path: str, backend: str) -> list[dict]:
    """What every rank wrote to `work`; raise Fail naming the rank that failed first (torchrun's
    root-cause summary in `err_path`, else the rank's own error file) and why."""
    results, errors = [], {}
    for r in range(world):
        got = _read(os.path.join(work, f"rank{r}.json")).strip()
        if got:
            results.append(json.loads(got))
        failed = _read(os.path.join(work, f"rank{r}.err")).strip()
        if failed:
            errors[r] = json.loads(failed)
    if returncode != 0 or len(results) != world:
        torchrun_err = _read(err_path)
        rank, code = torchrun_root_cause(torchrun_err)
        if rank is None and errors:
            rank = min(errors)
        if rank is not None and rank in errors:
            why = errors[rank]["error"]
            code = errors[rank].get("exit", code)
        else:
            lines = [ln for ln in torchrun_err.strip().splitlines() if ln.strip() and not ln.startswith("*")]
            why = lines[-1].strip() if lines else "no output"
        who = f"rank {rank}/{world}" if rank is not None else f"torchrun ({world} ranks)"
        raise Fail(f"{backend} {who} exited with {code if code is not None else returncode}: {why[:400]}")
    return results


def rank_device(torch, backend: str, local_rank: int):
    """The device a rank works on, set up as a torchrun-launched script does: for NCCL
    torch.cuda.set_device(LOCAL_RANK) *before* init_process_group (else every rank uses cuda:0);
    raises RuntimeError when LOCAL_RANK has no GPU.  Returns a torch.device."""
    if backend != "nccl":
        return torch.device("cpu")
    count = torch.cuda.device_count()
    if local_rank >= count:
        raise RuntimeError(
            f"LOCAL_RANK {local_rank} but only {count} visible GPU(s) (CUDA_VISIBLE_DEVICES="
            f"{os.environ.get('CUDA_VISIBLE_DEVICES')!r})"
        )
    torch.cuda.set_device(local_rank)
    return torch.device("cuda", local_rank)


def _watch_parent() -> None:
    """End this rank when its launcher dies (it was re-parented): torchrun starts ranks in sessions
    of their own, so a launcher killed with SIGKILL would otherwise leave them waiting in the
    rendezvous until their own timeout."""
    import threading

    parent = os.getppid()

    def watch() -> None:
        while True:
            time.sleep(0.25)
            if os.getppid() != parent:
                os._exit(1)

    threading.Thread(target=watch, name="envkit-parent-watch", daemon=True).start()


def dist_worker(
    backend: str, timeout_s: int, fail: bool = False, out_dir: str | None = None, hang: bool = False
) -> int:
    """One rank: the body a torchrun-launched training script runs first.  With `out_dir`, the
    rank's pid, then its result (rank{R}.json) or its error (rank{R}.err), are written there."""
    rank_env = os.environ.get("RANK", "0")

    def put(name: str, text: str) -> None:
        """Write this rank's file `name` in `out_dir` (none: nowhere) whole, through a rename."""
        if out_dir:
            path = os.path.join(out_dir, f"rank{rank_env}.{name}")
            with open(path + ".tmp", "w") as f:
                f.write(text)
            os.replace(path + ".tmp", path)

    put("pid", str(os.getpid()))
    if fail:
        msg = "RuntimeError: envkit smoke test fault: this rank fails before joining"
        sys.stderr.write(msg + "\n")
        put("err", json.dumps({"error": msg, "exit": 3}))
        return 3
    if hang:
        while True:
            time.sleep(3600)
    try:
        import inspect
        from datetime import timedelta

        import torch
        import torch.distributed as dist

        rank, _world = int(os.environ["RANK"]), int(os.environ["WORLD_SIZE"])
        local = int(os.environ["LOCAL_RANK"])
        device = rank_device(torch, backend, local)
        kwargs: dict[str, Any] = {
            "backend": backend,
            "init_method": "env://",
            "timeout": timedelta(seconds=timeout_s),
        }
        if backend == "nccl" and "device_id" in inspect.signature(dist.init_process_group).parameters:
            # torch >= 2.3: bind the rank to its GPU and form the NCCL communicator now, so that an
            # NCCL problem shows here rather than in the first collective
            kwargs["device_id"] = device
        dist.init_process_group(**kwargs)
        t = torch.full((4,), float(rank + 1), device=device)
        dist.all_reduce(t, op=dist.ReduceOp.SUM)
        if backend == "nccl":
            torch.cuda.synchronize(device)
            dist.barrier(device_ids=[local])
        else:
            dist.barrier()
        value = float(t[0].item())
        dist.destroy_process_group()
    except BaseException as e:
        put("err", json.dumps({"error": f"{type(e).__name__}: {_first_line(e)}", "exit": 1}))
        raise
    result = json.dumps({"rank": rank, "value": value, "device": str(device)})
    put("json", result)
    print(result, flush=True)
    return 0
