"""envkit's one YAML path: the block-style subset that lock tools and people write is read by
envkit.formats._fastyaml, everything else by libyaml (envkit.formats._yaml).  Expected values, lines
and errors; which reader takes a file is told by the reader the other one would need."""

from __future__ import annotations

import re

import pytest
from conftest import corpus_files, corpus_text
from hypothesis import given, settings
from hypothesis import strategies as st

from envkit.errors import ParseError
from envkit.formats import _fastyaml, _yaml
from envkit.formats._fastyaml import load_yaml

YAML_FILES = [p for p in corpus_files() if p.suffix in (".yml", ".yaml") or p.name.endswith("pixi.lock")]

#: Corpus files outside the fast reader's subset: libyaml reads them.
OUTSIDE = {
    "60": "pixi.lock v1: `time_metadata: null` (and the other null metadata)",
    "61": "pixi.lock v1: `time_metadata: null` (and the other null metadata)",
    "62": "pixi.lock v1: `time_metadata: null` (and the other null metadata)",
    "74": "conda-lock 1.0.x lock: `sha256: null` on the umccr channel's package (md5 only)",
    "76": "conda-lock 1.0.x lock: `sha256: null` on the umccr channel's package (md5 only)",
}


def test_every_corpus_lock_in_the_block_layout_is_read_without_libyaml(monkeypatch):
    monkeypatch.setattr(_yaml, "load", lambda *a, **k: pytest.fail("read through libyaml"))
    locks = [p for p in corpus_files("condalock") + corpus_files("pixilock") if p.suffix != ".json"]
    read = [p.name for p in locks if p.name.split("_", 1)[0] not in OUTSIDE and load_yaml(corpus_text(p))]
    assert len(read) == len(locks) - sum(p.name.split("_", 1)[0] in OUTSIDE for p in locks) > 10


CONDA_LOCK = """\
version: 1
metadata:
  platforms:
  - linux-64
package:
- name: numpy
  version: 1.26.4
  manager: conda
  dependencies:
    python: '>=3.11'
  hash:
    md5: a502d7aad449a1206efb366d6a12c52d
  optional: false
  build_number: 3
  empty: {}
"""


def test_values_and_lines_of_a_lock():
    data = load_yaml(CONDA_LOCK, filename="conda-lock.yml")
    pkg = data["package"][0]
    assert data == {
        "version": 1,
        "metadata": {"platforms": ["linux-64"]},
        "package": [
            {
                "name": "numpy",
                "version": "1.26.4",
                "manager": "conda",
                "dependencies": {"python": ">=3.11"},
                "hash": {"md5": "a502d7aad449a1206efb366d6a12c52d"},
                "optional": False,
                "build_number": 3,
                "empty": {},
            }
        ],
    }
    assert (data.lines["version"], data.lines["package"], data["package"].lines) == (1, 5, [6])
    assert (pkg.lines["dependencies"], pkg["dependencies"].lines["python"], pkg["empty"].line) == (9, 10, 15)


def test_a_long_dependency_list_reads_with_its_lines():
    deps = [f"conda-forge::pkg-{i}==1.{i}" for i in range(40)]
    text = "name: x\ndependencies:\n" + "".join(f"  - {d}\n" for d in deps) + "- pip\n"
    with pytest.raises(ParseError):  # `- pip` at indent 0 after the mapping: not YAML
        load_yaml(text)
    data = load_yaml(text[: -len("- pip\n")])
    assert data["dependencies"] == deps and data["dependencies"].lines == list(range(3, 43))


def _with_lines(value):
    """`value` with the line of every collection and of each of its keys or items, for comparing."""
    if isinstance(value, dict):
        return ("map", value.line, {k: (value.line_of(k), _with_lines(v)) for k, v in value.items()})
    if isinstance(value, list):
        return ("list", value.line, [(n, _with_lines(v)) for n, v in zip(value.lines, value, strict=True)])
    return value


@pytest.mark.parametrize("block", [1, 7, 64, 1 << 14])
def test_a_document_read_block_by_block_has_libyamls_values_and_lines(monkeypatch, block):
    # the real pixi.lock and conda-lock.yml, their lines cut into blocks of every size: a block can
    # end at a blank line, a comment, a key waiting for its value or a `- ` item; libyaml judges
    pixi = corpus_text(next(p for p in corpus_files("pixilock") if p.name.startswith("59_")))
    lock = corpus_text(next(p for p in corpus_files("condalock") if p.name.startswith("72_")))
    monkeypatch.setattr(_fastyaml, "BLOCK", block)
    for text in (pixi, lock, "# head\n\nname: x\n\ndependencies:\n  -\n    a: 1\n  - b\n# tail\n\n"):
        assert _with_lines(_fastyaml.load(text)) == _with_lines(_yaml.load(text))


@pytest.mark.parametrize(
    "text, value",
    [
        ("a: '1.0'\n", "1.0"),
        ("a: 1.10\n", 1.1),  # YAML 1.1: a float, read by libyaml
        ("a: yes\n", True),
        ('a: "x\\ty"\n', "x\ty"),
        ("a: &x b\nc: *x\n", "b"),
        ("a: [1, 2]\n", [1, 2]),
    ],
)
def test_scalars_inside_and_outside_the_subset(text, value):
    assert load_yaml(text)["a"] == value


def test_nesting_at_the_limit_reads_and_deeper_is_refused_with_its_line():
    nested = "".join("  " * i + f"k{i}:\n" for i in range(63)) + "  " * 63 + "v: 1\n"  # 64 mappings
    assert load_yaml(nested)["k0"]["k1"]["k2"] is not None
    deeper = "".join("  " * i + f"k{i}:\n" for i in range(64)) + "  " * 64 + "v: 1\n"
    with pytest.raises(ParseError) as err:
        load_yaml(deeper, filename="environment.yml")
    assert str(err.value) == "environment.yml:65: YAML nested more than 64 levels deep; refused"


