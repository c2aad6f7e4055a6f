"""envkit.conda.versions: the one numeric sort key of release numbers (CUDA, drivers, torch), held to
conda's order (py-rattler's Version) on the inputs where its three former twins disagreed."""

from __future__ import annotations

import pytest
from rattler import Version

from envkit.conda.cuda_compat import support
from envkit.conda.versions import version_key


@pytest.mark.parametrize(
    ("lower", "higher"),
    [
        ("2.8.0rc1", "2.8.0.1"),  # the digit-gluing key read `0rc1` as 1: (2, 8, 1) above (2, 8, 0, 1)
        ("1a2", "1.5"),  # the same key read `1a2` as 12
        ("12.x.1", "12.0.1"),  # the zero-filling key (templates' vkey) read `x` as 0: equal
        ("12.9", "12.10"),
        ("570.86.15", "570.124.06"),
    ],
)
def test_version_key_orders_as_conda_does(lower, higher):
    assert Version(lower) < Version(higher)
    assert version_key(lower) < version_key(higher)


def test_version_key_parts():
    assert version_key("570.86.15") == (570, 86, 15)
    assert version_key("12.4.1a") == (12, 4, 1)
    assert version_key("12.x.1") == (12,)
    assert version_key("") == ()


def test_a_driver_with_a_prerelease_part_is_not_full_support():
    # CUDA 12.1 shipped with 530.30.02; 530.30.1b2 is below it in conda's order (the old key of
    # support() glued `1b2` into 12 and answered "full"), and 12.x's floor is met
    assert Version("530.30.1b2") < Version("530.30.02")
    assert support("12.1", "530.30.1b2").how == "minor-version compatibility"
    assert support("", "530.30.02").how == "no"


# --- major.minor: the inputs on which its five former twins answered differently


@pytest.mark.parametrize(
    ("version", "expected"),
    [
        ("3.11.4", (3, 11)),
        ("2.7.1+cu126", (2, 7)),
        ("3.011", (3, 11)),  # conda and PEP 440 compare numbers: 3.011 == 3.11 (one twin kept "3.011")
        ("v2.7", (2, 7)),  # PEP 440 reads a leading `v` (two twins answered None)
        ("12", None),  # no minor (one twin answered "12")
        ("3_11", None),  # `_`/`-` are not release separators in PEP 440 (one twin answered "3.11")
        ("12-4", None),  # PEP 440: 12.post4
        ("2+cu121", None),  # one twin answered "2.cu121"
        ("", None),
        (None, None),
    ],
)
def test_major_minor(version, expected):
    from envkit.conda.versions import major_minor, minor_text

    assert major_minor(version) == expected
    assert minor_text(version) == (f"{expected[0]}.{expected[1]}" if expected else None)
    if expected and version:
        assert Version(version.lstrip("v").split("+")[0]) >= Version(f"{expected[0]}.{expected[1]}")


def test_min_driver_reads_a_zero_padded_minor():
    from envkit.conda.cuda_compat import min_driver

    # 12.06 is 12.6 in conda's order; min_driver cut the text and missed the table row
    assert Version("12.06") == Version("12.6")
    assert min_driver("12.06") == min_driver("12.6") == "560.28.03"


def test_a_diff_shows_a_version_without_a_minor_whole():
    from envkit.envdiff.versions import _major_minor

    assert (_major_minor("12.1.105"), _major_minor("11"), _major_minor("2+cu121")) == (
        "12.1",
        "11",
        "2+cu121",
    )
