"""envkit smoke: the pure parts (no torch): verdict tables, GPU facts injected, runner helpers."""

from __future__ import annotations

import json
import os
import re
import sys
import time
from pathlib import Path

import pytest

from envkit import _proc
from envkit.smoke import runner
from envkit.smoke import target as smoke_target
from envkit.smoke.probe import core, distributed, helpers, host, sweep, verdicts

PROBE_PATH = Path(runner.__file__).with_name("probe")  # the folder the runner copies and runs


def test_probe_never_imports_envkit_and_imports_torch_only_lazily():
    files = sorted(PROBE_PATH.glob("*.py"))
    assert {f.name for f in files} >= {"__init__.py", "__main__.py", "core.py"}
    for f in files:
        text = f.read_text()
        assert "import envkit" not in text and "from envkit" not in text, f.name
        top = [ln for ln in text.splitlines() if ln.startswith(("import ", "from "))]
        assert not [ln for ln in top if re.match(r"(?:import|from)\s+(?:torch|numpy)\b", ln)], f.name


@pytest.mark.parametrize(
    "driver,cuda,status,needle",
    [
        ("570.86.15", "12.8", "pass", ">= 570.26, the minimum for CUDA 12.8"),
        ("550.54.14", "12.8", "warn", "minor-version compatibility (>= 525.60.13)"),
        (
            "520.61.05",
            "12.8",
            "fail",
            "too old for CUDA 12.8: it needs >= 570.26; minor-version compatibility needs >= 525.60.13",
        ),
        ("575.51.03", "13.0", "fail", "needs >= 580.65.06"),
        ("580.65.06", "13.0", "pass", "minimum for CUDA 13.0"),
        ("600.1", "13.2", "pass", "(table entry 13.1)"),
        (None, "12.8", "skip", "no NVIDIA driver found"),
        ("570.86.15", None, "skip", "not a CUDA build"),
    ],
)
def test_driver_verdict_uses_the_minimum_driver_table(driver, cuda, status, needle):
    st, detail = verdicts.driver_verdict(driver, cuda)
    assert st == status
    assert needle in detail


def test_min_driver_for_takes_the_nearest_lower_release():
    assert verdicts.min_driver_for("12.7") == ("560.28.03", "12.6")
    assert verdicts.min_driver_for("12.4.1") == ("550.54.14", "12.4")
    assert verdicts.min_driver_for("10.2") == (None, None)


CU126 = ["sm_50", "sm_60", "sm_70", "sm_75", "sm_80", "sm_86", "sm_90"]
CU129 = ["sm_75", "sm_80", "sm_86", "sm_90", "sm_100", "sm_120", "compute_120"]


@pytest.mark.parametrize(
    "cap,arch,status,needle",
    [
        ((9, 0), CU126, "pass", "sm_90 is in the arch list"),
        ((8, 9), CU126, "pass", "runs the sm_86 cubin"),
        ((12, 0), CU126, "fail", "sm_120 is not compatible with the current PyTorch installation"),
        ((6, 1), CU129, "fail", "unsupported GPU arch"),
        ((12, 0), CU129, "pass", "sm_120 is in the arch list"),
        ((9, 0), ["sm_90a"], "pass", "sm_90a is in the arch list"),
        ((12, 1), ["sm_90", "compute_90"], "warn", "JIT-compiled from compute_90 PTX"),
        ((8, 0), ["sm_86"], "fail", "not compatible"),
        ((8, 0), [], "skip", "no compiled CUDA architectures"),
    ],
)
def test_arch_verdict(cap, arch, status, needle):
    st, detail = verdicts.arch_verdict(cap, arch, "NVIDIA X")
    assert st == status
    assert needle in detail


