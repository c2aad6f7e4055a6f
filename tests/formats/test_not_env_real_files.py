"""Real YAML files that are not environment files (tests/data/notenv): a GitHub workflow and a
.pre-commit-config.yaml. Every command that reads a file by its content refuses them alike."""

from __future__ import annotations

import pytest
from conftest import DATA, run_envkit

NOTENV = DATA / "notenv"
#: file -> (line of the first key an environment file does not have, those keys as quoted)
CASES = {
    "conda__conda-lock__pre-commit.yml": (3, "on, jobs"),
    "prefix-dev__pixi__.pre-commit-config.yaml": (1, "exclude, repos"),
}
COMMANDS = {
    "validate": ["validate"],
    "check": ["check"],
    "convert": ["convert", "--to", "conda-lock", "-o", "{out}"],
    "diff": ["diff", "{path}"],
}


@pytest.mark.parametrize("command", sorted(COMMANDS))
@pytest.mark.parametrize("name", sorted(CASES))
def test_a_real_non_environment_yaml_file_is_refused_by_every_command(tmp_path, name, command):
    path, out = NOTENV / name, tmp_path / "out.yml"
    line, keys = CASES[name]
    args = [a.format(out=out, path=path) for a in COMMANDS[command]]
    r = run_envkit(args[0], str(path), *args[1:])
    assert r.exit_code == 2
    assert r.stderr.splitlines()[0] == (
        f"error: {path}:{line}: not an environment file: no channels: or dependencies:, and "
        f"top-level keys an environment file does not have ({keys})"
    )
    assert not out.exists()
