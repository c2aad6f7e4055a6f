"""envkit.audit's core on real OSV records (tests/data/osv, from the PyPA advisory database):
version ranges, withdrawn records, CVSS scores, the index and its cache, PyPI identities, licences."""

from __future__ import annotations

import json
import os
import shutil
import zipfile

import pytest
import yaml
from conftest import DATA

from envkit.audit.cvss import base_score, rating, version
from envkit.audit.index import AuditDbError, open_index
from envkit.audit.licences import to_spdx, verdict, wheel_licence
from envkit.audit.match import pypi_identity
from envkit.audit.osv import advisories
from envkit.model import LockedPackage

OSV = DATA / "osv"


def record(rel: str) -> dict:
    return yaml.safe_load((OSV / rel).read_text())


@pytest.fixture
def db(tmp_path):
    """The real records in a directory of their own (the index is written beside them)."""
    return str(shutil.copytree(OSV, tmp_path / "osv", ignore=shutil.ignore_patterns("*envkit-index.json")))


@pytest.fixture
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    return tmp_path / "cache"


def test_requests_proxy_leak_affects_2_3_to_2_30_and_is_fixed_in_2_31():
    [(name, adv)] = list(advisories(record("requests/PYSEC-2023-74.yaml")))
    assert name == "requests" and adv.id == "PYSEC-2023-74"
    assert adv.aliases == ("CVE-2023-32681", "GHSA-j8r2-6x86-q33q")
    assert adv.fixed == ("2.31.0",)
    assert [adv.affects(v) for v in ("2.2.1", "2.3.0", "2.27.1", "2.30.0", "2.31.0", "2.32.3")] == [
        False,
        True,
        True,
        True,
        False,
        False,
    ]
    # every listed version lies in the range: the index keeps none of them
    assert adv.versions == ()


def test_last_affected_bounds_the_range_and_no_fix_is_recorded():
    [(name, adv)] = list(advisories(record("py/PYSEC-2022-42969.yaml")))
    assert name == "py" and adv.fixed == ()
    assert (adv.affects("1.11.0"), adv.affects("1.4.34"), adv.affects("1.11.1")) == (True, True, False)


def test_withdrawn_records_give_no_advisory():
    assert list(advisories(record("ansible/PYSEC-2020-221.yaml"))) == []
    assert list(advisories(record("aiohttp/PYSEC-2022-43059.yaml"))) == []


def test_github_record_scored_from_its_vector_and_merged_with_its_pysec_twin():
    import json as _json

    from envkit.audit.match import merge_aliases

    ghsa = _json.loads((OSV / "ghsa" / "GHSA-j8r2-6x86-q33q.json").read_text(encoding="utf-8"))
    [(_n, g)] = list(advisories(ghsa))
    assert (g.severity, g.score, g.aliases, g.ranges) == (
        "medium",
        6.1,
        ("CVE-2023-32681",),
        ((("introduced", "2.3.0"), ("fixed", "2.31.0")),),
    )
    [(_n, p)] = list(advisories(record("requests/PYSEC-2023-74.yaml")))
    [(name, merged)] = merge_aliases([("requests", p), ("requests", g)])
    assert (name, merged.id, merged.aliases, merged.fixed) == (
        "requests",
        "GHSA-j8r2-6x86-q33q",
        ("CVE-2023-32681", "PYSEC-2023-74"),
        ("2.31.0",),
    )


def test_cvss_vector_of_a_real_record_is_scored_7_5_high():
    [(_name, adv)] = list(advisories(record("aiohttp/PYSEC-2023-246.yaml")))
    assert (adv.severity, adv.score, adv.vector) == (
        "high",
        7.5,
        "CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:N/I:H/A:N",
    )
    # a GIT range (a commit) is not a release range: only the ECOSYSTEM one is kept
    assert adv.ranges == ((("introduced", "0"), ("fixed", "3.8.6")),)


@pytest.mark.parametrize(
    "vector,score,level",
    [
        ("CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:C/C:H/I:H/A:H", 10.0, "critical"),
        ("CVSS:3.1/AV:N/AC:L/PR:L/UI:N/S:U/C:H/I:H/A:H", 8.8, "high"),
        ("CVSS:3.1/AV:L/AC:L/PR:N/UI:R/S:U/C:H/I:H/A:H", 7.8, "high"),
        ("CVSS:3.1/AV:N/AC:H/PR:N/UI:R/S:U/C:L/I:N/A:N", 3.1, "low"),
        ("CVSS:3.0/AV:N/AC:L/PR:N/UI:R/S:C/C:L/I:L/A:N", 6.1, "medium"),
        ("CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:N/I:N/A:N", 0.0, "none"),
    ],
)
def test_cvss_3_base_scores_match_first_calculator(vector, score, level):
    assert base_score(vector) == score and rating(score) == level


