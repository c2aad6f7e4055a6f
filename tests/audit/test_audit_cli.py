"""`envkit audit` from the command line, on real corpus locks and real OSV records: findings and
their fixes, unknowns, ignores with expiry, VEX, licences, SARIF validated, exit codes, and no
network."""

from __future__ import annotations

import json
import shutil
import socket
import textwrap

import pytest
from conftest import CORPUS, DATA

PYLOCK = str(CORPUS / "85_pdm-project__pdm__pylock.toml")
CONDA_LOCK = str(CORPUS / "72_konstantinjdobler__nlp-research-template__conda-lock.yml")


@pytest.fixture(autouse=True)
def no_network(monkeypatch):
    """Every test here fails on any attempt to open a connection."""

    def refuse(*args, **kwargs):
        raise AssertionError("envkit audit tried to reach the network")

    monkeypatch.setattr(socket.socket, "connect", refuse)
    monkeypatch.setattr(socket, "create_connection", refuse)
    monkeypatch.setattr(socket, "getaddrinfo", refuse)


@pytest.fixture
def repo(tmp_path, monkeypatch):
    (tmp_path / ".git").mkdir()  # the config search stops here
    db = shutil.copytree(DATA / "osv", tmp_path / "osv", ignore=shutil.ignore_patterns("*envkit-index.json"))
    monkeypatch.setenv("ENVKIT_AUDIT_DB", str(db))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    return tmp_path


def audit_json(envkit_cli, *args, cwd):
    r = envkit_cli("audit", "--format", "json", *args, cwd=cwd)
    return r.exit_code, json.loads(r.stdout) if r.stdout else None, r.stderr


def test_pylock_from_pdm_has_three_real_advisories(repo, envkit_cli):
    code, doc, _ = audit_json(envkit_cli, PYLOCK, cwd=repo)
    assert code == 1
    found = [(v["id"], v["package"], v["version"], v["fix_version"]) for v in doc["vulnerabilities"]]
    assert found == [
        ("PYSEC-2020-92", "py", "1.4.34", "1.10.0"),
        ("PYSEC-2022-42969", "py", "1.4.34", None),
        ("GHSA-j8r2-6x86-q33q", "requests", "2.27.1", "2.31.0"),
    ]
    # the GHSA record and the PYSEC record of one flaw are one finding: the scored one leads
    req = doc["vulnerabilities"][2]
    assert req["aliases"] == ["CVE-2023-32681", "PYSEC-2023-74"]
    assert req["manager"] == "pip" and req["line"] == 102
    assert (req["severity"], req["cvss_score"]) == ("medium", 6.1)
    assert req["fix"] == "lock again with requests>=2.31.0"
    assert doc["summary"] | {"licences": None} == {
        "audited": 10,
        "vulnerable": 2,
        "vulnerabilities": 3,
        "ignored": 0,
        "clean": 8,
        "unknown": 0,
        "licences": None,
        "fail_on": "any",
        "failed": True,
    }


def test_conda_lock_conda_side_matches_through_pypi_identity(repo, envkit_cli):
    code, doc, _ = audit_json(envkit_cli, CONDA_LOCK, cwd=repo)
    assert code == 1
    by_pkg = {}
    for v in doc["vulnerabilities"]:
        by_pkg.setdefault((v["package"], v["manager"], v["version"]), []).append(v["id"])
    assert by_pkg == {
        ("aiohttp", "conda", "3.8.4"): [
            "PYSEC-2023-120",
            "PYSEC-2023-246",
            "PYSEC-2023-250",
            "PYSEC-2023-251",
            "PYSEC-2024-24",
            "PYSEC-2024-26",
        ],
        ("urllib3", "conda", "1.26.15"): ["PYSEC-2023-192", "PYSEC-2023-212"],
        ("requests", "conda", "2.28.2"): ["GHSA-j8r2-6x86-q33q"],
    }
    aio = doc["vulnerabilities"][1]
    assert aio["fix"] == "envkit lock --update aiohttp (to 3.8.6 or later)"
    assert (aio["severity"], aio["cvss_score"]) == ("high", 7.5)
    unknown = {u["package"] for u in doc["unknown"]}
    assert {"openssl", "libcurl", "python", "ca-certificates"} <= unknown
    assert all(u["reason"] == "no advisory source (no PyPI identity)" for u in doc["unknown"])
    s = doc["summary"]
    assert (s["audited"], s["clean"], s["unknown"], s["vulnerable"]) == (220, 83, 134, 3)
    assert s["audited"] == s["clean"] + s["unknown"] + s["vulnerable"]


