"""A lock's package list loaded as a block list (envkit.formats._blocklist) gives exactly what the
YAML readers give for it, so each lock format has one reader whatever loaded its document: the
corpus, envkit's rewrites, generated locks and generated variants of one entry read the same (Lock,
lines and errors) with the block-list loader and with it refused."""

from __future__ import annotations

import pytest
from conftest import corpus_files, known_wrong
from hypothesis import given, settings
from hypothesis import strategies as st
from support.lockgen import make_conda_lock
from support.yamlcompare import same
from test_formats_fastyaml import _envkit_written, _line, _val, plain

from envkit.errors import EnvkitError, ParseError
from envkit.formats import _blocklist, _yaml, condalock, pixilock
from envkit.formats._fastyaml import Unsupported

#: conda-lock.yml files the block-list loader steps aside from (the YAML reader loads them)
STEPS_ASIDE = {
    "74": "`sha256: null` on the umccr channel's package (md5 only)",
    "76": "`sha256: null` on the umccr channel's package (md5 only)",
}
#: pixi.lock files the block-list loader steps aside from, or that envkit refuses (issue 28)
PIXI_STEPS_ASIDE = {
    "60": "pixi.lock v1 has `package:`, not `packages:` (the YAML reader loads it)",
    "61": "pixi.lock v1 has `package:`, not `packages:` (the YAML reader loads it)",
    "62": "pixi.lock v1 has `package:`, not `packages:` (the YAML reader loads it)",
    "63": "issue 28: `conda_source:` entries",
    "64": "issue 28: `conda_source:` entries",
    "65": "issue 28: a source entry with `package_build_source`",
}


def _number(path) -> str:
    return path.name.split("_", 1)[0]


def _refused(*_a, **_k):
    raise Unsupported


def _yaml_only(fn, *args):
    """fn(*args) with the block-list loader (and so conda-lock's layout reader, a list reader
    inside it) refused: the whole document through the YAML reader."""
    saved = _blocklist.load_document
    _blocklist.load_document = _refused
    try:
        return fn(*args)
    finally:
        _blocklist.load_document = saved


def _outcome(read, text: str, name: str, yaml_only: bool = False) -> str:
    """repr of what `read(text, name)` gives (values, types, lines), or the error's type and text."""
    try:
        return repr(_yaml_only(read, text, name) if yaml_only else read(text, name))
    except EnvkitError as exc:
        return f"{type(exc).__name__}: {exc}"


def _same_both_ways(read, text: str, name: str) -> str:
    fast = _outcome(read, text, name)
    assert fast == _outcome(read, text, name, yaml_only=True)
    return fast


def _lock_texts(tmp_path):
    big = make_conda_lock(tmp_path / "lock.yml", n=200)
    locks = [p for p in corpus_files("condalock") if _number(p) not in STEPS_ASIDE]
    out = [(p.name, p.read_text(encoding="utf-8")) for p in locks]
    out += [("generated", big.read_text()), ("generated, envkit's writer", _envkit_written(big))]
    out += [(f"{p.name}, envkit's writer", _envkit_written(p)) for p in corpus_files("condalock")]
    return out


@pytest.mark.parametrize(
    "path", [p for p in corpus_files("condalock") if _number(p) in STEPS_ASIDE], ids=_number
)
def test_block_list_loader_still_steps_aside_from(path):
    # the YAML reader loads these; once the block-list loader takes one, drop it from STEPS_ASIDE
    with pytest.raises(Unsupported):
        _blocklist.load_document(path.read_text(encoding="utf-8"), "package", "conda-lock.yml")


@pytest.mark.parametrize("path", corpus_files("condalock"), ids=_number)
def test_block_list_loader_gives_what_the_yaml_reader_gives(path):
    text = path.read_text(encoding="utf-8")
    if _number(path) not in STEPS_ASIDE:
        assert same(_blocklist.load_document(text, "package", path.name), _yaml.load(text)) is None
    assert _same_both_ways(condalock.read_conda_lock, text, "conda-lock.yml").startswith("Lock(")


