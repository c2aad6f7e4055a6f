"""Hostile configuration and audit inputs through the CLI: config tables of the wrong type, OSV
records that break OSV's schema, and VEX documents envkit cannot read.  Each is refused with exit 2
and one short error naming the file, and the line or key where one is known -- never an internal
error (exit 3)."""

from __future__ import annotations

import json
import shutil
import zipfile

import pytest
from conftest import CORPUS, DATA, run_envkit

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
    return str(
        shutil.copytree(DATA / "osv", repo / "osv", ignore=shutil.ignore_patterns("*envkit-index.json"))
    )


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
def test_pyproject_tables_that_are_not_tables_name_the_file_and_line(
    repo, osv, command, text, line, key, value
):
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
        (
            '[audit]\nignore = "PYSEC-2023-74"\n',
            "2 (audit.ignore): ignore must be a list of tables {id, reason, until}",
        ),
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
            "2 (audit.fail-on): fail-on must be one of "
            "unknown, any, low, medium, high, critical, never, not [1]",
        ),
        ("[audit]\ndb = 5\n", "2 (audit.db): db must be the path of an OSV database"),
        (
            '\n[audit]\nlicense-allow = "MIT"\n',
            "3 (audit.license-allow): license-allow must be a list of SPDX licence ids",
        ),
        (
            "[audit]\nlicense-deny = [5]\n",
            "2 (audit.license-deny): license-deny must be a list of SPDX licence ids",
        ),
    ],
)
def test_audit_keys_of_the_wrong_type_name_the_file_line_and_key(repo, osv, text, first):
    (repo / ".envkit.toml").write_text(text)
    r = run_envkit("audit", "--db", osv, "requirements.txt", cwd=repo)
    assert _first(r) == f"error: {repo / '.envkit.toml'}:{first}"


def test_audit_keys_in_pyproject_name_the_line(repo, osv):
    (repo / "pyproject.toml").write_text('[project]\nname = "x"\n\n[tool.envkit.audit]\nignore = 5\n')
    r = run_envkit("audit", "--db", osv, "--config", "pyproject.toml", "requirements.txt", cwd=repo)
    assert _first(r) == (
        "error: pyproject.toml:5 (tool.envkit.audit.ignore): "
        "ignore must be a list of tables {id, reason, until}"
    )


def _record(**changes) -> dict:
    """An OSV record of requests with `changes`: `affected=...` replaces the list, `package=...`,
    `versions=...`, `ranges=...`, `events=...` and `severity=...` the first entry's."""
    events = changes.pop("events", [{"introduced": "0"}, {"fixed": "2.31.0"}])
    rng = {"type": "ECOSYSTEM", "events": events}
    entry = {"package": {"ecosystem": "PyPI", "name": "requests"}, "ranges": [rng]}
    for key in ("package", "versions", "ranges", "severity"):
        if key in changes:
            entry[key] = changes.pop(key)
    return {"id": "X-1", "affected": [entry], **changes}


@pytest.mark.parametrize(
    ("record", "key", "first"),
    [
        (_record(aliases=5), "aliases", "aliases must be an array, not 5"),
        (_record(affected="abc"), "affected", "affected must be an array, not 'abc'"),
        (_record(affected=[5]), "affected[0]", "affected[0] must be an object, not 5"),
        (_record(package=5), "affected[0].package", "package must be an object, not 5"),
        (_record(package=[1]), "affected[0].package", "package must be an object, not [1]"),
        (
            _record(package={"ecosystem": "PyPI", "name": 5}),
            "affected[0].package.name",
            "name must be a string, not 5",
        ),
        (_record(versions=5), "affected[0].versions", "versions must be an array, not 5"),
        (
            _record(versions=["1.0", None]),
            "affected[0].versions[1]",
            "versions[1] must be a version string, not None",
        ),
        (_record(ranges=5), "affected[0].ranges", "ranges must be an array, not 5"),
        (_record(events=5), "affected[0].ranges[0].events", "events must be an array, not 5"),
        (_record(events=["x"]), "affected[0].ranges[0].events[0]", "events[0] must be an object, not 'x'"),
        (_record(events=[[1]]), "affected[0].ranges[0].events[0]", "events[0] must be an object, not [1]"),
        (
            _record(events=[{"introduced": [1]}]),
            "affected[0].ranges[0].events[0].introduced",
            "introduced must be a version string, not [1]",
        ),
        (_record(severity=5), "affected[0].severity", "severity must be an array, not 5"),
        (
            _record(severity=[{"type": "CVSS_V3", "score": 9.8}]),
            "affected[0].severity[0].score",
            "score must be a string, not 9.8",
        ),
        ({**_record(), "severity": 5}, "severity", "severity must be an array, not 5"),
    ],
)
def test_osv_records_that_break_the_schema_name_the_record_and_key(repo, record, key, first):
    (repo / "db").mkdir()
    (repo / "db" / "a.json").write_text(json.dumps(record))
    r = run_envkit("audit", "--db", "db", "requirements.txt", cwd=repo)
    assert _first(r) == f"error: db/a.json ({key}): not an OSV record: {first}"


def test_a_yaml_record_whose_affected_is_a_number(repo):
    (repo / "db").mkdir()
    (repo / "db" / "PYSEC-1.yaml").write_text("id: PYSEC-1\naffected: 5\n")
    r = run_envkit("audit", "--db", "db", "requirements.txt", cwd=repo)
    assert (
        _first(r) == "error: db/PYSEC-1.yaml (affected): not an OSV record: affected must be an array, not 5"
    )


