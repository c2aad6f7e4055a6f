"""Hostile input to the readers themselves, through the CLI: integers of more digits than Python
converts (which used to end in an internal ValueError, exit 3) in YAML, TOML and JSON, and YAML
tags on text that is not of their type.  Each is refused with exit 2, naming the file and line."""

from __future__ import annotations

import pytest
from conftest import DATA, run_envkit

DIGITS = "9" * 5000
LONG = "an integer of more than 4300 digits; refused"
ENV = "name: t\ndependencies:\n  - numpy\n"

# (file name, text, line of the integer): YAML through the fast reader (block) and libyaml (flow,
# signed, octal, hex, base 60), TOML manifests and locks, `conda list --json`
NUMBERS = {
    "yaml-block": ("environment.yml", f"dependencies:\n  - numpy\nx: {DIGITS}\n", 3),
    "yaml-block-item": ("environment.yml", f"dependencies:\n  - numpy\n  - {DIGITS}\n", 3),
    "yaml-flow": ("environment.yml", f"dependencies: [numpy]\nx: [{DIGITS}]\n", 2),
    "yaml-negative": ("environment.yml", f"dependencies: [numpy]\nx: -{DIGITS}\n", 2),
    "yaml-octal": ("environment.yml", "dependencies: [numpy]\nx: 0" + "7" * 5000 + "\n", 2),
    "yaml-hex": ("environment.yml", "dependencies:\n  - numpy\nx: 0x" + "f" * 5000 + "\n", 3),
    "yaml-base60": ("environment.yml", "dependencies:\n  - numpy\nx: 1" + ":59" * 3000 + "\n", 3),
    "pixi-toml": (
        "pixi.toml",
        '[workspace]\nname = "a"\nchannels = ["conda-forge"]\nplatforms = ["linux-64"]\n'
        f'# {DIGITS}\nx = "{DIGITS}"\nzz = [1, {DIGITS}]\n[dependencies]\nnumpy = "*"\n',
        7,
    ),
    "pyproject": ("pyproject.toml", f'[project]\nname = "a"\nversion = "1"\nzz = -{DIGITS}\n', 4),
    "uv-lock": ("uv.lock", f"version = 1\nzz = {DIGITS}\n", 2),
    "pylock": ("pylock.toml", f'lock-version = "1.0"\nzz = {DIGITS}\n', 2),
    "conda-list-json": ("list.json", f'[{{"name": "{DIGITS}", "a": 1.5e3,\n "b": {DIGITS}}}]', 2),
}


@pytest.mark.parametrize("command", ["validate", "check", "normalize", "diff"])
@pytest.mark.parametrize("name", NUMBERS)
def test_an_integer_of_more_digits_than_python_reads_is_refused_naming_its_line(tmp_path, name, command):
    file_name, text, line = NUMBERS[name]
    path = tmp_path / file_name
    path.write_text(text, encoding="utf-8")
    args = [command, str(path)] + ([str(path)] if command == "diff" else [])
    r = run_envkit(*args, cwd=tmp_path)
    assert r.exit_code == 2, r.stderr
    assert r.stderr.splitlines()[0] == f"error: {path}:{line}: {LONG}"


def test_an_integer_of_more_digits_than_python_reads_converts_to_nothing(tmp_path):
    path = tmp_path / "environment.yml"
    path.write_text(NUMBERS["yaml-hex"][1], encoding="utf-8")
    out = tmp_path / "out.yml"
    r = run_envkit("convert", str(path), "--to", "env", "-o", str(out))
    assert (r.exit_code, r.stderr.splitlines()[0]) == (2, f"error: {path}:3: {LONG}")
    assert not out.exists()


def test_an_integer_of_4300_digits_is_read_as_written(tmp_path):
    path = tmp_path / "environment.yml"
    path.write_text(f"dependencies:\n  - numpy\nx: {'9' * 4300}\n", encoding="utf-8")
    r = run_envkit("convert", str(path), "--to", "env", "-o", "-")
    assert r.exit_code == 0, r.stderr
    assert f"x: {'9' * 4300}\n" in r.stdout


def test_a_configuration_with_an_integer_too_long_is_refused_naming_its_line(tmp_path):
    config = tmp_path / ".envkit.toml"
    config.write_text(f"# rules\nfail-on = {DIGITS}\n", encoding="utf-8")
    (tmp_path / "environment.yml").write_text(ENV, encoding="utf-8")
    r = run_envkit("check", "environment.yml", cwd=tmp_path)
    assert r.exit_code == 2, r.stderr
    assert r.stderr.splitlines()[0] == f"error: {config}:2: {LONG}"


