"""pixi.lock before version 6: versions 1-3 (conda-lock shaped) and 4-5 (`kind:` entries), read by
the CLI like any other pixi.lock, with or without `--format conda-lock`, and compared with
py-rattler's LockFile reader (rattler_lock reads every version)."""

from __future__ import annotations

import pytest
from conftest import CORPUS, DATA

from envkit.errors import EnvironmentNotFound, ParseError
from envkit.formats import read_file
from envkit.formats.pixilock import read_pixi_environments, read_pixi_lock

PIXI = DATA / "pixi"
LEGACY = ["v3-pixi.lock", "v4-pixi.lock", "v5-pixi.lock"]
#: real version 1 locks (2023): conda-lock's shape and version number; 60 and 61 list
#: `dependencies:` as match specs, 62 (an earlier pixi) as a mapping
CORPUS_V1 = sorted(CORPUS.glob("6[012]_*pixi.lock"))
#: real pixi-build locks: version 7 `conda_source:` entries (63, 64), version 6 `conda: PATH` entries
#: with a `package_build_source` (65, 66)
CORPUS_SOURCE = sorted(CORPUS.glob("6[3456]_*pixi.lock"))


def _ours(path):
    out = {}
    for env, lock in read_pixi_environments(path.read_text(), str(path)).items():
        for p in lock.packages:
            out.setdefault(env, set()).add(
                (p.platform, p.manager, p.name, p.version, p.url.rsplit("/", 1)[-1], p.sha256 or None)
            )
    return out


def _rattlers(path):
    rattler = pytest.importorskip("rattler")
    out = {}
    for env, e in rattler.LockFile.from_path(path).environments():
        for platform, pkgs in e.packages_by_platform().items():
            for p in pkgs:
                manager = "conda" if isinstance(p, rattler.lock.CondaLockedPackage) else "pip"
                try:
                    sha = p.hashes.sha256.hex()
                except AttributeError:  # no hashes (a local path)
                    sha = None
                version = "" if p.version is None else str(p.version)  # a source package's: unknown
                out.setdefault(env, set()).add(
                    (str(platform), manager, p.name, version, str(p.location).rsplit("/", 1)[-1], sha)
                )
    return out


@pytest.mark.parametrize("name", LEGACY)
def test_legacy_pixi_lock_matches_rattler(name):
    assert _ours(PIXI / name) == _rattlers(PIXI / name)


@pytest.mark.parametrize("path", CORPUS_V1, ids=lambda p: p.name[:2])
def test_real_version_1_locks_match_rattler(path):
    ours = _ours(path)
    assert ours == _rattlers(path)
    assert {n: len(s) for n, s in ours.items()} == {"default": {"60": 15, "61": 30, "62": 16}[path.name[:2]]}


@pytest.mark.parametrize("path", CORPUS_SOURCE, ids=lambda p: p.name[:2])
def test_pixi_build_source_packages_match_rattler(path):
    assert _ours(path) == _rattlers(path)


def test_a_conda_source_package_has_its_name_its_path_and_no_archive():
    path = CORPUS / "63_prefix-dev__pixi__pixi.lock"
    lock = read_pixi_lock(path.read_text(), str(path))
    src = [p for p in lock.packages if p.platform == "linux-64" and p.url and "://" not in p.url]
    assert [(p.manager, p.name, p.version, p.url, p.md5, p.sha256, p.channel, p.line) for p in src] == [
        ("conda", "depend", "", "src/depend", None, None, None, 47),
        ("conda", "root", "", "src/root", None, None, None, 48),
    ]
    assert src[1].depends == (("depend", ""), ("python", ">=3.11"), ("python", "*"))


def test_a_malformed_conda_source_is_refused_with_its_line():
    text = (CORPUS / "63_prefix-dev__pixi__pixi.lock").read_text().replace(
        "conda_source: root[444b3894] @ src/root", "conda_source: root[444b3894]"
    )
    with pytest.raises(ParseError) as err:
        read_pixi_lock(text, "pixi.lock")
    assert "`conda_source:` must be `NAME[ID] @ LOCATION`" in str(err.value)


