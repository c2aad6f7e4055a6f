"""`envkit convert`: the documented loss matrix, losses on stderr / --json / exit code, every reader
to every writer on real files, and CycloneDX SBOMs validated by cyclonedx-python-lib."""

from __future__ import annotations

import json
import re

import pytest
from conftest import CORPUS, REPO, run_envkit
from support.sbomschema import IRI, IRI_REFERENCE, validate_sbom

from envkit.convert import CARRIES, TARGETS, loss_table_markdown
from envkit.formats import read_file, read_text

#: one real file per reader (the corpus, and examples/)
SAMPLES = {
    "conda-lock": CORPUS / "51_Cecca__repro-course-ci__conda-lock.yml",
    "pixi": CORPUS / "59_43ravens__NEMO_Nowcast__pixi.lock",
    "explicit": CORPUS / "48_Cecca__repro-course-ci__conda-linux-64.lock",
    "env": REPO / "examples" / "laptop-vs-server" / "server.yml",
}


def test_docs_matrix_is_the_generated_one():
    page = (REPO / "docs" / "commands" / "convert.md").read_text()
    m = re.search(r"<!-- convert-matrix:start -->\n(.*?)<!-- convert-matrix:end -->", page, re.S)
    assert m is not None
    assert m.group(1) == loss_table_markdown()
    # every reader is a row, every writer a column
    table = m.group(1).split("\n\n")[0]
    rows = [ln.split(" | ")[0].strip("| ") for ln in table.splitlines()[2:]]
    assert rows == list(CARRIES)
    assert "- pixi to pylock also drops package indexes: the lock's `--index-url`" in m.group(1)
    assert "| conda-lock | drops editable" not in m.group(1)
    assert "| pixi | " in m.group(1)


def test_lossy_conversion_says_what_and_exits_1(tmp_path):
    out = tmp_path / "pylock.toml"
    r = run_envkit("convert", str(SAMPLES["conda-lock"]), "-o", str(out), "--platform", "linux-64")
    assert r.exit_code == 1
    assert (
        "warning: pylock cannot hold conda packages; dropped: _libgcc_mutex==0.1, _openmp_mutex==4.5"
        in r.stderr
    )
    assert "pass --allow-loss to accept it" in r.stderr
    assert out.exists()
    r = run_envkit(
        "convert",
        str(SAMPLES["conda-lock"]),
        "-o",
        str(out),
        "--platform",
        "linux-64",
        "--allow-loss",
        "--json",
    )
    assert r.exit_code == 0
    doc = json.loads(r.stdout)
    assert doc["target"] == "pylock" and doc["lossless"] is False
    assert doc["left_out_platforms"] == ["osx-64", "osx-arm64", "win-64"]
    conda = next(x for x in doc["losses"] if x["feature"] == "conda")
    assert conda["what"] == "conda packages" and conda["count"] == 42


def test_several_platforms_to_one_platform_format_needs_platform(tmp_path):
    r = run_envkit("convert", str(SAMPLES["conda-lock"]), "-o", str(tmp_path / "x.lock"))
    assert r.exit_code == 2
    assert (
        "error: the lock has 4 platforms (linux-64, osx-64, osx-arm64, win-64); explicit holds one"
        in r.stderr
    )
    assert "hint: choose one with --platform" in r.stderr


def test_pixi_to_conda_lock_drops_editable_and_versionless(tmp_path):
    out = tmp_path / "conda-lock.yml"
    r = run_envkit("convert", str(SAMPLES["pixi"]), "-o", str(out), "--json")
    doc = json.loads(r.stdout)
    assert r.exit_code == 1
    assert {x["feature"] for x in doc["losses"]} == {"editable", "pip-no-version"}
    back = read_file(out)
    src = read_file(SAMPLES["pixi"])
    assert len(back.packages) == len(src.packages) - 2  # the versionless path package, on 2 platforms


def test_conda_lock_to_pixi_v6_and_back_is_lossless(tmp_path):
    r = run_envkit("convert", str(SAMPLES["conda-lock"]), "-o", str(tmp_path / "pixi.lock"))
    assert r.exit_code == 0, r.stderr
    assert r.stderr == ""
    r = run_envkit("diff", str(SAMPLES["conda-lock"]), str(tmp_path / "pixi.lock"), "--platform", "linux-64")
    assert r.stdout.rstrip().endswith("Same: no differences (43 packages compared)."), r.stdout


