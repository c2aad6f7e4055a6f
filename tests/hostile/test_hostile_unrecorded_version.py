"""A spec checked against an export whose line pins no version (a loose `bzip-` among exact
`name=version=build` lines, an unpinned pip line): the package is there, its version unrecorded;
an entry that asks for no version is satisfied, one that asks for a version is not; never an
internal error."""

from __future__ import annotations

from conftest import run_envkit

PINNED = "a=1=b\nc=1=b\nd=1=b\ne=1=b\nf=1=b\n"


def test_a_conda_requirements_file_with_a_loose_line_converts_to_an_export_and_reads_back(tmp_path):
    src = tmp_path / "s.txt"
    src.write_text(PINNED + "bzip-\n", encoding="utf-8")
    r = run_envkit("convert", str(src), "--to", "env", "-o", "-")
    assert (r.exit_code, r.stderr) == (0, "")
    assert r.stdout == "dependencies:\n" + "".join(f"  - {x}\n" for x in [*PINNED.split(), "bzip-"])


def test_a_name_only_entry_is_satisfied_by_a_package_whose_version_is_unrecorded(tmp_path):
    src, out = tmp_path / "s.txt", tmp_path / "s.yml"
    src.write_text(PINNED + "bzip-\n", encoding="utf-8")
    out.write_text("dependencies:\n" + "".join(f"  - {x}\n" for x in [*PINNED.split(), "bzip-"]))
    r = run_envkit("diff", str(src), str(out))
    assert (r.exit_code, r.stderr) == (0, "")
    assert "  ok  bzip-\n" in r.stdout
    assert r.stdout.endswith("Same: every spec entry is satisfied.\n")


def test_a_versioned_entry_is_not_satisfied_by_an_unpinned_pip_package(tmp_path):
    spec, export = tmp_path / "a.yml", tmp_path / "b.yml"
    spec.write_text("name: x\ndependencies:\n  - numpy>=1\n  - scipy\n", encoding="utf-8")
    export.write_text(
        "name: x\ndependencies:\n  - python=3.11.0=h_0\n  - zlib=1.2=h_0\n  - pip=23.0=py_0\n"
        "  - pip:\n    - numpy\n    - scipy\n",
        encoding="utf-8",
    )
    r = run_envkit("diff", str(spec), str(export))
    assert (r.exit_code, r.stderr) == (1, "")
    assert "  NOT SATISFIED  numpy>=1   [pip]  (installed by pip)\n" in r.stdout
    assert "  ok             scipy      [pip]  (installed by pip)\n" in r.stdout