def test_text_report_and_fail_on_levels(repo, envkit_cli):
    r = envkit_cli("audit", PYLOCK, cwd=repo)
    assert r.exit_code == 1
    assert r.stdout.splitlines()[-1] == (
        "3 vulnerabilities in 2 of 10 packages (1 source); 8 clean, 0 unknown; licences: 10 unknown"
    )
    assert r.stdout.splitlines()[2].startswith(
        f"{PYLOCK}:102: GHSA-j8r2-6x86-q33q (CVE-2023-32681, PYSEC-2023-74) medium 6.1: "
        "requests 2.27.1 (pip): "
    )
    # unscored advisories reach every level; only `never` passes
    assert envkit_cli("audit", "--fail-on", "critical", PYLOCK, cwd=repo).exit_code == 1
    assert envkit_cli("audit", "--fail-on", "never", PYLOCK, cwd=repo).exit_code == 0


def test_fail_on_a_cvss_rating(repo, envkit_cli, tmp_path):
    spec = tmp_path / "requirements.txt"
    spec.write_text("urllib3==1.26.15\n")
    code, doc, _ = audit_json(envkit_cli, str(spec), "--fail-on", "high", cwd=repo)
    assert [(v["id"], v["severity"], v["fails"]) for v in doc["vulnerabilities"]] == [
        ("PYSEC-2023-192", "high", True),
        ("PYSEC-2023-212", "medium", False),
    ]
    assert code == 1
    spec.write_text("urllib3==1.26.17\n")  # fixes the high one, not the medium one
    assert envkit_cli("audit", str(spec), "--fail-on", "high", cwd=repo).exit_code == 0
    assert envkit_cli("audit", str(spec), "--fail-on", "medium", cwd=repo).exit_code == 1


def test_spec_with_exact_pins_and_unpinned_entries(repo, envkit_cli):
    (repo / "environment.yml").write_text(
        textwrap.dedent("""\
            channels: [conda-forge]
            dependencies:
              - python=3.11
              - numpy==1.21.0
              - pip
              - pip:
                - requests==2.27.1
                - jinja2
            """)
    )
    code, doc, _ = audit_json(envkit_cli, "environment.yml", cwd=repo)
    assert code == 1
    assert [(v["package"], v["id"], v["fix"]) for v in doc["vulnerabilities"]] == [
        ("requests", "GHSA-j8r2-6x86-q33q", "pip install 'requests>=2.31.0'")
    ]
    assert [(u["package"], u["reason"]) for u in doc["unknown"]] == [
        ("python", "not pinned to one version"),
        ("jinja2", "not pinned to one version"),
        # a spec records no build or dependencies that would tell a Python package from a library
        ("numpy", "cannot tell whether it is a Python package (no build recorded: lock it)"),
    ]


def test_ignore_with_reason_until_a_date_then_it_counts_again(repo, envkit_cli):
    (repo / ".envkit.toml").write_text(
        textwrap.dedent("""\
            [audit]
            ignore = [
              {id = "CVE-2023-32681", reason = "no proxies here", until = 2999-12-31},
              {id = "PYSEC-2020-92", reason = "svn is never used", until = 2020-01-01},
              {id = "GHSA-w596-4wvx-j9j6", reason = "svn is never used"},
            ]
            """)
    )
    code, doc, err = audit_json(envkit_cli, PYLOCK, cwd=repo)
    assert [v["id"] for v in doc["vulnerabilities"]] == ["PYSEC-2020-92"]
    assert [(v["id"], v["reason"]) for v in doc["ignored"]] == [
        ("PYSEC-2022-42969", "ignored: svn is never used"),
        ("GHSA-j8r2-6x86-q33q", "ignored: no proxies here"),
    ]
    assert code == 1
    assert err == (
        "warning: the ignore of PYSEC-2020-92 lapsed on 2020-01-01: it counts again (svn is never used)\n"
    )


