"""Wrong answers on odd input: a `null` YAML document, NUL bytes, a concurrent edit
during `normalize --write`, check's exit code on a duplicate key, YAML that is not an environment
file, and validate's error channel."""

from __future__ import annotations

import pytest
from conftest import run_envkit

NOT_ENV_HINT = (
    "hint: envkit reads environment.yml, conda-lock.yml, pixi.lock, explicit files, requirements "
    "files and `conda list` output"
)


@pytest.mark.parametrize("name", ["environment.yml", "env.txt"])
@pytest.mark.parametrize("command", [["validate"], ["normalize"], ["check"]])
def test_a_yaml_null_document_is_an_empty_environment_file_not_a_package_named_null(tmp_path, name, command):
    path = tmp_path / name
    path.write_text("null\n")
    r = run_envkit(*command, str(path))
    assert r.exit_code == 2
    assert r.stdout == ""
    assert r.stderr == (
        f"error: {path}:1: empty environment file\n"
        "hint: an environment.yml needs at least a `dependencies:` list\n"
    )


@pytest.mark.parametrize("command", [["validate"], ["normalize"], ["check"]])
def test_a_nul_byte_in_a_requirements_file_is_refused(tmp_path, command):
    path = tmp_path / "requirements.txt"
    path.write_text("requests==2.31.0\nnumpy==1.26.4  # pinned\x00\n")
    r = run_envkit(*command, str(path))
    assert r.exit_code == 2
    assert r.stdout == ""
    assert r.stderr == (
        f"error: {path}:2: a NUL character (U+0000) is not text\n"
        "hint: the file is binary or corrupt: save it again as UTF-8 text\n"
    )


def test_normalize_write_keeps_an_edit_made_while_it_ran(tmp_path, monkeypatch):
    import envkit.formats.canonical

    path = tmp_path / "environment.yml"
    path.write_text("dependencies:\n  - python\n  - numpy\n")
    real = envkit.formats.canonical.render_normalized

    def render_while_someone_appends(model, text, fmt):
        with open(path, "a") as fh:  # another process (an editor, a second hook) writes now
            fh.write("  - scipy\n")
        return real(model, text, fmt)

    monkeypatch.setattr(envkit.formats.canonical, "render_normalized", render_while_someone_appends)
    r = run_envkit("normalize", "--write", str(path))
    assert r.exit_code == 2
    assert r.stderr == (
        f"error: {path}: changed since envkit read it (another process wrote to it); not replaced\n"
        "hint: run the command again on the new content\n"
    )
    assert path.read_text() == "dependencies:\n  - python\n  - numpy\n  - scipy\n"
    assert list(tmp_path.iterdir()) == [path]  # no temporary file left behind


def test_normalize_write_still_rewrites_an_unchanged_file(tmp_path):
    path = tmp_path / "environment.yml"
    path.write_text("dependencies:\n  - python\n  - numpy\n")
    r = run_envkit("normalize", "--write", str(path))
    assert (r.exit_code, r.stdout) == (0, f"normalized {path}\n")
    assert path.read_text() == "dependencies:\n  - numpy\n  - python\n"


@pytest.mark.parametrize("fmt", ["text", "json", "github", "sarif"])
def test_check_exits_2_on_a_duplicate_key_file_like_the_other_commands(tmp_path, fmt):
    path = tmp_path / "environment.yml"
    path.write_text("dependencies:\n  - python\ndependencies:\n  - numpy\n")
    r = run_envkit("check", "--format", fmt, str(path))
    assert r.exit_code == 2
    assert "duplicate key 'dependencies': first at line 1, again at line 3" in r.stdout
    for command in (["validate"], ["normalize"], ["diff", str(path)]):
        assert run_envkit(*command, str(path)).exit_code == 2


WORKFLOW = (
    "name: CI\non: [push]\njobs:\n  test:\n    runs-on: ubuntu-latest\n    steps:\n"
    "      - uses: actions/checkout@v4\n"
)


@pytest.mark.parametrize("text, line, keys", [("foo: bar\n", 1, "foo"), (WORKFLOW, 2, "on, jobs")])
@pytest.mark.parametrize(
    "command", [["validate"], ["normalize"], ["normalize", "--write"], ["normalize", "--check"], ["check"]]
)
def test_yaml_that_is_not_an_environment_file_is_refused_by_every_command(
    tmp_path, text, line, keys, command
):
    path = tmp_path / "ci.yml"
    path.write_text(text)
    r = run_envkit(*command, str(path))
    assert r.exit_code == 2
    assert r.stdout == ""
    assert r.stderr == (
        f"error: {path}:{line}: not an environment file: no channels: or dependencies:, and "
        f"top-level keys an environment file does not have ({keys})\n{NOT_ENV_HINT}\n"
    )
    assert path.read_text() == text  # never given a `dependencies: []`