def test_shm_verdict_docker_default_and_overflow():
    mib = 2**20
    st, detail = verdicts.shm_verdict(64 * mib, 64 * mib, 6 * mib)
    assert st == "warn" and "Docker's 64 MiB default?" in detail and "--shm-size=8g (or --ipc=host)" in detail
    st, detail = verdicts.shm_verdict(64 * mib, 60 * mib, 100 * mib)
    assert st == "fail" and "'Bus error'" in detail and "--shm-size" in detail
    st, detail = verdicts.shm_verdict(16 * 1024 * mib, 16 * 1024 * mib, 6 * mib)
    assert st == "pass" and detail.endswith("enough room")


def test_cuda_pins_from_conda_records_and_pip_dists():
    recs = [
        {"name": "cuda-version", "version": "12.9", "build": "h0"},
        {"name": "pytorch", "version": "2.7.1", "build": "cuda129_mkl_py312_h0_302"},
        {"name": "pytorch", "version": "2.7.1", "build": "cpu_mkl_py312_h0_102"},
        {"name": "numpy", "version": "2.0", "build": "py312"},
    ]
    assert verdicts.cuda_pins_from_records(recs) == [
        "cuda-version=12.9",
        "pytorch=2.7.1=cuda129_mkl_py312_h0_302",
    ]
    assert verdicts.cuda_pins_from_dists(["numpy", "nvidia_cuda_runtime_cu12", "nvidia-cudnn-cu12"]) == [
        "nvidia-cuda-runtime-cu12 (pip)"
    ]


def test_gpu_presence_from_injected_device_nodes_and_nvidia_smi(tmp_path):
    (tmp_path / "nvidia0").write_text("")
    (tmp_path / "nvidiactl").write_text("")
    smi = tmp_path / "nvidia-smi"
    smi.write_text("#!/bin/sh\necho 'NVIDIA H200, 570.86.15, 9.0, 143771 MiB'\n")
    smi.chmod(0o755)
    info = host.gpu_presence(str(tmp_path / "nvidia[0-9]*"), str(smi), "/nonexistent")
    assert info["present"] is True
    assert info["dev_nodes"] == [str(tmp_path / "nvidia0")]
    assert info["driver_version"] == "570.86.15" and info["driver_source"] == "nvidia-smi"
    assert info["gpus"] == [{"name": "NVIDIA H200", "compute_cap": "9.0", "memory": "143771 MiB"}]
    proc_version = tmp_path / "version"
    proc_version.write_text("NVRM version: NVIDIA UNIX x86_64 Kernel Module  550.54.14  Thu Feb 22 2024\n")
    info = host.gpu_presence(str(tmp_path / "none*"), "", str(proc_version))
    assert info["present"] is False and info["driver_version"] == "550.54.14"


def test_worker_candidates_and_recommendation_prefers_fewest_workers_near_the_best():
    assert sweep.worker_candidates(2) == [0, 1, 2]
    assert sweep.worker_candidates(6) == [0, 1, 2, 4, 6]
    assert sweep.worker_candidates(0) == [0]
    points = [
        {"num_workers": 0, "pin_memory": False, "persistent_workers": False, "samples_per_s": 100.0},
        {"num_workers": 2, "pin_memory": False, "persistent_workers": True, "samples_per_s": 390.0},
        {"num_workers": 4, "pin_memory": False, "persistent_workers": True, "samples_per_s": 400.0},
        {"num_workers": 4, "pin_memory": False, "persistent_workers": False, "samples_per_s": 300.0},
    ]
    rec = sweep.recommend(points)
    assert (rec["num_workers"], rec["persistent_workers"]) == (2, True)
    kw = sweep.loader_kwargs(rec, 32)
    assert sweep.kwargs_text(kw) == (
        "DataLoader(dataset, batch_size=32, num_workers=2, pin_memory=False, "
        "persistent_workers=True, prefetch_factor=2)"
    )
    assert sweep.loader_kwargs(points[0], 8) == {"batch_size": 8, "num_workers": 0, "pin_memory": False}