def test_conda_lock_reads_the_same_whatever_loads_it(tmp_path):
    for name, text in _lock_texts(tmp_path):
        _blocklist.load_document(text, "package", None)  # no Unsupported: every one is in the layout
        fast = condalock.read_conda_lock(text, "conda-lock.yml")
        assert repr(fast) == repr(_yaml_only(condalock.read_conda_lock, text, "conda-lock.yml")), name
        first = text.index("\n- ") + 1
        assert fast.packages and fast.packages[0].line == text[:first].count("\n") + 1


def test_sorted_keys_and_a_version_after_the_list_take_the_block_list_loader(monkeypatch):
    # older conda-lock sorts every mapping's keys: `version: 1` comes after `package:`
    path = next(p for p in corpus_files("condalock") if _number(p) == "72")
    text = path.read_text(encoding="utf-8")
    assert text.rstrip().endswith("version: 1") and "- category: main\n" in text
    monkeypatch.setattr(_yaml, "load", lambda *a, **k: pytest.fail("read through libyaml"))
    data = _blocklist.load_document(text, "package", path.name)
    assert list(data) == ["metadata", "package", "version"] and data.lines["version"] == text.count("\n")
    lock = condalock.read_conda_lock(text, str(path))
    assert (lock.packages[0].name, lock.packages[0].build, lock.packages[0].line) == (
        "_libgcc_mutex",
        "conda_forge",
        32,
    )


def test_conda_locks_layout_reader_takes_what_conda_lock_writes(tmp_path, monkeypatch):
    # the text read straight into records, never through YAML values
    texts = _lock_texts(tmp_path)
    monkeypatch.setattr(_blocklist, "load_entries", lambda *a: pytest.fail("read through YAML values"))
    monkeypatch.setattr(_yaml, "load", lambda *a, **k: pytest.fail("read through libyaml"))
    for name, text in texts:  # 72: older conda-lock's sorted keys, `version: 1` after the list
        lock = condalock.read_conda_lock(text, "conda-lock.yml")
        assert lock.packages[0].line == text[: text.index("\npackage:\n")].count("\n") + 3, name


def test_read_conda_lock_takes_the_block_list_loader(monkeypatch):
    path = CORPUS_LOCK
    monkeypatch.setattr(_yaml, "load", lambda *a, **k: pytest.fail("read through libyaml"))
    lock = condalock.read_conda_lock(path.read_text(encoding="utf-8"), str(path))
    assert len(lock.packages) == 328 and lock.packages[0].line == 29
    assert (lock.packages[0].name, lock.packages[0].version, lock.packages[0].build) == (
        "_libgcc_mutex",
        "0.1",
        "conda_forge",
    )


CORPUS_LOCK = next(p for p in corpus_files("condalock") if p.name.startswith("53_"))

_GOOD_ENTRY = [
    "- name: numpy",
    "  version: 1.26.4",
    "  manager: conda",
    "  platform: linux-64",
    "  dependencies:",
    "    libblas: '>=3.9.0,<4.0a0'",
    "    python: '>=3.11,<3.12.0a0'",
    "  url: https://conda.anaconda.org/conda-forge/linux-64/numpy-1.26.4-py311h64a7726_0.conda",
    "  hash:",
    "    md5: a502d7aad449a1206efb366d6a12c52d",
    "    sha256: 3f4365e11b28e244c95ba8579942b0802761ba7bb31c026f50d1a9ea9c728149",
    "  category: main",
    "  optional: false",
]
_HEAD = [
    "# generated",
    "version: 1",
    "metadata:",
    "  content_hash:",
    "    linux-64: abc",
    "  channels:",
    "  - url: conda-forge",
    "    used_env_vars: []",
    "  platforms:",
    "  - linux-64",
    "  sources:",
    "  - environment.yml",
    "package:",
]


def _compare_readers(text: str) -> None:
    """The Lock, or the error, is the same with the block-list loader and without it."""
    _same_both_ways(condalock.read_conda_lock, text, "conda-lock.yml")


