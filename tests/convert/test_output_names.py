"""One rule for what an output file name means (envkit.formats.registry.format_of_name), the same
for convert, lock, export and normalize: the docs' table is the rule's, a name that decided the
format is said in a note, and a name of a format the command cannot write is refused, exit 2."""

from __future__ import annotations

import re

import pytest
from conftest import CORPUS, REPO, run_envkit

from envkit.formats.registry import format_of_name

CONDA_LOCK = CORPUS / "51_Cecca__repro-course-ci__conda-lock.yml"


def _table() -> list[tuple[str, str]]:
    """(name pattern, format) of every row of docs/commands/convert.md's File names table."""
    text = (REPO / "docs/commands/convert.md").read_text()
    block = text.split("<!-- file-names:start -->", 1)[1].split("<!-- file-names:end -->", 1)[0]
    rows = []
    for line in block.splitlines()[3:]:
        names, fmt = line.strip("|").split("|")
        for pattern in re.findall(r"`([^`]+)`", names):
            rows.append((pattern, fmt.split()[0]))
    return rows


def test_the_docs_table_is_the_rule():
    rows = _table()
    assert len(rows) == 23
    for pattern, fmt in rows:
        example = pattern.replace("*", "gpu")
        assert format_of_name(f"some/dir/{example}").format == fmt, pattern  # type: ignore[union-attr]


@pytest.mark.parametrize(
    ("name", "fmt", "generic"),
    [
        ("out.pixi.lock", "pixi", False),  # once an explicit file: `*.lock`
        ("gpu.pixi.lock", "pixi", False),  # once a conda-lock v1 file from `lock -o`
        ("pylock.dev.toml", "pylock", False),
        ("linux.conda-lock.yml", "conda-lock", False),
        ("conda-linux-64.lock", "explicit", True),
        ("requirements.yml", "env", True),
        ("notes.txt", None, None),
    ],
)
def test_one_name_one_format(name, fmt, generic):
    named = format_of_name(name.upper())  # case does not matter
    assert (named and named.format, named and named.generic) == (fmt, generic)


def test_convert_says_the_name_decided(tmp_path):
    out = tmp_path / "out.pixi.lock"
    r = run_envkit("convert", str(CONDA_LOCK), "-o", str(out))
    assert r.exit_code == 0, r.stderr
    assert r.stderr.splitlines()[1:] == [
        f"note: writing a pixi.lock (pixi): the name {out} says so; --to chooses another"
    ]  # after the note that conda leaves out its pypi package (tests/commands/test_convert_pixi_note.py)
    assert out.read_text().startswith("version: 6\nenvironments:\n")
    r = run_envkit("convert", str(CONDA_LOCK), "-o", str(out), "--to", "pixi-v7")
    assert (r.exit_code, r.stderr) == (0, "")  # --to decided: no note
    assert out.read_text().startswith("version: 7\n")


@pytest.mark.parametrize(
    ("argv", "said"),
    [
        (
            ("convert", str(CONDA_LOCK), "-o", "{d}/uv.lock"),
            "says a uv.lock (uv's own file), which `envkit convert`",
        ),
        (
            ("lock", "-f", "{spec}", "-o", "{d}/pylock.toml"),
            "says a pylock.toml, which `envkit lock` does not",
        ),
        (
            ("lock", "-p", "{d}", "-o", "{d}/gpu.pixi.lock"),
            "says a pixi.lock (pixi's own file), which `envkit lock`",
        ),
        (
            ("export", "-p", "{d}", "-o", "{d}/gpu.pixi.lock"),
            "says a pixi.lock (pixi's own file), which `envkit export`",
        ),
        (("normalize", "{spec}", "-o", "{d}/out.pixi.lock"), "which `envkit normalize` does not write"),
        (
            ("normalize", str(CONDA_LOCK), "-o", "{d}/requirements.txt"),
            "says a requirements file, which `envkit",
        ),
    ],
)
def test_a_name_the_command_cannot_write_is_refused(tmp_path, argv, said):
    spec = tmp_path / "environment.yml"
    spec.write_text("channels: [conda-forge]\ndependencies: [python=3.11]\n")
    argv = [a.format(d=tmp_path, spec=spec) for a in argv]
    r = run_envkit(*argv)
    assert r.exit_code == 2, r.stderr
    lines = [ln for ln in r.stderr.splitlines() if not ln.startswith("note: ")]  # a reader's notes
    assert lines[0].startswith("error: ") and said in lines[0], r.stderr
    assert lines[1].startswith("hint: "), r.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["environment.yml"]  # nothing written


def test_lock_writes_what_the_name_says_and_says_so(envkit_cli, default_channel, tmp_path):
    spec = tmp_path / "environment.yml"
    spec.write_text(f"channels:\n  - {default_channel.url}\ndependencies:\n  - python=3.11\n")
    out = tmp_path / "gpu.pixi.lock"
    r = envkit_cli("lock", "-f", str(spec), "--platform", "linux-64", "-o", str(out))
    assert r.exit_code == 0, r.stderr
    assert f"note: writing a pixi.lock (pixi): the name {out} says so; --to chooses another\n" in r.stderr
    assert "\nversion: 6\nenvironments:\n" in out.read_text()
    plain = tmp_path / "l.yml"  # only the extension: lock's own default, no note
    r = envkit_cli("lock", "-f", str(spec), "--platform", "linux-64", "-o", str(plain))
    assert r.exit_code == 0 and "note: writing" not in r.stderr, r.stderr
    assert "\nversion: 1\nmetadata:\n" in plain.read_text()


def test_export_writes_what_the_name_says_and_says_so(envkit_cli, default_prefix, tmp_path):
    out = tmp_path / "spec-file.txt"
    r = envkit_cli("export", "-p", str(default_prefix), "-o", str(out))
    assert r.exit_code == 0, r.stderr
    assert r.stderr.endswith(
        f"note: writing an explicit file (@EXPLICIT) (explicit): the name {out} says so; "
        "--format chooses another\n"
    )
    assert "@EXPLICIT\n" in out.read_text()
