"""conda's requirements format (CEP 23 MatchSpec lines, `conda export --format requirements`) and
conda's JSON environment: detected by content, read, and told apart from pip's requirements.txt."""

from __future__ import annotations

import pytest

from envkit.errors import InvalidSpecError, UsageError
from envkit.formats import detect_format, read_text, write_text

#: `conda export --format requirements` as conda 26.7.1 writes it (no final newline)
CONDA_EXPORT = """\
# This file may be used to create an environment using:
# $ conda create --name <env> --file <this file>
# platform: linux-64
# created-by: conda 26.7.1
# Note: This is a conda requirements file (MatchSpec format)
# Contains conda package specifications, not pip requirements

main::bn==1.0=h0_7
main::numpy==1.26.4=py311h64a7726_0
extra::six==1.16.0=pyh6c4a22f_0"""
#: the same with --from-history: `numpy`, `pip` alone would be pip lines; conda's note says otherwise
FROM_HISTORY = CONDA_EXPORT.split("\n\n")[0] + "\n\npython=3.11\nnumpy\npip\nlibblas=3.9.0[build=*openblas]"


@pytest.mark.parametrize(
    "text, fmt",
    [
        (CONDA_EXPORT, "conda-requirements"),
        (FROM_HISTORY, "conda-requirements"),
        ("numpy\npip\n", "requirements"),  # nothing only conda writes
        ("python=3.11\nnumpy\n", "conda-requirements"),  # `=` one: not PEP 508
        ("bn==1.0=h0_7\n", "conda-requirements"),  # a build after `==`
        ("numpy 1.26.*\n", "conda-requirements"),  # a bare version after a space
        ("libblas=3.9.0[build=*openblas]\n", "conda-requirements"),  # key=value bracket
        ("pkg[extra]==1.0\nx===1.0\nnumpy >=1.2\n", "requirements"),  # extras, ===, spaced operator: pip
        ("-e .\npython=3.11\n", "requirements"),  # a pip option: pip's (its reader says why)
        ("bn=1.0=h0_7\n", "conda-list-export"),
        (
            '{\n  "name": "x",\n  "channels": ["conda-forge"],\n  "dependencies": ["numpy=1.26.4=h0_0"]\n}',
            "env",
        ),
    ],
)
def test_detects_conda_requirements_and_json_env(text, fmt):
    assert detect_format(text) == fmt
    assert detect_format(text, "requirements.txt") == fmt  # the content decides, not the name


def test_reads_conda_export_as_an_export():
    spec = read_text(CONDA_EXPORT, filename="spec.txt")
    assert (spec.kind, spec.platforms, spec.channels, spec.pip) == ("export", ("linux-64",), (), ())
    assert [(d.channel, d.name, d.version, d.build, d.line) for d in spec.conda] == [
        ("main", "bn", "==1.0", "h0_7", 8),
        ("main", "numpy", "==1.26.4", "py311h64a7726_0", 9),
        ("extra", "six", "==1.16.0", "pyh6c4a22f_0", 10),
    ]


def test_reads_from_history_as_a_spec():
    spec = read_text(FROM_HISTORY)
    assert spec.kind == "spec"
    assert [(d.name, d.version, d.build) for d in spec.conda] == [
        ("python", "3.11.*", None),
        ("numpy", None, None),
        ("pip", None, None),
        ("libblas", "3.9.0.*", "*openblas"),
    ]


def test_a_bad_line_names_file_and_line():
    with pytest.raises(InvalidSpecError) as err:
        read_text("python=3.11\nnumpy>=1.2,<<3\n", filename="spec.txt")
    assert (err.value.where.file, err.value.where.line) == ("spec.txt", 2)
    assert "invalid match spec 'numpy>=1.2,<<3'" in str(err.value)


def test_diff_of_conda_requirements_and_conda_list_export(envkit_cli, tmp_path):
    (tmp_path / "spec.txt").write_text(CONDA_EXPORT)
    (tmp_path / "list.txt").write_text(
        "# platform: linux-64\nmain::bn=1.0=h0_7\nmain::numpy=1.26.4=py311h64a7726_0\n"
        "extra::six=1.16.0=pyh6c4a22f_1\n"
    )
    r = envkit_cli("diff", str(tmp_path / "list.txt"), str(tmp_path / "spec.txt"))
    assert r.exit_code == 1, r.stderr
    assert "six  1.16.0 pyh6c4a22f_1 → 1.16.0 pyh6c4a22f_0" in r.stdout
    assert r.stdout.endswith("Different: 1 package differs (1 other).\n")


def test_written_and_normalized_is_refused(envkit_cli, tmp_path):
    with pytest.raises(UsageError, match="does not write it"):
        write_text(read_text(CONDA_EXPORT), "conda-requirements")
    (tmp_path / "spec.txt").write_text(CONDA_EXPORT)
    r = envkit_cli("normalize", str(tmp_path / "spec.txt"))
    assert r.exit_code == 2 and r.stdout == ""
    assert r.stderr.startswith(
        "error: envkit reads conda's requirements format (MatchSpec lines) but does not rewrite it"
    )