@pytest.mark.parametrize(
    "change",
    [
        ("  version: 1.26.4", "  version: 1.10"),
        ("  version: 1.26.4", "  version: '1.10'"),
        ("  version: 1.26.4", '  version: "1.2\\u00e9"'),
        ("  version: 1.26.4", "  version: 1.26.4 # c"),
        ("  version: 1.26.4", "  version: 1.26.4  "),
        ("  version: 1.26.4", "  version: 2"),
        ("    python: '>=3.11,<3.12.0a0'", "    python:"),
        ("    python: '>=3.11,<3.12.0a0'", "    yes: '1'"),
        ("    python: '>=3.11,<3.12.0a0'", "    libblas: '1'"),
        ("    python: '>=3.11,<3.12.0a0'", "    python: 3"),
        ("    python: '>=3.11,<3.12.0a0'", "    python: {}"),
        ("    python: '>=3.11,<3.12.0a0'", "     python: x"),
        ("    python: '>=3.11,<3.12.0a0'", "    # python"),
        ("  manager: conda", "  manager: 'conda'"),
        ("  manager: conda", "  manager: npm"),
        ("  optional: false", "  optional: False"),
        ("  optional: false", "  optional: true"),
        ("  category: main", "  category: dev"),
        ("  category: main", "  category: 'main'"),
        ("  category: main", "  category: null"),
        ("    md5: a502d7aad449a1206efb366d6a12c52d", "    md5: 12345678901234567890123456789012"),
        ("    md5: a502d7aad449a1206efb366d6a12c52d", "    md5: 0b1010"),
        ("    md5: a502d7aad449a1206efb366d6a12c52d", "    sha1: abc"),
        (
            "  url: https://conda.anaconda.org/conda-forge/linux-64/numpy-1.26.4-py311h64a7726_0.conda",
            "  url: ''",
        ),
        (
            "  url: https://conda.anaconda.org/conda-forge/linux-64/numpy-1.26.4-py311h64a7726_0.conda",
            "  url: https://u:p@host/t/tok/conda-forge/linux-64/numpy-1.26.4-py311h64a7726_0.conda",
        ),
        (
            "  url: https://conda.anaconda.org/conda-forge/linux-64/numpy-1.26.4-py311h64a7726_0.conda",
            "  url: https://conda.anaconda.org/conda-forge/linux-64/numpy-1.26.4-0.conda?token=x&y=1",
        ),
        ("- name: numpy", "- name: yes"),
        ("- name: numpy", "- name: 'numpy'"),
        ("- name: numpy", "- name: ~"),
        ("  platform: linux-64", "  platform: linux-64\n  extra: 1"),
        ("  platform: linux-64", ""),
        ("  category: main", "  category: main\n"),
        ("  category: main", "  category: main\n# comment"),
        ("  hash:", "  hash: {}"),
        ("  dependencies:", "  dependencies: {}"),
    ],
)
def test_conda_lock_reads_changed_entries_the_same_whatever_loads_them(change):
    old, new = change
    entry = "\n".join(_GOOD_ENTRY)
    assert old in entry
    second = entry.replace("numpy", "scipy")
    text = "\n".join(_HEAD) + "\n" + entry.replace(old, new, 1) + "\n" + second + "\n"
    _compare_readers(text)
    _compare_readers(text.replace("\n- name: scipy", "\n- name: numpy"))  # a package listed twice
    # the changed entry after one in conda-lock's layout: a record, then YAML values
    late = "\n".join(_HEAD) + "\n" + second + "\n" + entry.replace(old, new, 1) + "\n"
    _compare_readers(late)