@pytest.mark.parametrize(
    "vector,score,level",
    [
        # FIRST's CVSS v2 guide, section 3.3: CVE-2002-0392, CVE-2003-0818, CVE-2003-0062
        ("AV:N/AC:L/Au:N/C:N/I:N/A:C", 7.8, "high"),
        ("AV:N/AC:L/Au:N/C:C/I:C/A:C", 10.0, "high"),
        ("AV:L/AC:H/Au:N/C:C/I:C/A:C", 6.2, "medium"),
        # CVSS 4.0 (FIRST's calculator); the first is the vector GitHub gives CVE-2024-56201 (jinja2)
        ("CVSS:4.0/AV:L/AC:L/AT:P/PR:L/UI:P/VC:H/VI:H/VA:H/SC:N/SI:N/SA:N", 5.4, "medium"),
        ("CVSS:4.0/AV:N/AC:L/AT:N/PR:N/UI:N/VC:H/VI:H/VA:H/SC:N/SI:N/SA:N", 9.3, "critical"),
        ("CVSS:4.0/AV:N/AC:L/AT:N/PR:N/UI:N/VC:H/VI:H/VA:H/SC:H/SI:H/SA:H", 10.0, "critical"),
        ("CVSS:4.0/AV:N/AC:L/AT:N/PR:N/UI:N/VC:N/VI:N/VA:N/SC:N/SI:N/SA:N", 0.0, "none"),
    ],
)
def test_cvss_2_and_4_base_scores_per_their_specifications(vector, score, level):
    assert base_score(vector) == score and rating(score, version(vector)) == level


def test_incomplete_vectors_are_not_scored():
    assert base_score("CVSS:4.0/AV:N/AC:L/AT:N/PR:N/UI:N/VC:H/VI:H/VA:H") is None  # no SC/SI/SA
    assert base_score("CVSS:2.0/AV:N") is None
    assert base_score("not a vector") is None


def test_the_newest_cvss_version_of_a_record_rates_it():
    # the real GitHub record (CVSS 3.1: 6.1, medium) with a 4.0 vector beside it, as OSV records
    # carry both: the 4.0 one (FIRST's calculator: 9.3, critical) rates it, in either order
    ghsa = json.loads((OSV / "ghsa" / "GHSA-j8r2-6x86-q33q.json").read_text(encoding="utf-8"))
    v4 = "CVSS:4.0/AV:N/AC:L/AT:N/PR:N/UI:N/VC:H/VI:H/VA:H/SC:N/SI:N/SA:N"
    ghsa["severity"] = ghsa["severity"] + [{"type": "CVSS_V4", "score": v4}]
    [(_n, adv)] = list(advisories(ghsa))
    assert (adv.severity, adv.score, adv.vector) == ("critical", 9.3, v4)
    ghsa["severity"] = ghsa["severity"][::-1]
    [(_n, adv)] = list(advisories(ghsa))
    assert (adv.severity, adv.score, adv.vector) == ("critical", 9.3, v4)
    ghsa["severity"][0] = {"type": "CVSS_V4", "score": "CVSS:4.0/AV:N"}  # unscorable: the 3.1 one rates it
    [(_n, adv)] = list(advisories(ghsa))
    assert (adv.severity, adv.score) == ("medium", 6.1)


def test_index_is_built_once_then_read_from_its_cache(db, cache):
    first = open_index(db, {"XDG_CACHE_HOME": str(cache)})
    assert first.built and first.path == os.path.join(db, ".envkit-index.json")
    assert first.records == 56
    assert [a.id for a in first.lookup("requests")][-1] == "PYSEC-2023-74"
    assert [a.id for a in first.lookup("requests")][0] == "GHSA-j8r2-6x86-q33q"
    again = open_index(db, {"XDG_CACHE_HOME": str(cache)})
    assert not again.built and again.key == first.key and again.packages == first.packages
    # a new record changes the content key: the index is built again and sees it
    (tmp := os.path.join(db, "requests", "PYSEC-2099-1.json"))
    with open(tmp, "w") as f:
        json.dump(
            {"id": "PYSEC-2099-1", "affected": [{"package": {"ecosystem": "PyPI", "name": "Requests"}}]}, f
        )
    third = open_index(db, {"XDG_CACHE_HOME": str(cache)})
    assert third.built and third.key != first.key
    assert "PYSEC-2099-1" in [a.id for a in third.lookup("requests")]


