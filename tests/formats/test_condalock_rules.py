"""conda-lock.yml v1 rules (CEP 37) that reading enforces: digests, platforms, one entry per
(name, manager, platform, category).  The one reader reports the same error, file, line and key
whichever loader gave it the document (the block-list loader, or the YAML reader, forced here with
CR LF line ends)."""

from __future__ import annotations

import textwrap

import pytest

from envkit.errors import ParseError
from envkit.formats.condalock import read_conda_lock

MD5 = "c9f075ab2f33b3bbee9e62d4ad0a6cd8"
SHA = "5d7c0e5f0005f74112a34a7425179f4eb6e73c92f5d109e6af4ddeca407c92ab"


def lock_text(
    *, platforms=("linux-64",), md5=MD5, sha256=SHA, second_platform="linux-64", second_name="numpy"
):
    plats = "".join(f"  - {p}\n" for p in platforms)
    return textwrap.dedent("""\
        version: 1
        metadata:
          content_hash:
            linux-64: 0000000000000000000000000000000000000000000000000000000000000000
          channels:
          - url: conda-forge
            used_env_vars: []
          platforms:
        {plats}  sources:
          - environment.yml
        package:
        - name: zlib
          version: 1.3.1
          manager: conda
          platform: linux-64
          dependencies: {{}}
          url: https://conda.anaconda.org/conda-forge/linux-64/zlib-1.3.1-hb9d3cd8_2.conda
          hash:
            md5: {MD5}
            sha256: {SHA}
          category: main
          optional: false
        - name: {second_name}
          version: 2.1.0
          manager: conda
          platform: {second_platform}
          dependencies:
            zlib: '>=1.3'
          url: https://conda.anaconda.org/conda-forge/linux-64/numpy-2.1.0-py312h1103770_0.conda
          hash:
            md5: {md5}
            sha256: {sha256}
          category: main
          optional: false
        """).format(
        plats=plats,
        MD5=MD5,
        SHA=SHA,
        md5=md5,
        sha256=sha256,
        second_platform=second_platform,
        second_name=second_name,
    )


BAD = [
    (
        {"md5": "abc"},
        32,
        "package[1].hash.md5",
        "numpy=2.1.0 (conda): `md5:` is not a md5 hash of 32 hex digits: the lock has 'abc' (3 characters); "
        "the package cannot be verified",
    ),
    (
        {"sha256": SHA[:63]},
        33,
        "package[1].hash.sha256",
        f"numpy=2.1.0 (conda): `sha256:` is not a sha256 hash of 64 hex digits: the lock has '{SHA[:63]}' "
        "(63 characters); the package cannot be verified",
    ),
    (
        {"sha256": "g" * 64},
        33,
        "package[1].hash.sha256",
        f"numpy=2.1.0 (conda): `sha256:` is not a sha256 hash of 64 hex digits: the lock has '{'g' * 64}' "
        "(64 characters); the package cannot be verified",
    ),
    (
        {"second_name": "zlib"},
        24,
        "package[1].name",
        "zlib (conda, linux-64, category main) is listed twice; first at line 13",
    ),
    (
        {"second_platform": "osx-64"},
        27,
        "package[1].platform",
        "platform 'osx-64' is not one of `metadata.platforms` (linux-64)",
    ),
    (
        {"platforms": ("linux-64", "linux-128"), "second_platform": "linux-128"},
        10,
        "metadata.platforms[1]",
        "unknown platform 'linux-128' (not a conda subdir such as linux-64, osx-arm64, win-64)",
    ),
]


@pytest.mark.parametrize("crlf", [False, True], ids=["fast", "tree"])
@pytest.mark.parametrize("change,line,key,message", BAD, ids=[b[2] + ":" + b[3][:12] for b in BAD])
def test_broken_conda_lock_is_a_parse_error_naming_file_line_and_key(change, line, key, message, crlf):
    text = lock_text(**change)
    if crlf:
        text = text.replace("\n", "\r\n")
    with pytest.raises(ParseError) as err:
        read_conda_lock(text, "conda-lock.yml")
    assert (err.value.where.file, err.value.where.line, err.value.where.key) == ("conda-lock.yml", line, key)
    assert err.value.message == message
    assert err.value.hint


def test_the_cli_refuses_a_bad_digest(tmp_path, envkit_cli):
    (tmp_path / "conda-lock.yml").write_text(lock_text(md5="abc"))
    for args in (
        ["validate", "conda-lock.yml"],
        ["check", "conda-lock.yml"],
        ["normalize", "conda-lock.yml"],
        ["diff", "conda-lock.yml", "conda-lock.yml"],
    ):
        r = envkit_cli(*args, cwd=tmp_path)
        assert r.exit_code == 2, args
        assert (
            "conda-lock.yml:32 (package[1].hash.md5): numpy=2.1.0 (conda): `md5:` is not a md5 hash of "
            "32 hex digits: the lock has 'abc' (3 characters)"
        ) in r.stdout + r.stderr


def test_a_valid_lock_still_reads():
    lock = read_conda_lock(lock_text(), "conda-lock.yml")
    assert [(p.name, p.md5, p.platform) for p in lock.packages] == [
        ("zlib", MD5, "linux-64"),
        ("numpy", MD5, "linux-64"),
    ]
    # upper-case hex is a digest too (conda compares case-insensitively), as explicit files accept it
    assert read_conda_lock(lock_text(md5=MD5.upper()), "x").packages[1].md5 == MD5.upper()


def test_one_project_from_conda_and_from_pip_is_not_a_duplicate():
    text = lock_text().replace(
        "- name: numpy\n  version: 2.1.0\n  manager: conda", "- name: zlib\n  version: 2.1.0\n  manager: pip"
    )
    lock = read_conda_lock(text, "conda-lock.yml")
    assert [(p.name, p.manager) for p in lock.packages] == [("zlib", "conda"), ("zlib", "pip")]
