"""`envkit convert`: the documented loss matrix, losses on stderr / --json / exit code, every reader
to every writer on real files, and the loss table proved cell by cell (SBOMs and the write path:
test_convert_sbom_write.py)."""

from __future__ import annotations

import json
import re

import pytest
from conftest import CORPUS, REPO, run_envkit
from support.sbomschema import validate_sbom

from envkit.commands._lock_files import CONDA_SKIPS_PYPI
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
    r = run_envkit("convert", str(SAMPLES["pixi"]), "-o", str(out), "--json", "--env", "default")
    doc = json.loads(r.stdout)
    assert r.exit_code == 1
    assert {x["feature"] for x in doc["losses"]} == {"editable", "pip-no-version"}
    back = read_file(out)
    src = read_file(SAMPLES["pixi"])
    assert len(back.packages) == len(src.packages) - 2  # the versionless path package, on 2 platforms


def test_conda_lock_to_pixi_v6_and_back_is_lossless(tmp_path):
    out = tmp_path / "pixi.lock"
    r = run_envkit("convert", str(SAMPLES["conda-lock"]), "-o", str(out))
    assert r.exit_code == 0, r.stderr
    assert r.stderr.splitlines() == [
        "note: " + CONDA_SKIPS_PYPI.format(names="pyattimo"),
        f"note: writing a pixi.lock (pixi): the name {out} says so; --to chooses another",
    ]
    r = run_envkit("diff", str(SAMPLES["conda-lock"]), str(tmp_path / "pixi.lock"), "--platform", "linux-64")
    assert r.stdout.rstrip().endswith("Same: no differences (43 packages compared)."), r.stdout


@pytest.mark.parametrize("source", sorted(SAMPLES))
@pytest.mark.parametrize("target", TARGETS)
def test_every_reader_to_every_writer(source, target, tmp_path):
    out = tmp_path / "out"
    env = ("--env", "default") if source == "pixi" else ()  # its sample has 7 (a pixi target keeps them)
    r = run_envkit(
        "convert",
        str(SAMPLES[source]),
        "-o",
        str(out),
        "--to",
        target,
        "--platform",
        "linux-64",
        "--json",
        *env,
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