def test_lock_check_with_an_integer_too_long_in_the_lock_is_refused(tmp_path):
    lock = tmp_path / "conda-lock.yml"
    text = (DATA / "lock" / "conda-lock.yml").read_text(encoding="utf-8")
    lock.write_text(text + f"zz: {DIGITS}\n", encoding="utf-8")
    (tmp_path / "environment.yml").write_text(ENV, encoding="utf-8")
    r = run_envkit("lock", "--check", "-f", "environment.yml", "--lock", str(lock), cwd=tmp_path)
    assert r.exit_code == 2, r.stderr
    assert r.stderr.splitlines()[0] == f"error: {lock}:{text.count(chr(10)) + 1}: {LONG}"


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("!!int abc", "YAML int 'abc' is not a valid int"),
        ("!!float zz", "YAML float 'zz' is not a valid float"),
        ("!!bool zz", "YAML bool 'zz' is not a valid bool"),
    ],
)
def test_a_yaml_tag_on_text_not_of_its_type_is_refused(tmp_path, value, message):
    path = tmp_path / "environment.yml"
    path.write_text(f"dependencies: [numpy]\nx: {value}\n", encoding="utf-8")
    r = run_envkit("validate", str(path))
    assert (r.exit_code, r.stderr.splitlines()[0]) == (2, f"error: {path}:2: {message}")


# pylock.toml fields of the wrong type (which used to pass validate, then end in an internal
# TypeError or AttributeError, exit 3, in check, diff, normalize and convert)
_HASHES = 'hashes = { sha256 = "' + "a" * 64 + '" }'
_URL = "https://x.org/a-1-py3-none-any.whl"
_WHEEL = f'wheels = [{{ name = "a-1-py3-none-any.whl", url = "{_URL}", {_HASHES} }}]'
PYLOCK_TYPES = {
    "wheel-url": ('version = "1"', _WHEEL.replace(f'url = "{_URL}"', "url = 1.5")),
    "wheel-name": ('version = "1"', _WHEEL.replace('name = "a-1-py3-none-any.whl"', "name = 2")),
    "sdist-path": ('version = "1"', f"sdist = {{ path = 3, {_HASHES} }}"),
    "archive-url": ('version = "1"', f"archive = {{ url = [], {_HASHES} }}"),
    "vcs-commit": ('version = "1"', 'vcs = { type = "git", url = "https://x.org/a.git", commit-id = 1 }'),
    "directory-path": ('version = "1"', "directory = { path = 1.5 }"),
    "directory-editable": ('version = "1"', 'directory = { path = "./a", editable = 1.5 }'),
    "marker": ('version = "1"\nmarker = 1.5', _WHEEL),
    "index": ('version = "1"\nindex = 1.5', _WHEEL),
    "dependency": ('version = "1"\ndependencies = [1]', _WHEEL),
    "wheels": ('version = "1"', 'wheels = "a"'),
}
# the key packaging names, the type found, the type expected
PYLOCK_ERRORS = {
    "wheel-url": ("wheels[0].url", "float", "str"),
    "wheel-name": ("wheels[0].name", "int", "str"),
    "sdist-path": ("sdist.path", "int", "str"),
    "archive-url": ("archive.url", "list", "str"),
    "vcs-commit": ("vcs.commit-id", "int", "str"),
    "directory-path": ("directory.path", "float", "str"),
    "directory-editable": ("directory.editable", "float", "bool"),
    "marker": ("marker", "float", "str"),
    "index": ("index", "float", "str"),
    "dependency": ("dependencies[0]", "int", "Mapping"),
    "wheels": ("wheels", "str", "Sequence"),
}


@pytest.mark.parametrize(
    "args",
    [["validate"], ["check"], ["normalize"], ["diff", "{f}"], ["convert", "--to", "requirements", "-o", "-"]],
)
@pytest.mark.parametrize("name", PYLOCK_TYPES)
def test_a_pylock_field_of_the_wrong_type_is_refused_naming_its_key(tmp_path, name, args):
    fields, artifact = PYLOCK_TYPES[name]
    path = tmp_path / "pylock.toml"
    text = f'lock-version = "1.0"\ncreated-by = "x"\n\n[[packages]]\nname = "a"\n{fields}\n{artifact}\n'
    path.write_text(text, encoding="utf-8")
    r = run_envkit(args[0], str(path), *(a.format(f=path) for a in args[1:]))
    assert r.exit_code == 2, r.stderr
    key, found, expected = PYLOCK_ERRORS[name]
    assert r.stderr.splitlines()[0] == (
        f"error: {path}:4 (packages[0].{key}): not a valid pylock.toml: "
        f"Unexpected type {found} (expected {expected})"
    )


