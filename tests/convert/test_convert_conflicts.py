"""A uv.lock of conflicting extras (`[tool.uv] conflicts`, uv's PyTorch guide: torch once per
accelerator extra): convert installs what `uv export` installs, no side by default, the side
`--extra NAME` names, and refuses two sides as uv does.  A lock whose sides nothing decides (no
project of its own to select from) is refused, naming the conflicting extras.  On a real lock:
remsky/Kokoro-FastAPI (tests/convert/data/SOURCES.md)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import CORPUS, run_envkit

from envkit.errors import ParseError
from envkit.formats import read_text
from envkit.formats.uvlock import conflict_sets

KOKORO = Path(__file__).parent / "data" / "remsky__Kokoro-FastAPI__uv.lock"
CLICK_UV = CORPUS / "82_pallets__click__uv.lock"

#: the four extras Kokoro-FastAPI declares in conflict, as uv names them
SIDES = "{kokoro-fastapi[cpu], kokoro-fastapi[gpu], kokoro-fastapi[gpu-cu128], kokoro-fastapi[rocm]}"
TORCHES = "torch: 2.8.0, 2.8.0+cpu, 2.8.0+cu126, 2.8.0+cu128, 2.8.0+cu129, 2.8.0+rocm6.4"
HINT = (
    "hint: pick one side with uv, then convert that: uv export --frozen --extra cpu -o requirements.txt "
    "(or -o pylock.toml)"
)


def test_the_reader_keeps_the_conflict_sets_and_installs_no_side_by_default():
    lock = read_text(KOKORO.read_text(), filename=str(KOKORO), format="uv-lock")
    assert conflict_sets(lock) == (
        (
            "kokoro-fastapi[cpu]",
            "kokoro-fastapi[gpu]",
            "kokoro-fastapi[gpu-cu128]",
            "kokoro-fastapi[rocm]",
        ),
    )
    # what `uv export` installs without --extra: the torch of the project's own dependencies
    assert [(p.version, p.marker) for p in lock.packages if p.name == "torch"] == [("2.8.0", None)]
    assert conflict_sets(read_text(CLICK_UV.read_text(), format="uv-lock")) == ()


@pytest.mark.parametrize(
    "extra,torches",
    [
        ("cpu", ["torch==2.8.0 ; sys_platform == 'darwin'", "torch==2.8.0+cpu ; sys_platform != 'darwin'"]),
        (
            "gpu",
            [
                "torch==2.8.0 ; platform_machine != 'aarch64' and platform_machine != 'x86_64'",
                "torch==2.8.0+cu126 ; platform_machine == 'x86_64'",
                "torch==2.8.0+cu129 ; platform_machine == 'aarch64'",
            ],
        ),
    ],
)
def test_convert_installs_the_side_extra_names_as_uv_export_does(tmp_path, extra, torches):
    """The torch lines are `uv export --frozen --extra NAME`'s, character for character
    (tests/convert/test_convert_owner.py compares every line)."""
    out = tmp_path / "requirements.txt"
    r = run_envkit("convert", str(KOKORO), "-o", str(out), "--extra", extra)
    assert r.exit_code == 0, r.stderr
    got = [ln.rstrip(" \\") for ln in out.read_text().splitlines() if ln.startswith("torch==")]
    assert got == torches


def test_two_sides_are_refused_as_uv_refuses_them(tmp_path):
    out = tmp_path / "pylock.toml"
    r = run_envkit("convert", str(KOKORO), "-o", str(out), "--extra", "cpu", "--extra", "gpu")
    assert r.exit_code == 2 and not out.exists()
    assert r.stderr == (
        f"error: {KOKORO}: the uv.lock declares `cpu`, `gpu` in conflict (`[tool.uv] conflicts`): they "
        "cannot be installed together\nhint: choose one of them (--extra NAME or --group NAME)\n"
    )


def _without_project(tmp_path) -> Path:
    """The lock with its project turned into a plain directory package: nothing selects a side,
    so every side's packages stay, told apart by uv's conflict markers only."""
    src = tmp_path / "uv.lock"
    text = KOKORO.read_text()
    assert text.count('source = { editable = "." }') == 1
    src.write_text(text.replace('source = { editable = "." }', 'source = { directory = "sub" }'))
    return src


@pytest.mark.parametrize("name,target", [("requirements.txt", "requirements"), ("pylock.toml", "pylock")])
def test_a_lock_with_every_side_left_is_refused_naming_them(tmp_path, name, target):
    out = tmp_path / name
    r = run_envkit("convert", str(_without_project(tmp_path)), "-o", str(out), "--platform", "linux-64")
    assert r.exit_code == 2
    assert r.stderr.splitlines()[0].startswith(
        f"error: the uv.lock declares extras or groups that cannot be installed together ({SIDES}) and locks "
    )
    assert r.stderr.splitlines()[0].endswith(f"; {target} would install every side at once")
    assert r.stderr.splitlines()[1] == HINT
    assert not out.exists()


def test_the_sbom_lists_what_the_selection_installs(tmp_path):
    out = tmp_path / "bom.cdx.json"
    r = run_envkit("convert", str(KOKORO), "-o", str(out), "--extra", "gpu")
    assert r.exit_code == 0, r.stderr
    torches = sorted(c["version"] for c in json.loads(out.read_text())["components"] if c["name"] == "torch")
    assert torches == ["2.8.0", "2.8.0+cu126", "2.8.0+cu129"]


def test_a_malformed_conflicts_is_a_parse_error_at_its_line(tmp_path):
    text = KOKORO.read_text()
    bad = text.replace('{ package = "kokoro-fastapi", extra = "rocm" }', '{ package = "kokoro-fastapi" }')
    with pytest.raises(ParseError) as exc:
        read_text(bad, filename="uv.lock", format="uv-lock")
    line = text[: text.index("\nconflicts = [[")].count("\n") + 2
    assert (exc.value.where.file, exc.value.where.line, exc.value.where.key) == ("uv.lock", line, "conflicts")
    assert str(exc.value) == (
        f"uv.lock:{line} (conflicts): `conflicts` must be an array of sets of "
        "`{ package = ..., extra = ... }` (or `group = ...`) tables"
    )
    src = tmp_path / "uv.lock"
    src.write_text(bad)
    r = run_envkit("convert", str(src), "-o", str(tmp_path / "pylock.toml"))
    assert r.exit_code == 2
    assert r.stderr.startswith(f"error: {src}:{line} (conflicts): `conflicts` must be an array of sets")


def test_the_library_raises_the_same_with_its_hint(tmp_path):
    from envkit.errors import UsageError
    from envkit.ops.convert import convert_model

    src = _without_project(tmp_path)
    lock = read_text(src.read_text(), filename=str(src), format="uv-lock")
    with pytest.raises(UsageError) as exc:
        convert_model(lock, "pylock", source_format="uv-lock")
    assert str(exc.value).endswith("; pylock would install every side at once")
    assert exc.value.hint == HINT.removeprefix("hint: ")


def test_convert_help_says_how_to_pick_a_side():
    r = run_envkit("convert", "--help")
    text = " ".join(r.stdout.split())  # the terminal's width decides where lines break
    assert "A uv.lock converts to what `uv export` selects" in text
    assert "--extra NAME uv.lock: install this extra too (repeatable)." in text
