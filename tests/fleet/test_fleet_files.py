"""`envkit fleet` on collected files: grouping, the majority and outliers with their ranked diffs,
machine classes from `envkit machine --json` profiles, bad input as rows or errors, and --lock.

examples/fleet/collected holds eight hosts' `conda env export` files (the example server's) and
their machine profiles: gpu05 has an older numpy, gpu06 an older NVIDIA driver, gpu07 PyTorch's
CPU build.
"""

import json
import shutil

import pytest
from conftest import REPO

COLLECTED = REPO / "examples" / "fleet" / "collected"


def _json(envkit_cli, *args):
    r = envkit_cli("fleet", *args, "--format", "json")
    assert r.exit_code in (0, 1), r.stderr
    return r, json.loads(r.stdout)


def test_collected_files_group_into_majority_and_outliers(envkit_cli):
    r, data = _json(envkit_cli, str(COLLECTED))
    assert r.exit_code == 1
    assert data["schema"] == "envkit-fleet/1" and data["hosts"] == 8 and data["read"] == 8
    groups = data["groups"]
    assert [g["members"] for g in groups] == [
        ["gpu01", "gpu02", "gpu03", "gpu04", "gpu08"],
        ["gpu05"],
        ["gpu06"],
        ["gpu07"],
    ]
    assert [g["majority"] for g in groups] == [True, False, False, False]
    assert groups[0]["differs"] is None
    numpy = groups[1]["differs"]["changes"]
    assert [(c["name"], c["kind"], c["a"]["version"], c["b"]["version"]) for c in numpy] == [
        ("numpy", "downgraded", "1.26.4", "1.26.3")
    ]
    # gpu06: the same environment, another driver
    assert groups[2]["env"]["digest"] == groups[0]["env"]["digest"]
    assert groups[2]["differs"]["changes"] == []
    assert groups[2]["differs"]["machine"] == [
        {"label": "Driver", "majority": "570.133.07 (CUDA 12.8)", "group": "550.54.15 (CUDA 12.4)"}
    ]
    torch = groups[3]["differs"]["changes"]
    assert [(c["name"], c["kind"], c["group"]) for c in torch] == [
        ("pytorch", "variant", "matter"),
        ("pytorch-mutex", "variant", "matter"),
        ("pytorch-cuda", "removed", "matter"),
    ]
    assert groups[3]["env"]["pytorch"] == "2.2.2 (cpu)"
    assert groups[0]["machine"]["gpus"] == "2x NVIDIA GeForce RTX 5090 (sm_120)"
    assert (
        groups[0]["fingerprint"]
        == f"env:{groups[0]['env']['digest']}+machine:{groups[0]['machine']['digest']}"
    )
    # the hosts x packages view: the packages that differ, each group's version of them
    assert data["packages"][:2] == ["pytorch", "pytorch-mutex"]
    assert groups[1]["versions"]["numpy"] == "1.26.3 py311h64a7726_0"
    assert data["unreachable"] == [] and data["duplicates"] == []


def test_text_report_names_the_majority_and_each_outlier(envkit_cli):
    r = envkit_cli("fleet", str(COLLECTED))
    assert r.exit_code == 1, r.stderr
    assert "envkit fleet: 8 hosts, 8 read, 4 groups" in r.stdout
    assert "Majority (5 hosts): gpu[01-04,08]" in r.stdout
    assert "Outlier 3 (1 host): gpu07" in r.stdout
    assert "  ! numpy  1.26.4 py311h64a7726_0 → 1.26.3 py311h64a7726_0" in r.stdout
    assert "  machine differs: Driver  570.133.07 (CUDA 12.8) → 550.54.15 (CUDA 12.4)" in r.stdout
    assert r.stdout.rstrip().endswith(
        "Different: 3 hosts in 3 outlier groups differ from the majority (5 hosts)."
    )


def test_identical_hosts_are_one_group_and_exit_0(envkit_cli, tmp_path):
    for h in ("a1", "a2", "a3"):
        shutil.copy(COLLECTED / "gpu01.yml", tmp_path / f"{h}.yml")
    r = envkit_cli("fleet", str(tmp_path))
    assert r.exit_code == 0, r.stderr
    assert "Same: every host has the same environment." in r.stdout