def test_a_real_pylock_with_a_wheel_url_that_is_a_number_is_refused(tmp_path):
    text = (DATA / "manifests" / "pylock-raspiaprs" / "pylock.toml").read_text(encoding="utf-8")
    lines = text.split("\n")
    wheel = next(i for i, ln in enumerate(lines) if ln.startswith("wheels = [{ url = "))
    head, _, rest = lines[wheel].partition('url = "')
    lines[wheel] = head + "url = 1.5" + rest.partition('"')[2]
    path = tmp_path / "pylock.toml"
    path.write_text("\n".join(lines), encoding="utf-8")
    error = "(packages[0].wheels[0].url): not a valid pylock.toml: Unexpected type float (expected str)"
    for args in (["check", str(path)], ["diff", str(path), str(path)]):
        r = run_envkit(*args)
        assert r.exit_code == 2, (args, r.stderr)
        assert r.stderr.splitlines()[0] == f"error: {path}:7 {error}"
    r = run_envkit("fleet", str(tmp_path))  # a host fleet cannot read is reported, not fatal
    assert r.exit_code == 1, r.stderr
    assert error in r.stdout and "No host could be read." in r.stdout


# `conda list --json` with a lone surrogate escape (which used to pass validate, then end in an
# internal UnicodeEncodeError, exit 3, where diff wrote it)
_RECORD = (
    '{{"name":"numpy","version":"{version}","build_string":"py_0","build_number":0,'
    '"channel":"conda-forge","platform":"linux-64","dist_name":"numpy-1-py_0",'
    '"base_url":"https://conda.anaconda.org/conda-forge"}}'
)


@pytest.mark.parametrize(
    "args",
    [
        ["validate", "{f}"],
        ["check", "{f}"],
        ["normalize", "{f}"],
        ["diff", "{f}", "{env}", "--no-machine"],
        ["convert", "{f}", "--to", "env", "-o", "-"],
    ],
)
@pytest.mark.parametrize(("version", "code"), [("\\ud800x", "D800"), ("1\\udfff", "DFFF")])
def test_json_with_a_lone_surrogate_escape_is_refused_naming_its_line(tmp_path, args, version, code):
    path = tmp_path / "lone.json"
    path.write_text("[\n" + _RECORD.format(version=version) + "\n]\n", encoding="utf-8")
    env = tmp_path / "environment.yml"
    env.write_text(ENV, encoding="utf-8")
    r = run_envkit(*(a.format(f=path, env=env) for a in args))
    assert r.exit_code == 2, r.stderr
    assert (
        r.stderr.splitlines()[0]
        == f"error: {path}:2: invalid JSON: a lone surrogate U+{code} is not a character"
    )


def test_json_with_a_surrogate_pair_and_an_escaped_backslash_reads_as_written(tmp_path):
    path = tmp_path / "list.json"
    record = _RECORD.format(version="1").replace(
        '"build_string":"py_0"', '"build_string":"py_0","x":"\\ud83d\\ude00\\\\ud800"'
    )
    path.write_text(f"[{record}]", encoding="utf-8")
    r = run_envkit("validate", str(path))
    assert (r.exit_code, r.stdout) == (0, f"ok: {path}: conda-list-json, 1 package, 1 platform (linux-64)\n")


def test_a_requirements_line_of_200k_characters_is_read_once(tmp_path):
    # telling a conda requirements file from pip's used to read such a line once for each of its
    # prefixes (quadratic: minutes)
    path = tmp_path / "requirements.txt"
    path.write_text("flask\n" + "x" * 200_000 + "\n", encoding="utf-8")
    r = run_envkit("validate", str(path))
    assert (r.exit_code, r.stdout) == (0, f"ok: {path}: requirements, 2 entries\n")


def test_an_environment_file_of_99k_top_level_keys_converts_once_over(tmp_path):
    # the writer used to look each key's line up by a scan of every key (quadratic: minutes)
    keys = "".join(f"k{i}: {i}\n" for i in range(99_000))
    path = tmp_path / "environment.yml"
    path.write_text("dependencies:\n  - numpy\n" + keys, encoding="utf-8")
    out = tmp_path / "out.yml"
    r = run_envkit("convert", str(path), "--to", "env", "-o", str(out))
    assert r.exit_code == 0, r.stderr
    assert out.read_text(encoding="utf-8") == "dependencies:\n  - numpy\n" + keys
