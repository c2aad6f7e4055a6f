"""`envkit audit` of a 3,000-package conda-lock.yml (bench_check's: conda Python packages, matched
through their PyPI identity) against an OSV database the size of OSV's whole PyPI dump (18,000
records over 6,000 projects, a zip of JSON records like `PyPI/all.zip`), after the index is built
once (target: <= 2 s, and <= 3x a bare load of the same index and lock).

The records are synthetic but shaped as the real dump's are: ECOSYSTEM ranges closed by `fixed` or
`last_affected`, the affected versions listed as well, aliases, a CVSS 3.1 vector on a third.
Every package of the lock has three advisories to judge.

`cases()` follows bench/run.py's Case protocol; `python bench/bench_audit.py` times the first build
and the audit on its own.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
import zipfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

PROJECTS = 6000
PER_PROJECT = 3
VECTOR = "CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:N/I:H/A:N"
#: the lock's versions are {1..7}.{0..12}.{0..4}: each range catches some of them
EVENTS = (
    [{"introduced": "0"}, {"fixed": "2.0.0"}],
    [{"introduced": "3.0"}, {"fixed": "3.5.0"}],
    [{"introduced": "5.0"}, {"last_affected": "5.9.4"}],
)


def make_db(path: Path) -> int:
    """Write the synthetic dump to `path`; returns the number of records."""
    n = 0
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        for p in range(PROJECTS):
            name = f"pkg-{p:04d}"
            for k in range(PER_PROJECT):
                n += 1
                rec = {
                    "id": f"PYSEC-2099-{n}",
                    "aliases": [f"CVE-2099-{n}", f"GHSA-xxxx-{n:04d}"],
                    "summary": f"synthetic advisory {n} of {name}",
                    "affected": [
                        {
                            "package": {"ecosystem": "PyPI", "name": name, "purl": f"pkg:pypi/{name}"},
                            "ranges": [{"type": "ECOSYSTEM", "events": EVENTS[k]}],
                            "versions": [f"{1 + 2 * k}.{v}.0" for v in range(5)],
                        }
                    ],
                }
                if n % 3 == 0:
                    rec["severity"] = [{"type": "CVSS_V3", "score": VECTOR}]
                z.writestr(f"PYSEC-2099-{n}.json", json.dumps(rec))
    return n


def _setup(work: Path) -> tuple[Path, Path]:
    from bench_check import write_inputs

    work.mkdir(parents=True, exist_ok=True)
    db = work / "audit-all.zip"
    if not db.exists():
        make_db(db)
    _spec, lock = write_inputs(work / "audit")
    return db, lock


def _audit_argv(db: Path, lock: Path) -> list[str]:
    return [sys.executable, "-m", "envkit", "audit", "--db", str(db), "--fail-on", "never", str(lock)]


def _floor_argv(db: Path, lock: Path) -> list[str]:
    code = (
        "import json,sys,yaml;json.load(open(sys.argv[1]));"
        "yaml.load(open(sys.argv[2]),Loader=yaml.CSafeLoader)"
    )
    return [sys.executable, "-c", code, f"{db}.envkit-index.json", str(lock)]


def _within_2s(db: Path, lock: Path) -> bool:
    start = time.perf_counter()
    subprocess.run(_audit_argv(db, lock), check=True, capture_output=True)
    return time.perf_counter() - start <= 2.0


def cases(work):
    from run import Case, Proc

    db, lock = _setup(Path(work))
    subprocess.run(_audit_argv(db, lock), check=True, capture_output=True)  # the first build
    return [
        Case(
            name="envkit audit (3,000-package conda-lock.yml, 18,000-record OSV dump, index built)",
            measure=Proc(_audit_argv(db, lock)),
            floor=Proc(_floor_argv(db, lock)),
            floor_label="python + json.load of the index + CSafeLoader load of the lock",
            target=3.0,
            repeat=5,
            work="3,000 packages, 18,000 advisories",
            check=lambda: _within_2s(db, lock),
            notes="absolute target: <= 2 s per audit (the `check`); every package matched, "
            "the dump's content hashed to find its index",
        )
    ]


def main() -> None:
    work = HERE / ".work"
    db, lock = _setup(work)
    index = Path(f"{db}.envkit-index.json")
    if index.exists():
        index.unlink()
    for label in ("first (builds the index)", "second", "third"):
        start = time.perf_counter()
        proc = subprocess.run(_audit_argv(db, lock), capture_output=True, text=True)
        took = time.perf_counter() - start
        print(f"{label}: {took:.2f} s  ({proc.stdout.strip().splitlines()[-1]})")


if __name__ == "__main__":
    main()