def test_a_bad_record_in_a_zip_is_named_inside_the_zip(repo):
    with zipfile.ZipFile(repo / "all.zip", "w") as z:
        z.writestr("GOOD-1.json", json.dumps(_record(id="GOOD-1")))
        z.writestr("BAD-1.json", json.dumps(_record(id="BAD-1", events=[[1]])))
    r = run_envkit("audit", "--db", "all.zip", "requirements.txt", cwd=repo)
    assert _first(r) == (
        "error: all.zip:BAD-1.json (affected[0].ranges[0].events[0]): not an OSV record: "
        "events[0] must be an object, not [1]"
    )


def test_check_with_a_bad_record_in_envkit_audit_db(repo, monkeypatch):
    (repo / "db").mkdir()
    (repo / "db" / "a.json").write_text(json.dumps(_record(aliases=5)))
    monkeypatch.setenv("ENVKIT_AUDIT_DB", "db")
    r = run_envkit("check", str(CORPUS / "85_pdm-project__pdm__pylock.toml"), cwd=repo)
    assert _first(r) == "error: db/a.json (aliases): not an OSV record: aliases must be an array, not 5"


def test_valid_records_with_yaml_numbers_and_nulls_still_match(repo):
    # an unquoted version is a number to YAML, and a null reads as an absent field
    (repo / "db").mkdir()
    (repo / "db" / "PYSEC-2.yaml").write_text(
        "id: PYSEC-2\naliases: null\nseverity: null\naffected:\n"
        "- package: {ecosystem: PyPI, name: requests}\n  versions: null\n"
        "  ranges:\n  - type: ECOSYSTEM\n    events:\n    - introduced: 2\n    - fixed: 2.31\n"
    )
    r = run_envkit("audit", "--db", "db", "--format", "json", "requirements.txt", cwd=repo)
    assert r.exit_code == 1, r.stderr
    assert [(v["id"], v["fix_version"]) for v in json.loads(r.stdout)["vulnerabilities"]] == [
        ("PYSEC-2", "2.31")
    ]


PYLOCK = str(CORPUS / "85_pdm-project__pdm__pylock.toml")


def _vex_doc(spec: str, vulnerabilities: list | None = None) -> str:
    doc: dict = {"bomFormat": "CycloneDX", "specVersion": spec, "version": 1}
    if vulnerabilities is not None:
        doc["vulnerabilities"] = vulnerabilities
    return json.dumps(doc)


SILENCE = {"id": "CVE-2023-32681", "analysis": {"state": "not_affected"}}
VEX_HINT = "hint: VEX in CycloneDX JSON has specVersion 1.4 or later"


@pytest.mark.parametrize(
    ("text", "lines"),
    [
        (_vex_doc("1.0"), ["error: vex.json: CycloneDX 1.0 has no JSON form", VEX_HINT]),
        (_vex_doc("1.1", [SILENCE]), ["error: vex.json: CycloneDX 1.1 has no JSON form", VEX_HINT]),
        (
            _vex_doc("1.2", [SILENCE]),
            [
                "error: vex.json: not a valid CycloneDX 1.2 document: "
                "Additional properties are not allowed ('vulnerabilities' was unexpected)",
                VEX_HINT,
            ],
        ),
        (
            _vex_doc("1.5", [{"id": 3}]),
            [
                "error: vex.json (vulnerabilities[0].id): not a valid CycloneDX 1.5 document: "
                "3 is not of type 'string'"
            ],
        ),
    ],
)
def test_vex_that_cannot_be_read_gets_a_short_error(repo, osv, text, lines):
    (repo / "vex.json").write_text(text)
    r = run_envkit("audit", "--db", osv, "--vex", "vex.json", PYLOCK, cwd=repo)
    assert r.exit_code == 2, r.stderr
    assert r.stderr.splitlines() == lines


def test_a_schema_complaint_quoting_a_long_value_is_clipped(repo, osv):
    doc = json.loads(_vex_doc("1.5"))
    doc["components"] = [{"type": "x" * 5000, "name": "requests"}]
    (repo / "vex.json").write_text(json.dumps(doc))
    r = run_envkit("audit", "--db", osv, "--vex", "vex.json", PYLOCK, cwd=repo)
    assert r.exit_code == 2, r.stderr
    [line] = r.stderr.splitlines()
    assert line.startswith("error: vex.json (components[0].type): not a valid CycloneDX 1.5 document: 'xxx")
    assert len(line) < 400


def test_a_vex_statement_without_an_id_silences_nothing(repo, osv):
    # the schema lets a vulnerability go without an id; naming no advisory, it silences none
    (repo / "vex.json").write_text(_vex_doc("1.5", [{"analysis": {"state": "not_affected"}}, SILENCE]))
    r = run_envkit("audit", "--format", "json", "--db", osv, "--vex", "vex.json", PYLOCK, cwd=repo)
    assert r.exit_code == 1, r.stderr
    doc = json.loads(r.stdout)
    assert [v["id"] for v in doc["ignored"]] == ["GHSA-j8r2-6x86-q33q"]
    assert [v["id"] for v in doc["vulnerabilities"]] == ["PYSEC-2020-92", "PYSEC-2022-42969"]
    (repo / "vex.json").write_text(_vex_doc("1.5", [{"analysis": {"state": "not_affected"}}]))
    r = run_envkit("audit", "--format", "json", "--db", osv, "--vex", "vex.json", PYLOCK, cwd=repo)
    assert r.exit_code == 1, r.stderr
    assert json.loads(r.stdout)["ignored"] == []
