"""The conda <-> PyPI name maps shipped in envkit/data, as a name lookup reads them."""

from __future__ import annotations

from envkit.conda.names import pypi_names_for_conda


def test_a_name_lookup_reads_the_shipped_maps():
    assert pypi_names_for_conda("pytorch") == ("torch",)
    assert pypi_names_for_conda("opencv") == (
        "opencv-contrib-python",
        "opencv-contrib-python-headless",
        "opencv-python",
        "opencv-python-headless",
    )
