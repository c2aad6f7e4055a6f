"""Comparison sides shared by the bench modules: the parse-limit floor (`json.loads` of the same
data, as JSON), py-rattler's readers, and the CSafeLoader alternative."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from run import Side

PY = sys.executable


def json_twin(path: Path) -> Path:
    """The same data as `path` (YAML) written as JSON beside it: json.loads of it is the parse limit."""
    out = path.with_name(path.name + ".json")
    if "tests" in path.parts:  # a corpus file: its twin goes to the work dir, not beside it
        out = Path(__file__).resolve().parent / ".work" / "twins" / out.name
        out.parent.mkdir(parents=True, exist_ok=True)
    if not out.exists() or out.stat().st_mtime < path.stat().st_mtime:
        import yaml

        data = yaml.load(path.read_text(encoding="utf-8"), Loader=yaml.CSafeLoader)
        out.write_text(json.dumps(data, default=str), encoding="utf-8")
    return out


def json_loads_proc(*paths: Path) -> Side:
    twins = [str(json_twin(p)) for p in paths]
    code = "import json, sys\nfor p in sys.argv[1:]:\n    json.loads(open(p, encoding='utf-8').read())\n"
    return Side("python + json.loads of the same data", [PY, "-c", code, *twins], "floor")


def json_loads_inproc(*paths: Path) -> Side:
    twins = [json_twin(p) for p in paths]

    def fn():
        for p in twins:
            json.loads(p.read_text(encoding="utf-8"))

    return Side("json.loads of the same data", fn, "floor")


CSAFE_CODE = (
    "import sys, yaml\nfor p in sys.argv[1:]:\n"
    "    yaml.load(open(p, encoding='utf-8').read(), Loader=yaml.CSafeLoader)\n"
)


def csafe_argv(*paths: Path) -> list[str]:
    return [PY, "-c", CSAFE_CODE, *map(str, paths)]


def csafe_proc(*paths: Path) -> Side:
    return Side("python + PyYAML CSafeLoader load", csafe_argv(*paths), "alternative")


RATTLER_LOCK_CODE = (
    "import sys, rattler\nfor p in sys.argv[1:]:\n"
    "    for _n, env in rattler.LockFile.from_path(p).environments():\n"
    "        for pkgs in env.packages_by_platform().values():\n"
    "            [(x.name, x.version, x.location) for x in pkgs]\n"
)


def rattler_lock_proc(*paths: Path) -> Side:
    return Side(
        "python + py-rattler LockFile read (name/version/url)",
        [PY, "-c", RATTLER_LOCK_CODE, *map(str, paths)],
        "floor",
    )
