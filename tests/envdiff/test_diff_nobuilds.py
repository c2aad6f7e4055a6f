"""Two real `conda env export --no-builds` files, one from macOS and one from Linux
(tests/data/corpus/nobuilds): diff puts the platform's own packages in the platform section."""

from __future__ import annotations

from conftest import CORPUS

from tests.conftest import run_envkit

MAC = "Interventional-Genomics-Unit__mEdit__medit.yaml"
LINUX = "Interventional-Genomics-Unit__mEdit__vcf.yaml"


def test_platform_packages_of_two_no_builds_exports_are_a_platform_difference():
    r = run_envkit("diff", MAC, LINUX, cwd=CORPUS / "nobuilds")
    lines = r.stdout.splitlines()
    assert lines[0] == f"A  {MAC}  (export, osx, 108 packages)"
    assert lines[1] == f"B  {LINUX}  (export, linux-64, 119 packages)"
    start = lines.index("Platform differences: osx → linux-64 (14)")
    assert lines[start + 1] == "  only on A (osx):      libcxx 16.0.6, libgfortran 5.0.0, llvm-openmp 17.0.6"
    assert "Other changes (3)" in lines
    assert "  added (3): biopython 1.83, pysam 0.22.0, pyvcf 0.6.8" in lines
    assert lines[-1] == "Different: 17 packages differ (14 platform, 3 other); channels differ."
