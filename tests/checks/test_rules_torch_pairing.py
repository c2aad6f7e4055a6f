"""torch-pairing through `envkit check`: a lock's own record of a torchvision build decides over the
pairing table, and a pairing problem is torch-pairing, never cuda-mismatch."""

from __future__ import annotations

import json

import pytest

LOCK = """\
version: 1
metadata:
  content_hash:
    linux-64: c031fb5637d749cf717581bf1f085dcb09a29604904921e7461ef3c8be70623e
  channels:
  - url: conda-forge
    used_env_vars: []
  platforms:
  - linux-64
  sources:
  - environment.yml
package:
- name: pytorch
  version: 2.7.1
  manager: conda
  platform: linux-64
  dependencies:
    python: ">=3.12,<3.13.0a0"
  url: https://conda.anaconda.org/conda-forge/linux-64/pytorch-2.7.1-cpu_mkl_py312_h6a7998d_101.conda
  hash:
    md5: 295760024fda2932af279f0b5431e6dc
    sha256: d4bd7576a5e672c6b010c5f74be32ac1c6e6424efc6d6aefd34024c361a25149
  category: main
  optional: false
- name: torchvision
  version: 0.21.0
  manager: conda
  platform: linux-64
  dependencies:
    python: ">=3.12,<3.13.0a0"
    pytorch: "{dep}"
  url: https://conda.anaconda.org/conda-forge/linux-64/torchvision-0.21.0-cpu_py312_h0e5c5c4_1.conda
  hash:
    md5: bab72fc87928c9313c31a9d41604e433
    sha256: 0e09be56bfb2ab85b213e5edf9af10df37bda472547395c36baa44bc3926101a
  category: main
  optional: false
"""


def _check(tmp_path, envkit_cli, text, *args):
    (tmp_path / ".git").mkdir(exist_ok=True)
    (tmp_path / "conda-lock.yml").write_text(text)
    return envkit_cli("check", "conda-lock.yml", "--format", "json", *args, cwd=tmp_path)


def test_the_record_of_the_build_beats_the_table(tmp_path, envkit_cli):
    # the table says torchvision 0.21 goes with torch 2.6, but conda-forge rebuilt 0.21 against
    # pytorch 2.7 and the lock's record of this build says so: no finding
    r = _check(tmp_path, envkit_cli, LOCK.replace("{dep}", ">=2.7.1,<2.8.0a0"))
    assert r.exit_code == 0, r.stdout + r.stderr
    assert json.loads(r.stdout)["findings"] == []


def test_a_record_that_disagrees_is_reported_as_torch_pairing(tmp_path, envkit_cli):
    r = _check(tmp_path, envkit_cli, LOCK.replace("{dep}", ">=2.6.0,<2.7.0a0"))
    assert r.exit_code == 1
    found = json.loads(r.stdout)["findings"]
    assert [(f["rule"], f["line"], f["message"]) for f in found] == [
        (
            "torch-pairing",
            25,
            "torchvision 0.21.0 requires pytorch >=2.6.0,<2.7.0a0 (its own record), but torch is 2.7.1",
        )
    ]


def test_without_a_record_the_table_decides(tmp_path, envkit_cli):
    text = LOCK.replace('    pytorch: "{dep}"\n', "")
    r = _check(tmp_path, envkit_cli, text)
    found = json.loads(r.stdout)["findings"]
    assert [(f["rule"], f["line"]) for f in found] == [("torch-pairing", 25)]
    assert "made for it: torchvision 0.22.x" in found[0]["message"]


@pytest.mark.parametrize("rule", ["cuda-mismatch", "torch-pairing"])
def test_pairing_in_an_env_file_is_torch_pairing_only(tmp_path, envkit_cli, rule):
    (tmp_path / ".git").mkdir()
    (tmp_path / "environment.yml").write_text(
        "channels: [conda-forge, nodefaults]\ndependencies:\n  - pytorch=2.1.0\n  - torchvision=0.15.2\n"
    )
    r = envkit_cli("check", "environment.yml", "--select", rule, cwd=tmp_path)
    if rule == "cuda-mismatch":
        assert (r.exit_code, r.stdout) == (0, "no findings (1 file checked)\n")
    else:
        assert r.exit_code == 1
        assert r.stdout.startswith(
            "environment.yml:4: error torch-pairing: torchvision 0.15.2 does not "
            "belong with torch 2.1.0 (made for it: torchvision 0.16.x)"
        )


PIP_LOCK = (
    LOCK.split("package:\n")[0]
    + """package:
- name: torch
  version: 2.7.1
  manager: pip
  platform: linux-64
  dependencies: {}
  url: https://files.pythonhosted.org/packages/torch-2.7.1-cp312-cp312-manylinux_2_28_x86_64.whl
  hash:
    sha256: d4bd7576a5e672c6b010c5f74be32ac1c6e6424efc6d6aefd34024c361a25149
  category: main
  optional: false
- name: torchvision
  version: 0.21.0
  manager: pip
  platform: linux-64
  dependencies:
    torch: "{dep}"
  url: https://files.pythonhosted.org/packages/torchvision-0.21.0-cp312-cp312-manylinux_2_28_x86_64.whl
  hash:
    sha256: 0e09be56bfb2ab85b213e5edf9af10df37bda472547395c36baa44bc3926101a
  category: main
  optional: false
"""
)


def test_a_pip_wheel_record_decides_too(tmp_path, envkit_cli):
    r = _check(tmp_path, envkit_cli, PIP_LOCK.replace("{dep}", "==2.7.1"))
    assert (r.exit_code, json.loads(r.stdout)["findings"]) == (0, [])
    r = _check(tmp_path, envkit_cli, PIP_LOCK.replace("{dep}", "==2.6.0"))
    found = json.loads(r.stdout)["findings"]
    assert [(f["rule"], f["message"]) for f in found] == [
        ("torch-pairing", "torchvision 0.21.0 requires torch ==2.6.0 (its own record), but torch is 2.7.1")
    ]
