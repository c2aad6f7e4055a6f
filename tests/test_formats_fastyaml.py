"""The fast lockfile YAML reader gives exactly what envkit._yaml.load gives, or steps aside."""
from __future__ import annotations

import json
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
    rewritten = _envkit_written(tmp_path / "lock.yml")
    assert rewritten.count('"') > 1000
    assert same(_fastyaml.load(rewritten), _yaml.load(rewritten)) is None


@pytest.mark.parametrize("text", [
    "v: 1.10\n", "a: yes\n", "a: [1, 2]\n", "a: &x 1\nb: *x\n", "a: !!str 1\n", "a: |\n  text\n",
    "a: b # c\n", "a: 0777\n", "a: null\n", "a:\n  - - x\n", "a: 2020-01-01\n",
    "a: x\n  y\n", "'k': v\n", "a: 1_000\n", "- a\n-\n", "a: -\n",
    # double quotes that are not a JSON string, or mean something else to YAML
    'a: "\\x41"\n', 'a: "\\e"\n', 'a: "\\ud83d\\ude00"\n', 'a: "\\ud800"\n', 'a: "a"b"\n', 'a: "x" # c\n',
    'a: "tab\there"\n', 'a: "open\n', 'a: "two\n  lines"\n', '"k": v\n', '- "k": v\n', 'a: ""x\n',
    # YAML's other line breaks
    "a: x\ry\n", "a: x\u2028y\n", "a: x\x85y\n", "a: x\u2029y\n",
])
def test_outside_the_subset_falls_back_to_the_same_result(text):
    with pytest.raises(Unsupported):
        _fastyaml.load(text)
    try:
        ref = _yaml.load(text)
    except ParseError as exc:
        with pytest.raises(ParseError) as err:
            load_yaml(text)
        assert str(err.value) == str(exc)
    else:
        assert same(load_yaml(text), ref) is None


@pytest.mark.parametrize("text, value", [
    ('a: "x"\n', "x"), ('a: ""\n', ""), ('a: "1.10"\n', "1.10"), ('a: "true"\n', "true"),
    ('a: ">=1.0,<2.0a0"\n', ">=1.0,<2.0a0"), ('a: "*"\n', "*"), ('a: "x: y # z"\n', "x: y # z"),
    ('a: "  padded "\n', "  padded "), ('a: "\\/"\n', "/"), ('a: "a\\"b"\n', 'a"b'), ('a: "\\\\"\n', "\\"),
    ('a: "\\b\\f\\n\\r\\t"\n', "\b\f\n\r\t"), ('a: "\\u00e9\\u0000"\n', "\u00e9\x00"), ('a: "é😀"\n', "é😀"),
    ('a: "\\\\ud800"\n', "\\ud800"),  # an escaped backslash, then text: goes to the full loader, same value
])
def test_double_quoted_json_strings_read_as_the_full_loader_reads_them(text, value):
    ref = _yaml.load(text)
    assert ref == {"a": value}
    assert same(load_yaml(text), ref) is None
    if "\\\\u" not in text:
        assert same(_fastyaml.load(text), ref) is None  # the fast path, not a fallback


@pytest.mark.parametrize("text, line, char", [
    ("a: b\x7f\n", 1, "U+007F"), ("a: 1\nb: \"\x01\"\n", 2, "U+0001"), ("a: 1\n# \ufffe\n", 2, "U+FFFE"),
    ("a: \ud800\n", 1, "U+D800"), ("a:\n  - x\x9f\n", 2, "U+009F"),
])
def test_a_character_yaml_forbids_is_an_error_with_its_line(text, line, char):
    with pytest.raises(ParseError) as err:
        load_yaml(text, filename="conda-lock.yml")
    assert str(err.value).startswith(f"conda-lock.yml:{line}: invalid YAML: character {char} is not allowed")
    assert err.value.where.line == line
    with pytest.raises((ParseError, UnicodeError)):
        _yaml.load(text)  # the full loader refuses it too (naming an offset, not a line)


