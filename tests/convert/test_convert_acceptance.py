"""The acceptance matrix: every corpus lock converted to every target, each output judged by the
real reader of its format, not by envkit's read-back: conda-lock's parser (conda-lock.yml),
py-rattler's LockFile for every environment and platform (pixi.lock v6/v7), packaging's PEP 751
validation (pylock.toml) and PEP 508 parser with every marker evaluated (requirements.txt),
cyclonedx-python-lib's JSON validator (SBOM).  Each cell is accepted, or refused by envkit with an
error (exit 2, documented in docs/commands/convert.md): the matrix counts both, and nothing else."""

from __future__ import annotations

import json

import pytest
import tomllib
from conftest import CORPUS, run_envkit

#: one corpus file per format and pattern (each costs its six conversions and readers; the corpus
#: test converts every lock): conda-lock.yml, an explicit file, pixi.lock with one, several and an
#: empty default environment, uv.lock with groups and a fork, pylock.toml with and without
#: dependency-group markers
SOURCES = [
    "51_Cecca__repro-course-ci__conda-lock.yml",
    "45_ctrahey__m1-tensorflow-config__conda-explicit.txt",
    "57_1235467__SaltMPRIS__pixi.lock",
    "58_16bit-ykiko__about-me__pixi.lock",
    "79_prefix-dev__pixi__pixi.lock",
    "81_pallets__markupsafe__uv.lock",
    "82_pallets__click__uv.lock",
    "83_HafiziRuslan__raspiaprs__pylock.toml",
    "86_Five-Colleges-Incorporated__ldlite__pylock.maximal.toml",
]
_ONE_ENV = ("conda-lock", "pylock", "requirements", "cyclonedx")
#: (file number, target): the documented refusals, each a part of its error's first line
REFUSED = {
    **{("58", t): "pixi.lock environment 'default' has no packages" for t in _ONE_ENV},
    **{("79", t): "the pixi.lock has 2 environments" for t in _ONE_ENV},
    ("86", "requirements"): "under markers on `extras` or `dependency_groups`",
}
NAMES = {
    "conda-lock": "conda-lock.yml",
    "pixi": "pixi.lock",
    "pixi-v7": "pixi.lock",
    "pylock": "pylock.toml",
    "requirements": "requirements.txt",
    "cyclonedx": "bom.cdx.json",
}


def _judge(target: str, path) -> None:
    """Raise unless the real reader of `target` accepts the file at `path`."""
    if target == "conda-lock":
        from conda_lock.lockfile import parse_conda_lock_file

        parse_conda_lock_file(path)
    elif target.startswith("pixi"):
        from rattler import LockFile

        for _name, env in LockFile.from_path(path).environments():
            for plat in env.platforms():
                env.packages(plat)
    elif target == "pylock":
        from packaging.pylock import Pylock

        Pylock.from_dict(tomllib.loads(path.read_text()))
    elif target == "requirements":
        from packaging.markers import default_environment
        from packaging.requirements import Requirement

        for line in path.read_text().replace("\\\n", " ").splitlines():
            line = line.split(" --hash", 1)[0].strip()
            if not line or line.startswith(("#", "--", "-e ")):
                continue
            req = Requirement(line)
            if req.marker is not None:
                req.marker.evaluate(default_environment())
    elif target == "cyclonedx":
        from cyclonedx.schema import SchemaVersion
        from cyclonedx.validation.json import JsonStrictValidator

        assert JsonStrictValidator(SchemaVersion.V1_6).validate_str(path.read_text()) is None


@pytest.mark.parametrize("name", SOURCES)
def test_every_output_is_accepted_by_its_reader_or_refused(tmp_path, name):
    from envkit.formats import read_file

    src = CORPUS / name
    plats = getattr(read_file(src), "platforms", ()) or ("linux-64",)
    plat = "linux-64" if "linux-64" in plats else plats[0]
    cells = {}
    for target, fname in NAMES.items():
        out = tmp_path / target / fname
        out.parent.mkdir()
        r = run_envkit(
            "convert", str(src), "-o", str(out), "--to", target, "--platform", plat, "--allow-loss"
        )
        why = REFUSED.get((name.split("_", 1)[0], target))
        if why is not None:
            assert r.exit_code == 2 and why in r.stderr.splitlines()[0], r.stderr
            assert not out.exists()
            cells[target] = "refused"
            continue
        assert r.exit_code == 0, r.stderr
        _judge(target, out)
        cells[target] = "accepted"
    assert len(cells) == len(NAMES)
    (tmp_path.parent / f"cells-{name}.json").write_text(json.dumps(cells))  # for counting
