"""`envkit lock -f` on the spec forms people write: every conda dependency of every environment file
in the corpus, locked through the CLI against local channels that hold matching packages.

py-rattler's `solve()` reads spec strings strictly and refused `name=1.26.4=py311h_0` (every line of
`conda env export`), `name=*=*openblas`, `name=2.8.*=cuda*`; envkit now hands it MatchSpecs read
as conda reads them.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest
from conftest import corpus_files, corpus_text, known_wrong
from support.specchannel import channels_for_spec, localize, spec_forms

ENV_FILES = [p for p in corpus_files() if p.suffix in (".yml", ".yaml")]

#: environment files envkit refuses today (strict xfail; drop the entry once it reads them)
KNOWN_WRONG: dict[str, str] = {}


def _lockable(path: Path):
    from envkit.formats import read_file
    from envkit.model import EnvSpec

    spec = read_file(str(path))
    return spec if isinstance(spec, EnvSpec) and spec.conda else None


@pytest.mark.parametrize("path", known_wrong(ENV_FILES, KNOWN_WRONG), ids=lambda p: p.name[:40])
def test_every_corpus_spec_locks_through_the_cli(path, tmp_path, envkit_cli):
    from envkit.formats.condalock import read_conda_lock

    spec = _lockable(path)
    if spec is None:
        pytest.skip("not an environment file with conda dependencies")
    built = channels_for_spec(tmp_path / "channels", spec)
    assert built.unsatisfiable == {}
    local = tmp_path / path.name
    local.write_text(localize(corpus_text(path), built.channels))
    out = tmp_path / "conda-lock.yml"
    r = envkit_cli("lock", "-f", str(local), "--platform", "linux-64", "--no-pip", "-o", str(out))
    assert r.exit_code == 0, r.stderr
    lock = read_conda_lock(out.read_text(), str(out))
    got = {p.name: (p.version, p.build) for p in lock.packages if p.manager == "conda"}
    assert got == built.packages


def test_the_corpus_covers_the_build_string_forms():
    forms = Counter()
    for path in ENV_FILES:
        if path.name.split("_", 1)[0] in KNOWN_WRONG:
            continue
        spec = _lockable(path)
        if spec is not None:
            forms.update(spec_forms(spec.conda))
    # the forms the issue names are all there, in numbers (`conda env export` lines dominate)
    assert forms["name=V=B"] > 1000
    assert {"name", "name=V", "name==V", "name OP V", "chan::name=V", "chan::name"} <= set(forms)


@pytest.mark.parametrize(
    "line,version,build",
    [
        ("numpy=1.26.4=py311h64a7726_0", "1.26.4", "py311h64a7726_0"),
        ("libblas=*=*openblas", None, "openblas"),
        ("numpy[build=py312*]", None, "py312"),
        ("pytorch=2.8.*=cuda*", "2.8", "cuda"),
        ("numpy >=1.2 py311*", "1.2", "py311"),
        ("numpy[version='>=1.2',build='py3*']", "1.2", "py3"),
        ("numpy 1.26.*", "1.26", None),
    ],
)
def test_build_string_forms_lock(line, version, build, tmp_path, envkit_cli):
    from envkit.formats import read_text
    from envkit.formats.condalock import read_conda_lock

    text = f"name: t\nchannels:\n  - conda-forge\ndependencies:\n  - {line}\n"
    spec = read_text(text, filename="environment.yml")
    built = channels_for_spec(tmp_path / "ch", spec)
    name = spec.conda[0].name
    v, b = built.packages[name]
    assert (version is None or v.startswith(version)) and (build is None or b.startswith(build))
    env = tmp_path / "environment.yml"
    env.write_text(localize(text, built.channels))
    r = envkit_cli("lock", "-f", str(env), "--platform", "linux-64", "-o", str(tmp_path / "l.yml"))
    assert r.exit_code == 0, r.stderr
    lock = read_conda_lock((tmp_path / "l.yml").read_text(), "l.yml")
    assert [(p.name, p.version, p.build) for p in lock.packages] == [(name, v, b)]


def test_a_build_that_no_package_has_names_the_spec_not_the_network(tmp_path, envkit_cli):
    from support.condafactory import ChannelBuilder, Pkg

    chan = ChannelBuilder(tmp_path / "ch").add(Pkg(name="numpy", version="1.26.4", build="py312h0_0")).index()
    env = tmp_path / "environment.yml"
    env.write_text(f"channels: [{chan.url}]\ndependencies:\n  - numpy=1.26.4=py311h64a7726_0\n")
    r = envkit_cli("lock", "-f", str(env), "--platform", "linux-64", "-o", str(tmp_path / "l.yml"))
    assert r.exit_code == 2
    # blamed at the entry's line, as `FILE:LINE`
    assert r.stderr.startswith(f"error: {env}:3: linux-64: cannot solve numpy=1.26.4=py311h64a7726_0: ")
    assert "No candidates were found for numpy ==1.26.4 py311h64a7726_0" in r.stderr
    assert "network" not in r.stderr and "is not valid" not in r.stderr
    assert not (tmp_path / "l.yml").exists()


def test_an_unreachable_channel_is_the_one_error_with_a_network_hint(tmp_path, envkit_cli):
    env = tmp_path / "environment.yml"
    missing = (tmp_path / "nowhere").as_uri()
    env.write_text(f"channels: [{missing}]\ndependencies:\n  - numpy=1.26.4=py311h64a7726_0\n")
    r = envkit_cli("lock", "-f", str(env), "--platform", "linux-64", "-o", str(tmp_path / "l.yml"))
    assert r.exit_code == 2
    assert "cannot fetch the channels' repodata" in r.stderr
    assert f"hint: channels tried, in order: {missing}" in r.stderr
