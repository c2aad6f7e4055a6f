"""No test can reach the real HOME or the user's conda settings (tests/conftest.py, autouse)."""

from __future__ import annotations

import os
from pathlib import Path


def test_home_is_a_fresh_folder_and_conda_settings_are_gone(tmp_path_factory):
    home = Path(os.environ["HOME"])
    assert home.is_dir() and list(home.iterdir()) == []
    assert tmp_path_factory.getbasetemp() in home.parents
    assert not [
        v for v in os.environ if v.startswith(("CONDA_", "MAMBA_")) or v in ("CONDARC", "XDG_CONFIG_HOME")
    ]
    assert Path("~/.condarc").expanduser() == home / ".condarc"
