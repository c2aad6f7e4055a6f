"""A manifest where a command wants a lock (`fleet --lock`), and `check` finding a project's files."""

import json
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


def _project(tmp_path, folder, *names):
    project = tmp_path / folder
    project.mkdir()
    for name in names:
        shutil.copy(MANIFESTS / folder / name, project / name)
    return project


def test_check_with_no_file_finds_a_uv_project_and_its_lock(tmp_path, monkeypatch):
    project = _project(tmp_path, "stale-uv-docker", "pyproject.toml", "uv.lock")
    monkeypatch.chdir(project)
    r = run_envkit("check", "--format", "json")
    assert r.exit_code == 1
    doc = json.loads(r.stdout)
    assert doc["summary"]["checked"] == ["pyproject.toml", "uv.lock"]
    assert [(f["rule"], f["file"], f["line"]) for f in doc["findings"]] == [
        ("lock-unsatisfied", "pyproject.toml", 8)
    ]


def test_check_with_no_file_finds_a_pixi_project_and_its_lock(tmp_path, monkeypatch):
    project = _project(tmp_path, "pixi-multi-env", "pixi.toml", "pixi.lock")
    monkeypatch.chdir(project)
    r = run_envkit("check")
    assert (r.exit_code, r.stdout) == (0, "no findings (2 files checked)\n")


def test_a_directory_finds_manifests_below_it_but_not_a_pyproject_of_tool_settings(tmp_path):
    _project(tmp_path, "pyproject-pixi-docker", "pyproject.toml", "pixi.lock")
    tools = tmp_path / "tools"
    tools.mkdir()
    (tools / "pyproject.toml").write_text("[tool.ruff]\nline-length = 110\n")
    r = run_envkit("check", str(tmp_path), "--format", "json")
    assert json.loads(r.stdout)["summary"]["checked"] == [
        str(tmp_path / "pyproject-pixi-docker" / "pixi.lock"),
        str(tmp_path / "pyproject-pixi-docker" / "pyproject.toml"),
    ]
    assert r.exit_code == 0


def test_a_pdm_project_is_named_and_its_lock_left_to_pdm(tmp_path):
    project = _project(tmp_path, "pdm-coordfill", "pyproject.toml", "pdm.lock")
    manifest = project / "pyproject.toml"
    r = run_envkit("lock", "--check", "-f", str(manifest))
    assert r.exit_code == 2
    assert r.stderr.splitlines()[0] == (
        f"error: {manifest} is a PDM project ([tool.pdm] or a pdm.lock beside it): its lock is pdm.lock, "
        "whose freshness PDM judges: run `pdm lock --check`"
    )
    r = run_envkit("lock", "-f", str(manifest))
    assert (
        r.stderr.splitlines()[0]
        == f"error: {manifest}: a PDM project is locked by pdm, not envkit: run `pdm lock`"
    )
    r = run_envkit("validate", str(project / "pdm.lock"))
    assert r.exit_code == 2
    assert r.stderr.splitlines()[0] == (
        f"error: {project / 'pdm.lock'}:7: a PDM lock (pdm.lock): envkit does not read PDM's lock format"
    )


def test_a_pdm_pyprojects_dev_groups_are_read():
    # PDM installs its [tool.pdm.dev-dependencies] groups by default, as uv its default groups
    from envkit.formats.pyproject import read_pyproject

    for folder, last in (("pdm-coordfill", "scikit-image>=0.22.0"), ("pdm-degan", "fire>=0.5.0")):
        manifest = MANIFESTS / folder / "pyproject.toml"
        for env in (None, "dev"):
            spec = read_pyproject(manifest.read_text(), str(manifest), environment=env)
            texts = [p.text for p in spec.pip]
            assert texts[-2:] == [last, "ipdb>=0.13.13"]
    r = run_envkit("validate", str(MANIFESTS / "pdm-degan" / "pyproject.toml"), "--env", "dev")
    assert r.stdout == f"ok: {MANIFESTS / 'pdm-degan' / 'pyproject.toml'}: environment spec, 0 conda, 4 pip\n"
