"""CycloneDX SBOMs of every corpus lock validated by cyclonedx-python-lib's schema (kept fast by
tests/support/sbomschema.py), and the public write path: `envkit.write_text` writes pixi.lock v6 / v7
and SBOMs that read back the same."""

from __future__ import annotations

import json

import pytest
from conftest import CORPUS, run_envkit
from support.sbomschema import IRI, IRI_REFERENCE, validate_sbom

from envkit.formats import read_file

#: one real file per reader that these tests write from (as in test_convert.py)
SAMPLES = {
    "conda-lock": CORPUS / "51_Cecca__repro-course-ci__conda-lock.yml",
    "pixi": CORPUS / "59_43ravens__NEMO_Nowcast__pixi.lock",
    "explicit": CORPUS / "48_Cecca__repro-course-ci__conda-linux-64.lock",
}


#: every lock of the corpus (tests/support/sbomschema.py keeps the schema check fast)
CORPUS_LOCKS = sorted(
    p.name
    for p in CORPUS.iterdir()
    if p.name.endswith((".lock", "conda-lock.yml", "pylock.toml", "uv.lock")) or "explicit" in p.name
)


#: corpus locks envkit refuses today (strict xfail; drop the entry once it reads them)
KNOWN_WRONG: dict[str, str] = {}


@pytest.mark.parametrize(
    "name",
    [
        pytest.param(n, marks=pytest.mark.xfail(strict=True, reason=KNOWN_WRONG[n.split("_", 1)[0]]))
        if n.split("_", 1)[0] in KNOWN_WRONG
        else n
        for n in CORPUS_LOCKS
    ],
)
def test_sbom_of_every_corpus_lock_validates(name, tmp_path):
    from envkit.formats.cyclonedx import render_cyclonedx

    lock = read_file(CORPUS / name)
    text = render_cyclonedx(lock)
    validate_sbom(text)
    doc = json.loads(text)
    assert doc["specVersion"] == "1.6"
    assert text == render_cyclonedx(lock)  # deterministic
    purls = {c["purl"] for c in doc["components"]}
    assert all(u.startswith(("pkg:conda/", "pkg:pypi/")) for u in purls), purls
    conda = [p for p in lock.packages if p.manager == "conda"]
    assert len(doc["components"]) >= len({p.url for p in conda})


def test_sbom_purls_hashes_and_dependencies():
    from envkit.formats.cyclonedx import render_cyclonedx

    doc = json.loads(render_cyclonedx(read_file(SAMPLES["conda-lock"])))
    by_name = {
        (c["name"], next(p["value"] for p in c["properties"] if p["name"] == "envkit:platform")): c
        for c in doc["components"]
    }
    numpy = by_name[("numpy", "linux-64")]
    assert numpy["purl"].startswith(
        "pkg:conda/numpy@2.1.1?build=py312h58c1407_0&channel=conda-forge&subdir=linux-64&type=conda"
    )
    assert [h["alg"] for h in numpy["hashes"]] == ["SHA-256", "MD5"]
    deps = {d["ref"]: d["dependsOn"] for d in doc["dependencies"]}
    assert any(r.startswith("pkg:conda/python@3.12.5") for r in deps[numpy["bom-ref"]])
    assert [p["value"] for p in doc["metadata"]["properties"] if p["name"] == "envkit:channel"] == [
        "conda-forge"
    ]


# --- the public write path: envkit.write_text writes pixi.lock v6 / v7 and SBOMs -------------------


def test_write_text_writes_pixi_lock_v6_and_v7_that_read_back_the_same():
    import envkit

    lock = envkit.read_file(SAMPLES["conda-lock"])
    v6, v7 = envkit.write_text(lock, "pixi"), envkit.write_text(lock, "pixi-v7")
    assert v6.startswith(
        "version: 6\nenvironments:\n  default:\n    channels:\n"
        "    - url: https://conda.anaconda.org/conda-forge/\n"
    )
    assert v7.startswith(
        "version: 7\nplatforms:\n- name: linux-64\n- name: osx-64\n- name: osx-arm64\n- name: win-64\n"
    )
    for text in (v6, v7):
        back = envkit.read_text(text, filename="pixi.lock")
        assert back.kind == "pixi" and back.platforms == lock.platforms
        assert sorted(map(_fields, back.packages)) == sorted(map(_fields, lock.packages))
        assert len(back.packages) == len(lock.packages) == 146
    # the same text convert writes
    conv = run_envkit("convert", str(SAMPLES["conda-lock"]), "-o", "-", "--to", "pixi")
    assert conv.exit_code == 0 and conv.stdout == v6


def _fields(p):
    """What both files record (a conda-lock.yml has no build_number: pixi.lock reads that as 0)."""
    return (
        p.platform,
        p.manager,
        p.name,
        p.version,
        p.build,
        p.channel,
        p.subdir,
        p.url,
        p.md5,
        p.sha256,
        tuple(sorted(p.depends)),
    )


def test_write_text_writes_an_exported_env_as_pixi_for_its_platform():
    import envkit

    export = envkit.read_file(SAMPLES["explicit"])
    text = envkit.write_text(export, "pixi")
    assert envkit.read_text(text, filename="pixi.lock").platforms == ("linux-64",)


