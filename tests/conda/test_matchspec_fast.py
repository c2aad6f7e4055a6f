"""The plain match-spec forms envkit parses without py-rattler give exactly what rattler's parse gives."""

import re

import pytest
from conftest import corpus_files

from envkit.conda import matchspec
from envkit.conda.matchspec import parse_spec
from envkit.errors import InvalidSpecError, Where

PLAIN = [
    "numpy",
    "Numpy",
    "python=3.11",
    "python=3",
    "numpy==1.26.4",
    "numpy=1.26.4",
    "numpy>=1.26",
    "numpy>=1.26,<2",
    "numpy<2",
    "numpy>1.0",
    "numpy<=2.0",
    "ruamel.yaml",
    "_libgcc_mutex",
    "__cuda",
    "python=3.000",
    "x=2.038",
    "numpy>=01.2",
    "a-b_c",
    "7zip",
    "pytorch>=2.1,<2.3",
    "r-base=4.3",
    "conda-forge::numpy",
    "conda-forge::numpy==1.26.4",
    "pytorch::pytorch=2.1",
    "nvidia::cuda-toolkit>=12.1,<12.5",
    "defaults::python=3.11",
    "conda-forge::hostile-package-0000007==1.2.7",
]


def _rattler_parse(text, monkeypatch):
    monkeypatch.setattr(matchspec, "_parse_plain", lambda *a: None)
    return parse_spec(text)


def _as_tuple(d):
    return (d.name, d.version, d.build, d.channel, d.subdir, d.extra, d.raw)


def _corpus_specs() -> list[str]:
    out = set()
    for f in corpus_files():
        if not f.name.endswith((".yml", ".yaml")) or "lock" in f.name:
            continue
        for line in f.read_text(encoding="utf-8", errors="replace").splitlines():
            m = re.match(r"\s*-\s+([A-Za-z0-9_](?:[^\s:#'\"]|::)*)\s*$", line)
            if m:
                out.add(m.group(1))
    return sorted(out)


@pytest.mark.parametrize("text", PLAIN)
def test_plain_specs_parse_as_rattler_parses_them(text, monkeypatch):
    fast = parse_spec(text)
    assert matchspec._parse_plain(text, text, None) is not None  # the fast path took it
    assert _as_tuple(fast) == _as_tuple(_rattler_parse(text, monkeypatch))


def test_every_plain_corpus_spec_parses_as_rattler_parses_it(monkeypatch):
    specs = [s for s in _corpus_specs() if matchspec._parse_plain(s, s, None) is not None]
    assert len(specs) > 100
    fast = [_as_tuple(parse_spec(s)) for s in specs]
    slow = [_as_tuple(_rattler_parse(s, monkeypatch)) for s in specs]
    assert fast == slow


@pytest.mark.parametrize(
    "text",
    [
        "numpy=1.26.*",
        "numpy !=1.0",
        "numpy 1.2.*",
        "conda-forge/linux-64::numpy",
        "numpy=1.26=py311_0",
        "numpy[version='>=1']",
        "numpy>=1.0a0",
        "foo-",
    ],
)
def test_other_forms_go_to_rattler(text):
    assert matchspec._parse_plain(text.strip(), text, None) is None


@pytest.mark.parametrize("text", ["numpy>=>=1", "numpy==", "numpy=1..2", "numpy>=1,,<2", ">=1.0"])
def test_an_invalid_spec_is_still_an_error_naming_it(text):
    with pytest.raises(InvalidSpecError, match=re.escape(text)):
        parse_spec(text)


def _parse_each(texts, lines):
    """What parse_spec gives for each text that parses (None for one that does not)."""
    out = []
    for t, ln in zip(texts, lines, strict=True):
        try:
            out.append(parse_spec(t, where=Where(file="env.yml", line=ln)))
        except (InvalidSpecError, AttributeError, TypeError):
            out.append(None)
    return out


OTHER = [
    "numpy=1.26.*",
    "numpy !=1.0",
    " numpy",
    "numpy ",
    "numpy=1.26=py311_0",
    "numpy[version='>=1']",
    "foo-",
    "",
    "numpy>=>=1",
    "x" * 300 + "==1",  # as long as MAX_CONSTRAINTS: parse_spec checks its size first
    "a" * 5000,
]


def test_a_list_of_specs_read_at_once_gives_what_parse_spec_gives_for_each():
    texts = PLAIN + OTHER + _corpus_specs()
    lines = list(range(10, 10 + len(texts)))
    batch = matchspec.parse_plain_specs(texts, lines)
    each = _parse_each(texts, lines)
    assert len(batch) == len(texts)
    for text, got, want in zip(texts, batch, each, strict=True):
        if got is None:  # left to parse_spec: never a plain spec the batch could have taken
            assert (
                text.strip() != text or matchspec._parse_plain(text, text, None) is None or len(text) >= 256
            )
            continue
        assert (_as_tuple(got), got.line) == (_as_tuple(want), want.line)
    assert [d.spec() for d in batch[:3]] == ["numpy", "numpy", "python=3.11"]
    assert batch[len(PLAIN) :][: len(OTHER)] == [None] * len(OTHER)


def test_a_list_read_at_once_tells_a_text_with_a_line_break_from_two_specs():
    assert matchspec.parse_plain_specs(["numpy\nscipy", "pandas"], [1, 2]) == [None, None]
    got = matchspec.parse_plain_specs(["numpy", {"pip": ["x"]}, 3, "pandas==2"], [1, 2, 3, 4])
    assert [d and (d.name, d.version, d.line) for d in got] == [
        ("numpy", None, 1),
        None,
        None,
        ("pandas", "==2", 4),
    ]
    assert matchspec.parse_plain_specs([], []) == []
