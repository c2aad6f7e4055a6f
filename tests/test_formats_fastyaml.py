"""The fast lockfile YAML reader gives exactly what envkit._yaml.load gives, or steps aside."""
from __future__ import annotations

import sys

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import REPO, corpus_files
from envkit import _yaml
from envkit.errors import ParseError
from envkit.formats import _fastyaml
from envkit.formats._fastyaml import Unsupported, load_yaml


def same(a, b, path="$"):
    """None when a and b are equal values with equal types and line numbers, else where they differ."""
    if type(a) is not type(b):
        return f"{path}: {type(a).__name__} vs {type(b).__name__}"
    if isinstance(a, (dict, list)):
        if (a.line, a.lines) != (b.line, b.lines):
            return f"{path}: lines differ"
        if len(a) != len(b) or (isinstance(a, dict) and list(a) != list(b)):
            return f"{path}: keys/length differ"
        pairs = zip(a.values(), b.values()) if isinstance(a, dict) else zip(a, b)
        keys = list(a) if isinstance(a, dict) else range(len(a))
        for k, (x, y) in zip(keys, pairs):
            r = same(x, y, f"{path}.{k}")
            if r:
                return r
        return None
    return None if a == b else f"{path}: {a!r} vs {b!r}"


YAML_FILES = [p for p in corpus_files() if p.suffix in (".yml", ".yaml") or p.name.endswith("pixi.lock")]


@pytest.mark.parametrize("path", YAML_FILES, ids=lambda p: p.name[:12])
def test_fast_reader_matches_the_full_loader_on_the_corpus(path):
    text = path.read_text(encoding="utf-8")
    ref = _yaml.load(text)
    assert same(load_yaml(text), ref) is None


def test_fast_reader_handles_every_lockfile_in_the_corpus():
    for path in corpus_files("condalock") + corpus_files("pixilock"):
        _fastyaml.load(path.read_text(encoding="utf-8"))  # no Unsupported


def test_fast_reader_on_a_generated_lock(tmp_path):
    sys.path.insert(0, str(REPO / "bench"))
    from bench_normalize import make_conda_lock

    text = make_conda_lock(tmp_path / "lock.yml", n=300).read_text()
    assert same(_fastyaml.load(text), _yaml.load(text)) is None


@pytest.mark.parametrize("text", [
    "v: 1.10\n", "a: yes\n", "a: [1, 2]\n", "a: &x 1\nb: *x\n", "a: !!str 1\n", "a: |\n  text\n",
    'a: "q\\n"\n', "a: b # c\n", "a: 0777\n", "a: null\n", "a:\n  - - x\n", "a: 2020-01-01\n",
    "a: x\n  y\n", "'k': v\n", "a: 1_000\n", "- a\n-\n",
])
def test_outside_the_subset_falls_back_to_the_same_result(text):
    with pytest.raises(Unsupported):
        _fastyaml.load(text)
    assert same(load_yaml(text), _yaml.load(text)) is None


def test_duplicate_key_still_reported_with_both_lines():
    with pytest.raises(ParseError) as err:
        load_yaml("version: 1\npackage: []\nversion: 1\n", filename="conda-lock.yml")
    assert "duplicate key 'version': first at line 1, again at line 3" in str(err.value)


plain = st.from_regex(r"[A-Za-z0-9_.=<>*+/-]{1,10}", fullmatch=True)
scalars = st.one_of(plain, st.text(st.characters(min_codepoint=32, max_codepoint=126), max_size=8),
                    st.integers(0, 10**6), st.booleans())
keys = st.from_regex(r"[a-z_][a-z0-9_-]{0,8}", fullmatch=True)
values = st.recursive(scalars, lambda inner: st.one_of(st.lists(inner, max_size=4),
                                                      st.dictionaries(keys, inner, max_size=4)), max_leaves=12)


def dump(value, indent=0, seq_indent=0) -> list[str]:
    pad = " " * indent
    out = []
    if isinstance(value, dict):
        for k, v in value.items():
            if isinstance(v, (dict, list)) and v:
                out.append(f"{pad}{k}:")
                out += dump(v, indent + 2 if isinstance(v, dict) else indent + seq_indent)
            else:
                out.append(f"{pad}{k}: {emit(v)}")
    else:
        for v in value:
            if isinstance(v, dict) and v:
                sub = dump(v, indent + 2)
                out.append(f"{pad}- {sub[0].lstrip()}")
                out += sub[1:]
            elif isinstance(v, list) and v:
                out.append(f"{pad}-")
                out += dump(v, indent + 2)
            else:
                out.append(f"{pad}- {emit(v)}")
    return out


def emit(v) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, dict):
        return "{}"
    if isinstance(v, list):
        return "[]"
    return _yaml.scalar(v)


@settings(max_examples=100, deadline=None)
@given(st.dictionaries(keys, values, min_size=1, max_size=5), st.sampled_from([0, 2]))
def test_fast_reader_equals_full_loader_on_generated_yaml(doc, seq_indent):
    text = "\n".join(dump(doc, 0, seq_indent)) + "\n"
    ref = _yaml.load(text)
    assert same(load_yaml(text), ref) is None


def test_invalid_yaml_gets_the_full_loaders_error():
    with pytest.raises(ParseError) as err:
        load_yaml("a:\n\tb: 1\n", filename="pixi.lock")
    assert str(err.value) == "pixi.lock:2: invalid YAML: found character that cannot start any token: 'b: 1'"