def test_no_machine_groups_by_environment_only(envkit_cli):
    _, data = _json(envkit_cli, str(COLLECTED), "--no-machine")
    # profiles of collected files are still read: --no-machine stops probes, not files
    assert len(data["groups"]) == 4


def test_unreadable_file_is_a_row_and_duplicates_are_read_once(envkit_cli, tmp_path):
    d = tmp_path / "c"
    shutil.copytree(COLLECTED, d)
    (d / "gpu09.yml").write_text("dependencies:\n  - numpy=1.26.4=\n  - [oops\n")
    hosts = tmp_path / "hosts.txt"
    hosts.write_text(f"# the nodes\n{d}\n{d / 'gpu01.yml'}   # again\n")
    r, data = _json(envkit_cli, f"@{hosts}")
    assert data["hosts"] == 9 and data["read"] == 8
    [bad] = data["unreachable"]
    assert bad["host"] == "gpu09" and bad["status"] == "failed" and bad["via"] == "file"
    assert bad["why"].startswith(f"{d / 'gpu09.yml'}:")
    assert data["duplicates"] == [
        {"host": "gpu01", "sources": [f"{d / 'gpu01.yml'} ({hosts}:2)", f"{d / 'gpu01.yml'} ({hosts}:3)"]}
    ]
    assert f"warning: gpu01 is named more than once ({d / 'gpu01.yml'} ({hosts}:2)" in r.stderr


def test_a_typo_in_a_host_file_is_an_error_naming_its_line(envkit_cli, tmp_path):
    hosts = tmp_path / "hosts.txt"
    hosts.write_text("login1\nnode[001-12O]\n")
    r = envkit_cli("fleet", f"@{hosts}")
    assert r.exit_code == 2
    assert r.stderr.startswith(f"error: {hosts}:2: bad host list 'node[001-12O]': '12O' is not a number\n")
    assert "hint: ranges are written [001-128] or [1-3,7]" in r.stderr
    assert "Traceback" not in r.stderr


@pytest.mark.parametrize("args", [(), ("no/such/dir",)])
def test_no_or_missing_source_is_an_error(envkit_cli, args):
    r = envkit_cli("fleet", *args)
    assert r.exit_code == 2 and "Traceback" not in r.stderr
    assert ("no such file or directory" if args else "no SOURCE") in r.stderr


def test_every_host_against_a_spec_lock(envkit_cli):
    _, data = _json(
        envkit_cli, str(COLLECTED), "--lock", str(REPO / "examples" / "fleet" / "environment.yml")
    )
    drift = {tuple(g["members"]): g["lock"] for g in data["groups"]}
    assert drift[("gpu01", "gpu02", "gpu03", "gpu04", "gpu08")]["same"] is True
    assert [(s["spec"], s["status"]) for s in drift[("gpu05",)]["spec"] if s["status"] != "satisfied"] == [
        ("numpy=1.26.4", "not-satisfied")
    ]
    assert [(s["spec"], s["status"]) for s in drift[("gpu07",)]["spec"] if s["status"] != "satisfied"] == [
        ("pytorch=2.2.2=*cuda12.1*", "not-satisfied"),
        ("pytorch-cuda=12.1", "missing"),
    ]


def test_markdown_report(envkit_cli):
    r = envkit_cli("fleet", str(COLLECTED), "--format", "markdown")
    assert r.exit_code == 1
    assert "| majority | 5 | `gpu[01-04,08]` |" in r.stdout
    assert "#### Outlier 3: `gpu07`" in r.stdout
    assert "| `numpy` | 1.26.4 py311h64a7726_0 | 1.26.3 py311h64a7726_0 | medium |" in r.stdout


