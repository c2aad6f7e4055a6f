"""envkit's writer decides plain-vs-quoted without PyYAML; the decision equals PyYAML's resolver."""

import re

import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from envkit.formats._yamlcore import _NOT_STR, _resolves_to_str, implicit, scalar, scalars

SAMPLES = [
    "yes",
    "No",
    "on",
    "OFF",
    "true",
    "~",
    "null",
    "Null",
    "<<",
    "=",
    "1.0",
    "1e5",
    "1.5e+3",
    ".5",
    "-.inf",
    ".NaN",
    "0b101",
    "0o17",
    "017",
    "0x1f",
    "1_000",
    "190:20:30",
    "1:20",
    "2020-01-01",
    "2020-1-1 10:00",
    "numpy",
    "openssl",
    "3.11",
    "3.11.*",
    "1.26.4",
    "py311h1234_0",
    "nodefaults",
    "n",
    "y",
    "o",
    "+1",
    "-",
    "0",
    "00",
    "09",
    "1.2.3",
    "12:30:00",
    "1e",
    "0.1.0a1",
    "2.0a0",
    "tk",
    "ffmpeg",
    "True1",
    "yes!",
]


def _pyyaml_says_str(value):
    tag = yaml.resolver.Resolver().resolve(yaml.ScalarNode, value, (True, False))
    return tag == "tag:yaml.org,2002:str"


def test_samples_resolve_as_pyyaml_resolves_them():
    assert [_resolves_to_str(v) for v in SAMPLES] == [_pyyaml_says_str(v) for v in SAMPLES]


@settings(max_examples=400, deadline=None)
@given(st.text(alphabet="0123456789.:-+_eExXoObBaAnNfFtTyYlLuUsS~<=", min_size=1, max_size=12))
def test_generated_scalars_resolve_as_pyyaml_resolves_them(value):
    assert _resolves_to_str(value) == _pyyaml_says_str(value)


MORE = [
    "conda-forge::numpy==1.26.4",
    "python>=3.8,<3.12",
    "a b",
    "",
    "x:",
    "a:b",
    "_",
    "__cuda",
    "é",
    "a\nb",
    "-x",
]


def test_a_list_of_values_is_written_as_each_value_is():
    values = SAMPLES + MORE
    assert scalars(values) == [scalar(v) for v in values]
    assert scalars(["numpy", "yes", "a b", "x:"]) == ["numpy", '"yes"', "a b", '"x:"']


@settings(max_examples=300, deadline=None)
@given(st.lists(st.text(alphabet="abyYnNoO01_.:=<>!~*,-# '\"[]{}\t\né", max_size=8), max_size=12))
def test_generated_lists_are_written_as_each_value_is(values):
    assert scalars(values) == [scalar(v) for v in values]


@settings(max_examples=400, deadline=None)
@given(st.text(alphabet="0123456789.:-+_eExXoObBaAnNfFtTyYlLuUsS~<= ", min_size=1, max_size=8))
def test_implicit_is_the_implicit_types_pattern(value):
    assert implicit(value) == (re.fullmatch(_NOT_STR, value) is not None)


def test_implicit_samples():
    values = SAMPLES + ["-e git+https://x", "--pre", "-", "+", "-.inf", "+1", "yes", "Yes", "nulls"]
    assert [implicit(v) for v in values] == [re.fullmatch(_NOT_STR, v) is not None for v in values]
    assert [implicit(v) for v in ("-e", "-1", "no", "numpy")] == [False, True, True, False]