def test_activation_env_reads_state_and_plain_exports(tmp_path):
    prefix = tmp_path / "env"
    (prefix / "conda-meta").mkdir(parents=True)
    (prefix / "conda-meta" / "state").write_text(json.dumps({"env_vars": {"MY_VAR": "1"}}))
    act = prefix / "etc" / "conda" / "activate.d"
    act.mkdir(parents=True)
    (act / "a.sh").write_text('export CUDA_HOME="${CONDA_PREFIX}/targets"\nexport PLAIN=yes\n')
    (act / "b.sh").write_text('if [ -n "$X" ]; then\n  export Y=$(uname)\nfi\n')
    env, skipped = smoke_target.activation_env(prefix, {"PATH": "/usr/bin"})
    assert env["PATH"] == f"{prefix}/bin{os.pathsep}/usr/bin"
    assert env["CONDA_PREFIX"] == str(prefix) and env["CONDA_DEFAULT_ENV"] == "env"
    assert env["MY_VAR"] == "1" and env["PLAIN"] == "yes"
    assert env["CUDA_HOME"] == f"{prefix}/targets"
    assert "Y" not in env and skipped == [str(act / "b.sh")]


def test_named_env_is_found_in_conda_envs_path(tmp_path, monkeypatch):
    envs = tmp_path / "envs"
    (envs / "torchy" / "conda-meta").mkdir(parents=True)
    (envs / "torchy" / "bin").mkdir()
    (envs / "torchy" / "bin" / "python").write_text("#!/bin/sh\n")
    monkeypatch.setenv("CONDA_ENVS_PATH", str(envs))
    t = smoke_target.resolve_target(name="torchy")
    assert (t.kind, t.prefix, t.python) == (
        "name",
        str(envs / "torchy"),
        str(envs / "torchy" / "bin" / "python"),
    )
    assert dict(t.env)["CONDA_PREFIX"] == str(envs / "torchy")
    from envkit.errors import EnvironmentNotFound

    with pytest.raises(EnvironmentNotFound, match="no conda environment named 'nope'"):
        smoke_target.resolve_target(name="nope")


def test_diagnose_maps_known_failures_to_hints():
    rep = {
        "ok": False,
        "checks": [
            {
                "name": "dataloader.workers.fork",
                "status": "fail",
                "detail": "RuntimeError: DataLoader worker (pid 123) is killed by signal: Bus error. ",
            },
            {
                "name": "cuda.arch",
                "status": "fail",
                "detail": "NVIDIA B200 with CUDA capability sm_100 is not "
                "compatible with the current PyTorch installation, which supports sm_90: unsupported GPU "
                "arch",
            },
            {
                "name": "compute.matmul",
                "status": "skip",
                "detail": "Cannot re-initialize CUDA in forked subprocess",
            },
        ],
    }
    d = runner.diagnose(rep, "RuntimeError: Cannot re-initialize CUDA in forked subprocess. To use CUDA ...")
    problems = [(x["check"], x["problem"]) for x in d]
    assert ("dataloader.workers.fork", "DataLoader workers ran out of shared memory (/dev/shm)") in problems
    assert ("cuda.arch", "the GPU's architecture is not in this torch build's arch list") in problems
    # the skipped check is not diagnosed, but the same text on stderr of a failed run is
    assert (None, "CUDA was initialised in the parent before DataLoader workers were forked") in problems
    assert runner.exit_code({"ok": False}) == 1 and runner.exit_code({"ok": True}) == 0
    assert runner.exit_code({"ok": False, "could_not_run": True}) == 2


def test_text_report_never_shows_a_skip_as_pass_and_progress_lines():
    from envkit.commands.smoke import _Progress
    from envkit.render.smoke import progress_line, render_text

    rep = {
        "ok": True,
        "target": {"python": "/x/python"},
        "seconds": 1.0,
        "checks": [
            {"name": "cuda.available", "status": "skip", "detail": "no GPU", "seconds": 0.0},
            {"name": "compute.matmul", "status": "pass", "detail": "ok", "seconds": 0.1},
        ],
    }
    text = render_text(rep)
    assert "  skip    cuda.available     0.0s  no GPU" in text
    assert text.rstrip().endswith("ok: 1 passed, 0 warned, 1 skipped, 0 failed in 1.0 s")
    st = _Progress(enabled=False)
    assert (
        progress_line({"event": "hello", "plan": [{}] * 12, "mode": "quick", "pid": 7}, st)
        == "smoke: 12 checks (quick mode), probe pid 7"
    )
    assert (
        progress_line({"event": "result", "check": {"name": "a.b", "status": "fail", "seconds": 1.25}}, st)
        == "  [ 1/12] FAIL a.b (1.2 s)"
    )


