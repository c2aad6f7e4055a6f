"""`envkit fleet` over 1,000 hosts' collected files (`conda env export` files, 150 packages each):
grouping them, against a process that only loads the same files with libyaml (CSafeLoader, the
alternative; target <= 2x).  990 hosts share one environment, ten are outliers in three groups;
every file names its host in its `prefix:` line, so no two are byte-identical.

A second target: memory grows with distinct environments, not hosts.  The peak RSS of grouping
1,000 hosts is compared with that of grouping 100 hosts with the same four environments (at most
1.25x).
"""

import sys
from pathlib import Path

from _sides import csafe_argv
from run import Case, Proc, run_once

HOSTS = 1000
PACKAGES = 150


def export_text(variant: int, host: str) -> str:
    lines = ["name: research", "channels:", "  - conda-forge", "dependencies:"]
    for i in range(PACKAGES):
        version = f"{1 + i % 7}.{i % 13}.{i % 5}"
        build = f"py311h{i:06x}_0"
        if variant == 1 and i == 17:
            version += ".post1"
        if variant == 2 and i == 40:
            build = f"py311h{i:06x}_1"
        if variant == 3 and i == 90:
            continue
        lines.append(f"  - pkg-{i:03d}={version}={build}")
    lines += ["  - pip", "  - pip:", "    - einops==0.7.0", f"prefix: /home/{host}/miniforge3/envs/research"]
    return "\n".join(lines) + "\n"


def collected(work: Path, hosts: int) -> Path:
    d = work / f"fleet-{hosts}"
    if not d.exists():
        d.mkdir()
        for i in range(hosts):
            variant = 1 + i % 3 if i < 10 else 0
            (d / f"node{i:04d}.yml").write_text(export_text(variant, f"node{i:04d}"))
    return d


def cases(work):
    py = sys.executable
    big = collected(Path(work), HOSTS)
    small = collected(Path(work), 100)
    files = sorted(big.iterdir())
    fleet = [py, "-m", "envkit", "fleet", str(big), "--format", "json"]
    small_fleet = [py, "-m", "envkit", "fleet", str(small), "--format", "json"]

    def memory_is_per_environment() -> bool:
        a = run_once(Proc(fleet, rc=1)).rss_kb
        b = run_once(Proc(small_fleet, rc=1)).rss_kb
        print(f"      peak RSS: {HOSTS} hosts {a / 1024:.0f} MiB, 100 hosts {b / 1024:.0f} MiB", flush=True)
        return a <= 1.25 * b

    return [
        Case(
            name=f"envkit fleet of {HOSTS:,} collected files (CLI)",
            measure=Proc(fleet, rc=1),
            floor=csafe_argv(*files),
            floor_kind="alternative",
            floor_label=f"python + PyYAML CSafeLoader load of the {HOSTS:,} files",
            target=2.0,
            repeat=5,
            work=f"{HOSTS:,} files of {PACKAGES} conda packages and 1 pip package",
            notes="whole processes; JSON report of 4 groups (exit code 1 asserted); files that differ "
            "only in their `name:`/`prefix:` lines are parsed once; memory: "
            "peak RSS at 1,000 hosts <= 1.25x that at 100 hosts with the same 4 environments",
            check=memory_is_per_environment,
        )
    ]
