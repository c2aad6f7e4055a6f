"""Interpreter-bound commands against a bare interpreter start (`python -c pass`, the floor of any
Python CLI), both sides from a regular (non-editable) install of envkit (bench/_install.py), as a
user's `pip install envkit` has them: `envkit --version` (target <= 2.5x), and `check`, `normalize`
and `validate` of a real 31-line environment.yaml from the corpus, which need no lock reader,
py-rattler or solver (target <= 10x each: the import of click, the CLI's one argv parser, is part
of it).  The editable `.venv`'s figures (its path hook is in every start) are the further columns.
"""

import os
import sys
from pathlib import Path

from _install import CLEAN_ENV, regular_install
from run import Case, Proc, Side

CORPUS = Path(__file__).resolve().parent.parent / "tests" / "data" / "corpus"
SMALL = CORPUS / "09_CompVis__stable-diffusion__environment.yaml"


def cases(work):
    venv = regular_install(Path(work))
    envkit, py = str(venv / "bin" / "envkit"), str(venv / "bin" / "python")
    bare = Proc([py, "-c", "pass"], unset=CLEAN_ENV)
    edit = [sys.executable, "-m", "envkit"]
    lines = len(SMALL.read_text(encoding="utf-8").splitlines())
    out = [
        Case(
            name="envkit --version",
            measure=Proc([envkit, "--version"], unset=CLEAN_ENV),
            floor=bare,
            floor_label="python -c pass (regular install)",
            target=2.5,
            repeat=15,
            others=[
                Side("editable .venv: python -m envkit --version", edit + ["--version"], "alternative"),
                Side("editable .venv: python -c pass", [sys.executable, "-c", "pass"], "alternative"),
            ],
            notes="regular install: bin/envkit and bin/python of a venv with envkit's wheel",
        )
    ]
    for cmd, args, rc in (
        ("check", ["check"], None),
        ("normalize", ["normalize", "-o", os.devnull], 0),
        ("validate", ["validate"], 0),
    ):
        argv = args[:1] + [str(SMALL)] + args[1:]
        out.append(
            Case(
                name=f"envkit {cmd} of a {lines}-line environment.yaml",
                measure=Proc([envkit, *argv], rc=rc, unset=CLEAN_ENV),
                floor=bare,
                floor_label="python -c pass (regular install)",
                target=10.0,
                repeat=11,
                others=[
                    Side(f"editable .venv: python -m envkit {cmd}", Proc(edit + argv, rc=rc), "alternative")
                ],
                notes=f"{SMALL.name} (corpus); text output",
            )
        )
    return out
