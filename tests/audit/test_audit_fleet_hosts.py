"""`envkit audit DIR` on a directory of collected host files, the one `envkit fleet DIR` reads
(each file a host, named by its stem; a machine profile beside a host is no environment): every
host is audited and reported under its own file.  A real `conda env export` of the corpus on two
hosts, one of which later updated numpy, against the OSV records of tests/data/osv."""

from __future__ import annotations

import json
import shutil

from conftest import CORPUS, DATA
from test_audit_cli import no_network, repo  # noqa: F401 (fixtures)

EXPORT = CORPUS / "37_Fury1__DeepRL-Tennis__environment.yml"


def test_each_collected_host_is_audited(repo, envkit_cli):  # noqa: F811
    hosts = repo / "hosts"
    hosts.mkdir()
    shutil.copy(EXPORT, hosts / "gpu01.yml")
    text = EXPORT.read_text()
    (hosts / "gpu02.yml").write_text(
        text.replace("numpy=1.15.2=py36ha559c80_0", "numpy=1.19.1=py36ha559c80_0")
    )
    shutil.copy(DATA / "machine" / "centos7-server.json", hosts / "gpu01.machine.json")

    r = envkit_cli("audit", "--format", "json", "hosts", cwd=repo)
    assert r.exit_code == 1, r.stderr
    doc = json.loads(r.stdout)
    assert doc["sources"] == ["hosts/gpu01.yml", "hosts/gpu02.yml"]
    found = sorted((v["source"], v["id"], v["package"], v["version"]) for v in doc["vulnerabilities"])
    assert found == [
        ("hosts/gpu01.yml", "PYSEC-2019-108", "numpy", "1.15.2"),
        ("hosts/gpu01.yml", "PYSEC-2021-856", "numpy", "1.15.2"),
        ("hosts/gpu01.yml", "PYSEC-2021-857", "numpy", "1.15.2"),
        ("hosts/gpu01.yml", "PYSEC-2022-43015", "pytorch", "0.4.1"),
        ("hosts/gpu02.yml", "PYSEC-2022-43015", "pytorch", "0.4.1"),
    ]
    # the same hosts, one file at a time: the directory adds nothing and drops nothing
    one = envkit_cli("audit", "--format", "json", "hosts/gpu01.yml", "hosts/gpu02.yml", cwd=repo)
    assert json.loads(one.stdout) | {"db": None} == doc | {"db": None}  # the index was built once


def test_an_empty_directory_says_so(repo, envkit_cli):  # noqa: F811
    (repo / "hosts").mkdir()
    r = envkit_cli("audit", "hosts", cwd=repo)
    assert (r.exit_code, r.stdout) == (2, "")
    assert r.stderr.startswith("error: hosts: an empty directory\n")
