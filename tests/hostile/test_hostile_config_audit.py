"""Hostile configuration and audit inputs through the CLI: config tables of the wrong type, OSV
records that break OSV's schema, and VEX documents envkit cannot read.  Each is refused with exit 2
and one short error naming the file, and the line or key where one is known -- never an internal
error (exit 3)."""

from __future__ import annotations

import json
import shutil
import zipfile

import pytest
from conftest import DATA, run_envkit

ENV = "channels: [conda-forge]\ndependencies: [python=3.11]\n"


@pytest.fixture
def repo(tmp_path, monkeypatch):
    (tmp_path / ".git").mkdir()  # the config search stops here
    (tmp_path / "environment.yml").write_text(ENV)
    (tmp_path / "requirements.txt").write_text("requests==2.27.1\n")
    monkeypatch.delenv("ENVKIT_AUDIT_DB", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    return tmp_path


def _first(r) -> str:
    assert r.exit_code == 2, r.stderr
    return r.stderr.splitlines()[0]


@pytest.mark.parametrize(
    ("name", "text", "line", "key"),
    [
        (".envkit.toml", 'allowed-channels = ["conda-forge", " "]\n', 1, "allowed-channels"),
        ("pyproject.toml", '[tool.envkit]\nallowed_channels = [""]\n', 2, "tool.envkit.allowed-channels"),
    ],
)
def test_an_empty_allowed_channel_names_the_file_and_line(repo, name, text, line, key):
    (repo / name).write_text(text)
    r = run_envkit("check", "--config", name, "environment.yml", cwd=repo)
    assert _first(r) == f"error: {name}:{line} ({key}): allowed-channels holds an empty channel name"


@pytest.fixture
def osv(repo):
    return str(shutil.copytree(DATA / "osv", repo / "osv", ignore=shutil.ignore_patterns("*envkit-index.json")))


@pytest.mark.parametrize(
    ("text", "line", "key", "value"),
    [
        ("tool = 5\n", 1, "tool", "5"),
        ("[tool]\nenvkit = 5\n", 2, "tool.envkit", "5"),
        ('[project]\nname = "x"\n[tool]\nenvkit = [1]\n', 4, "tool.envkit", "[1]"),
        ("[tool.envkit]\naudit = 5\n", 2, "tool.envkit.audit", "5"),
    ],
)
@pytest.mark.parametrize("command", ["check", "audit"])
def test_pyproject_tables_that_are_not_tables_name_the_file_and_line(repo, osv, command, text, line, key, value):
    (repo / "pyproject.toml").write_text(text)
    args = ("audit", "--db", osv) if command == "audit" else ("check",)
    r = run_envkit(*args, "--config", "pyproject.toml", "requirements.txt", cwd=repo)
    assert _first(r) == f"error: pyproject.toml:{line} ({key}): [{key}] must be a table, not {value}"


def test_an_audit_table_that_is_not_a_table_in_envkit_toml(repo, osv):
    (repo / ".envkit.toml").write_text('select = ["unpinned"]\naudit = "x"\n')
    for args in (("check",), ("audit", "--db", osv)):
        r = run_envkit(*args, "requirements.txt", cwd=repo)
        assert _first(r) == f"error: {repo / '.envkit.toml'}:2 (audit): [audit] must be a table, not 'x'"


@pytest.mark.parametrize(
    ("text", "first"),
    [
        ("[audit]\nignore = 5\n", "2 (audit.ignore): ignore must be a list of tables {id, reason, until}"),
        ('[audit]\nignore = "PYSEC-2023-74"\n', "2 (audit.ignore): ignore must be a list of tables {id, reason, until}"),
        (
            '[audit]\nignore = [\n  {id = "A", reason = "r"},\n  "PYSEC-2023-74",\n]\n',
            "4 (audit.ignore[1]): an ignore must be a table {id, reason, until}",
        ),
        (
            '[audit]\nignore = [{id = "A", reason = "r", until = 5}]\n',
            "2 (audit.ignore[0]): `until` of the ignore of A must be a date (YYYY-MM-DD), not 5",
        ),
        (
            "[audit]\nfail_on = [1]\n",
            "2 (audit.fail-on): fail-on must be one of unknown, any, low, medium, high, critical, never, not [1]",
        ),
        ("[audit]\ndb = 5\n", "2 (audit.db): db must be the path of an OSV database"),
        ('\n[audit]\nlicense-allow = "MIT"\n', "3 (audit.license-allow): license-allow must be a list of SPDX licence ids"),
        ("[audit]\nlicense-deny = [5]\n", "2 (audit.license-deny): license-deny must be a list of SPDX licence ids"),
    ],
)
def test_audit_keys_of_the_wrong_type_name_the_file_line_and_key(repo, osv, text, first):
    (repo / ".envkit.toml").write_text(text)
    r = run_envkit("audit", "--db", osv, "requirements.txt", cwd=repo)
    assert _first(r) == f"error: {repo / '.envkit.toml'}:{first}"


def test_audit_keys_in_pyproject_name_the_line(repo, osv):
    (repo / "pyproject.toml").write_text('[project]\nname = "x"\n\n[tool.envkit.audit]\nignore = 5\n')
    r = run_envkit("audit", "--db", osv, "--config", "pyproject.toml", "requirements.txt", cwd=repo)
    first = "error: pyproject.toml:5 (tool.envkit.audit.ignore): ignore must be a list of tables {id, reason, until}"
    assert _first(r) == first
