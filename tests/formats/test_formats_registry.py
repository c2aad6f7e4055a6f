"""The format registry is the one place a format's facts live: every other table is derived."""

from __future__ import annotations

import importlib

import pytest

from envkit import convert, formats
from envkit.errors import UsageError
from envkit.formats.registry import REGISTRY, by_file_name, get


def test_every_reader_and_writer_option_table_comes_from_the_registry():
    assert formats.FORMATS == tuple(f.name for f in REGISTRY if f.reads)
    assert formats.FORMATS[:4] == ("env", "explicit", "conda-lock", "pixi")  # --format's order, kept
    assert formats.SPEC_FORMATS == ("env", "requirements", "conda-requirements", "pixi-manifest", "pyproject")
    assert formats.WRITE_ONLY == ("pixi-v7", "cyclonedx")
    assert set(formats.WRITE_OPTIONS) == {f.name for f in REGISTRY}
    assert convert.TARGETS == (
        "env", "requirements", "explicit", "conda-lock", "pixi", "pixi-v7", "pylock", "cyclonedx",
        "conda-list-json", "conda-list-export",
    )  # fmt: skip
    assert convert.HOLDS == {f.name: set(f.holds) for f in REGISTRY if f.name in convert.TARGETS}
    assert set(convert.CARRIES) == {f.name for f in REGISTRY if f.reads} - {"conda-requirements"}


@pytest.mark.parametrize("fmt", [f for f in REGISTRY if f.reads], ids=lambda f: f.name)
def test_every_reader_resolves(fmt):
    module, func = fmt.reader.split(":")
    assert callable(getattr(importlib.import_module(f"envkit.formats.{module}"), func))
    assert set(fmt.carries) <= set(convert.FEATURES)


@pytest.mark.parametrize(
    "base, name",
    [
        ("pixi.lock", "pixi"),
        ("pylock.dev.toml", "pylock"),
        ("uv.lock", "uv-lock"),
        ("ci-conda-lock.yml", "conda-lock"),
        ("environment.yaml", "env"),
        ("requirements-dev.txt", "requirements"),
        ("deps.in", "requirements"),
        ("list.json", "conda-list-json"),
        ("notes.txt", None),
    ],
)
def test_file_names_only_break_ties(base, name):
    assert (f.name if (f := by_file_name(base)) else None) == name


def test_an_unknown_format_names_the_choices():
    with pytest.raises(UsageError) as err:
        get("pixi-lock")
    assert err.value.message.startswith(
        "unknown format 'pixi-lock'; choose one of: env, explicit, conda-lock"
    )
