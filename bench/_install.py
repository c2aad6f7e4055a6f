"""The regular install the startup floors come from: envkit as `pip install envkit` leaves it.

The shared `.venv` holds an editable install, whose path hook adds 30 ms to every start of that
interpreter, `python -c pass` included; against that floor envkit's own start looks small.  Here a
wheel of the checkout is built (offline, setuptools from the running interpreter) and installed
with `--no-deps` into a fresh venv under bench/.work, so its `bin/envkit` console script and
`bin/python -c pass` start as a user's do.  envkit's dependencies come from the running
interpreter's site-packages through a `.pth` line (a plain path entry: that directory's own `.pth`
files, the editable hook among them, are not run).  The venv is kept between runs, keyed on a hash
of the sources and pyproject.toml.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
import sysconfig
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

#: unset in every process started from the regular install, so that a PYTHONPATH pointing at a
#: checkout (as in a development shell) cannot put the sources ahead of the installed package
CLEAN_ENV = ("PYTHONPATH", "PYTHONHOME", "PYTHONSTARTUP", "PYTHONDONTWRITEBYTECODE")


def _source_hash() -> str:
    h = hashlib.sha256()
    for p in sorted([ROOT / "pyproject.toml", *(ROOT / "envkit").rglob("*")]):
        if p.is_file() and "__pycache__" not in p.parts:
            h.update(str(p.relative_to(ROOT)).encode() + b"\0" + p.read_bytes() + b"\0")
    return h.hexdigest()[:12]


def regular_install(work: Path) -> Path:
    """The venv directory (bin/python, bin/envkit) of a regular install of this checkout."""
    work = work.resolve()
    key = _source_hash()
    venv = work / f"install-{key}"
    if (venv / ".complete").exists() and (venv / "bin" / "envkit").exists():
        return venv
    for old in work.glob("install-*"):
        shutil.rmtree(old, ignore_errors=True)
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    # without PYTHONPATH: a checkout on it (with the envkit.egg-info the wheel build leaves there)
    # reads as envkit already installed, and pip would then install nothing
    env = {k: v for k, v in os.environ.items() if k not in CLEAN_ENV}
    with tempfile.TemporaryDirectory(dir=work) as tmp:
        pip = [sys.executable, "-m", "pip", "--disable-pip-version-check", "-q"]
        subprocess.run(
            pip + ["wheel", "--no-deps", "--no-build-isolation", "--no-index", "-w", tmp, str(ROOT)],
            check=True,
            cwd=tmp,
            env=env,
        )
        wheel = next(Path(tmp).glob("envkit-*.whl"))
        target = ["--python", str(venv / "bin" / "python"), "install", "--no-deps", "--no-index"]
        subprocess.run(pip + target + [str(wheel)], check=True, env=env)
    if not (venv / "bin" / "envkit").exists():
        raise RuntimeError(f"pip installed no bin/envkit into {venv}")
    purelib = Path(
        subprocess.run(
            [venv / "bin" / "python", "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
            check=True,
            capture_output=True,
            text=True,
        ).stdout.strip()
    )
    (purelib / "zz_envkit_bench_deps.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    (venv / ".complete").write_text(key + "\n")
    return venv
