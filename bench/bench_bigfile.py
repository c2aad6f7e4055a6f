"""Files just under envkit's input limits, from the regular install (bench/_install.py).

* An environment.yml of 99,990 pinned dependencies (bench/gen_big_env.py), just under the
  100,000-entry limit: `validate`, `check` and `normalize` each <= 2x a CSafeLoader load of it.
* `normalize --check` of a 1.6 MB environment.yml that normalize rewrites (every entry indented by
  four spaces: the check's diff has every line) <= 1.2x `normalize` of it to a file.

In --quick only `check` of the first file and the normalize --check case run.
"""

from __future__ import annotations

import os
from pathlib import Path

from _install import CLEAN_ENV, regular_install
from _sides import CSAFE_CODE
from gen_big_env import big_env_text
from run import QUICK, Case, Proc

NEAR_LIMIT = 99_990
MB16 = 35_000  # dependencies of the 1.6 MB file


def _write(path: Path, text: str) -> Path:
    if not path.exists() or path.read_text(encoding="utf-8") != text:
        path.write_text(text, encoding="utf-8")
    return path


def cases(work: Path) -> list[Case]:
    work = Path(work)
    venv = regular_install(work)
    envkit, py = str(venv / "bin" / "envkit"), str(venv / "bin" / "python")
    near = _write(work / f"env-{NEAR_LIMIT}.yml", big_env_text(NEAR_LIMIT))
    wide = _write(work / "env-1.6mb-indent4.yml", big_env_text(MB16).replace("\n  - ", "\n    - "))
    csafe = Proc([py, "-c", CSAFE_CODE, str(near)], unset=CLEAN_ENV)
    runs = {
        "validate": ([envkit, "validate", str(near)], 0),
        "check": ([envkit, "check", str(near)], None),
        "normalize": ([envkit, "normalize", str(near), "-o", os.devnull], 0),
    }
    out = [
        Case(
            name=f"envkit {cmd} of a {NEAR_LIMIT:,}-dependency environment.yml",
            measure=Proc(argv, rc=rc, unset=CLEAN_ENV),
            floor=csafe,
            floor_kind="alternative",
            floor_label="python + PyYAML CSafeLoader load",
            target=2.0,
            repeat=3,
            notes=f"{near.stat().st_size / 1e6:.1f} MB, just under the 100,000-entry limit",
        )
        for cmd, (argv, rc) in runs.items()
        if not QUICK or cmd == "check"
    ]
    out.append(
        Case(
            name="envkit normalize --check of a 1.6 MB environment.yml",
            measure=Proc([envkit, "normalize", "--check", str(wide)], rc=1, unset=CLEAN_ENV),
            floor=Proc([envkit, "normalize", str(wide), "-o", os.devnull], unset=CLEAN_ENV),
            floor_label="envkit normalize of it",
            target=1.2,
            repeat=5,
            notes=f"{wide.stat().st_size / 1e6:.2f} MB, {MB16:,} dependencies, every line rewritten "
            "(the check prints a diff of every line)",
        )
    )
    return out
