"""A pixi.lock of several environments: a pixi target keeps every one (py-rattler, pixi's own
reader, finds each environment and platform with the source's packages); any other target holds one
environment, and convert refuses, naming them and `--env NAME`, rather than convert `default` alone.
An empty `default` is refused as `envkit create` refuses it."""

from __future__ import annotations

import json

import pytest
from conftest import CORPUS, run_envkit

MULTI = CORPUS / "79_prefix-dev__pixi__pixi.lock"  # default and prod, three platforms
EMPTY_DEFAULT = CORPUS / "58_16bit-ykiko__about-me__pixi.lock"  # default empty, format has packages


def _by_environment(path) -> dict[tuple[str, str], list[str]]:
    """(environment, platform) -> the package locations py-rattler reads there."""
    from rattler import LockFile

    out = {}
    for name, env in LockFile.from_path(path).environments():
        for plat in env.platforms():
            out[(name, plat.name)] = sorted(str(p.location) for p in env.packages(plat) or [])
    return out


@pytest.mark.parametrize("target", ["pixi", "pixi-v7"])
@pytest.mark.parametrize("source", [MULTI, EMPTY_DEFAULT], ids=["79", "58"])
def test_a_pixi_target_keeps_every_environment(tmp_path, source, target):
    out = tmp_path / "pixi.lock"
    r = run_envkit("convert", str(source), "-o", str(out), "--to", target, "--format", "json", "--allow-loss")
    assert r.exit_code == 0, r.stderr
    want, got = _by_environment(source), _by_environment(out)
    assert got == want
    counts = {k: len(v) for k, v in got.items()}
    if source == MULTI:
        assert counts == {
            ("default", "linux-64"): 45,
            ("default", "linux-aarch64"): 44,
            ("default", "osx-arm64"): 35,
            ("prod", "linux-64"): 37,
            ("prod", "linux-aarch64"): 36,
            ("prod", "osx-arm64"): 27,
        }
        doc = json.loads(r.stdout)
        # the editable path install of both environments is written as a plain path package
        assert [(c["environment"], c["platform"], c["name"]) for c in doc["changes_install"]] == []
        assert [(x["feature"], x["packages"][:1]) for x in doc["losses"]] == [
            ("editable", ["docker-project==0.1.0 (linux-64)"])
        ]
    else:
        assert sum(counts.values()) == 120 and {e for e, _ in counts} == {"format"}
        assert r.stderr == "" and json.loads(r.stdout)["lossless"] is True


@pytest.mark.parametrize("target", ["conda-lock", "explicit", "pylock", "env"])
def test_another_target_refuses_several_environments_naming_them(tmp_path, target):
    out = tmp_path / "out"
    r = run_envkit("convert", str(MULTI), "-o", str(out), "--to", target, "--platform", "linux-64")
    assert r.exit_code == 2 and not out.exists()
    assert r.stderr == (
        f"error: {MULTI}: the pixi.lock has 2 environments (default (linux-64, linux-aarch64, "
        f"osx-arm64), prod (linux-64, linux-aarch64, osx-arm64)); {target} holds one\n"
        "hint: choose one with --env NAME (pixi and pixi-v7 keep them all)\n"
    )
    ok = run_envkit(
        "convert", str(MULTI), "-o", str(out), "--to", "conda-lock", "--env", "prod", "--allow-loss"
    )
    assert ok.exit_code == 0, ok.stderr  # the loss: its editable path install (not the environment)
    assert out.read_text().count("\n- name: ") == 37 + 36 + 27


def test_an_empty_default_environment_is_refused_as_create_refuses_it(tmp_path):
    out = tmp_path / "conda-lock.yml"
    r = run_envkit("convert", str(EMPTY_DEFAULT), "-o", str(out))
    assert r.exit_code == 2 and not out.exists()
    assert r.stderr == (
        f"error: {EMPTY_DEFAULT}: pixi.lock environment 'default' has no packages; its other "
        "environments: format (linux-64, osx-64, osx-arm64)\nhint: choose one with --env NAME\n"
    )
    ok = run_envkit("convert", str(EMPTY_DEFAULT), "-o", str(out), "--env", "format")
    assert ok.exit_code == 0, ok.stderr
    from conda_lock.lockfile import parse_conda_lock_file

    assert len(parse_conda_lock_file(out).package) == 120


def test_a_pixi_output_is_read_back_once_for_the_diff_and_the_pypi_note(monkeypatch):
    import envkit.formats._fastyaml as fastyaml
    from envkit.ops.convert import convert_model

    parses = []
    load = fastyaml.load_yaml
    monkeypatch.setattr(fastyaml, "load_yaml", lambda *a, **k: parses.append(1) or load(*a, **k))
    result = convert_model(str(MULTI), "pixi")
    assert len(parses) == 2  # the source, then the output: once, every environment at a time
    assert list(result.read_back) == ["default", "prod"]
    written = dict(result.conversion.environments)
    assert (
        {n: len(lk.packages) for n, lk in result.read_back.items()}
        == {n: len(lk.packages) for n, lk in written.items()}
        == {"default": 124, "prod": 100}
    )
    other = convert_model(str(CORPUS / "51_Cecca__repro-course-ci__conda-lock.yml"), "conda-lock")
    assert (other.verified, other.read_back) == (True, {})  # read back, and no pixi.lock to keep


def test_one_named_environment_to_a_pixi_lock_is_read_back_under_its_name(tmp_path):
    # the output's one environment keeps the name `prod`: the read-back diffs that one
    out = tmp_path / "pixi.lock"
    r = run_envkit("convert", str(MULTI), "--env", "prod", "-o", str(out), "--format", "json", "--allow-loss")
    assert r.exit_code == 0, r.stderr
    doc = json.loads(r.stdout)
    assert (doc["verified"], doc["changes_install"], doc["notes"]) == (True, [], [])
    assert "not verified" not in r.stderr
    assert [x["feature"] for x in doc["losses"]] == ["editable"]
