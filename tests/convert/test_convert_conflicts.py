"""A uv.lock of conflicting extras (`[tool.uv] conflicts`, uv's PyTorch guide: torch once per
accelerator extra) converts to no format that installs: the sides are told apart by uv's own
`extra-N-project-*` markers, and a requirements file, pylock.toml or conda lock of it would ask for
every side at once.  `convert` refuses, naming the conflicting extras and the `uv export` that picks
one; the SBOM, which lists what the lock holds, is still written.  On a real lock: remsky/Kokoro-FastAPI
(tests/convert/data/SOURCES.md)."""

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


def test_the_reader_keeps_the_conflict_sets():
    lock = read_text(KOKORO.read_text(), filename=str(KOKORO), format="uv-lock")
    assert conflict_sets(lock) == (
        (
            "kokoro-fastapi[cpu]",
            "kokoro-fastapi[gpu]",
            "kokoro-fastapi[gpu-cu128]",
            "kokoro-fastapi[rocm]",
        ),
    )
    assert sorted(p.version for p in lock.packages if p.name == "torch") == [
        "2.8.0",
        "2.8.0",
        "2.8.0+cpu",
        "2.8.0+cu126",
        "2.8.0+cu128",
        "2.8.0+cu129",
        "2.8.0+rocm6.4",
    ]
    assert conflict_sets(read_text(CLICK_UV.read_text(), format="uv-lock")) == ()


@pytest.mark.parametrize(
    "name,target",
    [
        ("requirements.txt", "requirements"),
        ("pylock.toml", "pylock"),
        ("pixi.lock", "pixi"),
        ("environment.yml", "env"),
    ],
)
def test_convert_refuses_a_lock_of_conflicting_extras_naming_them(tmp_path, name, target):
    out = tmp_path / name
    r = run_envkit("convert", str(KOKORO), "-o", str(out), "--platform", "linux-64")
    assert r.exit_code == 2
    assert r.stderr.splitlines() == [
        "error: the uv.lock declares extras or groups that cannot be installed together "
        f"({SIDES}) and locks 13 name(s) at several versions ({TORCHES}; networkx, nvidia-cublas-cu12, "
        f"nvidia-cuda-cupti-cu12, ...); {target} would install every side at once",
        HINT,
    ]
    assert not out.exists()  # nothing that pip or uv would install wrongly


def test_the_refusal_is_the_same_without_a_platform(tmp_path):
    r = run_envkit("convert", str(KOKORO), "-o", str(tmp_path / "pylock.toml"), "--format", "json")
    assert (r.exit_code, r.stdout) == (2, "")
    assert r.stderr.startswith(
        f"error: the uv.lock declares extras or groups that cannot be installed together ({SIDES})"
    )


def test_a_group_conflict_hints_at_the_group(tmp_path):
    """The same lock with the sides declared as dependency groups (`{ group = ... }`, as uv writes a
    `[tool.uv] conflicts` of groups): the hint says `--group`."""
    text = KOKORO.read_text().replace(
        '{ package = "kokoro-fastapi", extra = "', '{ package = "kokoro-fastapi", group = "'
    )
    src = tmp_path / "uv.lock"
    src.write_text(text)
    r = run_envkit("convert", str(src), "-o", str(tmp_path / "requirements.txt"))
    assert r.exit_code == 2
    assert (
        "({kokoro-fastapi:cpu, kokoro-fastapi:gpu, kokoro-fastapi:gpu-cu128, kokoro-fastapi:rocm})"
        in r.stderr
    )
    assert r.stderr.splitlines()[-1] == HINT.replace("--extra cpu", "--group cpu")


def test_the_sbom_of_such_a_lock_lists_every_side(tmp_path):
    out = tmp_path / "bom.cdx.json"
    r = run_envkit("convert", str(KOKORO), "-o", str(out))
    assert r.exit_code == 0, r.stderr
    torches = sorted(c["version"] for c in json.loads(out.read_text())["components"] if c["name"] == "torch")
    assert torches == [
        "2.8.0",
        "2.8.0",
        "2.8.0+cpu",
        "2.8.0+cu126",
        "2.8.0+cu128",
        "2.8.0+cu129",
        "2.8.0+rocm6.4",
    ]


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


def test_the_library_raises_the_same_with_its_hint():
    from envkit.errors import UsageError
    from envkit.ops.convert import convert_model

    lock = read_text(KOKORO.read_text(), filename=str(KOKORO), format="uv-lock")
    with pytest.raises(UsageError) as exc:
        convert_model(lock, "pylock", source_format="uv-lock")
    assert str(exc.value).endswith("; pylock would install every side at once")
    assert exc.value.hint == HINT.removeprefix("hint: ")


def test_convert_help_says_how_to_pick_a_side():
    r = run_envkit("convert", "--help")
    text = " ".join(r.stdout.split())  # the terminal's width decides where lines break
    assert (
        "(`[tool.uv] conflicts`: a torch per accelerator) converts only to cyclonedx: pick one side with "
        "`uv export --extra NAME` first." in text
    )