def _envkit_written(path) -> str:
    from envkit.formats import read_file, write_text

    return write_text(read_file(path), "conda-lock")


@pytest.mark.parametrize("path", corpus_files("condalock") + corpus_files("pixilock"), ids=lambda p: p.name[:12])
def test_fast_reader_takes_locks_written_by_envkit(path):
    # envkit's writer double-quotes some scalars and writes metadata in block style: neither may
    # force the slow loader
    text = _envkit_written(path)
    assert same(_fastyaml.load(text), _yaml.load(text)) is None


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


# any text but lone surrogates: envkit's writers escape what YAML cannot hold raw (formats._util.yscalar)
writable = st.text(st.characters(blacklist_categories=("Cs",)), max_size=10)
word_keys = st.from_regex(r"k[a-z0-9_-]{0,8}", fullmatch=True)
written = st.recursive(st.one_of(writable, st.integers(0, 10**6), st.booleans()),
                       lambda inner: st.one_of(st.lists(inner, max_size=4), st.dictionaries(word_keys, inner, max_size=4)),
                       max_leaves=12)


@settings(max_examples=100, deadline=None)
@given(st.dictionaries(word_keys, written, min_size=1, max_size=5), st.sampled_from(["", "  "]))
def test_fast_reader_takes_whatever_envkits_writers_write(doc, seq_indent):
    from envkit.formats._util import block_yaml

    text = "\n".join(line for k, v in doc.items() for line in block_yaml(k, v, "", seq_indent)) + "\n"
    assert same(_fastyaml.load(text), _yaml.load(text)) is None  # no fallback
    assert _yaml.load(text) == doc


# lines mixing YAML's special characters, escapes and quotes: the fast reader must either give
# exactly the full loader's value or step aside (never a value where the full loader fails)
_ATOMS = ["a", "1", "0", ".", "-", " ", ":", "#", "'", '"', "\\", "/", "\t", "{", "[", "]", "&", "*", "!", "|", ">",
          "%", "@", ",", "?", "~", "`", "e", "\\n", "\\u00e9", "\\ud83d", "é", "\u2028", "\x85", "\x7f", "\r",
          "\\x41", "\\\\", '\\"', "\\/", "\\ ", "\\0", "1e3", "0x1f", "1:30", "null", "yes", "2020-01-01", "---"]
_frag = st.lists(st.sampled_from(_ATOMS), max_size=6).map("".join)
_val = st.one_of(_frag, _frag.map(lambda s: f'"{s}"'), _frag.map(lambda s: f"'{s}'"),
                 st.text(max_size=6).map(lambda s: json.dumps(s, ensure_ascii=False)),
                 st.sampled_from(["", "{}", "[]", "true", "12", "-1"]))
_key = st.one_of(st.sampled_from(["a", "b", "x.y", "k-2", '"q"', "'s'", "1", "yes", "a/b"]), _frag)
_line = st.one_of(
    st.tuples(st.sampled_from(["", " ", "  ", "    "]), st.sampled_from(["", "- ", "- - ", "-"]),
              st.one_of(_key.map(lambda k: k + ":"), st.just("")), st.sampled_from(["", " "]), _val,
              st.sampled_from(["", " ", " # c"])).map("".join),
    st.sampled_from(["# c", "  # c", "", "---", "..."]))


@settings(max_examples=300, deadline=None)
@given(st.lists(_line, min_size=1, max_size=8), st.sampled_from(["\n", "\r\n"]))
def test_fast_reader_never_disagrees_on_odd_lines(lines, eol):
    text = eol.join(lines) + eol
    try:
        fast = _fastyaml.load(text)
    except Unsupported:
        return
    assert same(fast, _yaml.load(text)) is None


def test_invalid_yaml_gets_the_full_loaders_error():
    with pytest.raises(ParseError) as err:
        load_yaml("a:\n\tb: 1\n", filename="pixi.lock")
    assert str(err.value) == "pixi.lock:2: invalid YAML: found character that cannot start any token: 'b: 1'"