@pytest.mark.parametrize("source", sorted(SAMPLES))
@pytest.mark.parametrize("target", TARGETS)
def test_every_reader_to_every_writer(source, target, tmp_path):
    out = tmp_path / "out"
    r = run_envkit(
        "convert", str(SAMPLES[source]), "-o", str(out), "--to", target, "--platform", "linux-64", "--json"
    )
    assert r.exit_code in (0, 1), r.stderr
    assert "internal error" not in r.stderr
    doc = json.loads(r.stdout)
    # what gets installed changes: exit 1; what the target cannot hold by definition: notes, exit 0
    assert bool(doc["losses"] or doc["changes_install"]) == (r.exit_code == 1)
    assert doc["lossless"] == (not (doc["losses"] or doc["changes_install"] or doc["notes"]))
    assert doc["verified"] == (target != "cyclonedx")
    text = out.read_text()
    if target == "cyclonedx":
        validate_sbom(text)
        assert json.loads(text)["specVersion"] == "1.6"
    elif target not in ("pixi-v7",) and target in ("env", "explicit", "conda-lock", "pixi", "pylock"):
        model = read_text(text, filename=str(out), format=target if target != "env" else None)
        assert model is not None


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


# --- the loss table, proved cell by cell on real conversions ---------------------------------------


def _rich_lock(versionless: bool = True):
    """A lock with every feature: conda and pip packages on two platforms, hashes, URLs, dependencies,
    a channel, an index, an editable install, a marker, a pip package without a URL and one without
    a version."""
    from envkit.model import Channel, Lock, LockedPackage

    cf = "https://conda.anaconda.org/conda-forge"
    pypi = "https://files.pythonhosted.org/packages/ab/cd"
    pkgs = []
    for pl in ("linux-64", "osx-arm64"):
        pkgs += [
            LockedPackage(
                manager="conda",
                name="python",
                version="3.12.5",
                build="h2ad013b_0",
                build_number=0,
                channel="conda-forge",
                platform=pl,
                subdir=pl,
                url=f"{cf}/{pl}/python-3.12.5-h2ad013b_0.conda",
                md5="a" * 32,
                sha256="b" * 64,
                depends=(("zlib", ">=1.3"),),
            ),
            LockedPackage(
                manager="conda",
                name="zlib",
                version="1.3.1",
                build="h4ab18f5_1",
                build_number=1,
                channel="conda-forge",
                platform=pl,
                subdir=pl,
                url=f"{cf}/{pl}/zlib-1.3.1-h4ab18f5_1.conda",
                md5="c" * 32,
                sha256="d" * 64,
            ),
            LockedPackage(
                manager="pip",
                name="requests",
                version="2.32.3",
                platform=pl,
                url=f"{pypi}/requests-2.32.3-py3-none-any.whl",
                sha256="e" * 64,
                depends=(("urllib3", ">=1.21"),),
                index="https://pypi.example/simple",
                marker='python_version >= "3.8"',
            ),
            LockedPackage(
                manager="pip",
                name="urllib3",
                version="2.2.2",
                platform=pl,
                url=f"{pypi}/urllib3-2.2.2-py3-none-any.whl",
                sha256="f" * 64,
            ),
            LockedPackage(
                manager="pip",
                name="mylib",
                version="0.1",
                platform=pl,
                url="file:///work/src/mylib",
                editable=True,
            ),
            LockedPackage(manager="pip", name="nourl", version="1.0", platform=pl),
        ]
        if versionless:
            pkgs.append(
                LockedPackage(
                    manager="pip", name="nover", version="", platform=pl, url="file:///work/src/nover"
                )
            )
    return Lock(
        kind="pixi",
        platforms=("linux-64", "osx-arm64"),
        packages=tuple(pkgs),
        channels=(Channel(name="conda-forge", url=cf),),
        pip_options=("--index-url https://pypi.example/simple",),
    )


#: a file name per reader format (what `convert` and detection go by)
SOURCE_NAMES = {
    "env": "environment.yml",
    "requirements": "requirements.txt",
    "explicit": "explicit.lock",
    "conda-lock": "conda-lock.yml",
    "pixi": "pixi.lock",
    "conda-list-json": "list.json",
    "conda-list-export": "list.txt",
    "pylock": "pylock.toml",
}


