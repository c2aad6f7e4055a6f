"""Native `envkit export` of a generated 500-package prefix against py-rattler reading the same
`conda-meta/*.json` records (the floor).

Two cases: the command line end to end (`envkit export -p PREFIX` as a process, against a process
that imports rattler and reads the records; target <= 1.3x), and in-process (read + map + write
environment.yml, against `PrefixRecord.from_path` for every record; target <= 3x).  The parse
limit, `json.loads` of every record, is the second floor of both.
"""

import sys
from pathlib import Path

from run import Case, Side

N = 500


def _prefix(work: Path) -> Path:
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    from tests.support.condafactory import large_prefix

    prefix = work / f"export-prefix-{N}"
    if not (prefix / "conda-meta" / "history").exists():
        import shutil

        shutil.rmtree(prefix, ignore_errors=True)
        large_prefix(prefix, N, pip=10)
    return prefix


def cases(work):
    prefix = _prefix(Path(work))
    records = sorted(str(p) for p in (prefix / "conda-meta").glob("*.json"))

    def measure():
        from envkit.backends.native import read_prefix
        from envkit.render.export import render_export

        render_export(read_prefix(prefix), fmt="yaml")

    def floor():
        from rattler import PrefixRecord

        for r in records:
            PrefixRecord.from_path(r)

    def json_floor():
        import json

        for r in records:
            with open(r, encoding="utf-8") as fh:
                json.loads(fh.read())

    json_script = (
        "import glob, json, sys\n"
        "[json.loads(open(p, encoding='utf-8').read())\n"
        " for p in glob.glob(sys.argv[1] + '/conda-meta/*.json')]"
    )
    floor_script = (
        "import glob, sys\nfrom rattler import PrefixRecord\n"
        "[PrefixRecord.from_path(p) for p in glob.glob(sys.argv[1] + '/conda-meta/*.json')]"
    )
    return [
        Case(
            name=f"export {N}-package prefix (in-process)",
            measure=measure,
            floor=floor,
            floor_label="rattler PrefixRecord.from_path x500",
            target=3.0,
            repeat=9,
            others=[Side("json.loads of every record", json_floor)],
            notes="read_prefix + environment.yml text; records list 40+ files each",
        ),
        Case(
            name=f"envkit export -p ({N} packages, CLI)",
            measure=[sys.executable, "-m", "envkit", "export", "-p", str(prefix), "-o", "/dev/null"],
            floor=[sys.executable, "-c", floor_script, str(prefix)],
            floor_label="python: import rattler + PrefixRecord.from_path of every record",
            target=1.3,
            repeat=15,
            others=[
                Side("python + json.loads of every record", [sys.executable, "-c", json_script, str(prefix)])
            ],
            notes="whole process, interpreter start included on both sides",
        ),
    ]
