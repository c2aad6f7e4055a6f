"""Malformed input: every reader error names the file, the line and the key; nothing but an EnvkitError
ever comes out of a reader (bounded Hypothesis fuzzing); what a writer writes reads back, byte for
byte the same each time."""

from __future__ import annotations

import copy
import json

import pytest
import yaml
from conftest import CORPUS
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from envkit.errors import EnvkitError, ParseError
from envkit.formats import FORMATS, read_file, read_text, write_text
from envkit.model import Lock

CL = (
    "version: 1\nmetadata:\n  content_hash: {}\n  channels: []\n  platforms: [linux-64]\n  sources: []\n"
    "package:\n"
)
CL_PKG = (
    "- name: a\n  version: '1'\n  manager: conda\n  platform: linux-64\n  dependencies: {}\n"
    "  url: https://conda.anaconda.org/conda-forge/linux-64/a-1-0.conda\n  hash:\n    md5: x\n"
)
PIXI = (
    "version: 6\nenvironments:\n  default:\n    packages:\n      linux-64:\n"
    "      - conda: https://x/linux-64/a-1-0.conda\npackages:\n- conda: https://x/linux-64/a-1-0.conda\n"
)


# (format, text, the error exactly as the CLI prints it after `error: `)
MALFORMED = [
    # conda-lock.yml: wrong types at each level, missing keys
    ("conda-lock", "version: 1\n", "f:1: a conda-lock file has no `metadata:`"),
    ("conda-lock", "version: 1\nmetadata: []\n", "f:2 (metadata): `metadata:` must be a mapping, got a list"),
    (
        "conda-lock",
        "version: 1\nmetadata:\n  content_hash: [a]\n",
        "f:3 (metadata.content_hash): `content_hash:` must be a mapping, got a list",
    ),
    (
        "conda-lock",
        "version: 1\nmetadata:\n  content_hash:\n    linux-64: [a]\n",
        "f:4 (metadata.content_hash.linux-64): `linux-64:` must be text, got a list",
    ),
    (
        "conda-lock",
        "version: 1\nmetadata:\n  channels: 5\n",
        "f:3 (metadata.channels): `channels:` must be a list, got int 5",
    ),
    (
        "conda-lock",
        "version: 1\nmetadata:\n  channels:\n  - used_env_vars: []\n",
        "f:4 (metadata.channels[0]): a channel has no `url:`",
    ),
    (
        "conda-lock",
        "version: 1\nmetadata:\n  channels:\n  - url: ''\n",
        "f:4 (metadata.channels[0]): a channel must be a name or URL, got empty text",
    ),
    (
        "conda-lock",
        "version: 1\nmetadata:\n  platforms: [[1]]\n",
        "f:3 (metadata.platforms[0]): an item of `platforms:` must be text, got a list",
    ),
    (
        "conda-lock",
        "version: 1\nmetadata:\n  sources: env.yml\n",
        "f:3 (metadata.sources): `sources:` must be a list, got text 'env.yml'",
    ),
    (
        "conda-lock",
        CL.replace("package:\n", "package: {}\n"),
        "f:7 (package): `package:` must be a list, got a mapping",
    ),
    ("conda-lock", CL + "- 5\n", "f:8 (package[0]): a package entry must be a mapping, got int 5"),
    (
        "conda-lock",
        CL + CL_PKG.replace("  platform: linux-64\n", ""),
        "f:8 (package[0]): a package entry has no `platform:`",
    ),
    (
        "conda-lock",
        CL + CL_PKG.replace("name: a", "name: [a]"),
        "f:8 (package[0].name): `name:` must be text, got a list",
    ),
    (
        "conda-lock",
        CL + CL_PKG.replace("manager: conda", "manager: npm"),
        "f:10 (package[0].manager): unknown manager 'npm' (expected conda or pip)",
    ),
    (
        "conda-lock",
        CL + CL_PKG.replace("dependencies: {}", "dependencies: [b]"),
        "f:12 (package[0].dependencies): `dependencies:` must be a mapping, got a list",
    ),
    (
        "conda-lock",
        CL + CL_PKG.replace("dependencies: {}", "dependencies:\n    b: [1]"),
        "f:13 (package[0].dependencies.b): `b:` must be text, got a list",
    ),
    (
        "conda-lock",
        CL + CL_PKG.replace("md5: x", "md5: {}"),
        "f:15 (package[0].hash.md5): `md5:` must be text, got a mapping",
    ),
    (
        "conda-lock",
        CL + CL_PKG + "  optional: maybe\n",
        "f:16 (package[0].optional): `optional:` must be true or false, got text 'maybe'",
    ),
    # pixi.lock
    (
        "pixi",
        "version: 6\nenvironments: []\n",
        "f:2 (environments): `environments:` must be a mapping, got a list",
    ),
    (
        "pixi",
        "version: 6\nenvironments:\n  default: 5\n",
        "f:3 (environments.default): `default:` must be a mapping, got int 5",
    ),
    (
        "pixi",
        "version: 6\nenvironments:\n  default:\n    packages:\n      linux-64: 5\n",
        "f:5 (environments.default.packages.linux-64): `linux-64:` must be a list, got int 5",
    ),
    (
        "pixi",
        PIXI.replace("packages:\n- conda", "other:\n- conda"),
        "f:6 (environments.default.packages.linux-64[0].conda): package 'https://x/linux-64/a-1-0.conda' is "
        "referenced but not listed under `packages:`",
    ),
    (
        "pixi",
        PIXI.replace("      - conda: https", "      - 5\n      - conda: https"),
        "f:6 (environments.default.packages.linux-64[0]): a package reference must be a mapping, got int 5",
    ),
    (
        "pixi",
        PIXI + "  depends: python\n",
        "f:9 (packages[0].depends): `depends:` must be a list, got text 'python'",
    ),
    (
        "pixi",
        PIXI + "  build_number: x\n",
        "f:9 (packages[0].build_number): `build_number:` must be a whole number, got text 'x'",
    ),
    (
        "pixi",
        PIXI.replace("a-1-0.conda", "weird"),
        "f:8 (packages[0].conda): cannot tell name and version of 'https://x/linux-64/weird'",
    ),
    (
        "pixi",
        PIXI + "- other: 1\n",
        "f:9 (packages[1]): a package entry needs `conda:`, `conda_source:` or `pypi:`",
    ),
    (
        "pixi",
        PIXI + "  md5: 12\n",
        "f:9 (packages[0].md5): `md5:` must be 32 hex digits, got 12",
    ),
    # explicit files
    ("explicit", "@EXPLICIT\nnot a url\n", "f:2: not a conda package URL (.conda or .tar.bz2): 'not a url'"),
    (
        "explicit",
        "@EXPLICIT\nhttps://x/linux-64/numpy.conda\n",
        "f:2: not a conda package URL (.conda or .tar.bz2): 'https://x/linux-64/numpy.conda'",
    ),
    (
        "explicit",
        "@EXPLICIT\nhttps://x/linux-64/a-1-0.conda#sha256:\n",
        "f:2: unknown hash fragment (expected #<md5>, #sha256:<hex>, hex digits of 32 or 64): "
        "'https://x/linux-64/a-1-0.conda#sha256:'",
    ),
    (
        "explicit",
        "@EXPLICIT\n# pip x @ https://h/x-1.whl#sha256=zz\n",
        "f:2: unknown hash fragment on a pip line (expected #sha256=<64 hex digits>): "
        "'# pip x @ https://h/x-1.whl#sha256=zz'",
    ),
    (
        "explicit",
        "@EXPLICIT\nhttps://x/linux-64/a-1-0.conda\nhttps://x/linux-64/a-1-0.conda\n",
        "f:3: a (conda) is listed twice; first at line 2",
    ),
    # conda list --json
    (
        "conda-list-json",
        '[\n  {"name": "a", "version": "1"},\n  5\n]',
        "f:3 ([1]): record 1 must be a mapping, got int 5",
    ),
    ("conda-list-json", '[\n  {"name": "a"}\n]', "f:2 ([0]): record 0 has no `version:`"),
    (
        "conda-list-json",
        '[\n  {"name": "a",\n   "version": "1", "build_number": [0]}\n]',
        "f:2 ([0].build_number): `build_number:` must be a whole number, got a list",
    ),
    # environment.yml, requirements.txt, conda list --export
    ("env", "name: x\nprefix: [a]\n", "f:2: `prefix:` must be a path, got a list"),
    ("env", "dependencies:\n  - pip:\n    - -r\n", "f:3: pip option -r needs a value: '-r'"),
    ("requirements", "numpy\n-e\n", "f:2: pip option -e needs a value: '-e'"),
    ("conda-list-export", "# platform: linux-64\na=1\n", "f:2: not a `name=version=build` line: 'a=1'"),
    # a platform envkit could not write back into a lock is refused where it is read
    (
        "conda-list-export",
        "# platform: linux-64@EXPLICIT\n",
        "f:1: unknown platform 'linux-64@EXPLICIT' (not a conda subdir such as linux-64, osx-arm64, "
        "win-64): '# platform: linux-64@EXPLICIT'",
    ),
    (
        "conda-list-json",
        '[\n  {"name": "a", "version": "1", "platform": "linux-65"}\n]',
        "f:2 ([0].platform): unknown platform 'linux-65' (not a conda subdir such as linux-64, osx-arm64, "
        "win-64)",
    ),
    # YAML itself
    (
        "conda-lock",
        "version: 1\nmetadata:\n  x: \x7f\n",
        "f:3: invalid YAML: character U+007F is not allowed in a YAML file: '  x: \\x7f'",
    ),
]