def test_write_text_pixi_refuses_what_it_cannot_hold():
    import envkit

    pixi = envkit.read_file(SAMPLES["pixi"])  # a path package without a version, on 2 platforms
    with pytest.raises(envkit.UsageError) as exc:
        envkit.write_text(pixi, "pixi")
    assert str(exc.value) == (
        "pixi.lock cannot hold nemo-nowcast (linux-64), nemo-nowcast (osx-64): no version "
        "(pixi.lock v6 needs one for a pypi package; v7 does not)"
    )
    assert exc.value.hint == "envkit convert writes the rest and lists what it left out (allow_loss=True)"
    v7 = envkit.read_text(envkit.write_text(pixi, "pixi-v7"), filename="pixi.lock")
    assert len(v7.packages) == len(pixi.packages)
    with pytest.raises(
        envkit.UsageError,
        match="^platform= does not apply to a Lock written as pixi: pixi.lock "
        "holds every platform of the lock$",
    ):
        envkit.write_text(pixi, "pixi", platform="linux-64")
    pylock = envkit.read_text(
        'lock-version = "1.0"\ncreated-by = "t"\n[[packages]]\nname = "a"\nversion = "1"\n'
        '[[packages.wheels]]\nurl = "https://x/a-1-py3-none-any.whl"\n'
        'hashes = {sha256 = "' + "0" * 64 + '"}\n',
        filename="pylock.toml",
    )
    with pytest.raises(envkit.UsageError, match=r"^pixi.lock cannot hold a==1: no platform$"):
        envkit.write_text(pylock, "pixi")
    with pytest.raises(TypeError, match="unexpected keyword argument 'header' for format 'pixi'"):
        envkit.write_text(pixi, "pixi", header="x")


def test_write_text_writes_a_cyclonedx_sbom():
    import envkit

    lock = envkit.read_file(SAMPLES["explicit"])
    text = envkit.write_text(lock, "cyclonedx", name="course")
    doc = json.loads(text)
    assert (doc["specVersion"], doc["metadata"]["component"]["name"]) == ("1.6", "course")
    assert len(doc["components"]) == len(lock.packages)
    conv = run_envkit("convert", str(SAMPLES["explicit"]), "-o", "-", "--to", "cyclonedx").stdout
    assert json.loads(conv)["components"] == doc["components"]
    validate_sbom(text)


#: (string, what rfc3987-syntax answers for iri_reference, for iri); compressed IPv6 literals are
#: valid by RFC 3986 section 3.2.2, which rfc3987-syntax 1.1.0 gets wrong: the regex follows the RFC
IRI_CASES = [
    ("https://conda.anaconda.org/conda-forge/linux-64/numpy-2.1.1-py312h58c1407_0.conda", True, True),
    ("file:///tmp/x/main/noarch/six-1.16.0-pyh6c4a22f_0.tar.bz2", True, True),
    ("https://files.pythonhosted.org/packages/a-1-py3-none-any.whl#sha256=ab", True, True),
    ("git+https://github.com/example/vcspkg.git@aaaa", True, True),
    ("../wheels/a-1.whl", True, False),
    ("pkg:pypi/a@1?x=y", True, True),
    ("http://[v1.x]/", True, True),
    ("http://1.2.3.4/", True, True),
    ("http://[1:2:3:4:5:6:7:8]/", True, True),
    ("http://ex.com/\u00fc/\u00df?q=\u00e9", True, True),
    ("mailto:a@b", True, True),
    ("urn:uuid:1234", True, True),
    ("", True, False),
    ("#frag", True, False),
    ("//host/p", True, False),
    ("a:b", True, True),
    ("https://u:p@h:1/%20?a#b/?", True, True),
    ("http://a b", False, False),
    ("http://[::1", False, False),
    ("http://x/%zz", False, False),
    ("a b", False, False),
    ("http://x/<y>", False, False),
    ("1a:b", False, False),
    (":x", False, False),
    ('http://x/"', False, False),
    ("http://x/{}", False, False),
    ("http://x/^", False, False),
    ("http://x/|", False, False),
    ("http://[1::2::3]/", False, False),
    ("http://x:8a/", False, False),
    ("http://x/a\\b", False, False),
]
RFC3987_SYNTAX_WRONG = ["http://[::1]:80/p", "http://[2001:db8::1]/", "http://[::]/"]


def test_iri_reference_regex_agrees_with_rfc3987_syntax():
    from rfc3987_syntax import is_valid_syntax

    for s, ref, iri in IRI_CASES:
        assert (is_valid_syntax("iri_reference", s), is_valid_syntax("iri", s)) == (ref, iri), s
        assert (bool(IRI_REFERENCE.fullmatch(s)), bool(IRI.fullmatch(s))) == (ref, iri), s
    for s in RFC3987_SYNTAX_WRONG:
        assert not is_valid_syntax("iri", s) and IRI.fullmatch(s), s


def test_the_fast_validator_still_finds_errors():
    from support.sbomschema import sbom_errors

    doc = json.loads(envkit_write(SAMPLES["explicit"], "cyclonedx"))
    assert sbom_errors(json.dumps(doc)) == []
    doc["components"][0]["externalReferences"][0]["url"] = "http://a b"
    doc["components"][1]["bogus"] = 1
    doc["components"][2]["hashes"][0]["content"] = "xyz"
    assert sbom_errors(json.dumps(doc)) == [
        "components/0/externalReferences/0/url: 'http://a b' is not valid under any of the given schemas",
        "components/1: Additional properties are not allowed ('bogus' was unexpected)",
        "components/2/hashes/0/content: 'xyz' does not match "
        "'^([a-fA-F0-9]{32}|[a-fA-F0-9]{40}|[a-fA-F0-9]{64}|"
        "[a-fA-F0-9]{96}|[a-fA-F0-9]{128})$'",
    ]


def envkit_write(path, fmt):
    import envkit

    return envkit.write_text(envkit.read_file(path), fmt)
