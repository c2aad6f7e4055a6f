"""envkit's conda plugin (envkit/conda_plugin.py) inside the real conda 26.7.1: conda discovers it
through the `conda` entry point of an installed envkit (tests/support/condaplugin.py), exports
pixi.lock v7, pylock.toml and CycloneDX, and creates prefixes from a v7 pixi.lock that `envkit diff`
calls the same as the prefix exported.  Skipped, saying why, without a real conda.

Every `conda create` of a lock with pypi packages runs with PIP_TARGET at the new prefix's
site-packages: the prefixes' `python` (tests/support/condafactory.py) is this interpreter, whose pip
would otherwise install into the test venv.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from support.condafactory import ChannelBuilder, Pkg, build_wheel, copy_prefix, make_prefix, pip_install
from support.sbomschema import validate_sbom

FORMATS_HELP = (
    "- cyclonedx (aliases: sbom): *.cdx.json, *.cyclonedx.json, bom.json, sbom.json",
    "- pixi-lock-v7 (aliases: rattler-lock-v7)",
    "- pylock (aliases: pylock-toml): pylock.toml, pylock.*.toml",
)


@pytest.fixture(scope="module")
def work(plugin_conda, family, tmp_path_factory):
    """The family's conda-only prefix, a copy with two pip packages installed from wheel files, and
    an isolated conda for each."""
    root = tmp_path_factory.mktemp("plugin")
    pipd = copy_prefix(family.prefixes["conda-only"], root / "pipd")
    wheels = root / "wheels"
    pip_install(pipd, build_wheel(wheels, "tinydep", "1.0"), direct=True)
    pip_install(pipd, build_wheel(wheels, "usesdep", "2.1", requires=["tinydep>=1"]), direct=True)
    return {"root": root, "conda": plugin_conda.isolated(root / "conda"), "pipd": pipd, "family": family}


def _diff(a: Path, b: Path) -> dict:
    from conftest import run_envkit

    r = run_envkit("diff", str(a), str(b), "--format", "json")
    assert r.exit_code in (0, 1), r.stderr
    return json.loads(r.stdout)


def _create(conda, prefix: Path, lock: Path, check: bool = True):
    env = conda.environ
    site = prefix / "lib" / "python3.11" / "site-packages"
    saved = dict(env)
    env.update(PIP_TARGET=str(site), PIP_NO_INDEX="1", PIP_CONFIG_FILE=os.devnull)
    try:
        return conda.run("create", "-y", "-q", "-p", prefix, "--file", lock, check=check)
    finally:
        env.clear()
        env.update(saved)


def test_conda_lists_envkit_formats(work):
    conda = work["conda"]
    out = conda.run("export", "--help").stdout
    for line in FORMATS_HELP:
        assert line in out
    # conda-lockfiles keeps pixi.lock (version 6): the v7 exporter claims no file name beside it
    assert "- rattler-lock-v6 (aliases: pixi, pixi-lock-v6): pixi.lock" in out
    create = conda.run("create", "--help").stdout
    assert "pixi-lock-v7 (aliases: rattler-lock-v7)" in create


def test_pixi_v7_export_then_create_is_the_same_prefix(work):
    conda, root = work["conda"], work["root"]
    src = work["family"].prefixes["conda-only"]
    lock = root / "conda-only.v7.lock"
    conda.run("export", "-p", src, "--format", "pixi-lock-v7", "-f", lock)
    text = lock.read_text()
    assert text.startswith("version: 7\nplatforms:\n- name: linux-64\n")
    assert text.count("      - conda: ") == 14
    # channel priority is the history's `-c extra -c main`, not conda's record order
    chans = re.findall(r"^    - url: (\S+)$", text, re.MULTILINE)
    assert chans == [work["family"].extra.url + "/", work["family"].main.url + "/"]
    # the alias writes the same file
    assert conda.run("export", "-p", src, "--format", "rattler-lock-v7").stdout == text

    new = _create(conda, root / "from-v7", lock) and root / "from-v7"
    d = _diff(src, new)
    assert d["same"] is True and d["a"]["packages"] == d["b"]["packages"] == 14


def test_pixi_v7_with_pip_packages_round_trips_through_conda_and_pip(work):
    conda, root = work["conda"], work["root"]
    lock = root / "pipd.v7.lock"
    r = conda.run("export", "-p", work["pipd"], "--format", "pixi-lock-v7", "-f", lock)
    assert "installed via pip" in r.stderr  # conda's own warning still shows
    text = lock.read_text()
    assert text.count("      - pypi: ") == 2 and '  name: usesdep\n  version: "2.1"\n' in text
    new = root / "from-v7-pip"
    _create(conda, new, lock)
    assert sorted(p.name for p in (new / "lib/python3.11/site-packages").glob("*dep-*.dist-info")) == [
        "tinydep-1.0.dist-info",
        "usesdep-2.1.dist-info",
    ]
    d = _diff(work["pipd"], new)
    assert d["same"] is True and d["b"]["packages"] == 16


def _tamper(text: str, entry: str) -> str:
    """`text` with the sha256 of the top-level `packages:` entry starting `entry` changed."""
    i = text.rindex(entry)
    j = text.index("  sha256: ", i) + len("  sha256: ")
    return text[:j] + "ab" * 32 + text[j + 64 :]


def test_create_refuses_an_artifact_whose_sha256_differs(work):
    conda, root, fam = work["conda"], work["root"], work["family"]
    lock = root / "conda-only.v7.lock"
    if not lock.exists():
        conda.run("export", "-p", fam.prefixes["conda-only"], "--format", "pixi-lock-v7", "-f", lock)
    bad = root / "bad-conda.lock"
    zlib = f"- conda: {fam.main.url}/linux-64/zlib-1.3.1-h4ab18f5_1.tar.bz2"
    bad.write_text(_tamper(lock.read_text(), zlib))
    r = _create(conda, root / "bad-conda", bad, check=False)
    assert r.returncode != 0
    assert f"{bad}: sha256 mismatch for {zlib[len('- conda: ') :]}: the lock says {'ab' * 32}" in r.stderr
    assert "Traceback" not in r.stderr + r.stdout
    assert not (root / "bad-conda" / "conda-meta").exists()


def test_create_refuses_a_wheel_whose_sha256_differs(work):
    conda, root = work["conda"], work["root"]
    lock = root / "pipd.v7.lock"
    if not lock.exists():
        conda.run("export", "-p", work["pipd"], "--format", "pixi-lock-v7", "-f", lock)
    bad = root / "bad-pip.lock"
    bad.write_text(_tamper(lock.read_text(), f"- pypi: {(root / 'wheels').as_uri()}/tinydep-1.0"))
    r = _create(conda, root / "bad-pip", bad, check=False)
    assert r.returncode != 0
    assert f"Expected sha256 {'ab' * 32}" in r.stderr and "CondaEnvException: Pip failed" in r.stderr
    assert not list((root / "bad-pip").glob("lib/python3.11/site-packages/tinydep*"))


def test_create_says_conda_cannot_install_pypi_packages_without_python(work, tmp_path):
    conda, fam = work["conda"], work["family"]
    lock = tmp_path / "nopython.lock"
    zlib = next(fam.main.root.glob("linux-64/zlib-*.tar.bz2"))
    lock.write_text(
        "version: 7\nplatforms:\n- name: linux-64\nenvironments:\n  default:\n    channels:\n"
        f"    - url: {fam.main.url}/\n    packages:\n      linux-64:\n"
        f"      - conda: {zlib.as_uri()}\n      - pypi: https://example.org/w/tiny-1.0-py3-none-any.whl\n"
        f"packages:\n- conda: {zlib.as_uri()}\n  sha256: {hashlib.sha256(zlib.read_bytes()).hexdigest()}\n"
        "- pypi: https://example.org/w/tiny-1.0-py3-none-any.whl\n  name: tiny\n  version: '1.0'\n"
        f"  sha256: {'cd' * 32}\n"
    )
    r = _create(conda, tmp_path / "new", lock, check=False)
    assert r.returncode != 0
    assert (
        f"{lock}: the lock has pypi packages for linux-64 (tiny) and conda installs them with pip, "
        "but the lock has no python or pip conda package to run it"
    ) in r.stderr
    assert "Traceback" not in r.stderr


def test_sbom_validates_and_lists_conda_and_pip_packages(work):
    conda, root = work["conda"], work["root"]
    out = root / "env.cdx.json"  # the file name picks the format
    conda.run("export", "-p", work["pipd"], "-f", out)
    text = out.read_text()
    validate_sbom(text)
    doc = json.loads(text)
    purls = sorted(c["purl"].split("?")[0] for c in doc["components"])
    assert len(purls) == 16
    assert "pkg:pypi/usesdep@2.1" in purls and "pkg:conda/zlib@1.3.1" in purls
    assert conda.run("export", "-p", work["pipd"], "--format", "sbom").stdout == text


def test_pylock_export_is_accepted_by_uv(work, tmp_path):
    conda = work["conda"]
    out = tmp_path / "pylock.toml"
    conda.run("export", "-p", work["pipd"], "-f", out)
    text = out.read_text()
    assert text.count("[[packages]]") == 2 and 'name = "usesdep"\nversion = "2.1"\n' in text
    uv = Path(sys.executable).parent / "uv"
    if not uv.exists():
        pytest.skip("uv (the test extra) is not installed beside this interpreter")
    env = dict(os.environ, UV_NO_CONFIG="1", UV_CACHE_DIR=str(tmp_path / "uv-cache"))
    venv = tmp_path / "venv"
    subprocess.run([uv, "venv", "-q", "--offline", "--python", sys.executable, venv], check=True, env=env)
    r = subprocess.run(
        [uv, "pip", "sync", "--dry-run", "--offline", "--python", venv / "bin" / "python", out],
        capture_output=True,
        text=True,
        env=env,
    )
    assert r.returncode == 0, r.stderr
    assert "Would install 2 packages" in r.stderr and " + usesdep==2.1" in r.stderr


@pytest.mark.parametrize("flag", ["--from-history", "--no-builds"])
@pytest.mark.parametrize("fmt", ["pixi-lock-v7", "pylock", "cyclonedx"])
def test_loose_options_are_refused_not_ignored(work, flag, fmt):
    r = work["conda"].run("export", "-p", work["pipd"], "--format", fmt, flag, check=False)
    assert r.returncode != 0
    assert f"{flag} does not apply to --format {fmt}" in r.stderr
    assert "Traceback" not in r.stderr


def test_exports_redact_the_channel_token(work):
    conda, token = work["conda"], work["family"].prefixes["token"]
    for fmt in ("pixi-lock-v7", "cyclonedx"):
        out = conda.run("export", "-p", token, "--format", fmt).stdout
        assert "abc-123" not in out
        assert "/t/<TOKEN>/private/noarch/six-" in out


def test_multiplatform_pixi_v7_solves_the_other_platform(plugin_conda, tmp_path):
    """`--platform` twice: one file, the other platform solved by conda from the prefix's history."""
    chan = ChannelBuilder(tmp_path / "chan", name="mp")
    chan.add(Pkg(name="pure", version="1.0", build="0", noarch="generic"))
    for sub in ("linux-64", "osx-arm64"):
        chan.add(Pkg(name="native", version="2.0", build="h0_0", subdir=sub, depends=["pure"]))
    chan.index()
    prefix = make_prefix(tmp_path / "env", [chan], ["native"], history=True)
    conda = plugin_conda.isolated(tmp_path / "conda")
    lock = tmp_path / "two.lock"  # a file: conda prints its solve's progress on stdout
    plats = ("--platform", "linux-64", "--platform", "osx-arm64")
    conda.run("export", "-p", prefix, "--format", "pixi-lock-v7", *plats, "-f", lock)
    out = lock.read_text()
    assert out.startswith("version: 7\nplatforms:\n- name: linux-64\n- name: osx-arm64\n")
    assert f"      - conda: {chan.url}/osx-arm64/native-2.0-h0_0.tar.bz2" in out
    # the noarch package is one entry shared by both platforms
    assert out.count(f"- conda: {chan.url}/noarch/pure-1.0-0.tar.bz2") == 3
    # pylock.toml is the prefix's pip packages: conda solves no pip packages for another platform
    r = conda.run("export", "-p", prefix, "--format", "pylock", "--platform", "osx-arm64", check=False)
    assert r.returncode != 0
    assert "--format pylock exports the pip packages installed in the prefix (linux-64)" in r.stderr


