"""`envkit audit` of a real pixi.lock: conda packages reach PyPI advisories through the `purls:`
pixi records (conda-forge's name mapping), and their licences come from the lock's `license:`."""

from __future__ import annotations

import json

from conftest import CORPUS
from test_audit_cli import no_network, repo  # noqa: F401, F811 (fixtures: no network, a database)

from envkit.formats import read_file

#: a pixi.lock (version 6) whose conda entries carry `license:` and `purls:`; brotli-python is the
#: conda name of PyPI's `brotli` (its purl says so; the name alone does not)
NEMO = CORPUS / "59_43ravens__NEMO_Nowcast__pixi.lock"


def test_pixi_lock_entries_keep_their_purls_and_licence():
    lock = read_file(NEMO)
    by_name = {p.name: p for p in lock.packages if p.platform == "linux-64"}
    brotli = by_name["brotli-python"]
    assert (brotli.version, brotli.license) == ("1.2.0", "MIT")
    assert brotli.purls == ("pkg:pypi/brotli?source=hash-mapping",)
    assert (by_name["openssl"].license, by_name["openssl"].purls) == ("Apache-2.0", ())


def test_conda_package_matched_by_its_purl_against_the_pypi_advisory(repo, envkit_cli):  # noqa: F811
    # the real lock with brotli-python's file names moved back to 1.0.7 (before the fix of
    # PYSEC-2020-29 in 1.0.8); everything else as pixi wrote it
    lock = repo / "pixi.lock"
    lock.write_text(NEMO.read_text().replace("brotli-python-1.2.0-", "brotli-python-1.0.7-"))
    r = envkit_cli("audit", "--format", "json", str(lock), cwd=repo)
    assert r.exit_code == 1, r.stderr
    [v] = json.loads(r.stdout)["vulnerabilities"]
    assert (v["id"], v["package"], v["pypi_name"], v["manager"], v["version"]) == (
        "PYSEC-2020-29",
        "brotli-python",
        "brotli",
        "conda",
        "1.0.7",
    )
    assert (v["line"], v["platforms"], v["fix_version"], v["fix"]) == (
        14,
        ["linux-64", "osx-64"],
        "1.0.8",
        "pixi update brotli-python",
    )


def test_real_pixi_lock_is_clean_by_purl_and_its_licences_judged(repo, envkit_cli):  # noqa: F811
    r = envkit_cli("audit", "--format", "json", "--license-deny", "Apache-2.0", str(NEMO), cwd=repo)
    assert r.exit_code == 1, r.stderr  # denied licences fail; no vulnerability
    out = json.loads(r.stdout)
    assert out["vulnerabilities"] == []
    assert out["summary"]["licences"] == {"allowed": 49, "not-allowed": 0, "denied": 6, "unknown": 1}
    lic = {(x["package"], x["version"]): (x["spdx"], x["status"], x["from"]) for x in out["licences"]}
    assert lic[("brotli-python", "1.2.0")] == ("MIT", "allowed", "conda record")
    assert lic[("openssl", "3.6.2")] == ("Apache-2.0", "denied", "conda record")
    # `X WITH exception` is judged as X
    assert lic[("libcxx", "22.1.7")] == ("Apache-2.0 WITH LLVM-exception", "denied", "conda record")
    # the editable project pixi builds has neither version nor licence: unknown, not allowed
    assert lic[("nemo-nowcast", "")] == (None, "unknown", "nothing recorded")
    unknown = {u["package"]: u["reason"] for u in out["unknown"]}
    assert unknown["openssl"] == "no advisory source (no PyPI identity)"
    assert "brotli-python" not in unknown
