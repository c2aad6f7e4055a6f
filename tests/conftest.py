"""Shared test helpers: run the CLI in-process with separate stdout/stderr and a real exit code."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import settings

# fixtures every test module may request by name
from support.condafactory import default_channel, default_prefix, isolated_conda  # noqa: F401
from support.condaplugin import plugin_conda  # noqa: F401
from support.oraclefamily import family  # noqa: F401
from support.realconda import real_conda  # noqa: F401

# CI runs the same examples every time: a red run is reproducible, never a lucky draw
settings.register_profile("ci", derandomize=True, print_blob=True)
if os.environ.get("CI"):
    settings.load_profile("ci")

HERE = Path(__file__).parent
DATA = HERE / "data"
CORPUS = DATA / "corpus"
REPO = HERE.parent


@dataclass
class CliResult:
    exit_code: int
    stdout: str
    stderr: str


def run_envkit(
    *args: str,
    input: str | None = None,
    env: dict[str, str] | None = None,
    cwd: str | os.PathLike[str] | None = None,
) -> CliResult:
    """Run `envkit ARGS` through envkit.cli.main (the real error boundary) and capture its output."""
    from envkit.cli import main

    runner = CliRunner()
    old = os.getcwd()
    if cwd is not None:
        os.chdir(cwd)
    try:
        with runner.isolation(input=input, env=env) as streams:
            try:
                main(list(args), prog_name="envkit")
                code = 0
            except SystemExit as exc:
                code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
            out, err = streams[0].getvalue(), streams[1].getvalue()
    finally:
        os.chdir(old)
    return CliResult(code, out.decode("utf-8", "replace"), err.decode("utf-8", "replace"))


@pytest.fixture(autouse=True)
def _no_real_home(tmp_path_factory, monkeypatch):
    """Every test runs with a fresh HOME and without the user's conda settings, so none can read or
    write the real ~/.condarc, ~/.conda or ~/.config (a test that needs them sets its own)."""
    monkeypatch.setenv("HOME", str(tmp_path_factory.mktemp("home")))
    for var in list(os.environ):
        if var.startswith(("CONDA_", "MAMBA_")) or var in ("CONDARC", "XDG_CONFIG_HOME"):
            monkeypatch.delenv(var, raising=False)


@pytest.fixture
def envkit_cli():
    return run_envkit


def corpus_files(kind: str | None = None) -> list[Path]:
    """Corpus files (tests/data/corpus), optionally only those of one kind from INDEX.tsv."""
    rows = (CORPUS / "INDEX.tsv").read_text().splitlines()[1:]
    out = []
    for row in rows:
        cols = row.split("\t")
        if kind is None or cols[4] == kind:
            out.append(CORPUS / cols[0])
    return out


def corpus_text(path: Path) -> str:
    """A corpus file's text for the text-level APIs: UTF-8, or UTF-16 by its BOM (the PowerShell
    exports keep the bytes they were committed with)."""
    data = path.read_bytes()
    return data.decode("utf-16") if data[:2] in (b"\xff\xfe", b"\xfe\xff") else data.decode("utf-8")


def known_wrong(paths: list[Path], wrong: dict[str, str]) -> list:
    """`paths` as pytest parameters; a file whose number (the name's prefix before `_`) is a key of
    `wrong` is a strict xfail with that reason: envkit mishandles it today, and the test passing
    means the entry is to be dropped."""
    out: list = []
    for p in paths:
        reason = wrong.get(p.name.split("_", 1)[0])
        out.append(pytest.param(p, marks=pytest.mark.xfail(strict=True, reason=reason)) if reason else p)
    return out


@pytest.fixture(scope="session", autouse=True)
def _rattler_cache_outside_home(tmp_path_factory):
    """py-rattler's package cache defaults to ~/.cache/rattler: `envkit create` and `envkit lock`
    in tests would fill the real HOME's cache.  Point it into the session's temp dir."""
    mp = pytest.MonkeyPatch()
    mp.setenv("RATTLER_CACHE_DIR", str(tmp_path_factory.mktemp("rattler-cache")))
    yield
    mp.undo()
