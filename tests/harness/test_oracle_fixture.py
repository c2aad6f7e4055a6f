"""The real-conda fixture itself: it finds or builds a conda and keeps it away from the real HOME."""

from __future__ import annotations

import os
from pathlib import Path


def test_real_conda_runs_isolated(real_conda, tmp_path):
    conda = real_conda.isolated(tmp_path / "c")
    info = conda.json("info", "--json")
    assert info["conda_version"].split(".")[0].isdigit()
    home = Path(conda.environ["HOME"])
    assert home == tmp_path / "c" / "home" and home != Path(os.path.expanduser("~"))
    assert info["pkgs_dirs"][0] == str(tmp_path / "c" / "pkgs")
    assert info["envs_dirs"][0] == str(tmp_path / "c" / "envs")
    assert str(tmp_path / "c" / "condarc") in info["config_files"]
