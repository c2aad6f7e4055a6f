"""A real conda with envkit installed beside it, so that conda loads envkit's plugin through the
`conda` entry point group (pyproject.toml), as it does for a user who `pip install`s envkit into
conda's Python.

The oracle (tests/support/realconda.py) is never written to: envkit is installed by a real
`pip install --no-deps --no-build-isolation --no-index --target SITE` of a copy of this checkout (the
wheel's dist-info carries the entry point), its runtime dependencies that conda's Python lacks are
linked into SITE from this interpreter's, and conda runs with `PYTHONPATH=SITE`: importlib.metadata
finds the dist-info there and pluggy loads the plugin from it.  Offline.

`plugin_conda` (session) is a `RealConda` with that set-up, or the tests skip saying why (fail under
ENVKIT_TEST_CONDA_REQUIRED=1, as for the oracle itself).
"""

from __future__ import annotations

import importlib.util
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from support.realconda import ENV_REQUIRED, REPO, RealConda

#: import names of envkit's runtime dependencies (pyproject.toml) the plugin's code paths import
DEPENDENCIES = ("yaml", "_yaml", "rattler", "click")


class PluginConda(RealConda):
    """A RealConda whose Python also sees SITE (envkit and its dependencies)."""

    def __init__(self, exe: str, root: Path, site: Path) -> None:
        super().__init__(exe, root)
        self.site = Path(site)
        self.environ["PYTHONPATH"] = str(self.site)

    def isolated(self, root: Path) -> PluginConda:
        return PluginConda(self.exe, root, self.site)


def _run(argv, env=None, timeout=300):
    return subprocess.run(
        [str(a) for a in argv],
        capture_output=True,
        text=True,
        timeout=timeout,
        env=env,
        stdin=subprocess.DEVNULL,
    )


def conda_python(exe: str) -> Path:
    """The Python conda runs on: `python` beside the conda executable (a venv's or an installer's bin/)."""
    return Path(os.path.abspath(exe)).parent / "python"


def install_beside(exe: str, root: Path) -> tuple[Path | None, str]:
    """(SITE, "") with envkit installed for the conda at `exe`, or (None, why not)."""
    python = conda_python(exe)
    if not python.exists():
        return None, f"no python beside {exe}"
    probe = _run([python, "-c", "import conda.plugins.types as t; t.CondaEnvironmentExporter"])
    if probe.returncode != 0:
        return None, f"the conda at {exe} has no environment exporter plugin API: {probe.stderr[-300:]}"
    src = root / "src"
    shutil.copytree(REPO / "envkit", src / "envkit", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copytree(REPO / "templates", src / "templates", ignore=shutil.ignore_patterns("__pycache__"))
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(REPO / name, src / name)
    site = root / "site"
    env = dict(os.environ, PIP_CONFIG_FILE=os.devnull, PIP_NO_INPUT="1")
    pip = _run(
        [sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--no-build-isolation", "--no-index"]
        + ["--disable-pip-version-check", "--target", site, src],
        env=env,
    )
    if pip.returncode != 0:
        return (
            None,
            f"pip could not install envkit (needs setuptools>=77 in the test venv): {pip.stderr[-500:]}",
        )
    for mod in DEPENDENCIES:
        if _run([python, "-c", f"import {mod}"]).returncode == 0:
            continue
        spec = importlib.util.find_spec(mod)
        if spec is None or not spec.origin:
            continue
        location = Path(spec.submodule_search_locations[0]) if spec.submodule_search_locations else None
        target = location or Path(spec.origin)
        (site / target.name).symlink_to(target)
    check = _run(
        [python, "-c", "import envkit.conda_plugin, yaml, rattler"],
        env=dict(os.environ, PYTHONPATH=str(site)),
    )
    if check.returncode != 0:
        return None, (
            f"conda's Python ({python}) cannot import envkit with this interpreter's dependencies: "
            f"{check.stderr.strip().splitlines()[-1:]}"
        )
    return site, ""


@pytest.fixture(scope="session")
def plugin_conda(real_conda, tmp_path_factory) -> PluginConda:
    """The real conda with envkit's plugin loaded through its entry point."""
    root = tmp_path_factory.mktemp("conda-plugin")
    site, why = install_beside(real_conda.exe, root)
    if site is None:
        if os.environ.get(ENV_REQUIRED) == "1":
            pytest.fail(f"{ENV_REQUIRED}=1 but {why}")
        pytest.skip(why)
    return PluginConda(real_conda.exe, root / "conda", site)
