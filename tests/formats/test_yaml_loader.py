"""envkit.formats._yaml: safe loading with line numbers, duplicate keys, alias bombs, tags."""

from __future__ import annotations

import time

import pytest

from envkit.errors import ParseError
from envkit.formats import _yaml


def test_lines_of_keys_and_items():
    data = _yaml.load("# c\nname: x\ndependencies:\n  - a\n\n  - pip:\n    - b\n", filename="e.yml")
    assert data == {"name": "x", "dependencies": ["a", {"pip": ["b"]}]}
    assert data.lines == {"name": 2, "dependencies": 3}
    assert data["dependencies"].lines == [4, 6]
    assert data["dependencies"][1]["pip"].lines == [7]


def test_duplicate_key_is_an_error_naming_both_lines():
    with pytest.raises(ParseError) as err:
        _yaml.load("dependencies: [a]\nname: x\ndependencies: [b]\n", filename="environment.yml")
    assert str(err.value) == (
        "environment.yml:3 (dependencies): duplicate key 'dependencies': first at line 1, again at line 3"
    )
    assert err.value.hint == "YAML keeps only one of them; merge the two into one key"


def test_billion_laughs_is_refused_fast():
    lines = ['a0: &a0 ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
    for i in range(1, 10):
        prev = f"*a{i - 1}"
        lines.append(f"a{i}: &a{i} [{', '.join([prev] * 9)}]")
    start = time.perf_counter()
    with pytest.raises(ParseError) as err:
        _yaml.load("\n".join(lines) + "\n", filename="bomb.yml")
    assert time.perf_counter() - start < 1.0
    assert "expands to more than 2,000,000 values (alias bomb?); refused" in err.value.message


def test_python_tags_are_refused():
    with pytest.raises(ParseError) as err:
        _yaml.load("x: !!python/object/apply:os.system ['echo hi']\n", filename="e.yml")
    assert err.value.message == "unsupported YAML tag 'tag:yaml.org,2002:python/object/apply:os.system'"


def test_deep_nesting_is_refused():
    with pytest.raises(ParseError) as err:
        _yaml.load("[" * 100 + "]" * 100)
    assert err.value.message == "YAML nested more than 64 levels deep; refused"


def test_syntax_error_has_line_and_text():
    with pytest.raises(ParseError) as err:
        _yaml.load("name: x\ndependencies:\n  - a\n - b\n", filename="e.yml")
    assert err.value.where.line == 4 and err.value.message.startswith("invalid YAML")


def test_multi_document_stream_is_refused():
    with pytest.raises(ParseError):
        _yaml.load("a: 1\n---\nb: 2\n")


def test_scalars_and_merge_keys():
    data = _yaml.load("base: &b {x: 1}\nd:\n  <<: *b\n  y: 2\nt: 2020-01-01\nv: 1.10\n")
    assert data["d"] == {"x": 1, "y": 2}
    assert data["t"] == "2020-01-01" and data["v"] == 1.1


@pytest.mark.parametrize(
    "value",
    [
        "yes",
        "1",
        "1.0",
        "null",
        "~",
        "a: b",
        "- x",
        "#c",
        "x #c",
        "",
        " a",
        "@x",
        "`x`",
        "0x1f",
        "2020-01-01",
        "C:\\x",
        "it's",
        'say "hi"',
        "a\nb",
        "numpy >=1.2,<2",
        "pkg[version='>=1']",
        "*",
        "*_cp312",
        "&a",
        "!x",
        "%x",
    ],
)
def test_scalar_reads_back_as_the_same_string(value):
    assert _yaml.load(f"k: {_yaml.scalar(value)}\n") == {"k": value}


def test_control_characters_and_lone_surrogates_are_errors_with_a_line():
    from envkit.formats._yaml import load as yload

    with pytest.raises(ParseError) as exc:
        yload("a: 1\nb: x\x01y\n", filename="f.yml")
    assert (
        str(exc.value)
        == "f.yml:2: invalid YAML: character U+0001 is not allowed in a YAML file: 'b: x\\x01y'"
    )
    with pytest.raises(ParseError) as exc:
        yload("a: 1\nc: \ud800\n", filename="f.yml")
    assert str(exc.value) == "f.yml:2: invalid text: a lone surrogate U+D800 is not a character"


def test_scalar_escapes_what_yaml_cannot_hold_raw_and_reads_back():
    from envkit.formats._yaml import load as yload
    from envkit.formats._yaml import scalar

    for value in ("a\x85b", "x\u2028y", "de\x7fl", "plain", "café", "tab\there", "- x", "1.10"):
        assert yload("k: " + scalar(value) + "\n")["k"] == value
    assert scalar("x\u2028y") == '"x\\u2028y"'
    with pytest.raises(ParseError, match="lone surrogate"):
        scalar("a\ud800")


def test_a_flow_list_over_the_limit_is_refused_before_any_node_is_built(monkeypatch):
    # composing a huge flow list costs time and memory before any node limit could apply, so the
    # nodes are counted from libyaml's events first
    import tracemalloc

    monkeypatch.setattr(_yaml, "MAX_NODES", 10_000)
    monkeypatch.setattr(_yaml, "PRECOUNT_BYTES", 1024)
    text = "name: x\nfoo: [" + ",".join(["a"] * 200_000) + "]\n"
    tracemalloc.start()
    try:
        with pytest.raises(ParseError) as err:
            _yaml.load(text, filename="big.yml")
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert str(err.value) == "big.yml: YAML document has more than 10,000 values; refused"
    assert peak < 4_000_000  # composing the 200,000 nodes takes tens of MB


def test_a_document_over_the_line_limit_is_refused_by_every_reader(monkeypatch):
    from envkit.formats import _yamlcore, read_text

    monkeypatch.setattr(_yamlcore, "MAX_NODES", 1000)  # the line limit every reader checks first
    text = "name: x\ndependencies:\n" + "".join(f"  - p{i}\n" for i in range(1000))
    for fmt in ("env", "conda-lock", "pixi"):  # the fast block reader, then the full loader
        with pytest.raises(ParseError) as err:
            read_text(text, filename="environment.yml", format=fmt)
        assert str(err.value) == "environment.yml: YAML document has more than 1,000 lines; refused"
    with pytest.raises(ParseError, match="more than 1,000 lines"):
        _yaml.load(text)
    assert read_text(text[: text.index("  - p997")], format="env").conda[-1].name == "p996"


def test_malformed_big_yaml_gets_the_loaders_error_not_the_count(monkeypatch):
    monkeypatch.setattr(_yaml, "PRECOUNT_BYTES", 16)
    with pytest.raises(ParseError) as err:
        _yaml.load("name: x\nfoo: [a, b\nbar: 1\n", filename="e.yml")
    assert str(err.value).startswith("e.yml:3: invalid YAML: ")
