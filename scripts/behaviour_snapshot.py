"""Record what envkit prints for every file under tests/data/, to hold a refactor to the same behaviour.

    python scripts/behaviour_snapshot.py OUT.json          # record
    python scripts/behaviour_snapshot.py --compare A B     # exit 1 and list the differences

Each file gets `check --format json`, `validate`, `normalize` (to stdout) and `diff F F`; the record
keeps the exit code, stdout and stderr of each.  Runs the `envkit` of the interpreter that runs it.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
COMMANDS = (
    ("check", "--format", "json", "{f}"),
    ("validate", "{f}"),
    ("normalize", "{f}", "-o", "-"),
    ("diff", "{f}", "{f}"),
)


def _run(args: tuple[str, ...]) -> dict[str, object]:
    env = {**os.environ, "NO_COLOR": "1", "COLUMNS": "120"}
    proc = subprocess.run(
        [sys.executable, "-m", "envkit", *args],
        capture_output=True,
        text=True,
        env=env,
        cwd=ROOT,
        timeout=300,
    )
    return {"rc": proc.returncode, "out": proc.stdout, "err": proc.stderr}


def record(out: Path) -> None:
    files = sorted(
        p.relative_to(ROOT).as_posix() for p in (ROOT / "tests" / "data").rglob("*") if p.is_file()
    )
    jobs = [(f, tuple(a.format(f=f) for a in cmd)) for f in files for cmd in COMMANDS]
    with ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as pool:
        results = list(pool.map(lambda job: _run(job[1]), jobs))
    snap = {" ".join(args): res for (_, args), res in zip(jobs, results, strict=True)}
    out.write_text(json.dumps(snap, indent=1, sort_keys=True))
    print(f"{len(snap)} runs over {len(files)} files -> {out}")


def compare(a: Path, b: Path) -> int:
    old, new = json.loads(a.read_text()), json.loads(b.read_text())
    bad = [k for k in sorted(set(old) | set(new)) if old.get(k) != new.get(k)]
    for key in bad:
        print(f"differs: envkit {key}")
        for part in ("rc", "out", "err"):
            x, y = (old.get(key) or {}).get(part), (new.get(key) or {}).get(part)
            if x != y:
                print(f"  {part}: {str(x)[:300]!r}\n    -> {str(y)[:300]!r}")
    print(f"{len(old)} runs, {len(bad)} differ")
    return 1 if bad else 0


if __name__ == "__main__":
    if sys.argv[1] == "--compare":
        sys.exit(compare(Path(sys.argv[2]), Path(sys.argv[3])))
    record(Path(sys.argv[1]))
