"""`envkit smoke -p/-n`: the target prefix's records are read (cheaply) and the warnings every
command that reads an environment prints come on stderr; an odd prefix is a warning, never a stop."""

from __future__ import annotations

import json

import pytest
from support.condafactory import build_wheel, copy_prefix, pip_overwrite

DUP = (
    "warning: 'numpy' is installed by both conda ('numpy') and pip; pip's copy shadows conda's and the "
    "solver cannot see it"
)
OVERWRITE = (
    "warning: pip package 'numpy' 2.0.0 overwrote conda package 'numpy' 1.26.4: the conda record's "
    "files are gone (lib/python3.11/site-packages/numpy-1.26.4.dist-info); reinstall one of them so "
    "that conda and pip agree"
)


@pytest.mark.slow
@pytest.mark.torch
def test_smoke_on_a_prefix_where_pip_overwrote_conda_numpy_warns(envkit_cli, tmp_path, default_prefix):
    pytest.importorskip("torch")
    prefix = copy_prefix(default_prefix, tmp_path / "env")
    pip_overwrite(prefix, build_wheel(tmp_path / "w", "numpy", "2.0.0"))
    bad = next((prefix / "conda-meta").glob("idna-*.json"))
    bad.write_text("{not json")  # an oddity: the smoke test must still run
    cfg = json.dumps({"only": ["torch.build"]})
    r = envkit_cli("smoke", "-p", str(prefix), "--quick", "--json", env={"ENVKIT_SMOKE_TEST_CONFIG": cfg})
    assert r.exit_code == 0, r.stdout + r.stderr
    lines = r.stderr.splitlines()
    assert DUP in lines and OVERWRITE in lines
    assert any(ln.startswith(f"warning: {bad}: skipped unreadable conda package record") for ln in lines)
    rep = json.loads(r.stdout)
    assert {c["name"]: c["status"] for c in rep["checks"]} == {"import.torch": "pass", "torch.build": "pass"}


def test_unreadable_prefix_is_a_warning(tmp_path, capsys):
    from envkit.ops.smoke import _record_warnings
    from envkit.output import warn

    (tmp_path / "plain" / "bin").mkdir(parents=True)  # no conda-meta: not something open_env reads
    _record_warnings(str(tmp_path / "plain"), warn)
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 1
    assert err[0].startswith(f"warning: could not read the package records of {tmp_path / 'plain'} (")
    assert err[0].endswith("); no conda+pip duplicate check")


def test_reader_bug_is_a_warning(tmp_path, capsys, monkeypatch):
    import envkit.backends
    from envkit.ops.smoke import _record_warnings
    from envkit.output import warn

    def boom(**kw):
        raise KeyError("size")

    monkeypatch.setattr(envkit.backends, "open_env", boom)
    _record_warnings(str(tmp_path), warn)
    assert capsys.readouterr().err == (
        f"warning: could not read the package records of {tmp_path} "
        "(KeyError: 'size'); no conda+pip duplicate check\n"
    )