@pytest.mark.parametrize("text, line, keys", [("foo: bar\n", 1, "foo"), (WORKFLOW, 2, "on, jobs")])
@pytest.mark.parametrize(
    "command",
    [
        ["convert", "--to", "requirements", "{f}"],
        ["diff", "--no-machine", "{f}", "{env}"],
        ["diff", "--no-machine", "{env}", "{f}"],
        ["lock", "-f", "{f}", "--platform", "linux-64", "-o", "{tmp}/conda-lock.yml"],
        ["create", "--lock", "{f}", "-p", "{tmp}/prefix"],
        ["smoke", "--create", "{f}"],
        ["fingerprint", "{f}"],
        ["audit", "--db", "{tmp}", "{f}"],
    ],
    ids=["convert", "diff-a", "diff-b", "lock-f", "create-lock", "smoke-create", "fingerprint", "audit"],
)
def test_yaml_that_is_not_an_environment_file_is_refused_by_every_reader(tmp_path, text, line, keys, command):
    # format detection refuses it (envkit.formats.registry.detect), so every command that reads a
    # file by its content refuses it as validate does; before, these read it as an empty environment
    path = tmp_path / "ci.yml"
    path.write_text(text)
    env = tmp_path / "environment.yml"
    env.write_text("dependencies:\n  - python\n")
    r = run_envkit(*(a.format(f=path, env=env, tmp=tmp_path) for a in command))
    assert r.exit_code == 2
    assert r.stderr.splitlines()[0] == (
        f"error: {path}:{line}: not an environment file: no channels: or dependencies:, and "
        f"top-level keys an environment file does not have ({keys})"
    )
    assert path.read_text() == text


def test_fleet_reports_a_yaml_file_that_is_not_an_environment_file_as_not_read(tmp_path):
    # fleet reads the other hosts on (its rule for a file that cannot be read), no empty environment
    path = tmp_path / "ci.yml"
    path.write_text(WORKFLOW)
    r = run_envkit("fleet", str(path))
    assert r.exit_code == 1
    assert r.stdout.splitlines()[3] == (
        f"  ci  {path}:2: not an environment file: no channels: or dependencies:, and top-level keys "
        "an environment file does not have (on, jobs)"
    )


def test_an_environment_file_asked_for_by_name_is_read_as_one(tmp_path):
    # --input-format env is what the user says the file is: read as asked, by every command alike
    path = tmp_path / "ci.yml"
    path.write_text("foo: bar\n")
    r = run_envkit("validate", "--input-format", "env", str(path))
    assert (r.exit_code, r.stdout) == (0, f"ok: {path}: environment spec, 0 conda, 0 pip\n")
    r = run_envkit("convert", "--input-format", "env", "--to", "requirements", str(path))
    assert r.exit_code == 0


def test_lock_still_refuses_to_overwrite_a_yaml_file_that_is_not_an_environment_file(tmp_path):
    spec = tmp_path / "environment.yml"
    spec.write_text("channels: [conda-forge]\ndependencies:\n  - python\n")
    out = tmp_path / "ci.yml"
    out.write_text(WORKFLOW)
    r = run_envkit("lock", "-f", str(spec), "--platform", "linux-64", "-o", str(out))
    assert r.exit_code == 2
    assert (
        r.stderr.splitlines()[0] == f"error: {out}: refusing to write the lock (-o) over an environment file"
    )
    assert out.read_text() == WORKFLOW


def test_an_environment_file_with_only_a_name_is_still_one(tmp_path):
    path = tmp_path / "environment.yml"
    path.write_text("name: empty\n")
    assert run_envkit("validate", str(path)).stdout == f"ok: {path}: environment spec, 0 conda, 0 pip\n"


def test_validate_prints_errors_on_stderr_with_their_hint(tmp_path):
    good = tmp_path / "good.yml"
    good.write_text("dependencies: [python]\n")
    bad = tmp_path / "bad.yml"
    bad.write_text("dependencies:\n  - python\ndependencies:\n  - numpy\n")
    r = run_envkit("validate", str(good), str(bad))
    assert r.exit_code == 2
    assert r.stdout == f"ok: {good}: environment spec, 1 conda, 0 pip\n"
    assert r.stderr == (
        f"error: {bad}:3 (dependencies): duplicate key 'dependencies': first at line 1, again at "
        "line 3\nhint: YAML keeps only one of them; merge the two into one key\n"
    )
