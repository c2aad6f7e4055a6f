"""`envkit export -p` -> `envkit lock -f` -> `envkit create` -> `envkit diff`: an exported env file
(every line `name=version=build`, which py-rattler's strict parsing refused) locks, the lock creates
the same environment, and diff says so."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.slow


def test_export_lock_create_diff_is_same(
    envkit_cli, tmp_path, default_channel, default_prefix, isolated_conda
):
    from envkit.formats import read_file

    env = tmp_path / "environment.yml"
    r = envkit_cli("export", "-p", str(default_prefix), "-o", str(env))
    assert r.exit_code == 0, r.stderr
    deps = [d.raw for d in read_file(str(env)).conda]
    chan = default_channel.url
    assert (
        f"{chan}::numpy=1.26.4=py311h64a7726_0" in deps
        and f"{chan}::python=3.11.8=hab00c5b_0_cpython" in deps
    )
    lock = tmp_path / "conda-lock.yml"
    r = envkit_cli("lock", "-f", str(env), "--platform", "linux-64", "-o", str(lock))
    assert r.exit_code == 0, r.stderr
    new = tmp_path / "recreated"
    r = envkit_cli("create", "--lock", str(lock), "-p", str(new), "--platform", "linux-64")
    assert r.exit_code == 0, r.stderr
    r = envkit_cli("diff", str(default_prefix), str(new))
    assert r.exit_code == 0, r.stdout + r.stderr
    assert "Same" in r.stdout


def test_export_and_lock_p_write_the_same_channel_list(
    envkit_cli, tmp_path, default_channel, default_prefix, isolated_conda
):
    """A .condarc listing `defaults` (no package came from it): neither export nor lock -p adds it."""
    from support.condafactory import copy_prefix, write_condarc

    from envkit.formats import read_file
    from envkit.formats.condalock import read_conda_lock

    prefix = copy_prefix(default_prefix, tmp_path / "env")
    write_condarc(prefix / ".condarc", channels=[default_channel.url, "defaults"])
    env = tmp_path / "environment.yml"
    assert envkit_cli("export", "-p", str(prefix), "-o", str(env)).exit_code == 0
    lock = tmp_path / "conda-lock.yml"
    r = envkit_cli("lock", "-p", str(prefix), "-o", str(lock))
    assert r.exit_code == 0, r.stderr
    exported = [c.name for c in read_file(str(env)).channels]
    assert exported == [default_channel.url]
    assert [c.name for c in read_file(str(tmp_path / "environment.lock.yml")).channels] == exported
    assert [c.name for c in read_conda_lock(lock.read_text(), str(lock)).channels] == exported
