"""Files across the boundary, against a real conda: conda accepts every file envkit writes (and what
it makes diffs Same against the source prefix), and envkit reads every file `conda export --format`
writes (and diffs it Same against the prefix).  Skipped, saying why, without a real conda.
"""
from __future__ import annotations

import pytest

from support.oraclefamily import family  # noqa: F401

CONDA_FORMATS = ("environment-yaml", "environment-json", "explicit", "requirements", "conda-lock-v1",
                 "rattler-lock-v6")
#: envkit cannot read these conda 26.7.1 exports yet (envkit/formats): asserted, so a fix shows
READER_GAPS = {
    "environment-json": "envkit does not detect conda's JSON environment (it reads it with --input-format env)",
    "requirements": "conda 26's requirements export is MatchSpec lines (`main::bn==1.0=h0_7`), which envkit "
                    "reads neither as pip requirements nor as `conda list --export`",
}


@pytest.fixture(scope="module")
def conda(real_conda, tmp_path_factory):
    return real_conda.isolated(tmp_path_factory.mktemp("conda-files"))


def _same(envkit_cli, a, b, n: int):
    r = envkit_cli("diff", str(a), str(b))
    assert r.exit_code == 0, r.stdout + r.stderr
    assert r.stdout.endswith(f"Same: no differences ({n} packages compared).\n")


@pytest.mark.parametrize("fmt", CONDA_FORMATS)
def test_envkit_reads_what_conda_exports(envkit_cli, conda, family, tmp_path, fmt):
    """On the one-channel 320-package prefix every readable export is Same.  (With several channels
    conda's exports list them by package count, which `envkit diff` reports as a priority change.)"""
    prefix = family.prefixes["big"]
    out = tmp_path / f"export-{fmt}"
    conda.run("export", "-p", prefix, "--format", fmt, "-f", out)
    if fmt in READER_GAPS:
        r = envkit_cli("diff", str(prefix), str(out))
        assert r.exit_code == 2 and r.stderr.startswith(f"error: {out}"), (READER_GAPS[fmt], r.stderr)
        pytest.xfail(READER_GAPS[fmt])
    _same(envkit_cli, prefix, out, 320)


def test_conda_exports_of_several_channels_differ_only_in_channel_order(envkit_cli, conda, family, tmp_path):
    prefix = family.prefixes["conda-only"]
    for fmt in ("environment-yaml", "explicit", "conda-lock-v1", "rattler-lock-v6"):
        out = tmp_path / f"export-{fmt}"
        conda.run("export", "-p", prefix, "--format", fmt, "-f", out)
        r = envkit_cli("diff", str(prefix), str(out))
        if fmt == "explicit":  # an explicit file has no channel list
            assert r.exit_code == 0 and r.stdout.endswith("Same: no differences (14 packages compared).\n"), r.stdout
            continue
        assert r.exit_code == 1 and r.stdout.endswith("Different: channels differ.\n"), (fmt, r.stdout)
        assert "the shared channels are in a different order (priority)" in r.stdout


def test_conda_creates_from_envkits_explicit_file(envkit_cli, conda, family, tmp_path):
    prefix = family.prefixes["conda-only"]
    for digest in ("md5", "sha256"):
        f = tmp_path / f"explicit-{digest}.txt"
        assert envkit_cli("export", "-p", str(prefix), "--format", "explicit", "--hash", digest,
                          "-o", str(f)).exit_code == 0
        made = conda.create_from_file(tmp_path / f"from-explicit-{digest}", f)
        _same(envkit_cli, prefix, made, 14)


def test_conda_creates_from_envkits_environment_yml(envkit_cli, conda, family, tmp_path):
    prefix = family.prefixes["conda-only"]
    f = tmp_path / "environment.yml"
    assert envkit_cli("export", "-p", str(prefix), "-o", str(f)).exit_code == 0
    made = conda.create_from_file(tmp_path / "from-yml", f)
    _same(envkit_cli, prefix, made, 14)


def test_conda_creates_from_envkits_conda_lock(envkit_cli, conda, family, tmp_path):
    prefix = family.prefixes["big"]
    f = tmp_path / "conda-lock.yml"
    assert envkit_cli("lock", "-p", str(prefix), "--no-env-lock", "-o", str(f)).exit_code == 0
    made = conda.create_from_file(tmp_path / "from-lock", f)
    _same(envkit_cli, prefix, made, 320)