@pytest.mark.parametrize(
    "fmt, text, expected", MALFORMED, ids=lambda v: v[:40] if isinstance(v, str) else None
)
def test_reader_errors_name_file_line_and_key(fmt, text, expected):
    with pytest.raises(ParseError) as err:
        read_text(text, filename="f", format=fmt)
    assert str(err.value) == expected


def test_a_conda_lock_package_without_platform_through_the_cli(envkit_cli, tmp_path):
    path = tmp_path / "conda-lock.yml"
    path.write_text(CL + CL_PKG.replace("  platform: linux-64\n", ""))
    r = envkit_cli("validate", str(path))
    assert r.exit_code == 2
    assert r.stdout == ""  # validate's errors go to stderr, as every command's
    assert r.stderr == f"error: {path}:8 (package[0]): a package entry has no `platform:`\n"


# --------------------------------------------------------------------------------------------
# Fuzzing: structured mutations of valid documents, and random lines; only EnvkitError may escape,
# and every writer's output reads back

PIXI_DOC = {
    "version": 6,
    "environments": {
        "default": {
            "channels": [{"url": "https://conda.anaconda.org/conda-forge/"}],
            "indexes": ["https://pypi.org/simple"],
            "find-links": [{"url": "https://x/w"}],
            "packages": {
                "linux-64": [
                    {"conda": "https://x/linux-64/a-1-0.conda"},
                    {"pypi": "https://files.example/p-2-py3-none-any.whl"},
                ]
            },
        }
    },
    "packages": [
        {"conda": "https://x/linux-64/a-1-0.conda", "md5": "0" * 32, "depends": ["python >=3.10"]},
        {
            "pypi": "https://files.example/p-2-py3-none-any.whl",
            "name": "p",
            "version": "2",
            "requires_dist": ["q>=1"],
        },
    ],
}
DOCS = {
    "conda-lock": yaml.safe_load(CL + CL_PKG.replace("md5: x", "md5: " + "0" * 32)),
    "pixi": PIXI_DOC,
    "env": {
        "name": "x",
        "channels": ["conda-forge", "https://u:p@host/c"],
        "dependencies": ["python=3.11", "numpy>=1", {"pip": ["torch==2", "--pre"]}],
        "variables": {"A": "1"},
        "platforms": ["linux-64"],
        "prefix": "/p",
    },
    "conda-list-json": [
        {
            "base_url": "https://conda.anaconda.org/conda-forge",
            "build_number": 0,
            "build_string": "h0_0",
            "channel": "conda-forge",
            "name": "a",
            "platform": "linux-64",
            "version": "1.0",
        },
        {"channel": "pypi", "name": "p", "platform": "pypi", "version": "2"},
    ],
}
FUZZ = settings(max_examples=80, deadline=None, suppress_health_check=list(HealthCheck))

