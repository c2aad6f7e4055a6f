"""Native `envkit export` of a generated 500-package prefix against py-rattler reading the same
`conda-meta/*.json` records (the floor).  Target: <= 3x.

Two cases: in-process (read + map + write environment.yml, against `PrefixRecord.from_path` for
every record), and the command line end to end (`envkit export -p PREFIX` as a process, against a
process that imports rattler and reads the records).
"""
import sys
from pathlib import Path

from run import Case

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
        from envkit.commands.export import render_export

        render_export(read_prefix(prefix), fmt="yaml")

    def floor():
        from rattler import PrefixRecord

        for r in records:
            PrefixRecord.from_path(r)

    floor_script = ("import glob, sys\nfrom rattler import PrefixRecord\n"
                    "[PrefixRecord.from_path(p) for p in glob.glob(sys.argv[1] + '/conda-meta/*.json')]")
    return [
        Case(name=f"export {N}-package prefix (in-process)", measure=measure, floor=floor,
             floor_label="rattler PrefixRecord.from_path x500", target=3.0, repeat=7,
             notes="read_prefix + environment.yml text; records list 40+ files each"),
        Case(name=f"envkit export -p ({N} packages, CLI)",
             measure=[sys.executable, "-m", "envkit", "export", "-p", str(prefix), "-o", "/dev/null"],
             floor=[sys.executable, "-c", floor_script, str(prefix)],
             floor_label="python: import rattler + read records", target=3.0, repeat=5,
             notes="whole process, interpreter start included on both sides"),
    ]
