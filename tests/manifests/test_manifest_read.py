"""pixi.toml, pyproject.toml with [tool.pixi], and pyproject.toml with [project] / [dependency-groups] /
[tool.uv], read as specs: every real manifest of tests/data/manifests, and the errors a manifest's
typo, a Cargo.toml or a settings-only pyproject.toml get."""

import pytest
from conftest import DATA, run_envkit

from envkit import formats
from envkit.errors import EnvironmentNotFound, ParseError
from envkit.formats._tomllines import key_lines
from envkit.formats.pixitoml import read_manifest

MANIFESTS = DATA / "manifests"
WS = '[workspace]\nchannels = ["conda-forge"]\nplatforms = ["linux-64"]\n'

#: folder -> (manifest file, detected format, conda entries, pip entries, platforms) of the default
#: environment
EXPECTED = {
    "pixi-find-links": ("pixi.toml", "pixi-manifest", 1, 1, 4),
    "pixi-geos-rs": ("pixi.toml", "pixi-manifest", 3, 0, 4),
    "pixi-multi-env": ("pixi.toml", "pixi-manifest", 1, 0, 3),
    "pyproject-pixi-docker": ("pyproject.toml", "pixi-manifest", 3, 1, 3),
    "pyproject-pixi-readthedocs": ("pyproject.toml", "pixi-manifest", 1, 0, 4),
    "stale-pixi-geos-rs": ("pixi.toml", "pixi-manifest", 3, 0, 4),
    "stale-pyproject-pixi-docker": ("pyproject.toml", "pixi-manifest", 4, 1, 3),
    "stale-uv-docker": ("pyproject.toml", "pyproject", 0, 3, 0),
    "stale-uv-fastapi": ("pyproject.toml", "pyproject", 0, 1, 0),
    "uv-docker": ("pyproject.toml", "pyproject", 0, 3, 0),
    "uv-docker-groups": ("pyproject.toml", "pyproject", 0, 3, 0),
    "uv-fastapi": ("pyproject.toml", "pyproject", 0, 1, 0),
    "uv-nanochat": ("pyproject.toml", "pyproject", 0, 9, 0),
    # PDM projects: [project] and [tool.pdm.dev-dependencies] (installed by default) read
    "pdm-coordfill": ("pyproject.toml", "pyproject", 0, 6, 0),
    "pylock-raspiaprs": ("pyproject.toml", "pyproject", 0, 7, 0),
    "stale-pylock-raspiaprs": ("pyproject.toml", "pyproject", 0, 7, 0),
    "pdm-degan": ("pyproject.toml", "pyproject", 0, 4, 0),
}


PIXI_CASES = sorted(MANIFESTS.glob("pixi-satisfiability/*/*"))


def test_the_corpus_is_the_expected_one():
    assert sorted(p.name for p in MANIFESTS.iterdir() if p.is_dir()) == sorted(
        [*EXPECTED, "pixi-satisfiability"]
    )
    assert len(PIXI_CASES) == 57


