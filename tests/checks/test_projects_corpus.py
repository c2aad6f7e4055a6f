"""`envkit check` over every file of a real repository with several projects
(tests/data/corpus/projects), as CI passes them: the findings are exactly the reviewed ones below.
A new finding is a false alarm until someone justifies it here."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from conftest import CORPUS

from envkit.checks import load_targets, run_checks
from envkit.config import Config

PROJECTS = CORPUS / "projects"

#: repository folder -> [(file, rule, line)], in output order, each justified.
EXPECTED: dict[str, list[tuple[str, str, int]]] = {
    # Each analysis has its environment.yml and the conda-lock.yml made from it (`sources:
    # [environment.yml]`, relative to the lock): every spec is satisfied by its own lock, none by
    # another project's.  The scimilarity lock installs urllib3 1.26.19 with conda and 2.5.0 with pip
    # (pip's `scimilarity` pulls it): two versions of one project.
    "AlexsLemonade__OpenScPCA-analysis": [
        ("analyses/cell-type-scimilarity/conda-lock.yml", "conda-pip-duplicate", 5550),
    ],
    # env.yaml and the explicit file `conda-lock render` wrote from it (which records no sources):
    # one spec and one lock of one folder pair, and the lock satisfies the spec (its pip entry is
    # not the explicit file's to hold).  The pip section has no `- pip` in the conda list.
    "Cecca__repro-course-ci": [("env.yaml", "pip-without-pip", 6)],
}


def _files(repo: str) -> list[str]:
    root = PROJECTS / repo
    return sorted(str(p.relative_to(root)) for p in root.rglob("*") if p.suffix in (".yml", ".yaml", ".lock"))


def _check(repo: str, files: list[str], **config) -> tuple[list, list]:
    return _check_in(PROJECTS / repo, files, **config)


def _check_in(folder: Path, files: list[str], **config) -> tuple[list, list]:
    old = os.getcwd()
    os.chdir(folder)
    try:
        targets = load_targets(files)
        return targets, run_checks(targets, Config(**config))
    finally:
        os.chdir(old)


def test_expectations_cover_every_repository():
    assert sorted(p.name for p in PROJECTS.iterdir() if p.is_dir()) == sorted(EXPECTED)


@pytest.mark.parametrize("repo", sorted(EXPECTED))
def test_check_of_every_file_finds_exactly_the_reviewed_findings(repo):
    _, found = _check(repo, _files(repo))
    assert [(f.file, f.rule, f.line) for f in found] == EXPECTED[repo]


@pytest.mark.parametrize("repo", sorted(EXPECTED))
def test_each_lock_pairs_with_the_spec_in_its_own_folder(repo):
    targets, found = _check(repo, _files(repo), select=("stale-lock", "lock-unsatisfied"))
    assert found == []
    for t in targets:
        if t.kind == "spec" and t.lock is not None:
            assert Path(t.lock.path).parent == Path(t.path).parent
        if t.kind == "lock":
            assert t.spec is not None and Path(t.spec.path).parent == Path(t.path).parent
    # a root environment.yml with no lock beside it pairs with none
    assert [t.lock for t in targets if t.path == "environment.yml"] in ([], [None])


def test_a_spec_and_an_explicit_file_of_its_folder_pair_and_are_compared(tmp_path):
    import shutil

    repo = tmp_path / "repo"
    shutil.copytree(PROJECTS / "Cecca__repro-course-ci", repo)
    targets, found = _check_in(repo, ["env.yaml", "conda-linux-64.lock"])
    assert (targets[0].lock, targets[1].spec) == (targets[1], targets[0])
    (repo / "env.yaml").write_text((repo / "env.yaml").read_text().replace("- pandas", "- pandas>=9"))
    _, found = _check_in(repo, ["env.yaml", "conda-linux-64.lock"])
    assert [(f.rule, f.line) for f in found if f.rule == "lock-unsatisfied"] == [("lock-unsatisfied", 5)]


def test_a_lone_spec_and_a_lock_of_another_folder_do_not_pair():
    repo = "AlexsLemonade__OpenScPCA-analysis"
    targets, found = _check(repo, ["environment.yml", "analyses/simulate-sce/conda-lock.yml"])
    assert (targets[0].lock, targets[1].spec) == (None, None)
    assert [f.rule for f in found if f.rule in ("stale-lock", "lock-unsatisfied")] == []


def test_check_of_the_repository_root_finds_every_project_below_it(tmp_path):
    # as CI passes a repository root (`envkit check .`); hidden folders and environments are skipped
    import shutil

    from tests.conftest import run_envkit

    repo = tmp_path / "repo"
    shutil.copytree(PROJECTS / "AlexsLemonade__OpenScPCA-analysis", repo)
    (repo / ".pixi" / "envs" / "default").mkdir(parents=True)
    (repo / ".pixi" / "envs" / "default" / "environment.yml").write_text("dependencies: [python\n")
    (repo / "env" / "conda-meta").mkdir(parents=True)
    (repo / "env" / "environment.yml").write_text("dependencies: [python\n")
    r = run_envkit("check", ".", "--format", "json", cwd=repo)
    assert r.exit_code == 1, r.stderr
    doc = json.loads(r.stdout)
    assert doc["summary"]["checked"] == [
        "environment.yml",
        "analyses/cell-type-scimilarity/environment.yml",
        "analyses/cell-type-scimilarity/conda-lock.yml",
        "analyses/simulate-sce/environment.yml",
        "analyses/simulate-sce/conda-lock.yml",
    ]
    assert [(f["file"], f["rule"]) for f in doc["findings"]] == [
        ("analyses/cell-type-scimilarity/conda-lock.yml", "conda-pip-duplicate")
    ]