leaf = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-5, 10**6),
    st.floats(allow_nan=False),
    st.text(max_size=8),
    st.sampled_from(["", "::", "https://", "a-1-0.conda", "1.10", "linux-64", "conda", "pip", "\\"]),
)
any_value = st.recursive(
    leaf,
    lambda inner: (
        st.lists(inner, max_size=3)
        | st.dictionaries(
            st.text(max_size=4) | st.sampled_from(["url", "name", "conda", "pypi"]), inner, max_size=3
        )
    ),
    max_leaves=6,
)


def _paths(value, prefix=()):
    yield prefix
    if isinstance(value, dict):
        for k, v in value.items():
            yield from _paths(v, prefix + (k,))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            yield from _paths(v, prefix + (i,))


@st.composite
def mutated(draw, fmt):
    doc = copy.deepcopy(DOCS[fmt])
    for _ in range(draw(st.integers(1, 3))):
        path = draw(st.sampled_from(list(_paths(doc))))
        if not path:
            doc = draw(any_value)
            continue
        parent = doc
        for k in path[:-1]:
            parent = parent[k]
        if draw(st.booleans()):
            del parent[path[-1]]
        else:
            parent[path[-1]] = draw(any_value)
    return doc


def read_and_write_back(text: str, fmt: str | None) -> None:
    """Read `text`; when that works, write the model in every format that takes it: each output is
    the same twice and reads back.  Only EnvkitError may come out of reading and writing."""
    try:
        model = read_text(text, filename="f", format=fmt)
    except EnvkitError:
        return
    targets = (
        ("env", "conda-lock", "explicit", "conda-list-export", "conda-list-json")
        if isinstance(model, Lock)
        else ("env",)
        if model.kind != "requirements"
        else ("requirements",)
    )
    for target in targets:
        opts = (
            {"platform": model.platforms[0]}
            if isinstance(model, Lock) and model.platforms and target != "conda-lock"
            else {}
        )
        try:
            out = write_text(model, target, **opts)
        except EnvkitError:
            continue
        assert write_text(model, target, **opts) == out
        read_text(out, filename="f2", format=target)  # raises (fails the test) when unreadable