def test_stream_kills_the_whole_group_at_the_deadline(tmp_path):
    # A parent that starts a child which ignores its parent's death: both must be gone.
    code = (
        "import subprocess, sys, time\n"
        "c = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(60)'])\n"
        "print('child', c.pid, flush=True)\n"
        "time.sleep(60)\n"
    )
    seen = []
    t = time.monotonic()
    # the deadline passes as soon as the child is seen; the overall timeout (300 s) is beyond the
    # parent's 60 s sleep, so `timed_out` can only come from the deadline: no wall-clock margin
    # that a loaded machine can eat into
    res = _proc.stream(
        [sys.executable, "-c", code], on_line=seen.append, deadline=lambda: t if seen else None, timeout=300
    )
    assert res.timed_out
    pid = int(seen[0].split()[1])
    assert gone(pid)


def gone(pid: int, within: float = 60.0) -> bool:
    """True once `pid` has exited (a SIGKILL takes a moment to land)."""
    end = time.monotonic() + within
    while _alive(pid):
        if time.monotonic() > end:
            return False
        time.sleep(0.05)
    return True


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"  # a zombie is dead, just not reaped
    except FileNotFoundError:
        return False


def test_relative_prefix_and_python_become_absolute(tmp_path, monkeypatch):
    """`cd /tmp/x && envkit smoke -p env2`: the probe runs in a scratch directory, so the target's
    interpreter, prefix and activation variables must not stay relative to the caller's directory."""
    prefix = tmp_path / "env2"
    (prefix / "conda-meta").mkdir(parents=True)
    (prefix / "bin").mkdir()
    (prefix / "bin" / "python").write_text("#!/bin/sh\n")
    (prefix / "bin" / "python").chmod(0o755)
    monkeypatch.chdir(tmp_path)
    t = smoke_target.resolve_target(prefix="env2")
    assert (t.kind, t.prefix, t.python) == ("prefix", str(prefix), str(prefix / "bin" / "python"))
    env = dict(t.env)
    assert env["CONDA_PREFIX"] == str(prefix) and env["PATH"].startswith(f"{prefix}/bin{os.pathsep}")
    t = smoke_target.resolve_target(prefix="./env2/../env2")
    assert t.prefix == str(prefix)
    t = smoke_target.resolve_target(python="env2/bin/python")
    assert (t.kind, t.python, t.prefix) == ("python", str(prefix / "bin" / "python"), str(prefix))
    assert dict(t.env)["CONDA_PREFIX"] == str(prefix)


class _Ended:
    """What _proc.stream returns, for runner.assemble."""

    def __init__(self, timed_out: bool, returncode: int = -9, stderr: str = "") -> None:
        self.timed_out, self.returncode, self.stderr, self.stdout = timed_out, returncode, stderr, ""


def _stopped_in(check: str, kind: str, *, own_limit: float = 90.0):
    st = runner._State(
        plan=[{"name": "import.torch"}, {"name": check}, {"name": "distributed.gloo"}],
        checks=[{"name": "import.torch", "status": "pass", "detail": "", "seconds": 1.0}],
        current=check,
        current_timeout=own_limit,
        current_since=time.monotonic() - 2.0,
        probe_pid=41,
        pids=[43, 42],
        deadline_kind=kind,
    )
    target = smoke_target.Target(kind="python", python="/x/python")
    return runner.assemble(
        target, st, _Ended(True), elapsed=3.1, overall=3.0, config={"mode": "default"}, overall_given=True
    )


