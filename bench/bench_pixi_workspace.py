"""`envkit check` on a pixi workspace's lock: a generated pixi.lock (version 6) with 41 environments
over two platforms, about 2 MB, shaped as a big workspace's (every environment a feature mix over
one shared `packages:` list of 1,500 records), end to end (a process: interpreter start, reading
the file, every rule on every environment, text output).  Reference: a process that only reads the
same file with envkit's own reader (every environment, `read_pixi_environments`).  Target: <= 2x
reading it: `check` is linear in the file, and no rule reads the lock again per environment.
Alternative: the same file loaded with libyaml (`yaml.load(..., CSafeLoader)`).
"""

import hashlib
import sys
from pathlib import Path

from _sides import csafe_proc
from run import Case, Proc

ENVIRONMENTS = 41
PLATFORMS = ("linux-64", "osx-arm64")
RECORDS = 750  # per platform
PER_ENV = 260  # records each environment installs per platform


def _sha(*parts) -> str:
    return hashlib.sha256("/".join(map(str, parts)).encode()).hexdigest()


def _url(platform: str, i: int) -> str:
    name = f"pkg-{i:04d}-1.{i % 9}.{i % 4}-py312h{_sha(i)[:7]}_0.conda"
    return f"https://conda.anaconda.org/conda-forge/{platform}/{name}"


def write_lock(work: Path) -> tuple[Path, int]:
    """Write the workspace lock under `work`; returns its path and the number of (environment,
    platform, package) entries it holds."""
    work.mkdir(parents=True, exist_ok=True)
    out = ["version: 6", "environments:"]
    entries = 0
    for e in range(ENVIRONMENTS):
        name = "default" if e == 0 else f"feature-{e:02d}"
        out += [
            f"  {name}:",
            "    channels:",
            "    - url: https://conda.anaconda.org/conda-forge/",
            "    packages:",
        ]
        for platform in PLATFORMS:
            out.append(f"      {platform}:")
            # each environment a window of the shared records, windows overlapping as features do
            start = (e * 17) % (RECORDS - PER_ENV)
            out += [f"      - conda: {_url(platform, i)}" for i in range(start, start + PER_ENV)]
            entries += PER_ENV
    out.append("packages:")
    for platform in PLATFORMS:
        for i in range(RECORDS):
            out += [
                f"- conda: {_url(platform, i)}",
                f"  sha256: {_sha(platform, i)}",
                f"  md5: {_sha('md5', platform, i)[:32]}",
                "  depends:",
                "  - python >=3.12,<3.13.0a0",
                "  - python_abi 3.12.* *_cp312",
                f"  - pkg-{(i + 1) % RECORDS:04d} >=1.0",
                "  license: BSD-3-Clause",
                f"  size: {1000 + i}",
                f"  timestamp: {1700000000000 + i}",
            ]
    path = work / "pixi.lock"
    path.write_text("\n".join(out) + "\n")
    return path, entries


READ_CODE = (
    "import sys\nfrom envkit.formats.pixilock import read_pixi_environments\n"
    "p = sys.argv[1]\nenvs = read_pixi_environments(open(p, encoding='utf-8').read(), p)\n"
    "assert len(envs) == int(sys.argv[2]), len(envs)\n"
)


def cases(work):
    lock, entries = write_lock(Path(work) / "pixi-workspace")
    size = lock.stat().st_size
    return [
        Case(
            name=f"envkit check (pixi.lock, {ENVIRONMENTS} environments, {size / 1e6:.1f} MB)",
            measure=Proc([sys.executable, "-m", "envkit", "check", str(lock)]),  # clean: no finding
            floor=[sys.executable, "-c", READ_CODE, str(lock), str(ENVIRONMENTS)],
            floor_kind="floor",
            floor_label="python + envkit's read of every environment of the same file",
            others=[csafe_proc(lock)],
            target=2.0,
            repeat=9,
            work=f"{ENVIRONMENTS} environments, {entries:,} environment entries",
            notes="every rule on every environment; the lock is read once",
        ),
    ]
