"""A manifest where a command wants a lock (`fleet --lock`), and `check` finding a project's files."""

import shutil

from conftest import DATA, run_envkit

MANIFESTS = DATA / "manifests"
HOST = DATA / "corpus" / "42_3dlg-hcvc__paris__spec-file.txt"


def _hosts(tmp_path):
    hosts = tmp_path / "hosts"
    hosts.mkdir()
    shutil.copy(HOST, hosts / "node1.txt")
    return hosts


def test_fleet_lock_given_a_manifest_reads_the_lock_beside_it(tmp_path):
    manifest = MANIFESTS / "pixi-geos-rs" / "pixi.toml"
    r = run_envkit("fleet", str(_hosts(tmp_path)), "--lock", str(manifest), "--no-machine")
    assert r.stderr.splitlines()[0] == (
        f"note: {manifest} is a manifest: --lock reads {manifest.parent / 'pixi.lock'}, the lock beside it "
        f"(`envkit lock --check -f {manifest}` says whether it is fresh)"
    )
    assert r.stdout.splitlines()[0] == (
        f"envkit fleet: 1 host, 1 read, 1 group; against {manifest.parent / 'pixi.lock'}"
    )
    assert r.exit_code == 1  # the host is not the lock


def test_fleet_lock_refuses_a_manifest_without_its_lock(tmp_path):
    project = tmp_path / "project"
    project.mkdir()
    shutil.copy(MANIFESTS / "uv-docker" / "pyproject.toml", project / "pyproject.toml")
    r = run_envkit("fleet", str(_hosts(tmp_path)), "--lock", str(project / "pyproject.toml"), "--no-machine")
    assert r.exit_code == 2
    assert r.stderr.splitlines() == [
        f"error: {project / 'pyproject.toml'}: a manifest, not a lock: --lock compares with exact packages, "
        "and there is no uv.lock beside it",
        "hint: run `uv lock`, or give --lock the lock",
    ]
