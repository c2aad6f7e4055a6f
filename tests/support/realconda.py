"""A real conda for differential tests: find it, build it once, and run it isolated.

The `real_conda` fixture (session) gives a `RealConda`:

1. the executable named by `ENVKIT_TEST_CONDA` (any real conda a user has), else
2. the conda 26.7.1 that `../shared/tools/conda-oracle/setup.sh` builds, once, into pytest's cache
   directory (`.pytest_cache/d/envkit-conda-oracle`; never the real HOME).  A file lock keeps two
   pytest-xdist workers from building it at the same time; the second one waits and reuses it.
3. else every test that asks for it is skipped, saying why.  With `ENVKIT_TEST_CONDA_REQUIRED=1`
   (set by `.ci/run`) a missing or broken conda fails those tests instead: CI must run them.

Every call runs with HOME, CONDARC, CONDA_PKGS_DIRS and CONDA_ENVS_DIRS inside a temporary
directory of the test (`RealConda.isolated(tmp)`): conda appends each prefix it creates to
`~/.conda/environments.txt` and reads `~/.condarc`, and neither may be the user's.
"""

from __future__ import annotations

import fcntl
import json
import os
import subprocess
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
ORACLE = REPO.parent / "shared" / "tools" / "conda-oracle"
ENV_EXE = "ENVKIT_TEST_CONDA"
ENV_REQUIRED = "ENVKIT_TEST_CONDA_REQUIRED"
BUILD_TIMEOUT = 1200.0
CALL_TIMEOUT = 300.0

#: The oracle's condarc (setup.sh writes the same one): offline, deterministic, classic solver.
CONDARC = """\
channels: []
solver: classic
channel_priority: strict
add_pip_as_python_dependency: false
auto_update_conda: false
notify_outdated_conda: false
report_errors: false
execute_threads: 1
verify_threads: 1
fetch_threads: 1
"""

#: Variables that must not reach the oracle: the user's conda set-up, and CA bundles (with
#: REQUESTS_CA_BUNDLE set, `conda doctor` checks it by connecting to conda.anaconda.org).
_DROPPED = (
    "CONDARC",
    "XDG_CONFIG_HOME",
    "PYTHONPATH",
    "REQUESTS_CA_BUNDLE",
    "CURL_CA_BUNDLE",
    "SSL_CERT_FILE",
)
#: Variables of the user's own conda set-up that must not reach the oracle.
_LEAKY_PREFIXES = ("CONDA_", "MAMBA_", "_CE_", "_CONDA")


def isolated_environ(root: Path, base: Mapping[str, str] | None = None) -> dict[str, str]:
    """os.environ without the user's conda variables, with HOME, CONDARC, CONDA_PKGS_DIRS and
    CONDA_ENVS_DIRS under `root` (created).  conda reads CONDARC only when the file is named
    `condarc`, `.condarc` or `*.yml`, hence the name."""
    root = Path(root)
    for sub in ("home", "pkgs", "envs"):
        (root / sub).mkdir(parents=True, exist_ok=True)
    rc = root / "condarc"
    if not rc.exists():
        rc.write_text(CONDARC)
    env = {
        k: v
        for k, v in (os.environ if base is None else base).items()
        if not k.startswith(_LEAKY_PREFIXES) and k not in _DROPPED
    }
    env.update(
        HOME=str(root / "home"),
        CONDARC=str(rc),
        CONDA_PKGS_DIRS=str(root / "pkgs"),
        CONDA_ENVS_DIRS=str(root / "envs"),
        XDG_CONFIG_HOME=str(root / "home" / ".config"),
        CONDA_NUMBER_CHANNEL_NOTICES="0",
        NO_COLOR="1",
    )
    return env


@dataclass(frozen=True)
class CondaRun:
    """One finished conda call."""

    argv: tuple[str, ...]
    returncode: int
    stdout: str
    stderr: str

    def json(self):
        return json.loads(self.stdout)


