"""The plain match-spec forms envkit parses without py-rattler give exactly what rattler's parse gives."""

import re

import pytest
from conftest import corpus_files

from envkit.conda import matchspec
from envkit.conda.matchspec import parse_spec
from envkit.errors import InvalidSpecError

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
