"""The scaling table of bench/RESULTS.md: read (validate of a conda-lock.yml), check, diff, normalize,
export and lock --check at 1k, 3k, 10k and 30k packages (read, diff and check at 100k too, in the
full run only), each a whole process: median wall and CPU time and peak RSS (wait4 of that
very child), and the least-squares fit `time = a + b * (packages / 1000)`, so that a super-linear
change shows at once (the marginal cost per 1k between the two largest sizes against the fit).
"""

from __future__ import annotations

import json
import statistics
import sys
from pathlib import Path

from run import Proc, interleave

SIZES = (1000, 3000, 10000, 30000)
QUICK_SIZES = (1000, 3000)
LARGE = 100_000  # the full run's last size, for LARGE_COMMANDS only
LARGE_COMMANDS = ("read", "diff", "check")


def _inputs(work: Path, n: int, prefix: bool = True) -> dict[str, Path]:
    import bench_check
    import bench_diff

    d = work / f"scale-{n}"
    d.mkdir(parents=True, exist_ok=True)
    paths = {"spec": d / "environment.yml", "lock": d / "conda-lock.yml"}
    if not paths["lock"].exists():
        bench_check.N = n  # the generator's size
        bench_check.write_inputs(d)
    paths["a"], paths["b"] = d / "a.conda-lock.yml", d / "b.conda-lock.yml"
    for key, variant in (("a", 0), ("b", 1)):
        if not paths[key].exists():
            paths[key].write_text(bench_diff.lock_text(n, variant))
    paths["prefix"] = d / "prefix"
    if prefix and not (paths["prefix"] / "conda-meta" / "history").exists():
        _prefix(paths["prefix"], n)
    return paths


def _prefix(prefix: Path, n: int) -> None:
    """tests/support's synthetic prefix (records list 10 files each), written with compact JSON:
    indented JSON goes through the pure-Python encoder and made a 30k prefix take minutes."""
    import shutil

    sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
    from support import condafactory

    class _Compact:
        dumps = staticmethod(lambda obj, indent=None, **kw: json.dumps(obj, **kw))
        loads = staticmethod(json.loads)

    shutil.rmtree(prefix, ignore_errors=True)
    saved, condafactory.json = condafactory.json, _Compact
    try:
        condafactory.large_prefix(prefix, n, files_per_pkg=10)
    finally:
        condafactory.json = saved


def _commands(p: dict[str, Path]) -> dict[str, Proc]:
    envkit = [sys.executable, "-m", "envkit"]
    return {
        "read": Proc(envkit + ["validate", str(p["lock"])]),
        "check": Proc(envkit + ["check", str(p["spec"]), str(p["lock"])], rc=None),
        "diff": Proc(envkit + ["diff", str(p["a"]), str(p["b"]), "--format", "json"], rc=1),
        "normalize": Proc(envkit + ["normalize", str(p["a"]), "-o", str(p["a"].with_suffix(".norm.yml"))]),
        "export": Proc(
            envkit + ["export", "-p", str(p["prefix"]), "-o", str(p["prefix"].parent / "export.yml")]
        ),
        "lock --check": Proc(
            envkit + ["lock", "--check", "-f", str(p["spec"]), "--lock", str(p["lock"])], rc=None
        ),
    }


def _fit(xs: list[float], ys: list[float]) -> tuple[float, float]:
    mx, my = statistics.fmean(xs), statistics.fmean(ys)
    sxx = sum((x - mx) ** 2 for x in xs)
    b = sum((x - mx) * (y - my) for x, y in zip(xs, ys, strict=False)) / sxx if sxx else 0.0
    return my - b * mx, b


def run(work: Path, quick: bool = False) -> str:
    sizes = QUICK_SIZES if quick else SIZES
    rounds = 1 if quick else 3
    inputs = {n: _inputs(work, n) for n in sizes}
    if not quick:
        inputs[LARGE] = _inputs(work, LARGE, prefix=False)
    columns = [*sizes, *([] if quick else [LARGE])]
    lines = [
        "## Scaling",
        "",
        f"Whole processes; {rounds} round(s) after a warm-up, the sizes of one command interleaved; "
        "times are medians, RSS the largest peak of the rounds. The fit is least squares of "
        "`wall = a + b * k` over the sizes (k = packages / 1000); *marginal* is the cost per 1k "
        "between the two largest sizes: far above `b`, the command grew super-linear.",
        "",
        "| command | "
        + " | ".join(f"{n // 1000}k wall / cpu / peak RSS" for n in columns)
        + " | fit: a + b per 1k | marginal per 1k | RSS per 1k |",
        "|---|" + "---|" * len(columns) + "---|---|---|",
    ]
    names = list(_commands(inputs[sizes[0]]))
    for name in names:
        at = [n for n in columns if n != LARGE or name in LARGE_COMMANDS]
        procs = [_commands(inputs[n])[name] for n in at]
        samples = interleave(procs, rounds)
        walls = [statistics.median(s.wall for s in ss) for ss in samples]
        cpus = [statistics.median(s.cpu for s in ss) for ss in samples]
        rss = [max(s.rss_kb for s in ss) / 1024 for ss in samples]
        ks = [n / 1000 for n in at]
        a, b = _fit(ks, walls)
        _, rb = _fit(ks, rss)
        marginal = (walls[-1] - walls[-2]) / (ks[-1] - ks[-2])
        cells = [
            f"{w * 1000:.0f} ms / {c * 1000:.0f} ms / {r:.0f} MiB"
            for w, c, r in zip(walls, cpus, rss, strict=False)
        ] + ["—"] * (len(columns) - len(at))
        lines.append(
            f"| {name} | " + " | ".join(cells) + f" | {a * 1000:.0f} ms + {b * 1000:.1f} ms | "
            f"{marginal * 1000:.1f} ms | {rb:.1f} MiB |"
        )
        print(f"scaling {name}: " + ", ".join(cells), flush=True)
    lines += [
        "",
        "Inputs: read, check and lock --check read an environment.yml (one pin per 40 packages) and "
        "its conda-lock.yml (conda-lock's quoting, envkit's content hash); diff and normalize the "
        "generated locks of the diff case (B: ~5% upgraded, 2% rebuilt, some removed/moved to pip); "
        "export a synthetic prefix (tests/support/condafactory.large_prefix, 10 files per record).",
    ]
    return "\n".join(lines)