def _sbom_features(text: str) -> dict[str, list[str]]:
    """The convert FEATURES an SBOM (which envkit does not read back) holds, as features_of gives
    them: feature -> packages (name==version), [] for a lock-wide one."""
    doc = json.loads(text)
    out: dict[str, list[str]] = {}
    for c in doc["components"]:
        props = {(p["name"], p["value"]) for p in c.get("properties", ())}
        pip = ("envkit:manager", "pip") in props
        who = f"{c['name']}=={c['version']}" if "version" in c else c["name"]
        got = ["pip" if pip else "conda"]
        if c.get("hashes"):
            got.append("hashes")
        got.append(
            ("pip-urls" if pip else "urls")
            if c.get("externalReferences")
            else ("pip-no-url" if pip else "conda-no-url")
        )
        if pip and "version" not in c:
            got.append("pip-no-version")
        got += [
            f
            for key, f in (
                ("envkit:index", "indexes"),
                ("envkit:editable", "editable"),
                ("envkit:marker", "markers"),
            )
            if any(n == key for n, _ in props)
        ]
        for f in got:
            out.setdefault(f, []).append(who)
    deps = {d["ref"] for d in doc["dependencies"] if d["dependsOn"]}
    for c in doc["components"]:
        if c["bom-ref"] in deps:
            out.setdefault("depends", []).append(f"{c['name']}=={c['version']}")
    meta = [p["name"] for p in doc["metadata"]["properties"]]
    if meta.count("envkit:platform") > 1:
        out["platforms"] = []
    if "envkit:channel" in meta:
        out["channels"] = []
    if "envkit:index" in meta:
        out.setdefault("indexes", [])
    return out


def _features_of_file(path, fmt: str) -> dict[str, list[str]]:
    from envkit.convert import features_of
    from envkit.model import resolved_view

    if fmt == "cyclonedx":
        return _sbom_features(path.read_text())
    model = read_file(path, format={"pixi-v7": "pixi"}.get(fmt, fmt))
    if (fmt == "env" and not model.conda and model.kind == "spec") or fmt == "requirements":
        # pins of pip packages only: an environment.yml that is not an export, read as its pip section
        from envkit.formats.requirements import requirements_to_lock

        return features_of(requirements_to_lock(model))
    view = resolved_view(model, "linux-64")
    assert view is not None and view.lock is not None, f"{path} is not concrete"
    return features_of(view.lock)


#: features that drop the whole package with them
_DROPPING = ("conda-no-url", "pip-no-url", "pip-no-version")


def _lost(src: dict[str, list[str]], back: dict[str, list[str]]) -> set[str]:
    """The features of `src` that `back` lost: a lock-wide one that is gone, or a package that had
    it and, written, has not -- not counting packages dropped whole (for having no URL or version,
    or for their manager: conda packages in pylock.toml), whose loss is that feature's."""

    def missing(f: str, excluded: set[str]) -> bool:
        if not src[f]:
            return f not in back
        return bool(set(src[f]) - set(back.get(f, ())) - excluded)

    lost = {f for f in _DROPPING if f in src and missing(f, set())}
    excluded = {n for f in lost for n in src[f]}
    lost |= {f for f in ("conda", "pip") if f in src and f not in back}  # the target holds none
    excluded |= {n for f in lost for n in src[f]}
    lost |= {f for f in src if f not in lost and missing(f, excluded)}
    # every conda package without a URL, dropped: "conda packages" or "... without a URL" alike
    for m in ("conda", "pip"):
        if m in lost and f"{m}-no-url" in src and set(src[m]) == set(src[f"{m}-no-url"]):
            lost |= {m, f"{m}-no-url"}
    return lost


def _same_claim(claim: set[str], src) -> set[str]:
    for m in ("conda", "pip"):
        if claim & {m, f"{m}-no-url"} and f"{m}-no-url" in src and set(src[m]) == set(src[f"{m}-no-url"]):
            claim = claim | {m, f"{m}-no-url"}
    return claim


#: cells where the table says more is dropped than is (pip-only sources: an environment.yml of pip
#: packages only is written as a spec, which keeps `-e` and URLs)
OVERSTATED: dict[tuple[str, str], set[str]] = {
    **{
        ("requirements", t): {"editable", "pip-urls"} for t in ("conda-list-export", "conda-list-json", "env")
    },
    ("requirements", "conda-lock"): {"editable", "markers"},
    # the package with a marker has no artifact URL: left out whole
    ("requirements", "explicit"): {"markers"},
    ("requirements", "pixi"): {"editable", "markers"},
    ("requirements", "pixi-v7"): {"markers"},
    # pixi reads a package from a path as editable (pixi's default for a path dependency)
    ("pylock", "pixi"): {"editable"},
    ("pylock", "pixi-v7"): {"editable"},
    ("requirements", "requirements"): {"pip-urls"},
}
#: conversions that fail (exit 2) where they should write what they can and report the rest
FAILS: dict[tuple[str, str], str] = {}


