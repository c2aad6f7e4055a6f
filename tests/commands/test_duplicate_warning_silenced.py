"""The conda+pip warning on stderr is silenced like the conda-pip-duplicate rule: by the config's
`ignore` (or a `select` without it) and by an inline suppression on the pip line; in every command
that prints it (`check` reports the finding alone)."""

from __future__ import annotations

import textwrap

import pytest

ENV = textwrap.dedent("""\
    name: demo
    channels:
      - conda-forge
      - nodefaults
    dependencies:
      - python=3.11
      - numpy>=1.24
      - pip
      - pip:
        - numpy==1.26.4{inline}
    """)
WARNING = "'numpy' is installed by both conda ('numpy') and pip"

COMMANDS = [
    ["validate", "environment.yml"],
    ["normalize", "environment.yml"],
    ["diff", "environment.yml", "environment.yml"],
]


@pytest.fixture
def repo(tmp_path):
    (tmp_path / ".git").mkdir()  # the config search stops here
    return tmp_path


@pytest.mark.parametrize("args", COMMANDS, ids=lambda a: a[0])
def test_warning_is_printed_by_default(repo, envkit_cli, args):
    (repo / "environment.yml").write_text(ENV.format(inline=""))
    assert WARNING in envkit_cli(*args, cwd=repo).stderr


@pytest.mark.parametrize("args", COMMANDS, ids=lambda a: a[0])
@pytest.mark.parametrize("how", ["config-ignore", "config-select", "inline", "inline-all"])
def test_warning_is_silenced_like_the_rule(repo, envkit_cli, args, how):
    inline = {"inline": "  # envkit: ignore[conda-pip-duplicate]", "inline-all": "  # envkit: ignore"}.get(
        how, ""
    )
    (repo / "environment.yml").write_text(ENV.format(inline=inline))
    if how == "config-ignore":
        (repo / ".envkit.toml").write_text('ignore = ["conda-pip-duplicate"]\n')
    elif how == "config-select":
        (repo / ".envkit.toml").write_text('select = ["leaked-secret"]\n')
    r = envkit_cli(*args, cwd=repo)
    assert r.exit_code in (0, 1), r.stderr
    assert WARNING not in r.stderr


def test_check_ignore_option_silences_it_too(repo, envkit_cli):
    (repo / "environment.yml").write_text(ENV.format(inline=""))
    r = envkit_cli("check", "--ignore", "conda-pip-duplicate", "environment.yml", cwd=repo)
    assert WARNING not in r.stderr and "conda-pip-duplicate" not in r.stdout


def test_check_reports_the_finding_and_no_warning(repo, envkit_cli):
    (repo / "environment.yml").write_text(ENV.format(inline=""))
    r = envkit_cli("check", "environment.yml", cwd=repo)
    assert (r.exit_code, r.stderr) == (1, "")
    assert r.stdout.splitlines()[0] == (
        "environment.yml:10: error conda-pip-duplicate: numpy is installed by conda (>=1.24) and pip "
        "(==1.26.4)"
    )