@pytest.mark.parametrize("fmt", sorted(DOCS))
def test_mutated_documents_give_only_envkit_errors(fmt):
    @FUZZ
    @given(mutated(fmt))
    def run(doc):
        text = json.dumps(doc) if fmt == "conda-list-json" else yaml.safe_dump(doc, sort_keys=False)
        read_and_write_back(text, fmt)

    run()


_ATOMS = st.sampled_from(
    [
        "@EXPLICIT",
        "# platform: linux-64",
        "# input_hash: ab",
        "# pip x @ https://h/x-1.whl#sha256=" + "a" * 64,
        "https://conda.anaconda.org/conda-forge/linux-64/a-1.0-h0_0.conda",
        "#" + "0" * 32,
        "#sha256:" + "f" * 64,
        "a=1=0",
        "b=2=pypi_0",
        "conda-forge::c=1=h",
        "numpy>=1",
        "-e .",
        "-e",
        "--index-url https://u:p@h/simple",
        "git+https://g/x.git#egg=x",
        "x @ https://h/x.tar.gz",
        "\\",
        " ",
        "#",
        ":",
        "- ",
        "  - ",
        "version: 1",
        "version: 6",
        "metadata:",
        "package:",
        "environments:",
        "dependencies:",
        "channels:",
        "pip:",
        "prefix:",
        "variables:",
        "[",
        "]",
        "{",
        "}",
        "'",
        '"',
        "\t",
        "\r",
        "\x00",
        "é",
        "\u2028",
        ";",
        "==",
        "*",
        ",",
        "::",
    ]
)
_LINES = st.lists(st.lists(st.one_of(_ATOMS, st.text(max_size=4)), max_size=4).map("".join), max_size=8).map(
    "\n".join
)


@settings(max_examples=300, deadline=None, suppress_health_check=list(HealthCheck))
@given(_LINES, st.sampled_from([None, *FORMATS]))
def test_random_text_gives_only_envkit_errors(text, fmt):
    read_and_write_back(text, fmt)


# --------------------------------------------------------------------------------------------
# Writers are deterministic


@pytest.mark.parametrize(
    "name, fmt",
    [
        ("51_Cecca__repro-course-ci__conda-lock.yml", "conda-lock"),
        ("59_43ravens__NEMO_Nowcast__pixi.lock", "conda-lock"),
        ("01_FSadrieh__BERTchen__environment.yml", "env"),
    ],
)
def test_writers_are_byte_identical_for_equal_models(name, fmt):
    a = read_file(CORPUS / name)
    b = read_file(CORPUS / name)  # a second, equal model
    assert a == b and a is not b
    assert write_text(a, fmt) == write_text(b, fmt)
    if isinstance(a, Lock):
        from dataclasses import replace

        shuffled = replace(a, packages=tuple(reversed(a.packages)))  # packages come out sorted
        assert write_text(shuffled, "conda-lock") == write_text(a, "conda-lock")
