"""envkit export vs a real conda, over the prefix family (tests/support/oraclefamily.py).

Each test runs the same question through `envkit export` and through conda 26.7.1 on the same prefix
and compares the answers; each deliberate difference is asserted as that difference (and listed in
docs/comparison.md).  Skipped, saying why, when there is no real conda (tests/support/realconda.py).
"""

from __future__ import annotations

import json

import pytest
import yaml
from rattler import MatchSpec

EXPORTED = ("conda-only", "pip", "no-history", "token", "big")


@pytest.fixture(scope="module")
def conda(real_conda, tmp_path_factory):
    return real_conda.isolated(tmp_path_factory.mktemp("conda-export"))


def _envkit_yaml(envkit_cli, prefix, *args):
    r = envkit_cli("export", "-p", str(prefix), *args)
    assert r.exit_code == 0, r.stderr
    return yaml.safe_load(r.stdout), r.stderr


def _pins(deps) -> set[tuple[str, str, str]]:
    out = set()
    for d in deps:
        if isinstance(d, str):
            head = d.rpartition("::")[2]
            name, version, build = head.split("=")
            out.add((name, version, build))
    return out


def _pip(deps) -> list[str]:
    return next((d["pip"] for d in deps if isinstance(d, dict)), [])


@pytest.mark.parametrize("which", EXPORTED)
def test_export_has_conda_env_exports_packages(envkit_cli, conda, family, which):
    prefix = family.prefixes[which]
    theirs = yaml.safe_load(conda.run("env", "export", "-p", prefix).stdout)
    ours, _ = _envkit_yaml(envkit_cli, prefix)
    assert _pins(ours["dependencies"]) == _pins(theirs["dependencies"])
    assert len(_pins(ours["dependencies"])) >= (320 if which == "big" else 14)
    # deliberate differences: no prefix:, every package keeps its channel, channels in priority order
    assert theirs["prefix"] == str(prefix) and "prefix" not in ours
    assert all("::" in d for d in ours["dependencies"] if isinstance(d, str))
    assert not any("::" in d for d in theirs["dependencies"] if isinstance(d, str))
    if which in ("conda-only", "pip"):
        assert ours["channels"] == family.channels  # -c extra -c main: extra first
        assert theirs["channels"] == [family.main.url, family.extra.url]  # conda: by package count
    if which == "token":
        # both drop the token and keep the anaconda.org channel's name
        assert "private" in theirs["channels"] and "abc-123" not in json.dumps(theirs)
        assert "private::six=1.16.0=pyh6c4a22f_0" in ours["dependencies"] and "abc-123" not in json.dumps(
            ours
        )


def test_export_pip_section_vs_conda(envkit_cli, conda, family):
    prefix = family.prefixes["pip"]
    theirs = _pip(yaml.safe_load(conda.run("env", "export", "-p", prefix).stdout)["dependencies"])
    ours = _pip(_envkit_yaml(envkit_cli, prefix)[0]["dependencies"])
    assert theirs == ["edpkg==0.1", "tinyreq==2.0", "urlpkg==1.1", "vcspkg==0.3"]
    # the same four projects; envkit writes where each came from (deliberate)
    assert ours == [
        f"-e {family.root / 'src' / 'edpkg'}",
        "tinyreq==2.0",
        f"urlpkg @ {(family.root / 'wheels' / 'url' / 'urlpkg-1.1-py3-none-any.whl').as_uri()}",
        "vcspkg @ git+https://github.com/example/vcspkg.git@" + "a" * 40,
    ]


def _specs(deps) -> set[str]:
    return {str(MatchSpec(d.rpartition("::")[2])) for d in deps if isinstance(d, str)}


@pytest.mark.parametrize("which", ["conda-only", "pip", "big", "no-history"])
def test_from_history_vs_conda(envkit_cli, conda, family, which):
    prefix = family.prefixes[which]
    theirs = yaml.safe_load(conda.run("env", "export", "-p", prefix, "--from-history").stdout)
    ours, err = _envkit_yaml(envkit_cli, prefix, "--from-history")
    if which == "no-history":
        # no conda-meta/history: conda falls back to every installed package, pinned, and so does envkit
        assert _pins(ours["dependencies"]) == _pins(theirs["dependencies"])
        assert len(_pins(ours["dependencies"])) == 14
        assert err == (
            f"warning: {prefix} records no requested specs (no conda-meta/history entries): "
            "--from-history pins every installed package, as conda does\n"
        )
        return
    assert _specs(ours["dependencies"]) == _specs(theirs["dependencies"])
    assert err == ""
    if which == "conda-only":
        assert _specs(ours["dependencies"]) == {
            "python 3.11.*",
            "numpy",
            "pip",
            "requests",
            "libblas 3.9.0.* *openblas",
            "bn",
            "six",
            "tool",
        }
        # deliberate: envkit keeps the history's -c channels; conda's --from-history has none
        assert ours["channels"] == family.channels and "channels" not in theirs
    if which == "pip":  # deliberate: envkit keeps the pip packages, conda's --from-history drops them
        assert len(_pip(ours["dependencies"])) == 4 and _pip(theirs["dependencies"]) == []


def _explicit(text: str) -> list[str]:
    return sorted(line for line in text.splitlines() if line and not line.startswith(("#", "@")))


@pytest.mark.parametrize("which", ["conda-only", "pip", "big"])
@pytest.mark.parametrize("digest", ["md5", "sha256"])
def test_explicit_vs_conda_list_explicit(envkit_cli, conda, family, which, digest):
    prefix = family.prefixes[which]
    theirs = _explicit(conda.run("list", "-p", prefix, "--explicit", f"--{digest}").stdout)
    r = envkit_cli("export", "-p", str(prefix), "--format", "explicit", "--hash", digest)
    assert r.exit_code == 0, r.stderr
    # conda writes a sha256 as the bare hex digest after `#`; envkit as `sha256:HEX`, which conda
    # also reads (deliberate: unambiguous with md5)
    ours = [line.replace("#sha256:", "#") for line in _explicit(r.stdout) if not line.startswith("# pip ")]
    assert ours == theirs and len(ours) >= 14


@pytest.mark.parametrize("which", ["conda-only", "pip", "big"])
def test_json_vs_conda_list_json(envkit_cli, conda, family, which):
    prefix = family.prefixes[which]
    theirs = {e["name"]: e for e in conda.json("list", "-p", prefix, "--json")}
    r = envkit_cli("export", "-p", str(prefix), "--format", "json")
    assert r.exit_code == 0, r.stderr
    ours = {p["name"]: p for p in json.loads(r.stdout)["packages"]}
    assert set(ours) == set(theirs)
    for name, p in ours.items():
        c = theirs[name]
        if p["manager"] == "pip":
            assert (c["channel"], c["version"]) == ("pypi", p["version"])
            continue
        assert (p["version"], p["build"], p["build_number"], p["subdir"]) == (
            c["version"],
            c["build_string"],
            c["build_number"],
            c["platform"],
        ), name
        assert p["channel"] == c["base_url"], name
    if which == "conda-only":
        assert (ours["libblas"]["build_number"], ours["bn"]["build_number"]) == (22, 3)