def test_an_ignore_without_a_reason_is_a_config_error(repo, envkit_cli):
    (repo / "pyproject.toml").write_text('[tool.envkit.audit]\nignore = [{id = "PYSEC-2023-74"}]\n')
    r = envkit_cli("audit", PYLOCK, cwd=repo)
    assert r.exit_code == 2
    assert "the ignore of PYSEC-2023-74 needs a `reason`" in r.stderr
    assert "tool.envkit.audit.ignore[0]" in r.stderr
    # and the table is not an unknown key to `envkit check`'s configuration
    (repo / "pyproject.toml").write_text('[tool.envkit.audit]\nlicense-deny = ["GPL-3.0-only"]\n')
    (repo / "environment.yml").write_text("channels: [conda-forge]\ndependencies: [python=3.11]\n")
    assert envkit_cli("check", "environment.yml", cwd=repo).exit_code in (0, 1)


def _vex(path, state="not_affected", ref="pkg:pypi/requests@2.27.1"):
    doc = {
        "bomFormat": "CycloneDX",
        "specVersion": "1.5",
        "version": 1,
        "vulnerabilities": [
            {
                "id": "CVE-2023-32681",
                "analysis": {"state": state, "justification": "code_not_reachable", "detail": "no proxies"},
                "affects": [{"ref": ref}],
            }
        ],
    }
    path.write_text(json.dumps(doc))
    return str(path)


def test_vex_not_affected_silences_the_advisory_for_that_package(repo, envkit_cli):
    code, doc, _ = audit_json(envkit_cli, PYLOCK, "--vex", _vex(repo / "vex.json"), cwd=repo)
    assert [v["id"] for v in doc["ignored"]] == ["GHSA-j8r2-6x86-q33q"]
    assert doc["ignored"][0]["reason"] == "VEX not_affected: code_not_reachable; no proxies"
    # another version, or a statement still in triage, silences nothing
    for vex in (
        _vex(repo / "v2.json", ref="pkg:pypi/requests@2.28.0"),
        _vex(repo / "v3.json", state="in_triage"),
    ):
        _, doc, _ = audit_json(envkit_cli, PYLOCK, "--vex", vex, cwd=repo)
        assert doc["ignored"] == []


def test_vex_that_is_not_cyclonedx_is_exit_2(repo, envkit_cli):
    (repo / "bad.json").write_text(
        '{"bomFormat": "CycloneDX", "specVersion": "1.5", "vulnerabilities": [{"id": 3}]}'
    )
    r = envkit_cli("audit", PYLOCK, "--vex", "bad.json", cwd=repo)
    assert r.exit_code == 2 and r.stdout == ""
    assert "bad.json" in r.stderr and "not a valid CycloneDX 1.5 document" in r.stderr


def test_sarif_validates_against_the_sarif_2_1_0_schema(repo, envkit_cli):
    import jsonschema

    r = envkit_cli("audit", "--format", "sarif", CONDA_LOCK, cwd=repo)
    assert r.exit_code == 1
    doc = json.loads(r.stdout)
    jsonschema.validate(doc, json.loads((DATA / "sarif" / "sarif-schema-2.1.0.json").read_text()))
    run = doc["runs"][0]
    rule_ids = [rl["id"] for rl in run["tool"]["driver"]["rules"]]
    assert rule_ids[:2] == ["PYSEC-2023-120", "PYSEC-2023-246"] and len(rule_ids) == 9
    first = run["results"][1]
    assert first["ruleId"] == "PYSEC-2023-246" and first["level"] == "error"
    assert first["locations"][0]["physicalLocation"]["region"] == {"startLine": 2173}
    assert "CVSS 7.5" in run["tool"]["driver"]["rules"][1]["fullDescription"]["text"]


def test_github_annotations(repo, envkit_cli):
    r = envkit_cli("audit", "--format", "github", PYLOCK, cwd=repo)
    lines = r.stdout.splitlines()
    assert lines[2].startswith(
        f"::error file={PYLOCK},line=102,title=envkit GHSA-j8r2-6x86-q33q (error)::GHSA-j8r2-6x86-q33q (CVE-"
    )
    assert lines[-1].startswith("3 vulnerabilities in 2 of 10 packages")


