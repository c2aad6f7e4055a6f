"""`envkit fingerprint`: one line, the same for one environment however it was collected (the
prefix itself, its `envkit export --format json`), different when a package differs."""

import json

from support.condafactory import copy_prefix, make_prefix


def test_fingerprint_is_stable_across_collection_formats(envkit_cli, default_prefix, tmp_path):
    out = tmp_path / "node1.json"
    r = envkit_cli("export", "-p", str(default_prefix), "--format", "json", "-o", str(out))
    assert r.exit_code == 0, r.stderr
    live = envkit_cli("fingerprint", str(default_prefix), "--no-machine")
    exported = envkit_cli("fingerprint", str(out), "--no-machine")
    assert live.exit_code == 0 and exported.exit_code == 0, live.stderr + exported.stderr
    assert live.stdout == exported.stdout
    assert live.stdout.startswith("env ") and live.stdout.endswith(" (9 packages, python 3.11.8)\n")
    # the same environment at another path is the same environment
    copy = tmp_path / "elsewhere"
    copy_prefix(default_prefix, copy)
    assert envkit_cli("fingerprint", str(copy), "--no-machine").stdout == live.stdout


def test_a_changed_package_changes_the_digest(envkit_cli, default_prefix, default_channel, tmp_path):
    other = make_prefix(
        tmp_path / "older",
        [default_channel],
        ["python=3.11", "numpy=1.26.3", "requests", "pip"],
        cache_dir=tmp_path / "pkgs",
    )
    a = envkit_cli("fingerprint", str(default_prefix), "--no-machine").stdout.split()[1]
    b = envkit_cli("fingerprint", str(other), "--no-machine").stdout.split()[1]
    assert len(a) == len(b) == 12 and a != b


def test_fingerprint_with_the_machine_and_fleet_agree(envkit_cli, default_prefix, tmp_path):
    r = envkit_cli("fingerprint", str(default_prefix))
    assert r.exit_code == 0, r.stderr
    f = envkit_cli("fleet", str(default_prefix), "--format", "json")
    assert f.exit_code == 0, f.stderr
    [g] = json.loads(f.stdout)["groups"]
    assert r.stdout.split()[:2] == ["env", g["env"]["digest"]]
    # fleet reads a local prefix without probing this machine: the environment alone groups it
    assert g["machine"] is None and " machine " in r.stdout


def test_unknown_env_is_an_error(envkit_cli, tmp_path):
    r = envkit_cli("fingerprint", str(tmp_path / "nosuch"))
    assert r.exit_code == 2 and "no such file or directory" in r.stderr and "Traceback" not in r.stderr
