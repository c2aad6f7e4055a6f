"""pixi.lock's two layout readers give what the YAML readers give: the environments' reference
lists read out of the YAML read (envkit.formats.pixilock._head) and the `packages:` entries in
pixi's key order read one regex each (envkit.formats.pixilayout).  On the corpus, on pixi's own
layout and on generated variants of both, the Locks (values, lines) and errors are the same with the
layout readers, with the block-list loader alone, and with the whole document through the YAML
reader."""

from __future__ import annotations

import re

import pytest
from conftest import corpus_files, known_wrong
from hypothesis import given, settings
from hypothesis import strategies as st
from support.yamlcompare import same
from test_formats_blocklist import PIXI_STEPS_ASIDE, _outcome, _pixi_outcome
from test_formats_fastyaml import _line, _val, plain

from envkit.formats import _blocklist, pixilayout, pixilock

#: the files whose entries are all in the block-list layout (the others are read as YAML)
_CORPUS = known_wrong(corpus_files("pixilock"), PIXI_STEPS_ASIDE)


def _no_layout_readers(text: str):
    """Every environment of `text` read with the block-list loader alone (the document before the
    list by the fast YAML reader, each entry by load_entries), as envkit read pixi.lock before."""
    saved = _blocklist.load_document

    def plain_load(text, section, filename, kept=None, read_list=None, read_head=None):
        return saved(text, section, filename, pixilock.KEPT)

    _blocklist.load_document = plain_load
    try:
        return _outcome(pixilock.read_pixi_environments, text, "pixi.lock")
    finally:
        _blocklist.load_document = saved


def _all_three(text: str) -> str:
    got = _pixi_outcome(text, tree=False)
    assert got == _no_layout_readers(text)
    assert got == _pixi_outcome(text, tree=True)
    return got


@pytest.mark.parametrize("path", _CORPUS, ids=lambda p: p.name[:12])
def test_the_layout_readers_give_what_the_block_list_loader_gives(path):
    text = path.read_text(encoding="utf-8")
    start = text.index("\npackages:\n- ") + len("\npackages:\n")
    got, end = pixilayout.reader(pixilock.KEPT)(text, start)
    want, want_end = _blocklist.load_entries(text, start, pixilock.KEPT)
    assert end == want_end
    assert (got.line, got.lines) == (want.line, want.lines)
    for a, b in zip(got, want, strict=True):
        assert same(a, b) is None  # values, types and lines of each entry
    _all_three(text)


def test_the_largest_corpus_lock_is_read_by_the_layout_readers():
    # (what the bench measures: nearly all of it in the layouts, so the fast paths are the ones run)
    path = next(p for p in _CORPUS if p.name.startswith("59_"))
    text = path.read_text(encoding="utf-8")
    refs: dict = {}
    head = pixilock._head(text[: text.index("\npackages:\n- ") + 1], refs)
    assert (len(refs), sum(map(len, refs.values()))) == (14, 1083)
    assert head["environments"]["default"]["packages"] == {"linux-64": None, "osx-64": None}
    start = text.index("\npackages:\n- ") + len("\npackages:\n")
    entries = [m.start() for m in re.finditer(r"^- ", text[start:], re.MULTILINE)]
    assert len(entries) == 236  # all but 4 pypi entries and 3 with `license: 0BSD` match:
    assert sum(pixilayout._ENTRY.match(text, start + at) is not None for at in entries) == 229
    envs = pixilock.read_pixi_environments(text, str(path))
    assert {k: len(v.packages) for k, v in envs.items()} == {
        "default": 103,
        "dev": 270,
        "docs": 185,
        "test": 131,
        "test-py312": 132,
        "test-py313": 131,
        "test-py314": 131,
    }
    first = envs["default"].packages[0]
    assert (first.name, first.version, first.build, first.build_number, first.line) == (
        "_openmp_mutex",
        "4.5",
        "20_gnu",
        20,
        13,
    )


_ENVS = [
    "version: 6",
    "environments:",
    "  default:",
    "    channels:",
    "    - url: https://conda.anaconda.org/conda-forge/",
    "    indexes:",
    "    - https://pypi.org/simple",
    "    packages:",
    "      linux-64:",
    "      - conda: https://conda.anaconda.org/conda-forge/linux-64/zlib-1.3.1-h0_2.conda",
    "      - pypi: https://files.example/pkgs/attrs-25.1.0-py3-none-any.whl",
    "      osx-64:",
    "      - conda: https://conda.anaconda.org/conda-forge/noarch/tzdata-2025b-h0_0.conda",
    "      - pypi: .",
    "  lint:",
    "    channels:",
    "    - url: https://conda.anaconda.org/conda-forge/",
    "    packages:",
    "      linux-64:",
    "      - conda: https://conda.anaconda.org/conda-forge/noarch/tzdata-2025b-h0_0.conda",
    "      - conda: https://conda.anaconda.org/conda-forge/linux-64/zlib-1.3.1-h0_2.conda",
]
_PACKAGES = [
    "packages:",
    "- conda: https://conda.anaconda.org/conda-forge/linux-64/zlib-1.3.1-h0_2.conda",
    "  build_number: 2",
    "  sha256: 1dd3fffd892081df9726d7eb7e0dea6198962ba775bd88842135a4ddb4deb3c9",
    "  md5: a9f577daf3de00bca7c3c76c0ecbd1de",
    "  depends:",
    "  - __glibc >=2.17,<3.0.a0",
    "  - libgcc >=14",
    "  constrains:",
    "  - openmp_impl <0.0a0",
    "  license: Zlib",
    "  license_family: Other",
    "  purls: []",
    "  size: 28948",
    "  timestamp: 1770939786096",
    "- conda: https://conda.anaconda.org/conda-forge/noarch/tzdata-2025b-h0_0.conda",
    "  noarch: generic",
    "  sha256: 0b75d45f0bba3e95dc693336fa51f40ea28c980131fec438afb7ce6118ed05f6",
    "  md5: d2ffd7602c02f2b316fd921d39876885",
    "  license: LicenseRef-Public-Domain",
    "  purls:",
    "  - pkg:pypi/tzdata?source=hash-mapping",
    "  size: 122968",
    "  timestamp: 1742727099393",
    "  python_site_packages_path: lib/python3.13/site-packages",
    "- pypi: https://files.example/pkgs/attrs-25.1.0-py3-none-any.whl",
    "  name: attrs",
    "  version: 25.1.0",
    "  sha256: c75a69e28a550a7e93789579c22aa26b0f5b83b75dc4e08fe092980051e1090a",
    "- pypi: .",
    "  name: mine",
    "  requires_dist:",
    "  - attrs",
]


