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
