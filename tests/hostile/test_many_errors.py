"""One malformed spec does not hide the others: every malformed entry of an environment file is
reported (the first 20, then how many more), and `check` runs its rules on what parsed."""

from __future__ import annotations

import json

import pytest

from envkit.errors import InvalidSpecError, ParseErrors

BAD = ["numpy[version=>1", "scipy[build=", "pandas[", "a[b=c", "x[version='1.0'"]
TEXT = (
    "channels: [conda-forge, nodefaults]\ndependencies:\n  - python=3.11\n"
    + "".join(f"  - {s}\n" for s in BAD)
    + "  - numpy>=1.24\n  - pip\n  - pip:\n    - numpy==1.26.4\n    - requests[\n"
)


def _errors(stderr: str) -> list[str]:
    return [line for line in stderr.splitlines() if line.startswith("error: ")]


@pytest.fixture
def env_file(tmp_path):
    (tmp_path / ".git").mkdir()
    (tmp_path / "environment.yml").write_text(TEXT)
    return tmp_path


def test_check_reports_every_malformed_entry_and_the_findings_of_the_rest(env_file, envkit_cli):
    r = envkit_cli("check", "environment.yml", cwd=env_file)
    assert r.exit_code == 2  # unusable input, as validate/normalize say
    # the rules ran on what parsed: numpy from conda and from pip
    assert r.stdout.splitlines()[0] == (
        "environment.yml:12: error conda-pip-duplicate: numpy is "
        "installed by conda (>=1.24) and pip (==1.26.4)"
    )
    errors = _errors(r.stderr)
    assert [e.split(": ")[1] for e in errors] == [f"environment.yml:{n}" for n in (4, 5, 6, 7, 8, 13)]
    assert "'numpy[version=>1'" in errors[0] and "'requests['" in errors[5]


def test_check_json_keeps_stdout_machine_readable(env_file, envkit_cli):
    r = envkit_cli("check", "environment.yml", "--format", "json", cwd=env_file)
    assert r.exit_code == 2
    assert [f["rule"] for f in json.loads(r.stdout)["findings"]] == ["conda-pip-duplicate"]
    assert len(_errors(r.stderr)) == 6


@pytest.mark.parametrize(
    "command", [("normalize", "environment.yml"), ("diff", "environment.yml", "environment.yml")]
)
def test_other_commands_report_every_malformed_entry(env_file, envkit_cli, command):
    r = envkit_cli(*command, cwd=env_file)
    assert r.exit_code == 2
    assert [e.split(": ")[1] for e in _errors(r.stderr)] == [
        f"environment.yml:{n}" for n in (4, 5, 6, 7, 8, 13)
    ]


def test_the_report_is_capped_at_20(tmp_path, envkit_cli):
    text = "channels: [conda-forge]\ndependencies:\n" + "".join(f"  - pkg{i}[\n" for i in range(25))
    (tmp_path / "env.yml").write_text(text)
    r = envkit_cli("normalize", "env.yml", cwd=tmp_path)
    errors = _errors(r.stderr)
    assert r.exit_code == 2 and len(errors) == 21
    assert errors[19].startswith("error: env.yml:22: invalid match spec 'pkg19['")
    assert errors[20] == "error: and 5 more malformed entries in env.yml (25 in all)"


def test_api_raises_one_error_holding_them_all():
    from envkit.formats import read_text

    with pytest.raises(ParseErrors) as info:
        read_text(TEXT, filename="environment.yml", format="env")
    assert [e.where.line for e in info.value.errors] == [4, 5, 6, 7, 8, 13]
    assert isinstance(info.value, InvalidSpecError) and info.value.where.line == 4
    # a single malformed entry is raised as it always was
    with pytest.raises(InvalidSpecError) as one:
        read_text("dependencies:\n  - pandas[\n", filename="environment.yml", format="env")
    assert not isinstance(one.value, ParseErrors) and one.value.where.line == 2
