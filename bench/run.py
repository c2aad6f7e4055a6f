#!/usr/bin/env python3
"""envkit's benchmark harness (`make bench`).

Every `bench/bench_*.py` defines `cases(work)`, returning `Case` objects: envkit's command (the
measured side), the reference its target ratio is judged against, and further comparisons, each
labelled a *floor* (a real lower bound: py-rattler's Rust readers, `json.loads` of the same data as
the parse limit) or an *alternative* (what a Python user would write: libyaml's CSafeLoader, ruamel).

On a shared machine absolute times swing by 3x between minutes, so the sides are interleaved: every
round runs each side once, the order reversed every other round (A B C, C B A, A B C, ...), after one
warm-up of each.  Each ratio is the median of the per-round ratios (both sides measured seconds
apart), with its min-max; times are medians with min-max of wall and CPU time (CPU: user + system of
the child process, or of this process for in-process sides).  The verdict uses the wall ratio.

`--quick` halves the rounds and runs the scaling table at 1k and 3k only; `-k TEXT` selects cases;
`--write FILE` writes everything as Markdown (bench/RESULTS.md).
"""

from __future__ import annotations

import argparse
import gc
import importlib.util
import os
import platform
import statistics
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parent
WORK = HERE / ".work"
QUICK = False  # set by --quick before the cases are built; modules may read it


@dataclass
class Proc:
    """A side run as a whole process: `argv`, which must exit with `rc`."""

    argv: list[str]
    rc: int | None = 0  # None: 0 or 1 (a finding or a difference), not an error
    unset: tuple[str, ...] = ()  # environment variables removed for this process


Runnable = Callable[[], object] | list[str] | Proc


@dataclass
class Side:
    """A comparison: `kind` is "floor" (a real lower bound) or "alternative" (what a user would write)."""

    label: str
    fn: Runnable
    kind: str = "floor"


@dataclass
class Case:
    """One measurement: `measure` against `floor` (the target's reference), plus `others`."""

    name: str
    measure: Runnable
    floor: Runnable | None
    target: float  # median(measure / floor) must be <= target
    floor_label: str
    floor_kind: str = "floor"
    others: list[Side] = field(default_factory=list)
    repeat: int = 7
    notes: str = ""
    #: the work both sides do, asserted equal when the case is built (e.g. "1,083 packages")
    work: str = ""
    #: a second target, judged after the timed runs (e.g. a quality ratio): returns whether it is met
    check: Callable[[], bool] | None = None
    skip: str = ""  # a reason: the case is reported as skipped, nothing is run


def skipped(name: str, reason: str) -> Case:
    return Case(name=name, measure=list, floor=None, target=0, floor_label="", skip=reason)


@dataclass
class Sample:
    wall: float
    cpu: float
    rss_kb: int = 0  # peak RSS of the child process (0 in-process)


def run_once(fn: Runnable) -> Sample:
    """Run one side once; a process's CPU time and peak RSS come from wait4 on that very child."""
    if callable(fn):
        # each in-process side starts with no garbage-collection debt: otherwise the side that runs
        # second pays for collections the first one's allocations made due
        gc.collect()
        c0, t0 = time.process_time(), time.perf_counter()
        fn()
        return Sample(time.perf_counter() - t0, time.process_time() - c0)
    proc = fn if isinstance(fn, Proc) else Proc(list(fn))
    rc, wall, cpu, rss = _spawn(proc.argv, proc.unset)
    if rc != proc.rc and not (proc.rc is None and rc in (0, 1)):
        raise RuntimeError(f"{' '.join(proc.argv)} exited {rc}, expected {proc.rc}")
    return Sample(wall, cpu, rss)


_LAUNCHER: list = []


def _spawn(argv: list[str], unset: tuple[str, ...] = ()) -> tuple[int, float, float, int]:
    """Run `argv` through bench/_spawn.py (see there why), started once."""
    import json

    if not _LAUNCHER:
        _LAUNCHER.append(
            subprocess.Popen(
                [sys.executable, "-S", str(HERE / "_spawn.py")],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                text=True,
                bufsize=1,
            )
        )
    la = _LAUNCHER[0]
    la.stdin.write(json.dumps({"argv": argv, "unset": list(unset)}) + "\n")
    la.stdin.flush()
    return tuple(json.loads(la.stdout.readline()))