def test_conda_lock_reads_entries_in_its_layout_as_records_and_the_rest_as_values(monkeypatch):
    # another key order in the third entry (older conda-lock sorts the keys): the first two read
    # straight into records, the list from the third on loaded as YAML values; one Lock either way
    entry = "\n".join(_GOOD_ENTRY)
    odd = "\n".join(["- version: 1.26.4", "  name: pandas"] + _GOOD_ENTRY[2:]).replace("numpy", "pandas")
    text = "\n".join(_HEAD) + "\n" + entry + "\n" + entry.replace("numpy", "scipy") + "\n" + odd + "\n"
    loaded_from = []
    load_entries = _blocklist.load_entries

    def spy(text, pos, kept=None):
        loaded_from.append(text.count("\n", 0, pos) + 1)
        return load_entries(text, pos, kept)

    monkeypatch.setattr(_blocklist, "load_entries", spy)
    lock = condalock.read_conda_lock(text, "conda-lock.yml")
    first = len(_HEAD) + 1
    assert loaded_from == [first + 2 * len(_GOOD_ENTRY)]
    assert [(p.name, p.build, p.line) for p in lock.packages] == [
        ("numpy", "py311h64a7726_0", first),
        ("scipy", "py311h64a7726_0", first + len(_GOOD_ENTRY)),
        ("pandas", "py311h64a7726_0", first + 2 * len(_GOOD_ENTRY)),
    ]
    monkeypatch.setattr(_blocklist, "load_entries", load_entries)
    assert repr(lock) == repr(_yaml_only(condalock.read_conda_lock, text, "conda-lock.yml"))


def test_block_list_loader_takes_empty_mappings_and_pip_hashes():
    entry = "\n".join(_GOOD_ENTRY)
    deps = "  dependencies:\n    libblas: '>=3.9.0,<4.0a0'\n    python: '>=3.11,<3.12.0a0'\n"
    hashes = "  hash:\n    md5: a502d7aad449a1206efb366d6a12c52d\n"
    assert deps in entry + "\n" and hashes in entry
    empty = entry.replace(deps, "  dependencies: {}\n").replace(
        hashes + "    sha256: 3f4365e11b28e244c95ba8579942b0802761ba7bb31c026f50d1a9ea9c728149\n",
        "  hash: {}\n",
    )
    pip_only = entry.replace(hashes, "  hash:\n").replace("manager: conda", "manager: pip")
    md5_only = entry.replace(
        "    sha256: 3f4365e11b28e244c95ba8579942b0802761ba7bb31c026f50d1a9ea9c728149\n", ""
    ).replace("- name: numpy", "- name: scipy")  # not the same package twice
    text = "\n".join(_HEAD + [empty, pip_only, md5_only]) + "\n"
    _blocklist.load_document(text, "package", None)  # no Unsupported
    lock = condalock.read_conda_lock(text, None)
    assert [(p.depends, p.md5, p.sha256) for p in lock.packages] == [
        ((), None, None),
        (
            (("libblas", ">=3.9.0,<4.0a0"), ("python", ">=3.11,<3.12.0a0")),
            None,
            "3f4365e11b28e244c95ba8579942b0802761ba7bb31c026f50d1a9ea9c728149",
        ),
        (
            (("libblas", ">=3.9.0,<4.0a0"), ("python", ">=3.11,<3.12.0a0")),
            "a502d7aad449a1206efb366d6a12c52d",
            None,
        ),
    ]
    assert [p.line for p in lock.packages] == [14, 23, 35]
    assert repr(lock) == repr(_yaml_only(condalock.read_conda_lock, text, None))


def test_block_list_loader_takes_quoted_and_odd_text():
    entry = (
        "\n".join(_GOOD_ENTRY)
        .replace("  version: 1.26.4", "  version: '1.10'")
        .replace("  category: main", '  category: "main"')
        .replace("    libblas: '>=3.9.0,<4.0a0'", "    libblas: '*'")
    )
    text = "\n".join(_HEAD) + "\n" + entry + "\n\n  \n"
    _blocklist.load_document(text, "package", None)  # no Unsupported
    lock = condalock.read_conda_lock(text, None)
    assert (lock.packages[0].version, lock.packages[0].category, lock.packages[0].depends[0]) == (
        "1.10",
        "main",
        ("libblas", "*"),
    )
    assert repr(lock) == repr(_yaml_only(condalock.read_conda_lock, text, None))


