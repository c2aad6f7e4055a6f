"""`envkit create` (rattler) writes the conda-meta/history block conda writes for `create --file`,
so `--from-history` of the new environment is each locked package pinned, as for conda's own."""

from __future__ import annotations

import time

import pytest

from envkit.conda.history import history_block
from envkit.model import LockedPackage

pytestmark = pytest.mark.slow


def test_history_block_is_condas_format_with_credentials_redacted():
    pkgs = [
        LockedPackage(
            manager="conda",
            name="numpy",
            version="1.26.4",
            build="py311h64a7726_0",
            url="https://conda.anaconda.org/conda-forge/linux-64/numpy-1.26.4-py311h64a7726_0.conda",
        ),
        LockedPackage(
            manager="conda",
            name="six",
            version="1.16.0",
            build="pyh6c4a22f_0",
            url="https://conda.anaconda.org/t/abc-123/private/noarch/six-1.16.0-pyh6c4a22f_0.conda",
        ),
    ]
    when = time.mktime((2026, 12, 1, 23, 16, 26, 0, 0, -1))
    text = history_block(pkgs, ["envkit", "create", "--lock", "my lock.yml", "-p", "/envs/x"], when=when)
    assert text == (
        "==> 2026-12-01 23:16:26 <==\n"
        "# cmd: envkit create --lock 'my lock.yml' -p /envs/x\n"
        f"# envkit version: {__import__('envkit').__version__}\n"
        "+conda-forge/linux-64::numpy-1.26.4-py311h64a7726_0\n"
        "+private/noarch::six-1.16.0-pyh6c4a22f_0\n"
        "# update specs: ['conda-forge/linux-64::numpy==1.26.4=py311h64a7726_0', "
        "'private/noarch::six==1.16.0=pyh6c4a22f_0']\n"
    )
    assert "abc-123" not in text


def test_created_env_has_history_and_from_history_pins_every_package(envkit_cli, tmp_path, default_prefix):
    lock = tmp_path / "conda-lock.yml"
    assert envkit_cli("lock", "-p", str(default_prefix), "--no-env-lock", "-o", str(lock)).exit_code == 0
    target = tmp_path / "made"
    r = envkit_cli("create", "--lock", str(lock), "-p", str(target))
    assert r.exit_code == 0, r.stderr
    lines = (target / "conda-meta" / "history").read_text().splitlines()
    assert lines[0].startswith("==> ") and lines[0].endswith(" <==")
    assert lines[1] == f"# cmd: envkit create --lock {lock} -p {target}"
    assert sum(ln.startswith("+") for ln in lines) == 9
    assert any(ln.endswith("/linux-64::numpy-1.26.4-py311h64a7726_0") for ln in lines)
    assert (
        lines[-1].startswith("# update specs: [") and "/linux-64::numpy==1.26.4=py311h64a7726_0'" in lines[-1]
    )
    r = envkit_cli("export", "-p", str(target), "--from-history")
    assert r.exit_code == 0 and "records no requested specs" not in r.stderr, r.stderr
    deps = [ln.strip()[2:] for ln in r.stdout.splitlines() if ln.startswith("  - ")]
    assert len(deps) == 9 and any(d.endswith("/linux-64::numpy=1.26.4=py311h64a7726_0") for d in deps), deps