def test_a_zip_of_the_same_records_indexes_the_same(db, tmp_path, cache):
    zpath = tmp_path / "all.zip"
    with zipfile.ZipFile(zpath, "w") as z:
        for root, _dirs, files in os.walk(OSV):
            for name in files:
                if name.endswith((".yaml", ".json")) and not name.startswith("."):
                    rec = yaml.safe_load(open(os.path.join(root, name), encoding="utf-8").read())
                    z.writestr(f"{rec['id']}.json", json.dumps(rec, default=str))
    from_zip = open_index(str(zpath), {"XDG_CACHE_HOME": str(cache)})
    from_dir = open_index(db, {"XDG_CACHE_HOME": str(cache)})
    assert from_zip.path == str(zpath) + ".envkit-index.json"
    assert from_zip.packages == from_dir.packages


def test_where_the_index_cannot_be_written_beside_the_database_it_goes_to_the_cache(db, cache):
    # (a directory in the way fails the write as a read-only database does, for root too)
    os.mkdir(os.path.join(db, ".envkit-index.json"))
    index = open_index(db, {"XDG_CACHE_HOME": str(cache)})
    assert index.built and index.path is not None
    assert os.path.dirname(index.path) == str(cache / "envkit" / "audit")
    assert not open_index(db, {"XDG_CACHE_HOME": str(cache)}).built


def test_no_database_names_both_ways_to_get_one():
    with pytest.raises(AuditDbError) as exc:
        open_index(None, {})
    assert "db=PATH" in exc.value.hint and "fetch_db=DIR" in exc.value.hint
    assert "ENVKIT_AUDIT_DB" in exc.value.hint


def test_pypi_identity_of_conda_packages():
    def conda(name, build="h0_0", depends=(), purls=()):
        return LockedPackage(
            manager="conda", name=name, version="1", build=build, depends=depends, purls=purls
        )

    assert pypi_identity(conda("aiohttp", depends=(("python", ">=3.11"),))) == ("aiohttp",)
    assert pypi_identity(conda("requests", build="pyhd8ed1ab_0")) == ("requests",)
    assert pypi_identity(conda("pytorch", build="cuda120_py311h0_0")) == ("torch",)
    # the name map knows pytorch under its PyPI name even where no build string says Python
    assert pypi_identity(conda("pytorch", build="h0_0")) == ("torch",)
    for native in ("openssl", "libcurl", "cuda-cudart", "python", "zlib"):
        assert pypi_identity(conda(native)) == ()
    assert pypi_identity(conda("pyyaml-x", purls=("pkg:pypi/PyYAML@6.0",))) == ("pyyaml",)
    assert pypi_identity(conda("aiohttp"), owned={"aiohttp": ("aiohttp",)}) == ("aiohttp",)


def test_licences_normalise_to_spdx_and_judge_or_and_and():
    assert to_spdx("GPL-3.0") == "GPL-3.0-only"
    assert to_spdx("Apache-2.0 OR MIT") == "Apache-2.0 OR MIT"
    assert to_spdx("BSD 3-Clause") is None and to_spdx("Proprietary NVIDIA licence") is None
    assert to_spdx("LicenseRef-NVIDIA-EULA") == "LicenseRef-NVIDIA-EULA"
    assert verdict("Apache-2.0 OR GPL-3.0-only", (), ("GPL-3.0-only",)) == "allowed"
    assert verdict("Apache-2.0 AND GPL-3.0-only", (), ("GPL-3.0-only",)) == "denied"
    assert verdict("MIT", ("Apache-2.0",), ()) == "not-allowed"
    assert verdict("LGPL-2.1-or-later WITH Classpath-exception-2.0", ("LGPL-2.1-or-later",), ()) == "allowed"


def test_wheel_metadata_licence_expression_then_classifier(tmp_path):
    d = tmp_path / "x-1.dist-info"
    d.mkdir()
    (d / "METADATA").write_text("Metadata-Version: 2.4\nName: x\nLicense-Expression: MIT OR Apache-2.0\n")
    assert wheel_licence(str(d)) == ("MIT OR Apache-2.0", "MIT OR Apache-2.0", "License-Expression")
    (d / "METADATA").write_text(
        "Metadata-Version: 2.1\nName: x\nLicense: see LICENSE file\n"
        "Classifier: License :: OSI Approved :: MIT License\n"
    )
    assert wheel_licence(str(d)) == ("License :: OSI Approved :: MIT License", "MIT", "Classifier")
    (d / "METADATA").write_text(
        "Metadata-Version: 2.1\nName: x\nClassifier: License :: OSI Approved :: BSD License\n"
    )
    assert wheel_licence(str(d)) == ("License :: OSI Approved :: BSD License", None, "METADATA")