@pytest.mark.parametrize(
    "text",
    [
        # unsupported version (2 and 3 of this shape are old pixi.lock files, read by pixilock)
        "version: 4\nmetadata: {}\npackage:\n" + "\n".join(_GOOD_ENTRY) + "\n",
        "version: 1\npackage:\n" + "\n".join(_GOOD_ENTRY) + "\n",  # no metadata
        "\n".join(_HEAD) + "\n" + "\n".join(_GOOD_ENTRY) + "\nversion: 1\n",  # a duplicate key after the list
        "\n".join(_HEAD).replace("  - linux-64", "  - [linux-64]") + "\n" + "\n".join(_GOOD_ENTRY) + "\n",
        "\n".join(_HEAD) + "\n" + "\n".join(_GOOD_ENTRY).replace("    python:", "    libblas:") + "\n",
    ],
)
def test_conda_lock_errors_are_the_same_whatever_loads_the_document(text):
    with pytest.raises(ParseError):
        condalock.read_conda_lock(text, "conda-lock.yml")
    assert _same_both_ways(condalock.read_conda_lock, text, "conda-lock.yml").startswith(
        ("ParseError", "UnsupportedVersionError")
    )


_entry_field = st.one_of(
    _val,
    st.sampled_from(["numpy", "1.26.4", "'0.1'", "linux-64", "main", "x", "yes", "1.10", "{}", "''"]),
    plain,
    plain.map(lambda s: f"'{s}'"),
    plain.map(lambda s: f'"{s}"'),
)


@st.composite
def _odd_lock(draw):
    lines = list(_HEAD)
    for _ in range(draw(st.integers(1, 3))):
        entry = list(_GOOD_ENTRY)
        for _ in range(draw(st.integers(0, 2))):
            i = draw(st.integers(0, len(entry) - 1))
            head, sep, _value = entry[i].partition(": ")
            how = draw(st.sampled_from([0, 0, 0, 0, 1, 2, 3, 4, 5]))
            if how == 0 and sep:
                entry[i] = head + sep + draw(_entry_field)  # another value
            elif how == 1:
                entry[i] = draw(_line)  # another line
            elif how == 2:
                entry.insert(i, draw(st.sampled_from(["", "  ", "# c", "    python: '>=3'", "  extra: x"])))
            elif how == 5:  # an empty mapping: `hash: {}`, `dependencies: {}`
                key = draw(st.sampled_from(["  dependencies:", "  hash:"]))
                if key in entry:
                    at = entry.index(key)
                    end = next(
                        (j for j in range(at + 1, len(entry)) if not entry[j].startswith("    ")), len(entry)
                    )
                    entry[at:end] = [key + " {}"]
            elif how == 3:
                del entry[i]
            else:
                entry[i] += draw(st.sampled_from([" ", " # c", "\t", ":"]))
        lines += entry
    return "\n".join(lines) + draw(st.sampled_from(["\n", "", "\n\n"]))


@settings(max_examples=300, deadline=None)
@given(_odd_lock())
def test_conda_lock_reads_the_same_whatever_loads_it_on_odd_entries(text):
    _compare_readers(text)


def _pixi_outcome(text: str, tree: bool):
    """repr of every environment's Lock, or the error text, with the block-list loader or without."""
    return _outcome(pixilock.read_pixi_environments, text, "pixi.lock", yaml_only=tree)


@pytest.mark.parametrize(
    "path", known_wrong(corpus_files("pixilock"), PIXI_STEPS_ASIDE), ids=lambda p: p.name[:12]
)
def test_pixi_block_list_loader_gives_what_the_yaml_reader_gives(path):
    text = path.read_text(encoding="utf-8")
    fast = _blocklist.load_document(text, "packages", "pixi.lock", pixilock.KEPT)  # no Unsupported
    ref = _yaml.load(text)
    fast_pkgs, ref_pkgs = fast.pop("packages"), ref.pop("packages")
    assert fast.lines.pop("packages") == ref.lines.pop("packages")
    assert same(fast, ref) is None  # the rest of the document exactly
    assert (fast_pkgs.line, fast_pkgs.lines) == (ref_pkgs.line, ref_pkgs.lines)
    for got, want in zip(fast_pkgs, ref_pkgs, strict=True):  # each entry: its KEPT keys exactly
        kept = YamlMapOf(
            {k: v for k, v in want.items() if k in pixilock.KEPT},
            want.line,
            {k: n for k, n in want.lines.items() if k in pixilock.KEPT},
        )
        assert same(got, kept) is None
    assert _pixi_outcome(text, tree=False) == _pixi_outcome(text, tree=True)