def test_overall_timeout_is_not_called_a_hang():
    rep = _stopped_in("dataloader.workers.fork", "overall")
    c = {x["name"]: x for x in rep["checks"]}
    assert c["dataloader.workers.fork"]["status"] == "fail"
    assert c["dataloader.workers.fork"]["detail"].startswith(
        "the overall --timeout of 3 s ran out during dataloader.workers.fork (it had run 2."
    )
    assert c["dataloader.workers.fork"]["detail"].endswith(
        " s of its own 90 s limit); raise --timeout; the whole process group (probe pid 41, workers [42, "
        "43]) "
        "was killed"
    )
    assert c["distributed.gloo"] == {
        "name": "distributed.gloo",
        "status": "skip",
        "seconds": 0.0,
        "detail": "not run: the probe stopped at dataloader.workers.fork",
    }
    assert [d["problem"] for d in rep["diagnoses"]] == [
        "the whole run took longer than the overall time limit"
    ]
    assert "raise --timeout" in rep["diagnoses"][0]["hint"] and "shm" not in rep["diagnoses"][0]["hint"]
    assert rep["hung"] == {
        "check": "dataloader.workers.fork",
        "seconds": 3.1,
        "pids": [42, 43],
        "probe_pid": 41,
        "cause": "overall_timeout",
        "limit_s": 3.0,
    }
    from envkit.commands.smoke import _Progress
    from envkit.render.smoke import progress_line, render_text

    assert progress_line({"event": "hung", **rep["hung"]}, _Progress(False)) == (
        "  !! the overall time limit (3 s) ran out during dataloader.workers.fork; killed the probe and its "
        "workers"
    )
    assert (
        "stopped: the overall time limit (3 s) ran out during dataloader.workers.fork; killed probe pid 41 "
        "and workers [42, 43]"
    ) in render_text(rep)


def test_a_check_over_its_own_limit_hung():
    rep = _stopped_in("dataloader.workers.fork", "check", own_limit=2.0)
    c = {x["name"]: x for x in rep["checks"]}
    assert c["dataloader.workers.fork"]["detail"] == (
        "hung: no result within its 2 s limit; the whole process group (probe pid 41, workers [42, 43]) was "
        "killed"
    )
    assert rep["hung"]["cause"] == "check_timeout" and rep["hung"]["limit_s"] == 2.0
    problems = [d["problem"] for d in rep["diagnoses"]]
    assert problems == ["a check hung and was stopped"]
    assert "/dev/shm" in rep["diagnoses"][0]["hint"]


@pytest.mark.parametrize(
    "value,text",
    [
        ((2, 26, 2), "2.26.2"),
        ((2, 21, 5, "+cuda12.4"), "2.21.5+cuda12.4"),
        (2708, "2.7.8"),
        (21602, "2.16.2"),
        (None, None),
    ],
)
def test_nccl_version_text_from_what_torch_returns(value, text):
    assert verdicts.nccl_text(value) == text


def test_cuda_api_text():
    assert verdicts.cuda_api_text(12080) == "12.8" and verdicts.cuda_api_text(13000) == "13.0"
    assert verdicts.cuda_api_text(None) is None and verdicts.cuda_api_text(0) is None
    assert host.cuda_driver_api_version(names=("libenvkit-no-such-cuda.so",)) is None