def interleave(sides: list[Runnable], rounds: int) -> list[list[Sample]]:
    """`rounds` samples of each side, interleaved and order-reversed every other round."""
    for fn in sides:
        run_once(fn)  # warm-up: page cache, imports, .pyc
    out: list[list[Sample]] = [[] for _ in sides]
    for r in range(rounds):
        order = range(len(sides)) if r % 2 == 0 else reversed(range(len(sides)))
        for i in order:
            out[i].append(run_once(sides[i]))
    return out


def spread(xs: list[float], scale: float = 1000.0, unit: str = "ms") -> str:
    return f"{statistics.median(xs) * scale:.1f} {unit} [{min(xs) * scale:.1f}–{max(xs) * scale:.1f}]"


def rss(samples: list[Sample]) -> str:
    peak = max(s.rss_kb for s in samples)
    return f", peak RSS {peak / 1024:.0f} MiB" if peak else ""


def ratios(a: list[Sample], b: list[Sample], attr: str) -> list[float]:
    return [
        getattr(x, attr) / getattr(y, attr) if getattr(y, attr) else float("inf")
        for x, y in zip(a, b, strict=False)
    ]


@dataclass
class Result:
    case: Case
    samples: list[list[Sample]]
    labels: list[tuple[str, str]]  # (label, kind) of each side after the measured one
    ok: bool = False

    def ratio(self, i: int = 1, attr: str = "wall") -> list[float]:
        return ratios(self.samples[0], self.samples[i], attr)


def run_case(case: Case, quick: bool) -> Result:
    if case.skip:
        return Result(case, [], [])
    sides = [case.measure] + ([case.floor] if case.floor is not None else []) + [s.fn for s in case.others]
    labels = ([(case.floor_label, case.floor_kind)] if case.floor is not None else []) + [
        (s.label, s.kind) for s in case.others
    ]
    rounds = max(3, case.repeat // 2) if quick and case.repeat > 1 else case.repeat
    res = Result(case, interleave(sides, rounds), labels)
    med = statistics.median(res.ratio()) if case.floor is not None else 0.0
    res.ok = med <= case.target and (case.check is None or case.check())
    return res


def print_result(res: Result) -> None:
    case = res.case
    if case.skip:
        print(f"SKIP  {case.name}: {case.skip}", flush=True)
        return
    m = res.samples[0]
    print(
        f"{'PASS' if res.ok else 'MISS'}  {case.name} ({len(m)} runs): envkit {spread([s.wall for s in m])} "
        f"wall, {spread([s.cpu for s in m])} cpu",
        flush=True,
    )
    for i, (label, kind) in enumerate(res.labels, 1):
        tgt = f" (target <= {case.target}x)" if i == 1 else ""
        print(
            f"      vs {kind} {label}: {spread([s.wall for s in res.samples[i]])} wall = "
            f"{statistics.median(res.ratio(i)):.2f}x wall, "
            f"{statistics.median(res.ratio(i, 'cpu')):.2f}x cpu{tgt}",
            flush=True,
        )


def load_cases(only: str | None) -> Iterator[Case]:
    """Each module's cases, built when the run reaches that module: the data of the modules run
    before is gone by then (see _release), so no case's garbage collections walk another's data."""
    for path in sorted(HERE.glob("bench_*.py")):
        spec = importlib.util.spec_from_file_location(path.stem, path)
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)
        yield from (case for case in mod.cases(WORK) if not only or only in case.name)


def _release(case: Case) -> None:
    """Drop what `case` ran (its closures hold its inputs: locks of thousands of records); its
    result keeps only the names and numbers the report prints."""
    case.measure = case.floor = list
    case.others = [Side(s.label, list, s.kind) for s in case.others]
    case.check = None


def _ratio_cell(res: Result, i: int) -> str:
    w, c = res.ratio(i), res.ratio(i, "cpu")
    return f"{statistics.median(w):.2f}x [{min(w):.2f}–{max(w):.2f}] / {statistics.median(c):.2f}x"