def _as_v5(v7: str) -> str:
    """A v7 pixi.lock written by envkit, in the layout of version 5 (tests/data/pixi/v5-pixi.lock):
    no `platforms:`, and each `packages:` entry `kind:` + `url:` with name, version, build, subdir."""
    out: list[str] = []
    lines = v7.splitlines()
    in_packages = False
    skip_platforms = False
    for line in lines:
        if line == "version: 7":
            out.append("version: 5")
            continue
        if line == "platforms:":
            skip_platforms = True
            continue
        if skip_platforms and line.startswith("- name: "):
            continue
        skip_platforms = False
        if line == "packages:":
            in_packages = True
        if in_packages and line.startswith("- conda: "):
            url = line[len("- conda: ") :]
            name, version, build = url.rsplit("/", 1)[1].removesuffix(".tar.bz2").rsplit("-", 2)
            out += [
                "- kind: conda",
                f"  name: {name}",
                f"  version: '{version}'",
                f"  build: {build}",
                f"  subdir: {url.rsplit('/', 2)[1]}",
                f"  url: {url}",
            ]
            continue
        if in_packages and line.startswith("- pypi: "):
            out += ["- kind: pypi", f"  url: {line[len('- pypi: ') :]}"]
            continue
        if in_packages and line.startswith("  subdir: "):
            continue  # written above (envkit writes it for file:// channels)
        out.append(line)
    return "\n".join(out) + "\n"