@pytest.mark.parametrize(
    "rt,ct,kw,status,needle",
    [
        ((9, 8, 0), (9, 8, 0), {}, "pass", "cuDNN runtime 9.8.0 == compile 9.8.0"),
        ((9, 10, 2), (9, 8, 0), {}, "pass", "a newer minor of the same major is compatible"),
        ((9, 1, 0), (9, 8, 0), {}, "fail", "compiled against cuDNN 9.8.0 but loads 9.1.0"),
        ((8, 9, 7), (9, 1, 0), {}, "fail", "cuDNN version incompatibility"),
        ((6, 1, 0), (6, 0, 0), {}, "fail", "incompatibility"),  # before cuDNN 7 minors must match
        ((3, 2, 0), (3, 1, 0), {"is_cuda": False}, "fail", "incompatibility"),  # MIOpen: exact
        (
            (9, 11, 0),
            (9, 11, 0),
            {"version_int": 91100, "min_capability": (7, 0)},
            "fail",
            "does not support devices below sm_75, and this machine has a sm_70 device",
        ),
        ((9, 11, 0), (9, 11, 0), {"version_int": 91100, "min_capability": (9, 0)}, "pass", "=="),
        (None, (9, 8, 0), {}, "skip", "unknown"),
    ],
)
def test_cudnn_verdict_follows_torchs_own_rule(rt, ct, kw, status, needle):
    st, detail = verdicts.cudnn_verdict(rt, ct, **kw)
    assert st == status and needle in detail, detail


@pytest.mark.parametrize(
    "api,status,needle",
    [
        ("12.8", "pass", "the driver supports CUDA 12.8 >= 12.8"),
        ("13.0", "pass", ">= 12.8"),
        ("12.2", "warn", "minor-version compatibility"),
        ("11.8", "fail", "supports CUDA 11.8, torch needs CUDA 12.8"),
    ],
)
def test_driver_verdict_from_the_cuda_api_version_alone(api, status, needle):
    st, detail = verdicts.driver_verdict(None, "12.8", api)
    assert st == status and needle in detail


class _FakeEvent:
    log: list = []

    def __init__(self, enable_timing=False):
        assert enable_timing is True
        self.log.append("event")

    def record(self):
        self.log.append("record")

    def synchronize(self):
        self.log.append("event.synchronize")

    def elapsed_time(self, end):
        assert isinstance(end, _FakeEvent)
        return 10.0  # milliseconds, as torch.cuda.Event.elapsed_time returns


def test_copy_bandwidth_is_timed_with_cuda_events_in_milliseconds():
    from types import SimpleNamespace

    _FakeEvent.log = []
    fake = SimpleNamespace(
        cuda=SimpleNamespace(Event=_FakeEvent, synchronize=lambda: _FakeEvent.log.append("synchronize"))
    )
    gbps = helpers.copy_gbps(fake, lambda: _FakeEvent.log.append("copy"), 100_000_000, reps=5)
    assert gbps == pytest.approx(50.0)  # 5 x 100 MB in 10 ms
    assert _FakeEvent.log == [
        "copy",
        "synchronize",
        "event",
        "event",
        "record",
        "copy",
        "copy",
        "copy",
        "copy",
        "copy",
        "record",
        "event.synchronize",
    ]


def test_nccl_rank_sets_its_device_from_local_rank_before_joining(monkeypatch):
    import torch
    import torch.distributed as dist

    calls = []
    monkeypatch.setattr(torch.cuda, "device_count", lambda: 8)
    monkeypatch.setattr(torch.cuda, "set_device", lambda i: calls.append(("set_device", i)))

    class Joined(Exception):
        pass

    def init(backend=None, init_method=None, timeout=None, world_size=-1, rank=-1, device_id=None):
        calls.append(
            (
                "init_process_group",
                {"backend": backend, "init_method": init_method, "timeout": timeout, "device_id": device_id},
            )
        )
        raise Joined

    monkeypatch.setattr(dist, "init_process_group", init)
    monkeypatch.setenv("RANK", "3")
    monkeypatch.setenv("WORLD_SIZE", "8")
    monkeypatch.setenv("LOCAL_RANK", "3")
    with pytest.raises(Joined):
        distributed.dist_worker("nccl", 30)
    assert calls[0] == ("set_device", 3)
    kw = calls[1][1]
    assert kw["backend"] == "nccl" and kw["init_method"] == "env://" and kw["timeout"].total_seconds() == 30
    assert kw["device_id"] == torch.device("cuda", 3)
    # torch < 2.3 has no device_id: not passed
    monkeypatch.setattr(
        dist,
        "init_process_group",
        lambda backend=None, init_method=None, timeout=None: init(
            backend=backend, init_method=init_method, timeout=timeout
        ),
    )
    with pytest.raises(Joined):
        distributed.dist_worker("nccl", 30)
    assert calls[2] == ("set_device", 3) and calls[3][1]["device_id"] is None
    calls[2:] = []
    with pytest.raises(RuntimeError, match="LOCAL_RANK 8 but only 8 visible GPU"):
        distributed.rank_device(torch, "nccl", 8)
    assert distributed.rank_device(torch, "gloo", 5) == torch.device("cpu") and len(calls) == 2