@pytest.mark.parametrize("case", PIXI_CASES, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_every_manifest_of_pixis_satisfiability_cases_reads(case):
    path = case / "pixi.toml" if (case / "pixi.toml").exists() else case / "pyproject.toml"
    assert formats.detect_format(path.read_text()) == "pixi-manifest"
    m = read_manifest(path.read_text(), str(path))
    assert "default" in m.environments


@pytest.mark.parametrize("folder", sorted(EXPECTED))
def test_every_real_manifest_reads(folder):
    name, fmt, conda, pip, platforms = EXPECTED[folder]
    path = MANIFESTS / folder / name
    text = path.read_text()
    assert formats.detect_format(text, str(path)) == fmt
    assert formats.detect_format(text) == fmt  # by content alone
    spec = formats.read_file(path)
    assert (len(spec.conda), len(spec.pip), len(spec.platforms)) == (conda, pip, platforms)


def test_a_pixi_manifest_is_read_as_its_entries():
    spec = formats.read_file(MANIFESTS / "stale-pixi-geos-rs" / "pixi.toml")
    assert [(d.name, d.version, d.line) for d in spec.conda] == [
        ("geos", ">=3.13.1,<4", 10),
        ("pkg-config", ">=0.29.2,<0.30", 11),
        ("rust", ">=1.87.0,<1.88", 12),
    ]
    assert [c.name for c in spec.channels] == ["conda-forge"]
    assert spec.platforms == ("linux-64", "osx-64", "osx-arm64", "win-64")


def test_environments_features_and_inline_environments():
    path = MANIFESTS / "pixi-multi-env" / "pixi.toml"
    m = read_manifest(path.read_text(), str(path))
    assert list(m.environments) == ["default", "py312", "py313"]
    got = {
        e: sorted(x.spec for x in m.requested(m.environment(e), "linux-64").values()) for e in m.environments
    }
    assert got == {
        "default": ["cowpy 1.1.*"],
        "py312": ["cowpy 1.1.*", "python 3.12.*"],
        "py313": ["cowpy 1.1.*", "python 3.13.*"],
    }
    spec = formats.read_file(path, environment="py313")
    assert [d.spec() for d in spec.conda] == ["cowpy=1.1", "python=3.13"]


def test_pyproject_tool_pixi_features_and_editable_path():
    path = MANIFESTS / "pyproject-pixi-docker" / "pyproject.toml"
    m = read_manifest(path.read_text(), str(path))
    assert m.environment("prod").features == ("prod",)
    prod = m.requested(m.environment("prod"), "linux-64")
    assert sorted(prod) == [("conda", "flask"), ("conda", "gunicorn"), ("pypi", "docker-project")]
    dev = m.requested(m.environment("default"), "linux-64")[("pypi", "docker-project")]
    assert (dev.source, dev.editable, dev.line) == (".", True, 31)


def test_target_tables_win_on_their_platforms(tmp_path):
    path = tmp_path / "pixi.toml"
    path.write_text(
        '[workspace]\nchannels = ["conda-forge"]\nplatforms = ["linux-64", "win-64"]\n\n'
        '[dependencies]\npython = "3.12.*"\n\n[target.unix.dependencies]\npython = "3.11.*"\n'
        '[target.win-64.pypi-dependencies]\npywin32 = ">=306"\n'
    )
    m = read_manifest(path.read_text(), str(path))
    env = m.environment(None)
    assert sorted(e.spec for e in m.requested(env, "linux-64").values()) == ["python 3.11.*"]
    assert sorted(e.spec for e in m.requested(env, "win-64").values()) == ["python 3.12.*", "pywin32>=306"]
    assert [d.name for d in formats.read_file(path).conda] == []  # python differs by platform


def test_pyproject_groups_include_group_and_default_groups(tmp_path):
    path = tmp_path / "pyproject.toml"
    path.write_text(
        '[project]\nname = "p"\nversion = "1"\ndependencies = ["numpy>=2"]\n\n'
        '[project.optional-dependencies]\ngpu = ["cupy"]\n\n'
        '[dependency-groups]\nlint = ["ruff"]\ndev = [\n  "pytest>=8",\n  { include-group = "lint" },\n]\n'
    )
    assert [d.text for d in formats.read_file(path).pip] == ["numpy>=2", "pytest>=8", "ruff"]
    assert [(d.text, d.line) for d in formats.read_file(path, environment="gpu").pip] == [
        ("numpy>=2", 4),
        ("cupy", 7),
    ]
    with pytest.raises(EnvironmentNotFound, match="no extra or dependency group 'docs'") as exc:
        formats.read_file(path, environment="docs")
    assert exc.value.hint == "one of: dev, gpu, lint"


@pytest.mark.parametrize(
    ("name", "text", "message"),
    [
        (
            "pixi.toml",
            f'{WS}\n[pypi-dependecies]\nrequests = "*"\n',
            "error: {path}:5 (pypi-dependecies): unknown key 'pypi-dependecies'\n"
            "hint: did you mean 'pypi-dependencies'?\n",
        ),
        (
            "pixi.toml",
            f"{WS}\n[dependencies]\nnumpy = 3\n",
            "error: {path}:6 (dependencies.numpy): conda dependency 'numpy' must be a version string "
            "or a table\n",
        ),
        (
            "pyproject.toml",
            '[project]\nname = "x"\ndependencies = [\n  "numpy>=2",\n  "torch=2.1",\n]\n',
            "error: {path}:5 (project.dependencies[1]): invalid requirement 'torch=2.1': ",
        ),
        (
            "pyproject.toml",
            '[project]\nname = "x"\noptional-dependences = {}\n',
            "error: {path}:3 (project.optional-dependences): unknown key 'optional-dependences'\n"
            "hint: did you mean 'optional-dependencies'?\n",
        ),
        (
            "pyproject.toml",
            "[tool.ruff]\nline-length = 100\n",
            "error: {path}: a pyproject.toml with no [project], [dependency-groups] or [tool.uv] table "
            "(top-level keys: tool)\n",
        ),
        (
            "Cargo.toml",
            '[package]\nname = "x"\nedition = "2021"\n\n[dependencies]\nserde = "1"\n',
            "error: {path}: a TOML file with no [project], [dependency-groups] or [tool.uv] table "
            "(top-level keys: dependencies, package)\n",
        ),
        (
            "pixi.toml",
            f"{WS}[dependencies]\nnumpy = = 1\n",
            "error: {path}:5: not valid TOML (pixi manifest): ",
        ),
    ],
)
def test_a_bad_manifest_is_named_with_file_line_and_key(tmp_path, name, text, message):
    path = tmp_path / name
    path.write_text(text)
    r = run_envkit("validate", str(path))
    assert r.exit_code == 2
    assert r.stderr.startswith(message.format(path=path))
    assert "JSON" not in r.stderr


def test_a_toml_file_is_never_read_as_json():
    with pytest.raises(ParseError, match="no \\[project\\]"):
        formats.read_text('[package]\nname = "x"\n')


def test_key_lines_place_tables_keys_and_array_items():
    text = (
        '[project]\nname = "x"\ndependencies = [\n  "a>=1",  # why\n  "b",\n]\n'
        '[tool.pixi.dependencies]\npython = { version = "3.12.*" }\n"quoted.key" = "*"\n'
    )
    lines = key_lines(text)
    assert lines[("project", "dependencies", 0)] == 4
    assert lines[("project", "dependencies", 1)] == 5
    assert lines[("tool", "pixi", "dependencies", "python")] == 8
    assert lines[("tool", "pixi", "dependencies", "quoted.key")] == 9