def YamlMapOf(items: dict, line: int, lines: dict):
    out = _yaml.YamlMap(items)
    out.line, out.lines = line, lines
    return out


_PIXI_HEAD = [
    "version: 6",
    "environments:",
    "  default:",
    "    channels:",
    "    - url: https://conda.anaconda.org/conda-forge/",
    "    packages:",
    "      linux-64:",
    "      - conda: https://conda.anaconda.org/conda-forge/linux-64/zlib-1.3.1-h0_2.conda",
    "      - pypi: https://files.example/pkgs/attrs-25.1.0-py3-none-any.whl",
    "packages:",
]
_PIXI_CONDA = [
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
    "  purls: []",
    "  size: 28948",
    "  timestamp: 1770939786096",
]
_PIXI_PYPI = [
    "- pypi: https://files.example/pkgs/attrs-25.1.0-py3-none-any.whl",
    "  name: attrs",
    "  version: 25.1.0",
    "  sha256: c75a69e28a550a7e93789579c22aa26b0f5b83b75dc4e08fe092980051e1090a",
    "  requires_dist:",
    "  - cloudpickle ; extra == 'tests'",
    "  requires_python: '>=3.8'",
]


def test_pixi_block_list_loader_reads_the_kept_keys_with_their_lines():
    text = "\n".join(_PIXI_HEAD + _PIXI_CONDA + _PIXI_PYPI) + "\n"
    data = _blocklist.load_document(text, "packages", None, pixilock.KEPT)
    conda, pypi = data["packages"]
    assert dict(conda) == {
        "conda": _PIXI_CONDA[0][9:],
        "build_number": 2,
        "sha256": _PIXI_CONDA[2][10:],
        "md5": "a9f577daf3de00bca7c3c76c0ecbd1de",
        "depends": ["__glibc >=2.17,<3.0.a0", "libgcc >=14"],
    }
    assert (conda.line, conda.lines, conda["depends"].lines) == (
        11,
        {"conda": 11, "build_number": 12, "sha256": 13, "md5": 14, "depends": 15},
        [16, 17],
    )
    assert (pypi.line, pypi["name"], pypi["version"], pypi["requires_dist"]) == (
        24,
        "attrs",
        "25.1.0",
        ["cloudpickle ; extra == 'tests'"],
    )
    assert _pixi_outcome(text, tree=False) == _pixi_outcome(text, tree=True)
    lock = pixilock.read_pixi_lock(text, "pixi.lock")
    assert [(p.manager, p.name, p.version, p.build, p.build_number, p.line) for p in lock.packages] == [
        ("conda", "zlib", "1.3.1", "h0_2", 2, 8),
        ("pip", "attrs", "25.1.0", None, None, 9),
    ]


@st.composite
def _odd_pixi(draw):
    lines = list(_PIXI_HEAD)
    for entry in (list(_PIXI_CONDA), list(_PIXI_PYPI)):
        for _ in range(draw(st.integers(0, 2))):
            i = draw(st.integers(0, len(entry) - 1))
            head, sep, _value = entry[i].partition(": ")
            how = draw(st.sampled_from([0, 0, 0, 1, 2, 3, 4]))
            if how == 0 and sep:
                entry[i] = head + sep + draw(_entry_field)
            elif how == 1:
                entry[i] = draw(_line)
            elif how == 2:
                entry.insert(
                    i,
                    draw(
                        st.sampled_from(
                            [
                                "",
                                "# c",
                                "  - x",
                                "  name: y",
                                "  md5: 1",
                                "    deep: 1",
                                "  build: 'b'",
                                "  editable: true",
                                "  subdir: noarch",
                            ]
                        )
                    ),
                )
            elif how == 3:
                del entry[i]
            else:
                entry[i] += draw(st.sampled_from([" ", " # c", "\t", ":"]))
        lines += entry
    return "\n".join(lines) + draw(st.sampled_from(["\n", "", "\n\n"]))


@settings(max_examples=300, deadline=None)
@given(_odd_pixi())
def test_pixi_reads_the_same_whatever_loads_it_on_odd_entries(text):
    assert _pixi_outcome(text, tree=False) == _pixi_outcome(text, tree=True)