def test_pixis_layout_reads_every_reference_with_its_line():
    text = "\n".join(_ENVS + _PACKAGES) + "\n"
    refs: dict = {}
    pixilock._head("\n".join(_ENVS) + "\n", refs)
    assert sorted(refs) == [9, 12, 19]  # each platform's key line; every list was read out
    got = _all_three(text)
    envs = pixilock.read_pixi_environments(text, "pixi.lock")
    assert [(p.manager, p.name, p.version, p.platform, p.line) for p in envs["default"].packages] == [
        ("conda", "zlib", "1.3.1", "linux-64", 10),
        ("pip", "attrs", "25.1.0", "linux-64", 11),
        ("conda", "tzdata", "2025b", "osx-64", 13),
        ("pip", "mine", "", "osx-64", 14),
    ]
    assert [(p.name, p.line, p.build_number, p.md5) for p in envs["lint"].packages] == [
        ("tzdata", 20, 0, "d2ffd7602c02f2b316fd921d39876885"),
        ("zlib", 21, 2, "a9f577daf3de00bca7c3c76c0ecbd1de"),
    ]
    assert envs["default"].packages[0].depends == (("__glibc", ">=2.17,<3.0.a0"), ("libgcc", ">=14"))
    assert envs["default"].packages[3].editable is True
    assert "Zlib" not in got  # not kept


_REF_LINE = st.sampled_from(
    [
        "",
        "# c",
        "      # c",
        "        editable: true",
        "          continued",
        "     odd: 1",
        "      - conda: 'https://conda.anaconda.org/conda-forge/linux-64/zlib-1.3.1-h0_2.conda'",
        "      - pypi: ./here # c",
        "      - pypi: null",
        "      - pypi: 1.5",
        "      - pypi: [x]",
        "      - conda_source: x[1] @ .",
        "      - conda: https://conda.anaconda.org/conda-forge/linux-64/zlib-1.3.1-h0_2.conda:",
        "      linux-64:",
        "      true:",
        "      win-64: []",
        "    options:",
        "      linux-64:",
        "    packages:",
        "  other:",
    ]
)


@st.composite
def _odd_environments(draw):
    """pixi's layout with lines of the environments changed, added or removed."""
    lines = list(_ENVS)
    for _ in range(draw(st.integers(1, 3))):
        i = draw(st.integers(1, len(lines) - 1))
        how = draw(st.sampled_from([0, 0, 1, 2, 3]))
        if how == 0:
            lines.insert(i, draw(_REF_LINE))
        elif how == 1:
            lines[i] = draw(_line)
        elif how == 2:
            del lines[i]
        else:
            head, sep, _value = lines[i].partition(": ")
            lines[i] = head + sep + draw(st.one_of(_val, plain)) if sep else lines[i] + " "
    return "\n".join(lines + _PACKAGES) + "\n"


@settings(max_examples=300, deadline=None)
@given(_odd_environments())
def test_odd_environments_read_the_same_whatever_reads_them(text):
    _all_three(text)


_ENTRY_LINE = st.sampled_from(
    [
        "  noarch: python",
        "  build_number: 07",
        "  build_number: -1",
        "  sha256: 1111111111111111111111111111111111111111111111111111111111111111",
        "  md5: 0b10101010101010101010101010101010",
        "  license: 0BSD",
        "  license: yes",
        "  license_family: 'MIT'",
        "  purls: []",
        "  size: 1.5",
        "  depends: []",
        "  depends:",
        "  - 7zip",
        "  - python: 3",
        "  - yes",
        "  - x # c",
        "    - deeper",
        "  run_exports:",
        "    weak:",
        "  subdir: linux-64",
        "  timestamp: 1",
        "  timestamp: 2",
        "",
    ]
)


@st.composite
def _odd_entries(draw):
    """The conda entries of pixi's layout with lines changed, added or removed."""
    entries = list(_PACKAGES)
    for _ in range(draw(st.integers(1, 3))):
        i = draw(st.integers(2, 24))
        how = draw(st.sampled_from([0, 0, 1, 2]))
        if how == 0:
            entries.insert(i, draw(_ENTRY_LINE))
        elif how == 1:
            head, sep, _value = entries[i].partition(": ")
            entries[i] = head + sep + draw(st.one_of(_val, plain)) if sep else entries[i]
        else:
            del entries[i]
    return "\n".join(_ENVS + entries) + "\n"


@settings(max_examples=300, deadline=None)
@given(_odd_entries())
def test_odd_entries_read_the_same_whatever_reads_them(text):
    _all_three(text)