def test_driver_version_from_pynvml_when_there_is_no_nvidia_smi(monkeypatch):
    from types import SimpleNamespace

    seen = []
    fake = SimpleNamespace(
        nvmlInit=lambda: seen.append("init"),
        nvmlShutdown=lambda: seen.append("shutdown"),
        nvmlSystemGetDriverVersion=lambda: b"550.54.14",
    )
    monkeypatch.setitem(sys.modules, "pynvml", fake)
    info = host.gpu_presence("/nonexistent/nvidia[0-9]*", "", "/nonexistent")
    assert (info["driver_version"], info["driver_source"]) == ("550.54.14", "pynvml")
    assert seen == ["init", "shutdown"]

    def broken():
        raise RuntimeError("NVML Shared Library Not Found")

    monkeypatch.setitem(sys.modules, "pynvml", SimpleNamespace(nvmlInit=broken))
    assert host.nvml_driver_version() is None


def test_device_groups_summarise_a_node():
    d = [
        {"index": i, "name": "NVIDIA H100 80GB HBM3", "capability": "9.0", "total_memory": 1}
        for i in range(8)
    ]
    d.append({"index": 8, "name": "NVIDIA L4", "capability": "8.9", "total_memory": 2})
    groups = helpers.device_groups(d)
    assert [(ix, g["name"]) for ix, g in groups] == [
        (list(range(8)), "NVIDIA H100 80GB HBM3"),
        ([8], "NVIDIA L4"),
    ]


def test_worker_sweep_is_capped_at_the_batches_per_epoch(monkeypatch):
    monkeypatch.setattr(core, "usable_cores", lambda: 192)  # a big GPU node
    assert core.Probe({"mode": "full"}).workload()["max_workers"] == 32  # 1024 samples / batch 32
    assert core.Probe({"mode": "quick"}).workload()["max_workers"] == 8
    monkeypatch.setattr(core, "usable_cores", lambda: 2)
    assert core.Probe({"mode": "full"}).workload()["max_workers"] == 4
    assert core.Probe({"mode": "full", "workload": {"max_workers": 64}}).workload()["max_workers"] == 64


def test_torchrun_command_line_and_its_failure_summary():
    argv = distributed.torchrun_argv(8, ["--dist-worker", "nccl"])
    assert argv[:8] == [
        sys.executable,
        "-m",
        "torch.distributed.run",
        "--standalone",
        "--nnodes=1",
        "--nproc_per_node=8",
        "--max_restarts=0",
        "--monitor_interval=0.5",
    ]
    assert argv[8] == str(PROBE_PATH.resolve()) and argv[9:] == ["--dist-worker", "nccl"]
    summary = (
        "torch.distributed.elastic.multiprocessing.errors.ChildFailedError: \n"
        "============================================================\n"
        "/tmp/x/probe.py FAILED\n"
        "------------------------------------------------------------\n"
        "Failures:\n  <NO_OTHER_FAILURES>\n"
        "------------------------------------------------------------\n"
        "Root Cause (first observed failure):\n[0]:\n  time      : 2026-01-01_00:00:00\n"
        "  host      : node\n  rank      : 1 (local_rank: 1)\n  exitcode  : -11 (pid: 4242)\n"
        "  error_file: <N/A>\n"
    )
    assert distributed.torchrun_root_cause(summary) == (1, -11)
    assert distributed.torchrun_root_cause("no summary here") == (None, None)


