"""Files across the boundary, against a real conda: conda accepts every file envkit writes (and what
it makes diffs Same against the source prefix), and envkit reads every file `conda export --format`
writes (and diffs it Same against the prefix).  Skipped, saying why, without a real conda.
"""

from __future__ import annotations

import pytest

CONDA_FORMATS = (
    "environment-yaml",
    "environment-json",
    "explicit",
    "requirements",
    "conda-lock-v1",
    "rattler-lock-v6",
)


@pytest.fixture(scope="module")
def conda(real_conda, tmp_path_factory):
    return real_conda.isolated(tmp_path_factory.mktemp("conda-files"))


def _same(envkit_cli, a, b, n: int):
    r = envkit_cli("diff", str(a), str(b))
    assert r.exit_code == 0, r.stdout + r.stderr
    assert r.stdout.endswith(f"Same: no differences ({n} packages compared).\n")


@pytest.mark.parametrize("fmt", CONDA_FORMATS)
def test_envkit_reads_what_conda_exports(envkit_cli, conda, family, tmp_path, fmt):
    """On the one-channel 320-package prefix every export is Same, detected without --input-format.
    (With several channels conda's exports list them by package count, which `envkit diff` reports
    as a priority change.)  conda's `requirements` names each package's channel by its short name
    (`bigchan::big000==1.0=h000_0`), which conda itself reads as conda.anaconda.org/bigchan: that
    difference is asserted in test_conda_requirements_name_channels_by_short_name; here with
    --ignore-channels."""
    prefix = family.prefixes["big"]
    out = tmp_path / f"export-{fmt}"
    extra = ("--ignore-channels",) if fmt == "requirements" else ()
    conda.run("export", "-p", prefix, "--format", fmt, *extra, "-f", out)
    _same(envkit_cli, prefix, out, 320)


def test_conda_requirements_name_channels_by_short_name(envkit_cli, conda, family, tmp_path):
    """`conda export --format requirements` (MatchSpec lines, `bigchan::big000==1.0=h000_0`): the
    same 320 name/version/build, each from the channel named by the file:// channel's last path
    part; envkit reports each as `channel changed`, as it is: conda resolves `bigchan::` on its
    channel_alias (conda.anaconda.org/bigchan), not on file://.../bigchan."""
    import json

    prefix = family.prefixes["big"]
    out = tmp_path / "requirements.txt"
    conda.run("export", "-p", prefix, "--format", "requirements", "-f", out)
    assert "bigchan::big000==1.0=h000_0" in out.read_text().splitlines()
    r = envkit_cli("diff", "--format", "json", str(prefix), str(out))
    assert r.exit_code == 1, r.stdout + r.stderr
    d = json.loads(r.stdout)
    assert d["b"]["kind"] == "export" and len(d["changes"]) == 320
    url = family.big_channel.url
    for c in d["changes"]:
        assert c["kind"] == "channel" and (c["a"]["channel"], c["b"]["channel"]) == (url, "bigchan"), c
        assert (c["a"]["version"], c["a"]["build"]) == (c["b"]["version"], c["b"]["build"]), c


def test_conda_requirements_from_history_is_a_spec(envkit_cli, conda, family, tmp_path):
    """`--from-history` in conda's requirements format: the loose MatchSpecs (`python=3.11`,
    `libblas=3.9.0[build=*openblas]`, and `numpy`, which alone would also be a pip line: conda's
    header line says what the file is), read as a spec that the prefix satisfies."""
    prefix = family.prefixes["conda-only"]
    out = tmp_path / "spec.txt"
    conda.run("export", "-p", prefix, "--format", "requirements", "--from-history", "-f", out)
    assert [ln for ln in out.read_text().splitlines() if ln and not ln.startswith("#")] == [
        "python=3.11",
        "numpy",
        "pip",
        "requests",
        "libblas=3.9.0[build=*openblas]",
        "bn",
        "six",
        "tool",
    ]
    r = envkit_cli("diff", str(prefix), str(out))
    assert r.exit_code == 0, r.stdout + r.stderr
    assert "  ok  libblas" in r.stdout
    assert r.stdout.endswith("Same: every spec entry is satisfied.\n")


def test_conda_exports_of_several_channels_differ_only_in_channel_order(envkit_cli, conda, family, tmp_path):
    prefix = family.prefixes["conda-only"]
    for fmt in ("environment-yaml", "explicit", "conda-lock-v1", "rattler-lock-v6"):
        out = tmp_path / f"export-{fmt}"
        conda.run("export", "-p", prefix, "--format", fmt, "-f", out)
        r = envkit_cli("diff", str(prefix), str(out))
        if fmt == "explicit":  # an explicit file has no channel list
            assert r.exit_code == 0 and r.stdout.endswith("Same: no differences (14 packages compared).\n"), (
                r.stdout
            )
            continue
        assert r.exit_code == 1 and r.stdout.endswith("Different: channels differ.\n"), (fmt, r.stdout)
        assert "the shared channels are in a different order (priority)" in r.stdout


def test_conda_creates_from_envkits_explicit_file(envkit_cli, conda, family, tmp_path):
    prefix = family.prefixes["conda-only"]
    for digest in ("md5", "sha256"):
        f = tmp_path / f"explicit-{digest}.txt"
        assert (
            envkit_cli(
                "export", "-p", str(prefix), "--format", "explicit", "--hash", digest, "-o", str(f)
            ).exit_code
            == 0
        )
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