def test_lock_runs_the_machine_rules_for_each_group(envkit_cli, tmp_path):
    """The lock (an export with exact builds) against a host whose driver is too old for CUDA 12.1."""
    shutil.copy(COLLECTED / "gpu01.yml", tmp_path / "new.yml")
    shutil.copy(COLLECTED / "gpu01.machine.json", tmp_path / "new.machine.json")
    shutil.copy(COLLECTED / "gpu01.yml", tmp_path / "old.yml")
    profile = json.loads((COLLECTED / "gpu01.machine.json").read_text())
    profile.update(host="old", driver="470.82.01", driver_cuda="11.4")
    profile["virtual_packages"] = [
        {**v, "version": "11.4"} if v["name"] == "__cuda" else v for v in profile["virtual_packages"]
    ]
    (tmp_path / "old.machine.json").write_text(json.dumps(profile))
    r, data = _json(envkit_cli, str(tmp_path), "--lock", str(COLLECTED / "gpu01.yml"))
    assert r.exit_code == 1
    new, old = data["groups"]
    assert new["members"] == ["new"] and old["members"] == ["old"]
    assert old["lock"]["same"] is True  # the same packages as the lock ...
    rules = [f["rule"] for f in old["lock"]["findings"]]
    assert "machine-cuda-driver" in rules  # ... on a driver that cannot run them
    [driver] = [f for f in old["lock"]["findings"] if f["rule"] == "machine-cuda-driver"]
    assert driver["message"].startswith(
        "cuda-cudart=12.1.105=0 needs CUDA 12.1; the machine (old) has driver 470.82.01"
    )
    assert "machine-cuda-driver" not in [f["rule"] for f in new["lock"]["findings"]]
    text = envkit_cli("fleet", str(tmp_path), "--lock", str(COLLECTED / "gpu01.yml")).stdout
    # one host each: no majority
    assert (
        "Different: no majority: 2 hosts in 2 groups; group 2 differs from group 1; 2 hosts drifted" in text
    )


def test_three_different_environments_have_no_majority(envkit_cli, tmp_path):
    for host in ("gpu01", "gpu05", "gpu07"):
        shutil.copy(COLLECTED / f"{host}.yml", tmp_path / f"{host}.yml")
    r, data = _json(envkit_cli, str(tmp_path))
    assert r.exit_code == 1
    groups = data["groups"]
    assert [g["members"] for g in groups] == [["gpu01"], ["gpu05"], ["gpu07"]]
    assert [(g["majority"], g["reference"]) for g in groups] == [
        (False, True),
        (False, False),
        (False, False),
    ]
    # the others are still compared with the first group read
    assert [c["name"] for c in groups[1]["differs"]["changes"]] == ["numpy"]
    text = envkit_cli("fleet", str(tmp_path)).stdout
    assert "Majority" not in text and "majority (" not in text
    assert text.splitlines()[:3] == [
        "envkit fleet: 3 hosts, 3 read, 3 groups",
        "No majority: no group holds more than half of the 3 hosts read; each is compared with group 1.",
        "",
    ]
    assert "Group 1 (1 host): gpu01" in text and "Group 3 (1 host): gpu07" in text
    assert "  against group 1: Different: 1 package differs (1 likely to matter)." in text
    assert text.rstrip().endswith(
        "Different: no majority: 3 hosts in 3 groups; groups 2–3 differ from group 1."
    )
    md = envkit_cli("fleet", str(tmp_path), "--format", "markdown").stdout
    assert "| group 1 | 1 | `gpu01` |" in md and "#### Group 2: `gpu05`" in md
    assert "| package | group 1 | this group | impact | why |" in md


def test_half_of_the_hosts_is_no_majority(envkit_cli, tmp_path):
    for host in ("gpu01", "gpu02", "gpu05", "gpu07"):
        shutil.copy(COLLECTED / f"{host}.yml", tmp_path / f"{host}.yml")
    _, data = _json(envkit_cli, str(tmp_path))
    assert [(g["members"], g["majority"]) for g in data["groups"]] == [
        (["gpu01", "gpu02"], False),
        (["gpu05"], False),
        (["gpu07"], False),
    ]
    shutil.copy(COLLECTED / "gpu03.yml", tmp_path / "gpu03.yml")
    _, data = _json(envkit_cli, str(tmp_path))
    assert [(len(g["members"]), g["majority"]) for g in data["groups"]] == [(3, True), (1, False), (1, False)]
