"""A pixi.lock platform solved for a CUDA machine that locks a CPU torch (pixi's multi-machine
example, corpus 91): `cuda-unused`, once per such platform."""

from __future__ import annotations

import json

from conftest import CORPUS, run_envkit

[LOCK] = sorted(CORPUS.glob("91_*"))
CPU = "locks a CPU build of torch"


def _findings(path, cwd=None):
    r = run_envkit("check", "--format", "json", "--select", "cuda-unused", str(path), cwd=cwd)
    return r.exit_code, [(f["line"], f["message"]) for f in json.loads(r.stdout)["findings"]]


def test_each_cuda_platform_that_locks_a_cpu_torch_is_named():
    assert _findings(LOCK) == (
        0,
        [
            (279, f"default/p1 (win-64, __cuda=12) {CPU}: pytorch 2.10.0 cpu_mkl_py314_h9de12ed_104"),
            (369, f"default/p2 (linux-64, __cuda=12) {CPU}: pytorch 2.10.0 cpu_mkl_py314_hf472749_104"),
        ],
    )


def test_a_platform_without_cuda_may_lock_a_cpu_torch(tmp_path):
    # the same lock with p2's `__cuda=12` taken out: p2 is an ordinary linux-64 machine
    text = LOCK.read_text()
    head, _, rest = text.partition("- name: p2\n")
    rest = rest.replace("  - __cuda=12\n", "  - __unix=0=0\n", 1)
    (tmp_path / "pixi.lock").write_text(head + "- name: p2\n" + rest)
    code, found = _findings("pixi.lock", cwd=tmp_path)
    assert (code, [line for line, _ in found]) == (0, [279])