def markdown(results: list[Result], scaling: str, argv: list[str], seconds: float) -> str:
    lines = [
        "# envkit benchmark results",
        "",
        f"Generated by `{' '.join(argv)}` (bench/run.py) in {seconds / 60:.1f} min on {platform.machine()}, "
        f"{os.cpu_count()} CPUs, Python {platform.python_version()}, {time.strftime('%Y-%m-%d')}.",
        "",
        "How to read it: every round runs each side of a case once, the order reversed every other round, "
        "after one warm-up of each; *runs* is the number of rounds. Times are the median "
        "[min–max] of the wall time; a ratio is the median [min–max] of the per-round wall ratios, "
        "then the median per-round CPU-time ratio (user + system); a process's peak RSS is the largest "
        "of its rounds. The verdict uses the median wall ratio. "
        "A *floor* is a real lower bound (py-rattler's Rust readers, `json.loads` of the same data as the "
        "parse limit, a bare interpreter); an *alternative* is what a Python user would write "
        "(PyYAML's CSafeLoader, ruamel.yaml).",
        "",
        "Floors of the start-up cases (`envkit --version`, the small file, the files near the size "
        "limits): a regular, non-editable install of this checkout (its wheel installed with `--no-deps` "
        "into a venv under bench/.work, bench/_install.py), `bin/envkit` against `bin/python -c pass` "
        "of that venv, as a user's `pip install envkit` has them; the editable `.venv`'s figures (its "
        "path hook is in every start) are the further comparisons. Other process cases run "
        "`python -m envkit` of the editable `.venv` on both sides.",
        "",
        "## Targets",
        "",
        "| case | runs | envkit (wall) | reference (wall) | ratio wall [min–max] / cpu | target | |",
        "|---|---|---|---|---|---|---|",
    ]
    for res in results:
        c = res.case
        if c.skip:
            lines.append(f"| {c.name} | 0 | — | — | — | <= {c.target}x | skipped: {c.skip} |")
            continue
        m = res.samples[0]
        if c.floor is None:
            continue
        lines.append(
            f"| {c.name} | {len(m)} | {spread([s.wall for s in m])}{rss(m)} | {c.floor_kind}: "
            f"{c.floor_label}: {spread([s.wall for s in res.samples[1]])}{rss(res.samples[1])} | "
            f"{_ratio_cell(res, 1)} | <= {c.target}x | "
            f"{'met' if res.ok else 'missed'} |"
        )
    lines += [
        "",
        "## Further comparisons (same rounds, same interleaving)",
        "",
        "| case | kind | side (wall) | envkit / side: wall [min–max] / cpu |",
        "|---|---|---|---|",
    ]
    for res in results:
        for i, (label, kind) in enumerate(res.labels[1:], 2):
            lines.append(
                f"| {res.case.name} | {kind} | {label}: {spread([s.wall for s in res.samples[i]])} | "
                f"{_ratio_cell(res, i)} |"
            )
    notes = [
        f"- {r.case.name}: "
        + "; ".join(x for x in (r.case.work and f"work (asserted equal): {r.case.work}", r.case.notes) if x)
        for r in results
        if r.case.notes or r.case.work
    ]
    if notes:
        lines += ["", "Notes:", ""] + notes
    if scaling:
        lines += ["", scaling]
    return "\n".join(lines) + "\n"


def compile_envkit() -> None:
    """Write envkit's .pyc files, as `pip install` does: with PYTHONDONTWRITEBYTECODE set (as in some
    CI shells) every process would otherwise compile envkit's sources again, a cost no user pays."""
    import compileall

    compileall.compile_dir(str(HERE.parent / "envkit"), quiet=1)


def main() -> int:
    global QUICK
    ap = argparse.ArgumentParser()
    ap.add_argument("--write", help="write the results as Markdown to this file")
    ap.add_argument("-k", help="only cases whose name contains this")
    ap.add_argument("--quick", action="store_true", help="fewer rounds; scaling at 1k and 3k only")
    ap.add_argument("--no-scaling", action="store_true", help="skip the scaling table")
    ap.add_argument("--scaling-only", action="store_true", help="only the scaling table (no cases)")
    args = ap.parse_args()
    QUICK = args.quick
    sys.modules.setdefault("run", sys.modules["__main__"])  # `from run import Case` sees this module
    start = time.perf_counter()
    WORK.mkdir(exist_ok=True)
    sys.path.insert(0, str(HERE.parent))
    sys.path.insert(0, str(HERE))
    compile_envkit()
    results = []
    for case in [] if args.scaling_only else load_cases(args.k):
        try:
            res = run_case(case, args.quick)
        except Exception as exc:  # one broken case is reported, the others still run
            case.skip = f"failed: {type(exc).__name__}: {str(exc)[:160]}"
            res = Result(case, [], [])
        _release(case)
        print_result(res)
        results.append(res)
    scaling = ""
    if not args.no_scaling and not args.k:
        import scaling as sc

        scaling = sc.run(WORK, quick=args.quick)
        print(scaling, flush=True)
    seconds = time.perf_counter() - start
    print(f"bench: {len(results)} cases in {seconds:.0f} s", flush=True)
    if args.write:
        argv = ["python", "bench/run.py"] + sys.argv[1:]
        Path(args.write).write_text(markdown(results, scaling, argv, seconds), encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