class RealConda:
    """A real conda executable, run with an isolated environment rooted in a test directory."""

    def __init__(self, exe: str, root: Path) -> None:
        self.exe = exe
        self.root = Path(root)
        self.environ = isolated_environ(self.root)

    def isolated(self, root: Path) -> RealConda:
        """The same conda with HOME, CONDARC and the package/env dirs under `root` instead."""
        return RealConda(self.exe, root)

    def run(
        self,
        *args: str,
        check: bool = True,
        timeout: float = CALL_TIMEOUT,
        cwd: str | os.PathLike[str] | None = None,
    ) -> CondaRun:
        argv = (self.exe, *map(str, args))
        proc = subprocess.run(
            argv,
            capture_output=True,
            text=True,
            env=self.environ,
            timeout=timeout,
            cwd=cwd or self.root,
            stdin=subprocess.DEVNULL,
        )
        result = CondaRun(argv, proc.returncode, proc.stdout, proc.stderr)
        if check and proc.returncode != 0:
            raise AssertionError(
                f"conda {' '.join(map(str, args))} failed ({proc.returncode}):\n"
                f"{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}"
            )
        return result

    def json(self, *args: str):
        return self.run(*args).json()

    def create_from_file(self, prefix: Path, file: Path) -> Path:
        self.run("create", "-y", "-q", "-p", prefix, "--file", file)
        return Path(prefix)

    def already_installed(self, prefix: Path, channels: Sequence[str], name: str) -> CondaRun:
        """`conda install -p P --dry-run -c CHANNEL... --override-channels NAME` (check=False)."""
        chans = [w for c in channels for w in ("-c", c)]
        return self.run(
            "install", "-p", prefix, "--dry-run", *chans, "--override-channels", name, check=False
        )


def _usable(exe: str) -> bool:
    try:
        proc = subprocess.run(
            [exe, "--version"], capture_output=True, text=True, timeout=120, stdin=subprocess.DEVNULL
        )
    except (OSError, subprocess.SubprocessError):
        return False
    return proc.returncode == 0 and proc.stdout.startswith("conda ")


def build_oracle(cache: Path) -> tuple[str | None, str]:
    """Build (or reuse) the oracle's conda under `cache`, holding a file lock meanwhile.
    Returns (executable or None, why not)."""
    setup = ORACLE / "setup.sh"
    if not setup.is_file():
        return None, (
            f"no real conda: {ENV_EXE} is not set and {setup} does not exist "
            "(a clone without ../shared); set ENVKIT_TEST_CONDA=/path/to/conda to run these tests"
        )
    cache.mkdir(parents=True, exist_ok=True)
    target = cache / "conda"
    exe = target / "bin" / "conda"
    with open(cache / "build.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # another xdist worker may be building it: wait for it
        if exe.exists() and _usable(str(exe)):
            return str(exe), ""
        env = dict(os.environ, PIP_CACHE_DIR=str(cache / "pip-cache"))
        try:
            proc = subprocess.run(
                ["bash", str(setup), str(target)],
                capture_output=True,
                text=True,
                env=env,
                timeout=BUILD_TIMEOUT,
                stdin=subprocess.DEVNULL,
            )
        except subprocess.TimeoutExpired:
            return None, f"building the conda oracle ({setup}) took over {BUILD_TIMEOUT:.0f} s"
        (cache / "build.log").write_text(proc.stdout + proc.stderr)
        if proc.returncode != 0 or not _usable(str(exe)):
            return None, (
                f"building the conda oracle failed (exit {proc.returncode}); "
                f"see {cache / 'build.log'}: {proc.stderr.strip().splitlines()[-1:] or ''}"
            )
    return str(exe), ""


def find_conda(cache: Path) -> tuple[str | None, str]:
    """(executable, "") or (None, why there is none)."""
    named = os.environ.get(ENV_EXE)
    if named:
        if _usable(named):
            return named, ""
        return None, f"{ENV_EXE}={named} is not a working conda (`{named} --version` failed)"
    return build_oracle(cache)


def cache_dir(config) -> Path:
    """pytest's cache directory for the oracle (inside the repository's ignored .pytest_cache)."""
    cache = getattr(config, "cache", None)
    if cache is not None:
        return Path(cache.mkdir("envkit-conda-oracle"))
    return REPO / ".pytest_cache" / "d" / "envkit-conda-oracle"


@pytest.fixture(scope="session")
def real_conda(request, tmp_path_factory) -> RealConda:
    """A real conda (see the module docstring), isolated in a session temp dir; skips saying why
    when there is none (fails instead under ENVKIT_TEST_CONDA_REQUIRED=1)."""
    exe, why = find_conda(cache_dir(request.config))
    if exe is None:
        if os.environ.get(ENV_REQUIRED) == "1":
            pytest.fail(f"{ENV_REQUIRED}=1 but {why}")
        pytest.skip(why)
    return RealConda(exe, tmp_path_factory.mktemp("realconda"))
