"""The operations (envkit.ops) the CLI and `import envkit` both call: their results are data, the
same the commands render; a check given a machine profile through the library runs the machine
rules, with no hand-off through the targets."""

from __future__ import annotations

import dataclasses
import json

import pytest
from conftest import DATA, REPO

import envkit
from envkit.machine import resolve_machine
from envkit.ops.diff import diff_sources
from envkit.ops.normalize import normalize_source, validate_source

EXAMPLES = REPO / "examples" / "laptop-vs-server"
SERVER = str(EXAMPLES / "server.yml")  # a real `conda env export` of a CUDA server (torch 2.2.2)
LAPTOP = str(EXAMPLES / "laptop.yml")
GPU_SERVER = str(EXAMPLES / "gpu-server.json")  # a profile with an RTX 5090 (sm_120)
PILLOW = (
    "'pillow' is installed by both conda ('pillow') and pip; pip's copy shadows conda's and the "
    "solver cannot see it"
)


def test_check_with_a_machine_profile_through_the_library_runs_the_machine_rules(envkit_cli):
    profile = resolve_machine(GPU_SERVER)
    config = envkit.Config(select=("machine-gpu-arch", "machine-platform"))
    result = envkit.check([SERVER], config=config, machine=profile)
    assert isinstance(result, envkit.CheckResult)
    assert [(f.rule, f.severity, f.file) for f in result.findings] == [("machine-gpu-arch", "error", SERVER)]
    assert "sm_120" in result.findings[0].message
    assert (result.checked, result.fails("error"), result.unusable) == ((SERVER,), True, False)
    # without a profile the machine rules find nothing
    assert envkit.check([SERVER], config=config).findings == ()
    # the CLI reports the same findings, from the same operation
    r = envkit_cli(
        "check",
        SERVER,
        "--machine",
        GPU_SERVER,
        "--select",
        "machine-gpu-arch,machine-platform",
        "--format",
        "json",
    )
    assert r.exit_code == 1
    assert [(f["rule"], f["message"]) for f in json.loads(r.stdout)["findings"]] == [
        (f.rule, f.message) for f in result.findings
    ]


def test_check_a_machine_of_another_platform_finds_the_platform_missing():
    mac = resolve_machine(str(DATA / "machine" / "mac-sierra.json"))
    lock = str(DATA / "lock" / "conda-lock.yml")
    result = envkit.check([lock], config=envkit.Config(select=("machine-platform",)), machine=mac)
    assert [f.rule for f in result.findings] == ["machine-platform"]
    assert envkit.run_checks([lock], envkit.Config(select=("machine-platform",)), machine=mac) == list(
        result.findings
    )


def test_check_result_keeps_unreadable_files_and_duplicate_warnings_as_data(tmp_path):
    notes = tmp_path / "notes.md"
    notes.write_text("x: [\n")
    result = envkit.check([SERVER, str(notes)], config=envkit.Config(select=("conda-pip-duplicate",)))
    assert result.checked == (SERVER,)
    [unreadable] = result.unreadable
    assert (type(unreadable).__name__, str(unreadable)) == (
        "ParseError",
        f"{notes}: cannot tell the format of this file",
    )
    assert unreadable.remedies == (envkit.Remedy(option="format"),)
    assert result.unusable is True
    # a duplicate is the finding, not also a warning
    assert result.warnings == ()
    assert [f.rule for f in result.findings] == ["conda-pip-duplicate"]
    with pytest.raises(dataclasses.FrozenInstanceError):
        result.findings = ()  # type: ignore[misc]


def test_diff_sources_returns_both_sides_the_diff_and_the_warnings(envkit_cli):
    result = diff_sources(LAPTOP, SERVER, machines=False)
    assert (result.same, result.a.label, result.b.label, result.machines) == (False, LAPTOP, SERVER, None)
    assert (result.a.origin, result.b.origin) == ("file", "file")
    assert result.warnings == (f"{SERVER}: {PILLOW}",)
    assert result.diff == envkit.diff(LAPTOP, SERVER)
    r = envkit_cli("diff", LAPTOP, SERVER, "--no-machine")
    assert (r.exit_code, r.stderr) == (1, f"warning: {SERVER}: {PILLOW}\n")


def test_diff_sources_refuses_machines_it_was_told_to_leave_out():
    with pytest.raises(envkit.UsageError) as info:
        diff_sources(LAPTOP, SERVER, machines=False, machine_a=GPU_SERVER)
    assert info.value.hint == "pass machines=True to show the machines"


def test_normalize_and_validate_results(envkit_cli):
    result = normalize_source("\ufeffdependencies:\n  - b\n  - a\n", "environment.yml")
    assert (result.text, result.format, result.changed) == ("dependencies:\n  - a\n  - b\n", "env", True)
    assert normalize_source(result.text, "environment.yml").changed is False

    pixi = str(DATA / "pixi" / "v5-pixi.lock")
    valid = validate_source((DATA / "pixi" / "v5-pixi.lock").read_text(), pixi)
    assert valid.summary == (
        "pixi.lock, 2 environments: default (5 packages, 1 platform (osx-arm64)), "
        "lint (1 package, 1 platform (osx-arm64))"
    )
    assert [m.environment for m in valid.models] == ["default", "lint"]
    r = envkit_cli("validate", pixi)
    assert r.stdout == f"ok: {pixi}: {valid.summary}\n"


def test_pytorch_template_is_the_text_the_command_writes(envkit_cli):
    result = envkit.pytorch_template(torch="2.7", cpu=True)
    assert result.text.startswith("# PyTorch 2.7 (CPU), Python 3.13, from conda-forge.\n")
    assert (result.plan.torch, result.messages, result.warnings) == (result.plan.torch, (), ())
    assert result.plan.torch.startswith("2.7")
    r = envkit_cli("template", "pytorch", "--torch", "2.7", "--cpu")
    assert (r.exit_code, r.stdout) == (0, result.text)
