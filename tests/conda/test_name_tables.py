"""The conda <-> PyPI name maps are read without the json module, and read as json reads them."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

import envkit
from envkit.conda.names import _load_json, _plain_json, pypi_names_for_conda

DATA = Path(envkit.__file__).parent / "data"


@pytest.mark.parametrize("name", ["conda_pypi_names.json", "conda_pypi_collisions.json"])
def test_the_shipped_maps_read_as_json_reads_them(name):
    text = (DATA / name).read_text(encoding="utf-8")
    assert _plain_json(text) == json.loads(text)


@pytest.mark.parametrize(
    "text",
    [
        '{"a": "b", "c": ["d", "e"]}',
        " {} ",
        '{"a": "b", "a": "c"}',  # the last of a repeated key, as json keeps
        '{"a": "\\u00e9"}',  # escapes: json reads them
        '{"a": []}',
        '{"a": 1, "b": null}',
        '{"a": "b"}\n',
    ],
)
def test_any_json_object_reads_as_json_reads_it(tmp_path, text):
    f = tmp_path / "map.json"
    f.write_text(text, encoding="utf-8")
    assert _load_json(str(f)) == json.loads(text)


@pytest.mark.parametrize(
    "text",
    ['{"a": "b",}', '{"a" "b"}', '{"a": ["b" "c"]}', '{"a": "b"}}', "", "{", '{"a":\x0b"b"}'],
)
def test_what_json_refuses_is_refused(tmp_path, text):
    f = tmp_path / "map.json"
    f.write_text(text, encoding="utf-8")
    with pytest.raises(ValueError):
        json.loads(text)
    with pytest.raises(ValueError):
        _load_json(str(f))


def test_a_name_lookup_does_not_import_json():
    code = (
        "import sys; from envkit.conda.names import pypi_names_for_conda as f; "
        "print(f('pytorch'), f('opencv'), 'json' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out == (
        "('torch',) ('opencv-contrib-python', 'opencv-contrib-python-headless', 'opencv-python', "
        "'opencv-python-headless') False\n"
    )
    assert pypi_names_for_conda("pytorch") == ("torch",)
