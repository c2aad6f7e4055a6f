"""Interpreter-bound commands against a bare interpreter start (`python -c pass`, the floor of any
Python CLI): `envkit --version` (target <= 2.5x) and `envkit check` of a 7-line environment.yml,
which needs no lock reader, py-rattler or YAML engine beyond what the file asks for (target <= 4x).
"""

import sys
from pathlib import Path

from run import Case, Proc

SMALL = """name: small
channels:
  - conda-forge
  - nodefaults
dependencies:
  - python=3.11
  - numpy>=1.26
"""


def cases(work):
    small = Path(work) / "small-environment.yml"
    small.write_text(SMALL)
    py = sys.executable
    bare = [py, "-c", "pass"]
    return [
        Case(
            name="envkit --version",
            measure=[py, "-m", "envkit", "--version"],
            floor=bare,
            floor_label="python -c pass",
            target=2.5,
            repeat=15,
            notes="both sides the same interpreter (with the editable install's path hook, if any)",
        ),
        Case(
            name="envkit check of a 7-line environment.yml",
            measure=Proc([py, "-m", "envkit", "check", str(small)]),
            floor=bare,
            floor_label="python -c pass",
            target=4.0,
            repeat=11,
            notes="no finding; text output",
        ),
    ]
