"""A manifest key of the wrong TOML type (`project = true`, `[project] name = 5`, `[tool.uv]
conflicts = [5]`): refused naming the pyproject.toml or pixi.toml, its line and key, wherever the
manifest is read (validate, the uv.lock freshness check beside it); never an internal error."""

from __future__ import annotations

import shutil

import pytest
from conftest import DATA, run_envkit

PIXI = '[tool.pixi.workspace]\nchannels = ["conda-forge"]\nplatforms = ["linux-64"]\n'


@pytest.mark.parametrize(
    ("name", "text", "line", "key", "message"),
    [
        ("pyproject.toml", "project = true\n", 1, "project", "`project` must be a table, not a boolean"),
        ("pyproject.toml", 'project = "x"\n', 1, "project", "`project` must be a table, not a string"),
        ("pyproject.toml", "[tool]\nuv = 5\n", 2, "tool.uv", "`tool.uv` must be a table, not an integer"),
        (
            "pyproject.toml",
            '[project]\nname = "x"\n[tool]\nuv = [1]\n',
            4,
            "tool.uv",
            "`tool.uv` must be a table, not an array",
        ),
        (
            "pyproject.toml",
            'tool = 5\n[project]\nname = "x"\n',
            1,
            "tool",
            "`tool` must be a table, not an integer",
        ),
        ("pyproject.toml", "project = 5\n" + PIXI, 1, "project", "`project` must be a table, not an integer"),
        (
            "pyproject.toml",
            '[project]\nname = "x"\noptional-dependencies = 5\n' + PIXI,
            3,
            "project.optional-dependencies",
            "`project.optional-dependencies` must be a table, not an integer",
        ),
        (
            "pixi.toml",
            '[workspace]\nchannels = ["conda-forge"]\nplatforms = ["linux-64"]\n[tool]\npixi = 5\n',
            5,
            "tool.pixi",
            "`tool.pixi` must be a table",
        ),
    ],
)
def test_a_scalar_where_a_manifest_table_belongs_is_refused(tmp_path, name, text, line, key, message):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    r = run_envkit("validate", str(path))
    assert r.exit_code == 2, r.stderr
    assert r.stderr.splitlines()[0] == f"error: {path}:{line} ({key}): {message}"


def _uv_project(tmp_path, old: str, new: str) -> None:
    src = DATA / "manifests" / "uv-docker"
    shutil.copy(src / "uv.lock", tmp_path / "uv.lock")
    text = (src / "pyproject.toml").read_text(encoding="utf-8")
    assert old in text
    (tmp_path / "pyproject.toml").write_text(text.replace(old, new, 1), encoding="utf-8")


@pytest.mark.parametrize(
    ("old", "new", "line", "key", "message"),
    [
        (
            'name = "uv-docker-example"',
            "name = 5",
            2,
            "project.name",
            "`project.name` must be a string, not an integer",
        ),
        (
            'version = "0.1.0"',
            'version = "0.1.0"\noptional-dependencies = 5',
            4,
            "project.optional-dependencies",
            "`project.optional-dependencies` must be a table, not an integer",
        ),
        (
            'requires-python = ">=3.11"\ndependencies = [\n    "fastapi[standard]>=0.112.2",\n]\n',
            'dependencies = ["fastapi[standard]>=0.112.2"]\n[project.requires-python]\na = 1\n',
            7,
            "project.requires-python",
            "`project.requires-python` must be a string, not a table",
        ),
        (
            "[dependency-groups]",
            "[tool.uv]\nconflicts = [5]\n[dependency-groups]",
            19,
            "tool.uv.conflicts[0]",
            "`tool.uv.conflicts[0]` must be an array of `{ extra = ... }` / `{ group = ... }` tables, "
            "not an integer",
        ),
        (
            "[dependency-groups]",
            '[tool.uv]\nconflicts = [[{ extra = "a" }, 5]]\n[dependency-groups]',
            19,
            "tool.uv.conflicts[0][1]",
            "`tool.uv.conflicts[0][1]` must be a table (`{ extra = ... }` or `{ group = ... }`), "
            "not an integer",
        ),
        (
            "[dependency-groups]",
            '[tool.uv]\noverride-dependencies = ["a>=>1"]\n[dependency-groups]',
            19,
            "tool.uv.override-dependencies[0]",
            "invalid requirement 'a>=>1': Expected semicolon (after name with no version specifier) or end",
        ),
        (
            "[dependency-groups]",
            '[tool.uv.sources]\nfastapi = { index = ["x"] }\n[dependency-groups]',
            19,
            "tool.uv.sources.fastapi.index",
            "`tool.uv.sources.fastapi.index` must be a string, not an array",
        ),
    ],
)
def test_a_wrong_typed_key_of_the_pyproject_beside_a_uv_lock_is_refused_by_check(
    tmp_path, old, new, line, key, message
):
    _uv_project(tmp_path, old, new)
    r = run_envkit("check", ".", cwd=tmp_path)
    assert r.exit_code == 2, r.stderr
    assert r.stderr.splitlines()[0] == f"error: pyproject.toml:{line} ({key}): {message}"


@pytest.mark.parametrize(
    "new",
    [
        "[tool.uv]\ndefault-groups = 5\n[dependency-groups]",
        '[tool.uv]\ndefault-groups = ["dev", 5]\n[dependency-groups]',
        "[tool.uv]\nconflicts = 5\n[dependency-groups]",
        "tool = 5\n[dependency-groups]",
    ],
)
def test_a_uv_lock_beside_a_wrong_typed_pyproject_converts_as_the_lock_alone(tmp_path, new):
    alone, beside = tmp_path / "alone", tmp_path / "beside"
    alone.mkdir()
    beside.mkdir()
    shutil.copy(DATA / "manifests" / "uv-docker" / "uv.lock", alone / "uv.lock")
    _uv_project(beside, "[dependency-groups]", new)
    want = run_envkit("convert", str(alone / "uv.lock"), "--to", "requirements", "-o", "-")
    got = run_envkit("convert", str(beside / "uv.lock"), "--to", "requirements", "-o", "-")
    assert want.exit_code == 0, want.stderr
    assert (got.exit_code, got.stderr, got.stdout) == (
        want.exit_code,
        want.stderr.replace(str(alone), str(beside)),
        want.stdout,
    )
    assert "ruff==" in got.stdout  # the `dev` group: uv's default when default-groups says nothing