def _prefix(tmp_path):
    """A live prefix: conda aiohttp (with its dist-info), openssl, python; pip requests."""
    p = tmp_path / "env"
    sp = p / "lib" / "python3.11" / "site-packages"
    (p / "conda-meta").mkdir(parents=True)
    records = [
        ("python", "3.11.4", "h1_0", "Python-2.0", [], ["bin/python3.11"]),
        ("openssl", "3.1.0", "h0_0", "Apache-2.0", [], ["lib/libssl.so"]),
        ("aiohttp", "3.8.4", "py311h0_0", "Apache-2.0 AND MIT", ["python >=3.11"],
         ["lib/python3.11/site-packages/aiohttp-3.8.4.dist-info/METADATA"]),
    ]  # fmt: skip
    for name, version, build, lic, deps, files in records:
        rec = {
            "name": name,
            "version": version,
            "build": build,
            "build_number": 0,
            "channel": "https://conda.anaconda.org/conda-forge/linux-64",
            "subdir": "linux-64",
            "license": lic,
            "depends": deps,
            "files": files,
        }
        (p / "conda-meta" / f"{name}-{version}-{build}.json").write_text(json.dumps(rec))
    for name, version, installer, meta in (
        ("aiohttp", "3.8.4", "conda", ""),
        ("requests", "2.27.1", "pip", "License-Expression: Apache-2.0\n"),
    ):
        d = sp / f"{name}-{version}.dist-info"
        d.mkdir(parents=True)
        (d / "METADATA").write_text(f"Metadata-Version: 2.4\nName: {name}\nVersion: {version}\n{meta}")
        (d / "INSTALLER").write_text(installer + "\n")
        (d / "RECORD").write_text("")
    return p


def test_live_prefix_licences_from_conda_records_and_wheel_metadata(repo, envkit_cli, tmp_path):
    prefix = str(_prefix(tmp_path))
    code, doc, _ = audit_json(envkit_cli, "-p", prefix, "--license-deny", "MIT", cwd=repo)
    lic = {(x["package"], x["manager"]): (x["spdx"], x["status"], x["from"]) for x in doc["licences"]}
    assert lic == {
        ("python", "conda"): ("Python-2.0", "allowed", "conda record"),
        ("openssl", "conda"): ("Apache-2.0", "allowed", "conda record"),
        ("aiohttp", "conda"): ("Apache-2.0 AND MIT", "denied", "conda record"),
        ("requests", "pip"): ("Apache-2.0", "allowed", "License-Expression"),
    }
    assert [u["package"] for u in doc["unknown"]] == ["openssl", "python"]
    assert {v["package"] for v in doc["vulnerabilities"]} == {"aiohttp", "requests"}
    aio = next(v for v in doc["vulnerabilities"] if v["package"] == "aiohttp")
    assert aio["fix"].startswith("conda install 'aiohttp>=")
    assert code == 1
    # nothing vulnerable but a licence outside the allow list still fails
    code, doc, _ = audit_json(
        envkit_cli, "-p", prefix, "--fail-on", "never", "--license-allow", "Apache-2.0", cwd=repo
    )
    assert code == 0  # `never` passes everything
    code, doc, _ = audit_json(envkit_cli, "-p", prefix, "--license-allow", "Apache-2.0,Python-2.0", cwd=repo)
    assert [x["package"] for x in doc["licences"] if x["status"] == "not-allowed"] == ["aiohttp"]


def test_no_database_is_exit_2_naming_both_ways(tmp_path, envkit_cli, monkeypatch):
    monkeypatch.delenv("ENVKIT_AUDIT_DB", raising=False)
    (tmp_path / ".git").mkdir()
    r = envkit_cli("audit", PYLOCK, cwd=tmp_path)
    assert r.exit_code == 2 and r.stdout == ""
    assert r.stderr.splitlines() == [
        "error: no advisory database: envkit audits offline against an OSV database on disk",
        "hint: name one with --db PATH or $ENVKIT_AUDIT_DB (OSV's PyPI all.zip, or a checkout of "
        "github.com/pypa/advisory-database), or download OSV's PyPI dump once with --fetch-db DIR",
    ]


def test_fetch_db_is_the_one_download_and_fails_cleanly_offline(tmp_path, envkit_cli, monkeypatch):
    import envkit.audit.fetch as fetch

    asked = []

    def offline(url, timeout):
        asked.append(url)
        raise OSError("network is unreachable")

    monkeypatch.setattr(fetch, "urlopen", offline)
    r = envkit_cli("audit", "--fetch-db", str(tmp_path / "db"), cwd=tmp_path)
    assert r.exit_code == 2
    assert asked == ["https://osv-vulnerabilities.storage.googleapis.com/PyPI/all.zip"]
    assert r.stderr.startswith(
        "error: cannot download the advisory database from "
        "https://osv-vulnerabilities.storage.googleapis.com/PyPI/all.zip: network is unreachable"
    )
    assert list((tmp_path / "db" / "PyPI").iterdir()) == []
