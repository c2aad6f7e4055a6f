"""conda-meta records with a field of the wrong JSON type: a clear error naming the file and the
key, through every command that reads a prefix (never an internal error, never garbage)."""

from __future__ import annotations

import json

import pytest
from conftest import run_envkit

_GOOD = {
    "name": "numpy",
    "version": "1.26.4",
    "build": "py311_0",
    "build_number": 0,
    "channel": "https://conda.anaconda.org/conda-forge/linux-64",
    "subdir": "linux-64",
    "url": "https://conda.anaconda.org/conda-forge/linux-64/numpy-1.26.4-py311_0.conda",
    "depends": ["python >=3.11"],
    "files": [],
}


def _prefix(tmp_path, **fields):
    prefix = tmp_path / "env"
    (prefix / "conda-meta").mkdir(parents=True)
    record = prefix / "conda-meta" / "numpy-1.26.4-py311_0.json"
    record.write_text(json.dumps({**_GOOD, **fields}))
    return prefix, record


@pytest.mark.parametrize(
    "fields, key, message",
    [
        ({"name": 5}, "name", "name must be a string, not a number"),
        ({"depends": 5}, "depends", "depends must be a list of strings, not a number"),
        ({"depends": [5]}, "depends[0]", "depends[0] must be a string, not a number"),
        ({"url": 5}, "url", "url must be a string, not a number"),
        ({"files": 3}, "files", "files must be a list of strings, not a number"),
        ({"requested_spec": 5}, "requested_spec", "requested_spec must be a string, not a number"),
        ({"version": [1, 2], "build": {"a": 1}}, "version", "version must be a string, not a list"),
        ({"build": {"a": 1}}, "build", "build must be a string, not an object"),
        ({"build_number": True}, "build_number", "build_number must be an integer, not a boolean"),
    ],
)
@pytest.mark.parametrize("command", [("export", "-p"), ("check", "-p"), ("diff",)])
def test_wrong_typed_record_field_is_a_parse_error_naming_file_and_key(
    tmp_path, fields, key, message, command
):
    prefix, record = _prefix(tmp_path, **fields)
    args = [*command, str(prefix)] + ([str(prefix)] if command == ("diff",) else [])
    r = run_envkit(*args, env={"HOME": str(tmp_path), "CONDARC": ""})
    assert r.exit_code == 2, r.stderr
    assert r.stderr.splitlines()[0] == f"error: {record} ({key}): corrupt conda package record: {message}"
    assert r.stdout == ""


def test_informational_fields_of_a_wrong_type_are_dropped_not_fatal(tmp_path):
    prefix, _ = _prefix(tmp_path, license=["MIT"], timestamp="yesterday", size="big")
    r = run_envkit("export", "-p", str(prefix), env={"HOME": str(tmp_path), "CONDARC": ""})
    assert r.exit_code == 0, r.stderr
    assert "  - conda-forge::numpy=1.26.4=py311_0\n" in r.stdout