def test_create_from_a_v5_pixi_lock_conda_lockfiles_does_not_read(work):
    conda, root = work["conda"], work["root"]
    src = work["family"].prefixes["conda-only"]
    v7 = conda.run("export", "-p", src, "--format", "pixi-lock-v7").stdout
    lock = root / "conda-only.v5.lock"
    lock.write_text(_as_v5(v7))
    assert lock.read_text().startswith("version: 5\nenvironments:\n")
    new = root / "from-v5"
    _create(conda, new, lock)
    d = _diff(src, new)
    assert d["same"] is True and d["b"]["packages"] == 14


def test_create_from_a_real_v7_lock_says_why_its_pypi_part_cannot_be_installed(work, tmp_path):
    """A public pixi.lock (tests/data/corpus, INDEX.tsv): pixi installs the project itself (an editable
    `- pypi: .`) with uv; the lock has a python but no pip for conda's pip step."""
    from conftest import REPO

    lock = tmp_path / "nemo.lock"
    lock.write_text((REPO / "tests/data/corpus/59_43ravens__NEMO_Nowcast__pixi.lock").read_text())
    r = work["conda"].run("create", "--dry-run", "-p", tmp_path / "new", "--file", lock, check=False)
    assert r.returncode != 0
    assert (
        f"{lock}: the lock has pypi packages for linux-64 (nemo-nowcast) and conda installs them with "
        "pip, but the lock has no pip conda package to run it"
    ) in r.stderr
    assert "Traceback" not in r.stderr