@pytest.mark.parametrize("source", [s for s in CARRIES if s in SOURCE_NAMES])
def test_loss_table_cells_hold_on_real_conversions(source, tmp_path):
    """Each row: a source file with every feature its format carries (as CARRIES says, checked),
    converted to every target and read back; what did not survive is exactly what the table's cell
    says is dropped, and what `--json` reports as lost."""
    from envkit.convert import FEATURES, KNOWN_GAPS, SINGLE_PLATFORM, convert, features_of, pair_losses

    src = tmp_path / "src" / SOURCE_NAMES[source]
    src.parent.mkdir()
    # a pip package without a version is a path install only a lock can name (env and explicit files
    # write it as its bare URL)
    made = convert(
        _rich_lock(versionless=source in ("pixi", "pylock")),
        "pixi-v7" if source == "pixi" else source,
        source_format="pixi",
        platform="linux-64" if source in SINGLE_PLATFORM else None,
    )
    src.write_text(made.text)
    have = _features_of_file(src, source)
    # envkit writes no `editable:` into pixi.lock (pixi takes it from its manifest), but reads pixi's
    carried = CARRIES[source] - ({"editable"} if source == "pixi" else set())
    assert set(have) == carried, f"{source} carries {sorted(have)}"
    bad = []
    if source == "pixi":
        assert "editable" in features_of(read_file(SAMPLES["pixi"]))
    for target in TARGETS:
        out = tmp_path / target / "out"
        out.parent.mkdir()
        r = run_envkit(
            "convert",
            str(src),
            "-o",
            str(out),
            "--to",
            target,
            "--platform",
            "linux-64",
            "--allow-loss",
            "--json",
        )
        if (source, target) in FAILS:
            assert r.exit_code == 2 and r.stderr.startswith(FAILS[source, target]), r.stderr
            continue
        if r.exit_code != 0:
            bad.append(f"{source} -> {target}: {r.stderr.strip()}")
            continue
        claim = _same_claim(set(pair_losses(source, target)) & set(have), have)
        lost = _lost(have, _features_of_file(out, target))
        gaps = set(KNOWN_GAPS.get((source, target), ()))
        if (lost - claim, claim - lost) != (gaps, OVERSTATED.get((source, target), set())):
            bad.append(
                f"{source} -> {target}: lost {sorted(lost)}, the table says {sorted(claim)}; "
                f"GAPS {sorted(lost - claim)} OVER {sorted(claim - lost)}"
            )
            continue
        doc = json.loads(r.stdout)
        # losses (what gets installed changes) and notes (what the target cannot hold by definition)
        reported = {x["feature"] for x in doc["losses"] + doc["notes"]} | (
            {"platforms"} if doc["left_out_platforms"] else set()
        )
        if _same_claim(reported, have) != claim and not gaps:
            bad.append(
                f"{source} -> {target}: --json reports {sorted(reported)}, the table says {sorted(claim)}"
            )
        assert {FEATURES[f] for f in claim} <= set(FEATURES.values())
    assert bad == [], "\n".join(bad)


def test_a_local_directory_install_is_written_to_pylock_as_a_directory(tmp_path):
    """A non-editable pip install from a local directory (`file:///work/src/mylib`) is a PEP 751
    `[packages.directory]` by path; the read-back diff finds only the conda packages pylock.toml
    cannot hold."""
    from dataclasses import replace

    import envkit

    lock = _rich_lock(versionless=False)
    lock = replace(
        lock,
        packages=tuple(
            replace(p, editable=False) if p.name == "mylib" else p for p in lock.packages if p.name != "nourl"
        ),
    )
    src = tmp_path / "conda-lock.yml"
    src.write_text(envkit.write_text(lock, "conda-lock"))
    out = tmp_path / "pylock.toml"
    r = run_envkit("convert", str(src), "-o", str(out), "--platform", "linux-64", "--allow-loss", "--json")
    assert r.exit_code == 0, r.stderr
    doc = json.loads(r.stdout)
    assert [x["feature"] for x in doc["losses"]] == ["conda"]
    assert sorted((c["name"], c["kind"]) for c in doc["changes_install"]) == [
        ("python", "removed"),
        ("zlib", "removed"),
    ]
    assert (
        '[[packages]]\nname = "mylib"\nversion = "0.1"\n[packages.directory]\npath = "/work/src/mylib"\n'
        in (out.read_text())
    )
    r = run_envkit("convert", str(src), "-o", str(out), "--platform", "linux-64")
    assert r.exit_code == 1
    assert r.stderr.endswith("changes what gets installed; pass --allow-loss to accept it\n"), r.stderr
