"""A known fix is data (envkit.errors.Remedy): the CLI words it as its flag, the library as the
keyword of the function called, and giving that keyword the remedy's value does what it says."""

from __future__ import annotations

import pytest
from conftest import CORPUS, DATA

import envkit
from envkit.errors import Remedy

PIXI = str(DATA / "pixi" / "v5-pixi.lock")  # a real pixi.lock (environments default, lint)
CONDA_LOCK = str(CORPUS / "51_Cecca__repro-course-ci__conda-lock.yml")  # 4 platforms
FORMATS = ", ".join(envkit.FORMATS)


def test_a_pixi_lock_read_as_conda_lock_names_the_format_to_read_it_as(envkit_cli):
    r = envkit_cli("diff", "--input-format", "conda-lock", PIXI, PIXI)
    assert (r.exit_code, r.stderr.splitlines()[-1]) == (2, "hint: read it with --input-format pixi")

    with pytest.raises(envkit.ParseError) as info:
        envkit.read_file(PIXI, format="conda-lock")
    assert info.value.hint == 'read it with format="pixi"'
    assert info.value.remedies == (Remedy(option="format", value="pixi"),)
    # the remedy, given as the keyword it names, reads the file
    (remedy,) = info.value.remedies
    lock = envkit.read_file(PIXI, **{remedy.option: remedy.value})
    assert (type(lock).__name__, lock.kind, lock.environment) == ("Lock", "pixi", "default")


def test_an_unknown_pixi_environment_names_the_environment_option(envkit_cli):
    r = envkit_cli("diff", "--env", "nope", PIXI, PIXI)
    assert r.exit_code == 2
    assert r.stderr.splitlines()[-1] == "hint: choose one with --env NAME"

    with pytest.raises(envkit.EnvkitError) as info:
        envkit.read_file(PIXI, environment="nope")
    assert str(info.value) == f"{PIXI}:2: pixi.lock has no environment 'nope' (it has: default, lint)"
    assert info.value.hint == "choose one with environment=NAME"


def test_an_undetectable_format_names_the_format_option(envkit_cli, tmp_path):
    notes = tmp_path / "notes.md"
    notes.write_text("x: [\n")
    r = envkit_cli("diff", str(notes), CONDA_LOCK)
    assert r.exit_code == 2
    assert r.stderr.splitlines()[-1] == f"hint: pass --input-format (one of: {FORMATS})"

    with pytest.raises(envkit.ParseError) as info:
        envkit.read_file(notes)
    assert info.value.hint == f"pass format=... (one of: {FORMATS})"
    assert info.value.remedies == (Remedy(option="format"),)


def test_a_platform_the_lock_lacks_names_the_platform_option(envkit_cli):
    r = envkit_cli("diff", "--platform", "win-32", CONDA_LOCK, CONDA_LOCK)
    assert r.exit_code == 2
    assert r.stderr.splitlines()[-1] == "hint: pick one of those with --platform"

    with pytest.raises(envkit.UsageError) as info:
        envkit.diff(CONDA_LOCK, CONDA_LOCK, platform="win-32")
    assert info.value.hint == "pick one of those with platform=..."


def test_no_environment_names_the_name_and_prefix_options(envkit_cli):
    r = envkit_cli("export", env={"CONDA_PREFIX": ""})
    assert r.exit_code == 2
    assert r.stderr.splitlines()[-1] == "hint: pass -n NAME or -p PREFIX, or activate the environment"

    with pytest.raises(envkit.UsageError) as info:
        envkit.open_env(environ={})
    assert info.value.hint == "pass name=NAME or prefix=PREFIX, or activate the environment"


def test_a_malformed_virtual_package_is_shown_as_a_list_item_to_the_library(envkit_cli, tmp_path):
    spec = tmp_path / "environment.yml"
    spec.write_text("name: x\nchannels: [conda-forge]\ndependencies: [python]\n")
    r = envkit_cli("lock", "-f", str(spec), "--platform", "linux-64", "--virtual-package", "bad")
    assert r.exit_code == 2
    assert (
        r.stderr.splitlines()[-1]
        == "hint: e.g. --virtual-package linux-64:__cuda=12.4 or --virtual-package __glibc=2.17"
    )

    with pytest.raises(envkit.UsageError) as info:
        envkit.solve_spec(str(spec), ["linux-64"], virtual_packages=["bad"])
    assert (
        info.value.hint
        == 'e.g. virtual_packages=["linux-64:__cuda=12.4"] or virtual_packages=["__glibc=2.17"]'
    )


def test_a_template_the_channel_cannot_hold_names_style_and_torch(envkit_cli):
    r = envkit_cli("template", "pytorch", "--torch", "2.6", "--style", "pytorch-channel")
    assert r.exit_code == 2
    assert (
        r.stderr.splitlines()[-1] == "hint: use --style conda-forge or --style pip, or --torch 2.5 or older"
    )

    from envkit.ops.template import pytorch_template

    with pytest.raises(envkit.UsageError) as info:
        pytorch_template(torch="2.6", style="pytorch-channel")
    assert info.value.hint == 'use style="conda-forge" or style="pip", or torch="2.5" or older'


@pytest.mark.parametrize(
    ("remedy", "flag", "keyword"),
    [
        (Remedy(option="cpu", value=True), "--cpu", "cpu=True"),
        (Remedy(option="environment", metavar="NAME"), "--env NAME", "environment=NAME"),
        (Remedy(option="platform"), "--platform", "platform=..."),
        (
            Remedy(option="platforms", value="linux-64", many=True),
            "--platform linux-64",
            'platforms=["linux-64"]',
        ),
        (Remedy(option="style", value='a"b'), '--style a"b', 'style="a\\"b"'),
    ],
)
def test_each_remedy_shape_has_one_wording_per_side(remedy, flag, keyword):
    from envkit.output import cli_hint

    error = envkit.UsageError("m", hint="use {}", remedy=remedy)
    assert (cli_hint(error), error.hint) == (f"use {flag}", f"use {keyword}")


@pytest.mark.parametrize(
    ("args", "error", "said"),
    [
        (["validate", "{bad}"], "ParseError", "bad.yml:3: invalid YAML"),
        (["export", "-n", "envkit-no-such-env"], "EnvironmentNotFound", "no conda environment named"),
        (["convert", "{ok}", "--to", "pixi"], "UsageError", "is a spec (loose versions), not a lock"),
    ],
)
def test_errors_of_each_kind_exit_2_and_carry_no_code(tmp_path, envkit_cli, args, error, said):
    from envkit import errors

    (tmp_path / "bad.yml").write_text("name: x\ndependencies: [\n")
    (tmp_path / "ok.yml").write_text("name: x\ndependencies:\n  - numpy\n")
    argv = [a.format(bad=tmp_path / "bad.yml", ok=tmp_path / "ok.yml") for a in args]
    assert not hasattr(getattr(errors, error)("x"), "exit_code")
    result = envkit_cli(*argv)
    assert (result.exit_code, result.stdout, result.stderr.startswith("error: ")) == (2, "", True)
    assert said in result.stderr