@pytest.mark.parametrize("path", CORPUS_V1, ids=lambda p: p.name[:2])
def test_cli_reads_a_version_1_lock_as_a_pixi_lock_whatever_its_name(path, tmp_path, envkit_cli):
    renamed = tmp_path / "environment.lock"  # no pixi.lock name: its entries' keys tell
    renamed.write_bytes(path.read_bytes())
    for f in (path, renamed):
        r = envkit_cli("validate", str(f))
        assert r.exit_code == 0, r.stderr
        assert r.stdout.startswith(f"ok: {f}: pixi.lock, 1 environment: default (")
    lock = read_file(path)
    assert read_file(path, format="conda-lock") == lock == read_file(renamed)
    assert (lock.kind, lock.environment) == ("pixi", "default")
    if path.name.startswith("60"):  # `dependencies:` a list of match specs
        bz = next(p for p in lock.packages if p.name == "bzip2")
        assert (bz.platform, bz.build, bz.build_number, bz.subdir, bz.line) == (
            "win-64",
            "h8ffe710_4",
            4,
            "win-64",
            15,
        )
        assert bz.depends == (("vc", ">=14.1,<15.0a0"), ("vs2015_runtime", ">=14.16.27012"))
    elif path.name.startswith("62"):  # `dependencies:` a mapping
        omp = next(p for p in lock.packages if p.name == "_openmp_mutex" and p.platform == "linux-64")
        assert omp.depends == (("libgomp", ">=7.5.0"), ("_libgcc_mutex", "==0.1 conda_forge"))


def test_v3_fields_and_both_format_names():
    path = PIXI / "v3-pixi.lock"
    lock = read_file(path, format="pixi")
    assert read_file(path, format="conda-lock") == lock == read_file(path)
    assert (lock.kind, lock.environment, lock.platforms) == ("pixi", "default", ("linux-64", "osx-arm64"))
    omp = next(p for p in lock.packages if p.name == "_openmp_mutex")
    assert (omp.build, omp.build_number, omp.subdir, omp.channel) == ("2_gnu", 16, "linux-64", "conda-forge")
    assert omp.depends == (("libgomp", ">=7.5.0"), ("_libgcc_mutex", "==0.1 conda_forge"))
    six = next(p for p in lock.packages if p.name == "six")
    assert (six.manager, six.md5, six.sha256[:8], six.line) == ("pip", None, "8abb2f1d", 94)
    with pytest.raises(EnvironmentNotFound):
        read_pixi_lock(path.read_text(), str(path), environment="lint")


def test_v4_and_v5_environments_and_fields():
    v5 = read_pixi_environments((PIXI / "v5-pixi.lock").read_text(), "pixi.lock")
    assert list(v5) == ["default", "lint"]
    req = next(p for p in v5["default"].packages if p.name == "requests")
    assert (req.manager, req.version, req.editable, req.url) == (
        "pip",
        "2.31.0",
        True,
        "./links/requests-2.31.0-py3-none-any.whl",
    )
    assert v5["default"].pip_options == ("--index-url https://pypi.org/simple",)
    v4 = read_pixi_lock((PIXI / "v4-pixi.lock").read_text(), "pixi.lock")
    bz = [(p.platform, p.build, p.depends) for p in v4.packages if p.name == "bzip2"]
    assert bz == [
        ("linux-64", "h7f98852_4", (("libgcc-ng", ">=9.3.0"),)),
        ("win-64", "h8ffe710_4", (("vc", ">=14.1,<15.0a0"), ("vs2015_runtime", ">=14.16.27012"))),
    ]


@pytest.mark.parametrize("name", LEGACY)
def test_cli_reads_legacy_pixi_locks(name, envkit_cli):
    r = envkit_cli("validate", str(PIXI / name))
    assert r.exit_code == 0, r.stdout + r.stderr
    r = envkit_cli("diff", str(PIXI / name), str(PIXI / name))
    assert r.exit_code == 0 and "Same: no differences" in r.stdout


def test_conda_lock_format_on_a_v4_pixi_lock_says_what_it_is(envkit_cli):
    r = envkit_cli("validate", "--format", "conda-lock", str(PIXI / "v4-pixi.lock"))
    assert r.exit_code == 2
    assert "v4-pixi.lock:1: this is a pixi.lock (version 4), not a conda-lock file" in r.stdout + r.stderr


def test_a_bad_digest_in_a_v3_pixi_lock_is_refused():
    text = (PIXI / "v3-pixi.lock").read_text().replace("md5: d7c89558ba9fa0495403155b64376d81", "md5: abc")
    with pytest.raises(ParseError) as err:
        read_pixi_lock(text, "pixi.lock")
    assert (err.value.where.line, err.value.where.key) == (26, "package[0].hash.md5")
