"""`envkit check` runs the audit as rules (known-vulnerability, licence-not-allowed,
no-advisory-source) where an advisory database is configured, on real corpus locks and real OSV
records; `check --audit` makes a missing database an error; nothing reaches the network."""

from __future__ import annotations

import json

import pytest
from conftest import CORPUS, DATA
from test_audit_cli import no_network  # noqa: F401 (fixture: any connection fails)
from test_audit_cli import repo as cli_repo  # noqa: F401, F811 (fixture: the database)

NEMO = CORPUS / "59_43ravens__NEMO_Nowcast__pixi.lock"
CONDA_LOCK = str(CORPUS / "72_konstantinjdobler__nlp-research-template__conda-lock.yml")
AUDIT_RULES = {"known-vulnerability", "licence-not-allowed", "no-advisory-source"}


@pytest.fixture
def repo(cli_repo, monkeypatch):  # noqa: F811 (the fixture of test_audit_cli)
    """The project folder of test_audit_cli holding the real pixi.lock with brotli-python moved back
    to 1.0.7, before the fix of PYSEC-2020-29; no database configured."""
    (cli_repo / "pixi.lock").write_text(
        NEMO.read_text().replace("brotli-python-1.2.0-", "brotli-python-1.0.7-")
    )
    monkeypatch.delenv("ENVKIT_AUDIT_DB")
    return cli_repo


def check_json(envkit_cli, *args, cwd):
    r = envkit_cli("check", "--format", "json", *args, cwd=cwd)
    return r.exit_code, json.loads(r.stdout)["findings"] if r.stdout else None, r.stderr


def test_with_a_database_in_the_environment_check_reports_the_vulnerability(repo, envkit_cli, monkeypatch):
    monkeypatch.setenv("ENVKIT_AUDIT_DB", str(repo / "osv"))
    rc, findings, err = check_json(envkit_cli, "pixi.lock", cwd=repo)
    assert rc == 1, err
    vulns = [f for f in findings if f["rule"] == "known-vulnerability"]
    # one per place the lock lists the package (its entry's reference in each environment)
    assert [f["line"] for f in vulns] == [14, 125, 403, 596, 736, 876, 1014]
    assert vulns[0]["severity"] == "error" and vulns[0]["packages"] == ["brotli-python"]
    assert vulns[0]["message"].startswith(
        "PYSEC-2020-29 (CVE-2020-8927) unknown: brotli-python 1.0.7 (conda): A buffer overflow"
    )
    assert vulns[0]["message"].endswith("; fix: pixi update brotli-python")
    unknown = [f for f in findings if f["rule"] == "no-advisory-source"]
    assert unknown[0]["severity"] == "info"
    assert unknown[0]["message"].startswith("unknown, no advisory source (no PyPI identity): 31 packages: ")
    assert "openssl 3.6.2" in unknown[0]["message"]


def test_without_a_database_the_audit_rules_find_nothing_and_check_audit_is_exit_2(repo, envkit_cli):
    rc, findings, err = check_json(envkit_cli, "pixi.lock", cwd=repo)
    assert rc == 0, err
    assert AUDIT_RULES.isdisjoint(f["rule"] for f in findings)
    r = envkit_cli("check", "--audit", "pixi.lock", cwd=repo)
    assert r.exit_code == 2 and r.stdout == ""
    assert "error: --audit: no advisory database is configured" in r.stderr
    assert "[tool.envkit.audit]" in r.stderr and "envkit audit --fetch-db DIR" in r.stderr


def test_an_audit_table_without_a_database_is_said_once(repo, envkit_cli):
    (repo / ".envkit.toml").write_text('[audit]\nlicense-deny = ["AGPL-3.0-only"]\n')
    rc, findings, err = check_json(envkit_cli, "pixi.lock", cwd=repo)
    assert rc == 0, err
    notes = [f for f in findings if f["rule"] in AUDIT_RULES]
    # seven environments, one note
    assert notes == [
        {
            "rule": "no-advisory-source",
            "severity": "info",
            "file": "pixi.lock",
            "line": None,
            "message": f"{repo / '.envkit.toml'}: the audit table names no advisory database (db) and "
            "$ENVKIT_AUDIT_DB is not set: the audit rules did not run",
            "packages": [],
            "fixable": False,
        }
    ]


def test_audit_table_fail_on_and_licence_lists_apply_and_sarif_validates(repo, envkit_cli):
    import jsonschema

    (repo / "pyproject.toml").write_text(
        f'[tool.envkit.audit]\ndb = "{repo / "osv"}"\nfail-on = "critical"\nlicense-deny = ["Apache-2.0"]\n'
    )
    r = envkit_cli("check", "--audit", "--format", "sarif", CONDA_LOCK, cwd=repo)
    assert r.exit_code == 1, r.stderr
    doc = json.loads(r.stdout)
    jsonschema.validate(doc, json.loads((DATA / "sarif" / "sarif-schema-2.1.0.json").read_text()))
    results = doc["runs"][0]["results"]
    aiohttp = next(x for x in results if "PYSEC-2023-246" in x["message"]["text"])
    # CVSS 7.5 (high) is below fail-on critical: a warning
    assert (aiohttp["ruleId"], aiohttp["level"]) == ("known-vulnerability", "warning")
    assert aiohttp["locations"][0]["physicalLocation"]["region"] == {"startLine": 2173}
    rule_ids = {rl["id"] for rl in doc["runs"][0]["tool"]["driver"]["rules"]}
    assert {"known-vulnerability", "no-advisory-source"} <= rule_ids
    # conda-lock records no licences; pixi.lock does
    rc, findings, err = check_json(envkit_cli, "pixi.lock", "--select", "licence-not-allowed", cwd=repo)
    assert rc == 1, err
    denied = {(f["line"], f["message"]) for f in findings}
    assert (32, "openssl 3.6.2 (conda) is licensed Apache-2.0: denied (license-deny)") in denied
    assert {f["rule"] for f in findings} == {"licence-not-allowed"}
