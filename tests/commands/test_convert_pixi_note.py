"""`envkit convert` to a pixi.lock with pypi packages says, as `envkit lock` does, that conda creates
from it the conda packages only (envkit.commands._lock_files.CONDA_SKIPS_PYPI).  `envkit export`
writes no pixi.lock (tests/convert/test_output_names.py: the name is refused), so it has no note."""

from __future__ import annotations

from conftest import CORPUS

from envkit.commands._lock_files import CONDA_SKIPS_PYPI

#: pixi.lock of 43ravens/NEMO_Nowcast (tests/data/corpus/INDEX.tsv): seven environments, pypi wheels
#: plus an editable path package without a version (left out of a v6 pixi.lock, kept by v7; conda
#: 26.7.1 refuses a version 7 file whole: "Input should be less than or equal to 6")
NEMO = CORPUS / "59_43ravens__NEMO_Nowcast__pixi.lock"


def _pypi_names(path) -> list[str]:
    from envkit.formats.pixilock import read_pixi_environments

    envs = read_pixi_environments(path.read_text(encoding="utf-8"))
    return sorted({p.name for lk in envs.values() for p in lk.packages if p.manager == "pip"})


def test_convert_to_a_pixi_lock_with_pypi_packages_says_conda_leaves_them_out(envkit_cli, tmp_path):
    out = tmp_path / "pixi.lock"
    r = envkit_cli("convert", str(NEMO), "-o", str(out))
    assert r.exit_code == 1, r.stderr  # the versionless editable package is dropped from a v6 file
    assert _pypi_names(out) == ["commonmark", "readthedocs-sphinx-ext", "recommonmark"]
    assert r.stderr.splitlines()[0] == "note: " + CONDA_SKIPS_PYPI.format(
        names="commonmark, readthedocs-sphinx-ext, recommonmark"
    )


def test_no_note_on_a_pixi_v7_lock_that_conda_refuses_whole(envkit_cli, tmp_path):
    out = tmp_path / "env.lock"
    r = envkit_cli("convert", str(NEMO), "-o", str(out), "--to", "pixi-v7", "--allow-loss")
    assert r.exit_code == 0, r.stderr
    assert _pypi_names(out) == ["commonmark", "nemo-nowcast", "readthedocs-sphinx-ext", "recommonmark"]
    assert "leaves out its pypi packages" not in r.stderr, r.stderr


def test_no_note_without_pypi_packages_or_for_another_target(envkit_cli, tmp_path):
    conda_only = CORPUS / "60_prefix-dev__pixi__pixi.lock"
    r = envkit_cli("convert", str(conda_only), "-o", str(tmp_path / "pixi.lock"))
    assert r.exit_code == 0 and "leaves out its pypi packages" not in r.stderr, r.stderr
    out = tmp_path / "conda-lock.yml"  # its docs environment's pypi wheels, as `manager: pip`
    r = envkit_cli("convert", str(NEMO), "-e", "docs", "-o", str(out), "--allow-loss")
    assert r.exit_code == 0 and out.read_text().count("manager: pip") == 6, r.stderr
    assert "leaves out its pypi packages" not in r.stderr, r.stderr