@pytest.mark.parametrize(
    "text, line, char",
    [
        ("a: b\x7f\n", 1, "U+007F"),
        ('a: 1\nb: "\x01"\n', 2, "U+0001"),
        ("a: 1\n# \ufffe\n", 2, "U+FFFE"),
        ("a: \ud800\n", 1, "U+D800"),
        ("a:\n  - x\x9f\n", 2, "U+009F"),
    ],
)
def test_a_character_yaml_forbids_is_an_error_with_its_line(text, line, char):
    with pytest.raises(ParseError) as err:
        load_yaml(text, filename="conda-lock.yml")
    assert str(err.value).startswith(f"conda-lock.yml:{line}: invalid YAML: character {char} is not allowed")
    assert err.value.where.line == line


def test_duplicate_key_still_reported_with_both_lines():
    with pytest.raises(ParseError) as err:
        load_yaml("version: 1\npackage: []\nversion: 1\n", filename="conda-lock.yml")
    assert "duplicate key 'version': first at line 1, again at line 3" in str(err.value)


def test_a_list_items_keys_have_their_lines_and_a_repeated_first_key_is_a_duplicate():
    # a `- key:` item's map keeps no line table until its second key comes: the first key's line
    # is the map's own
    data = load_yaml("pkgs:\n- conda: a\n- conda: b\n  name: b\n  size: 3\n- pypi: c\n")
    assert [[(k, item.line_of(k)) for k in item] for item in data["pkgs"]] == [
        [("conda", 2)],
        [("conda", 3), ("name", 4), ("size", 5)],
        [("pypi", 6)],
    ]
    with pytest.raises(ParseError) as err:
        load_yaml("pkgs:\n- conda: a\n  conda: b\n", filename="pixi.lock")
    assert "duplicate key 'conda': first at line 2, again at line 3" in str(err.value)


def test_invalid_yaml_gets_the_full_loaders_error():
    with pytest.raises(ParseError) as err:
        load_yaml("a:\n\tb: 1\n", filename="pixi.lock")
    assert str(err.value) == "pixi.lock:2: invalid YAML: found character that cannot start any token: 'b: 1'"


_url_atom = st.sampled_from(
    [
        "https://",
        "conda.anaconda.org",
        "/",
        "conda-forge",
        "linux-64",
        "noarch",
        "t",
        "tok",
        "u:p@",
        "@",
        "?",
        "&",
        "token=",
        "#",
        " ",
        "numpy-1.0-0.conda",
        ".tar.bz2",
        "x",
        "-",
        "file://",
        "%20",
        "=",
        "${T}",
    ]
)


@settings(max_examples=300, deadline=None)
@given(st.lists(_url_atom, max_size=10).map("".join))
def test_url_parts_by_directory_equal_parts_of_the_whole_url(url):
    from envkit.formats._util import _channel_parts, split_filename, url_parts_uncached

    base = url.split("#", 1)[0]
    expected = (*_channel_parts(base), split_filename(base.rstrip("/").rpartition("/")[2]))
    assert url_parts_uncached(url) == expected


def test_forbidden_character_class_is_the_complement_of_yamls_printable_set():

    allowed = re.compile("[^\t\n\r\x20-\x7e\x85\xa0-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")
    every = "".join(map(chr, range(0x110000)))
    assert [m.start() for m in re.finditer(_fastyaml._NOT_PRINTABLE, every)] == [
        m.start() for m in allowed.finditer(every)
    ]


@pytest.mark.parametrize(
    "text, value, lines",
    [
        ("a:\n- x\nb: 1\n", {"a": ["x"], "b": 1}, {"a": 1, "b": 3}),  # a list at its key's column
        ("a:\nb:\n", {"a": None, "b": None}, {"a": 1, "b": 2}),
        ("- \n  a: 1\n-\n  - y\n", [{"a": 1}, ["y"]], [2, 4]),  # `-` alone: the item follows deeper
        ("# c\n\nk:\n    deep: v  \n", {"k": {"deep": "v"}}, {"k": 3}),
    ],
)
def test_block_layouts_read_to_values_and_lines(text, value, lines):
    data = _fastyaml.load(text)
    assert (data, data.lines) == (value, lines)


@pytest.mark.parametrize(
    "text",
    ["a: 1\n- x\n", "a:\n  b: 1\n  - x\n", "- a\n  b: 1\n", "a: 1\n  b: 2\n", "a: x\n b\n", "-\n"],
)
def test_text_outside_the_block_layout_is_left_to_libyaml(text):
    with pytest.raises(_fastyaml.Unsupported):
        _fastyaml.load(text)


#: one-line scalars near the edges of what the fast reader takes as text: bool/null words, digests,
#: numbers, `:` and `#` in and after words, several spaces, quotes, tabs
_scalar_text = st.lists(
    st.sampled_from(["a", "b", "e", "y", "n", "_", "0", "1", "9", ":", "#", "-", ".", " ", "  ", "'", '"'])
    | st.just("\t")
    | st.sampled_from(["yes", "No", "null", "true", "off", "0b1", "1e5", "0x1f", "2020-01-01", "http://x"]),
    min_size=1,
    max_size=6,
).map("".join)


@settings(max_examples=400, deadline=None)
@given(_scalar_text)
def test_a_scalar_the_fast_reader_takes_means_what_libyaml_reads(value):
    import yaml

    for text in (f"a: {value}\n", f"a:\n- {value}\n"):
        try:
            got = _fastyaml.load(text)
        except _fastyaml.Unsupported:
            continue
        assert got == yaml.load(text, Loader=yaml.CSafeLoader), text
