"""The pip-lock rules on real files: uv.lock without hashes, requires-python vs the env's Python,
pixi.lock v7."""

from __future__ import annotations

import json

from conftest import CORPUS, run_envkit

PYLOCK = """lock-version = "1.0"
requires-python = ">=3.11"
created-by = "uv"

[[packages]]
name = "alpha"
version = "1.0"
wheels = [{ url = "https://example.org/alpha-1.0-py3-none-any.whl", hashes = { sha256 = "%s" } }]
""" % ("a" * 64)


def _findings(*args):
    r = run_envkit("check", "--format", "json", *args)
    return r, [(f["rule"], f["line"], f["message"]) for f in json.loads(r.stdout)["findings"]]


def test_lock_python_mismatch(tmp_path):
    (tmp_path / "pylock.toml").write_text(PYLOCK)
    env = tmp_path / "environment.yml"
    env.write_text("name: x\nchannels:\n- conda-forge\ndependencies:\n- python=3.10\n- pip\n")
    r, found = _findings(str(env), "--lock", str(tmp_path / "pylock.toml"))
    mine = [f for f in found if f[0] == "lock-python-mismatch"]
    assert mine == [
        (
            "lock-python-mismatch",
            2,
            f"{tmp_path / 'pylock.toml'} requires Python >=3.11; {env} has Python 3.10",
        )
    ]
    env.write_text("name: x\nchannels:\n- conda-forge\ndependencies:\n- python=3.11\n- pip\n")
    r, found = _findings(str(env), "--lock", str(tmp_path / "pylock.toml"))
    assert [f for f in found if f[0] == "lock-python-mismatch"] == []


def test_pixi_v7_is_no_finding():
    # version 7 is pixi's default format: a current, correct version is no note
    r, found = _findings(str(CORPUS / "59_43ravens__NEMO_Nowcast__pixi.lock"))
    assert (r.exit_code, found) == (0, [])


def test_uv_lock_without_hashes(tmp_path):
    lock = tmp_path / "uv.lock"
    lock.write_text(
        'version = 1\nrequires-python = ">=3.10"\n\n[[package]]\nname = "alpha"\nversion = "1.0"\n'
        'source = { registry = "wheels" }\nwheels = [{ path = "alpha-1.0-py3-none-any.whl" }]\n'
    )
    r, found = _findings(str(lock))
    assert (
        "pip-lock-missing-hash",
        4,
        "alpha 1.0 has no sha256 for alpha-1.0-py3-none-any.whl; the installer cannot verify it",
    ) in found


def test_lock_python_mismatch_reads_a_prerelease_pin(tmp_path):
    # conda-forge's python_rc label: `python=3.13.0rc2` pins Python 3.13.0rc2.  The rule read its own
    # pinned-Python twin, which skipped prerelease pins, so this mismatch went unreported.
    (tmp_path / "pylock.toml").write_text(PYLOCK.replace(">=3.11", ">=3.14"))
    env = tmp_path / "environment.yml"
    env.write_text(
        "name: x\nchannels:\n- conda-forge/label/python_rc\n- conda-forge\n"
        "dependencies:\n- python=3.13.0rc2\n- pip\n"
    )
    r, found = _findings(str(env), "--lock", str(tmp_path / "pylock.toml"))
    assert [f for f in found if f[0] == "lock-python-mismatch"] == [
        (
            "lock-python-mismatch",
            2,
            f"{tmp_path / 'pylock.toml'} requires Python >=3.14; {env} has Python 3.13.0rc2",
        )
    ]
    # python=3 allows every 3.x: no single Python to check
    env.write_text("name: x\nchannels:\n- conda-forge\ndependencies:\n- python=3\n- pip\n")
    r, found = _findings(str(env), "--lock", str(tmp_path / "pylock.toml"))
    assert [f for f in found if f[0] == "lock-python-mismatch"] == []
