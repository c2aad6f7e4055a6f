"""The conda-lock.yml files `envkit lock -f` writes, judged by their real readers: conda 26.7.1
(`conda create --file`, through its conda-lockfiles plugin) and conda-lock's own parser.  Skipped,
saying why, without a real conda.
"""

from __future__ import annotations

import os

import pytest
from support.condafactory import build_wheel

from envkit.formats.condalockout import CONDA_CANNOT_READ_PIP


@pytest.fixture(scope="module")
def conda(real_conda, tmp_path_factory):
    return real_conda.isolated(tmp_path_factory.mktemp("conda-lock-files"))


def _spec(path, channel, pip_lines=()):
    lines = ["channels:", f"  - {channel.url}", "dependencies:", "  - python=3.11", "  - numpy", "  - pip"]
    if pip_lines:
        lines += ["  - pip:"] + [f"    - {ln}" for ln in pip_lines]
    path.write_text("\n".join(lines) + "\n")
    return path


def _parse(path):
    from conda_lock.lockfile import parse_conda_lock_file  # slow import: only here

    return parse_conda_lock_file(path)


def test_conda_creates_from_a_solved_lock_with_envkits_custom_metadata(
    envkit_cli, conda, default_channel, tmp_path
):
    """`lock -f` records the spec in `custom_metadata`; conda's reader requires `created_by` there
    whenever the mapping is present, and conda-lock takes it too."""
    out = tmp_path / "conda-lock.yml"
    r = envkit_cli(
        "lock",
        "-f",
        str(_spec(tmp_path / "environment.yml", default_channel)),
        "--platform",
        "linux-64",
        "-o",
        str(out),
    )
    assert r.exit_code == 0, r.stderr
    assert "note:" not in r.stderr  # conda-only: nothing conda cannot read
    custom = _parse(out).metadata.custom_metadata
    assert custom["created_by"] == "envkit 0.1.0" and "envkit.spec" in custom
    made = conda.create_from_file(tmp_path / "made", out)
    r = envkit_cli("diff", str(out), str(made))
    assert r.exit_code == 0, r.stdout + r.stderr
    assert r.stdout.endswith("Same: no differences (5 packages compared).\n")


def test_a_lock_with_pip_packages_says_conda_cannot_read_it(envkit_cli, conda, default_channel, tmp_path):
    """conda-lock writes a pip package as `manager: pip`; conda's reader (conda-lockfiles 0.2.2)
    takes only `pypi` and refuses the file.  envkit writes what the format's owner writes, and says
    so when it happens, naming what installs the file instead."""
    wheels = tmp_path / "wheels"
    build_wheel(wheels, "tinyreq", "2.0")
    spec = _spec(
        tmp_path / "environment.yml", default_channel, ["--no-index", f"--find-links {wheels}", "tinyreq"]
    )
    out = tmp_path / "conda-lock.yml"
    env = {"PIP_CONFIG_FILE": os.devnull, "PIP_NO_INDEX": "1"}
    r = envkit_cli("lock", "-f", str(spec), "--platform", "linux-64", "-o", str(out), env=env)
    assert r.exit_code == 0, r.stderr
    assert r.stderr.startswith("note: " + CONDA_CANNOT_READ_PIP.format(names="tinyreq") + "\n"), r.stderr
    assert [(p.manager, p.name) for p in _parse(out).package if p.manager != "conda"] == [("pip", "tinyreq")]
    refused = conda.run("create", "-y", "-q", "-p", tmp_path / "made", "--file", out, check=False)
    assert refused.returncode == 1
    assert "field 'package.5.manager': Input should be 'conda' or 'pypi'" in refused.stderr
