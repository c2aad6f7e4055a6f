"""`envkit diff` of two generated conda-lock.yml files.

* 3,000 packages, end to end (a process: interpreter start, reading both locks, diffing, JSON
  output), against a process that only loads the same two files with libyaml (CSafeLoader, the
  alternative; target <= 1.5x); floors: json.loads of the same data, py-rattler reading both.
* 30,000 packages, end to end, against a process that reads both with envkit's own reader
  (`envkit.read_file`): what the diff adds to reading (target <= 1.5x).

B differs from A the way two solves of one spec a month apart differ: about 5% of the packages
upgraded, 2% rebuilt, a few added, removed and moved to pip.
"""

import hashlib
import sys
from pathlib import Path

from _sides import csafe_argv, json_loads_proc, rattler_lock_proc
from run import QUICK, Case, Proc

N = 3000
BIG = 30000


def _sha(*parts) -> str:
    return hashlib.sha256("/".join(map(str, parts)).encode()).hexdigest()


def lock_text(n: int, variant: int) -> str:
    """A conda-lock.yml (version 1) with `n` linux-64 packages; `variant` 1 changes some of them."""
    out = [
        "version: 1",
        "metadata:",
        "  content_hash:",
        f"    linux-64: {_sha('hash', variant)}",
        "  channels:",
        "  - url: conda-forge",
        "    used_env_vars: []",
        "  platforms:",
        "  - linux-64",
        "  sources:",
        "  - environment.yml",
        "package:",
    ]
    for i in range(n):
        name = f"pkg-{i:04d}"
        major, minor, build_no = 1 + i % 7, i % 13, 0
        manager = "conda"
        if variant:
            if i % 20 == 0:
                minor += 1
            if i % 50 == 7:
                build_no = 1
            if i % 500 == 3:
                continue  # removed
            if i % 300 == 11:
                manager = "pip"
        version = f"{major}.{minor}.{i % 5}"
        build = f"py311h{_sha(name, version)[:7]}_{build_no}"
        out += [
            f"- name: {name}",
            f"  version: {version}",
            f"  manager: {manager}",
            "  platform: linux-64",
            "  dependencies:",
            "    python: '>=3.11,<3.12.0a0'",
            f"    pkg-{(i + 1) % n:04d}: '>=1.0'",
            "    libzlib: '>=1.2.13,<2.0a0'",
        ]
        if manager == "conda":
            out += [
                f"  url: https://conda.anaconda.org/conda-forge/linux-64/{name}-{version}-{build}.conda",
                "  hash:",
                f"    md5: {_sha('md5', name, version, build)[:32]}",
                f"    sha256: {_sha(name, version, build)}",
            ]
        else:
            out += [
                f"  url: https://files.pythonhosted.org/packages/{name}-{version}-py3-none-any.whl",
                "  hash:",
                f"    sha256: {_sha(name, version)}",
            ]
        out += ["  category: main", "  optional: false"]
    if variant:
        for j in range(5):
            name = f"new-{j}"
            out += [
                f"- name: {name}",
                "  version: 0.1.0",
                "  manager: conda",
                "  platform: linux-64",
                "  dependencies: {}",
                f"  url: https://conda.anaconda.org/conda-forge/noarch/{name}-0.1.0-pyhd8ed1ab_0.conda",
                "  hash:",
                f"    md5: {_sha('md5', name)[:32]}",
                f"    sha256: {_sha(name)}",
                "  category: main",
                "  optional: false",
            ]
    return "\n".join(out) + "\n"


def locks(work: Path, n: int = N) -> tuple[Path, Path]:
    a, b = work / f"diff-a-{n}.conda-lock.yml", work / f"diff-b-{n}.conda-lock.yml"
    for path, variant in ((a, 0), (b, 1)):
        if not path.exists():
            path.write_text(lock_text(n, variant))
    return a, b


READ_BOTH = "import sys\nfrom envkit.formats import read_file\nfor p in sys.argv[1:]:\n    read_file(p)\n"


def cases(work):
    py = sys.executable
    a, b = locks(Path(work))
    out = [
        Case(
            name=f"envkit diff of two {N:,}-package conda-lock.yml (CLI)",
            measure=Proc([py, "-m", "envkit", "diff", str(a), str(b), "--format", "json"], rc=1),
            floor=csafe_argv(a, b),
            floor_kind="alternative",
            floor_label="python + PyYAML CSafeLoader load of both files",
            target=1.5,
            repeat=7,
            others=[json_loads_proc(a, b), rattler_lock_proc(a, b)],
            notes=(
                "whole processes, interpreter start included on all sides; JSON output (exit code 1 asserted)"
            ),
        ),
    ]
    big_a, big_b = locks(Path(work), BIG)
    out.append(
        Case(
            name=f"envkit diff of two {BIG:,}-package conda-lock.yml (CLI) vs reading both",
            measure=Proc([py, "-m", "envkit", "diff", str(big_a), str(big_b), "--format", "json"], rc=1),
            floor=[py, "-c", READ_BOTH, str(big_a), str(big_b)],
            floor_label="python + envkit.read_file of both",
            target=1.5,
            repeat=3 if QUICK else 5,
            others=[json_loads_proc(big_a, big_b)],
            notes=(
                "what diffing, duplicate detection, highlights and the JSON report add "
                "to reading the two locks"
            ),
        )
    )
    return out