def test_kill_stragglers_only_kills_processes_running_the_probe(tmp_path):
    import subprocess

    marker = str(tmp_path / "probe.py")
    ours = subprocess.Popen(
        [sys.executable, "-c", "import time; time.sleep(60)", marker], start_new_session=True
    )
    other = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"], start_new_session=True)
    try:
        for proc in (ours, other):  # until exec has replaced the forked pytest's command line
            end = time.monotonic() + 20
            while (
                b"time.sleep" not in Path(f"/proc/{proc.pid}/cmdline").read_bytes() and time.monotonic() < end
            ):
                time.sleep(0.02)
        assert runner.kill_stragglers([ours.pid, other.pid, 2**22 + 7], marker) == [ours.pid]
        assert ours.wait(timeout=10) == -9
        assert other.poll() is None
    finally:
        other.kill()
        other.wait()


def test_a_rank_whose_launcher_dies_ends_itself(tmp_path):
    """The rank's parent watch: a launcher killed with SIGKILL (its ranks live in their own
    sessions) must not leave a rank waiting; this rank hangs before joining, so only the watch can
    end it."""
    import signal
    import subprocess

    launcher = subprocess.Popen(
        [
            "sh",
            "-c",
            f'"{sys.executable}" "{PROBE_PATH}" --dist-worker gloo --dist-dir "{tmp_path}" '
            "--dist-timeout 60 --dist-hang 0 & wait",
        ],
        start_new_session=True,
        env={**os.environ, "RANK": "0"},
    )
    pid_file = tmp_path / "rank0.pid"
    end = time.monotonic() + 30
    while not pid_file.exists() and time.monotonic() < end:
        time.sleep(0.05)
    rank = int(pid_file.read_text())
    os.kill(launcher.pid, signal.SIGKILL)
    launcher.wait()
    assert gone(rank), "the rank outlived its launcher"


def test_quick_search_extrapolates_a_short_run_to_the_full_workload():
    # 5 batches in 1.0 s, the first after 0.4 s: 0.15 s per steady batch, 0.25 s of worker start-up
    point = {
        "num_workers": 2,
        "pin_memory": False,
        "persistent_workers": False,
        "samples": 160,
        "seconds": 1.0,
        "batches": 5,
        "epochs": 1,
        "first_batch_seconds": 0.4,
        "samples_per_s": 160.0,
    }
    # full workload: 320 samples x 2 epochs = 20 batches; start-up twice without persistent workers
    assert sweep.extrapolate(point, 320, 2, 32) == round(640 / (0.25 * 2 + 0.15 * 20), 2) == 182.86
    est = sweep.persistent_estimate(point, 320, 2, 32)
    assert est["persistent_workers"] is True and est["estimated"] is True
    assert est["samples_per_s"] == round(640 / (0.25 + 0.15 * 20), 2) == 196.92
    # nothing to extrapolate from a single batch per epoch: the measured value stays
    assert sweep.extrapolate({**point, "batches": 1}, 320, 2, 32) == 160.0


def test_text_report_marks_extrapolated_and_estimated_sweep_points():
    from envkit.render.smoke import render_text

    pt = {
        "num_workers": 2,
        "pin_memory": False,
        "persistent_workers": False,
        "samples_per_s": 517.0,
        "speedup": 1.69,
        "extrapolated": True,
    }
    rep = {
        "ok": True,
        "target": {"python": "/x/python"},
        "seconds": 1.0,
        "checks": [],
        "dataloader": {
            "search": "quick (adaptive)",
            "workload": {},
            "sweep": [
                pt,
                {
                    **pt,
                    "persistent_workers": True,
                    "samples_per_s": 563.0,
                    "speedup": 1.83,
                    "estimated": True,
                },
            ],
        },
    }
    lines = render_text(rep).splitlines()
    assert "            2       False       False         517     1.69x  extrapolated" in lines
    assert "            2       False        True         563     1.83x  estimated" in lines
