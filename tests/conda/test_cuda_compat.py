"""envkit.conda.cuda_compat: NVIDIA's full-support and minor-version-compatibility rules, and the
PTX JIT limit."""

from __future__ import annotations

import pytest

from envkit.conda.cuda_compat import (
    driver_supports,
    max_cuda_for_driver,
    max_full_cuda_for_driver,
    min_driver,
    support,
)


def test_min_driver_is_the_toolkit_release_notes_table():
    assert (min_driver("12.6"), min_driver("12.6.3"), min_driver("11.8"), min_driver("13.0")) == (
        "560.28.03",
        "560.28.03",
        "520.61.05",
        "580.65.06",
    )
    assert min_driver("12.7") is None


@pytest.mark.parametrize(
    "cuda,driver,how",
    [
        ("12.6", "560.28.03", "full"),
        ("12.6", "550.54.15", "minor-version compatibility"),  # 12.x on >= 525.60.13
        ("12.9", "525.60.13", "minor-version compatibility"),
        ("12.0", "520.61.05", "no"),  # below CUDA 12's floor
        ("13.0", "575.51.03", "no"),  # CUDA 13 needs >= 580
        ("13.1", "580.65.06", "minor-version compatibility"),
        ("11.8", "470.82.01", "minor-version compatibility"),  # 11.x on >= 450.80.02
        ("11.8", "440.33", "no"),
        ("10.2", "440.33", "full"),
        ("10.2", "430.1", "no"),  # no minor-version compatibility before 11
    ],
)
def test_support(cuda, driver, how):
    got = support(cuda, driver)
    assert (got.how, got.ok, driver_supports(cuda, driver)) == (how, how != "no", how != "no")


def test_ptx_jit_needs_full_support():
    assert driver_supports("12.6", "550.54.15") is True
    assert driver_supports("12.6", "550.54.15", ptx_jit=True) is False
    assert driver_supports("12.4", "550.54.15", ptx_jit=True) is True


def test_max_cuda_for_driver():
    assert max_cuda_for_driver("550.54.15") == "12.9"  # the newest 12.x in the table
    assert max_full_cuda_for_driver("550.54.15") == "12.4"  # what nvidia-smi prints
    assert max_cuda_for_driver("550.54.15", ptx_jit=True) == "12.4"
    assert max_cuda_for_driver("590.48.01") == "13.1"
    assert max_cuda_for_driver("470.82.01") == "11.8"
    assert max_cuda_for_driver("400.1") is None


def test_the_matrix_driver_rows_mirror_the_module(tmp_path):
    from envkit.conda.cuda_compat import TOOLKIT_DRIVERS
    from envkit.templates import load_matrix

    table = dict(TOOLKIT_DRIVERS)
    assert all(table[c] == d for c, d, _ in load_matrix().drivers)
