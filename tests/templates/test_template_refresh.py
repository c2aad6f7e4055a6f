"""templates/refresh_matrix.py: the matrix refreshed from the PyTorch wheel index's file lists (a fake
fetcher: no network), and the committed matrix's newest rows through the CLI."""

from __future__ import annotations

import importlib.util
import json
import sys

import pytest
from conftest import REPO


def _refresh_mod():
    spec = importlib.util.spec_from_file_location("refresh_matrix", REPO / "templates" / "refresh_matrix.py")
    mod = importlib.util.module_from_spec(spec)
    sys.modules["refresh_matrix"] = mod
    spec.loader.exec_module(mod)
    return mod


def _links(*names: str) -> str:
    return "<html><body>" + "".join(f'<a href="/whl/{n}">{n}</a>\n' for n in names) + "</body></html>"


TORCH = _links(
    "torch-2.15.0%2Bcu130-cp312-cp312-manylinux_2_28_x86_64.whl".replace("%2B", "+"),
    "torch-2.15.0+cu132-cp313-cp313-manylinux_2_28_x86_64.whl",
    "torch-2.15.0+cpu-cp314-cp314-manylinux_2_28_x86_64.whl",
    "torch-2.16.0+cu132-cp312-cp312-manylinux_2_28_x86_64.whl",
    "torch-2.5.1+cu124-cp313-cp313-linux_x86_64.whl",
    "torch-2.5.1+cu124-cp312-cp312-linux_x86_64.whl",
)
VISION = _links("torchvision-0.30.0+cu130-cp312-cp312-manylinux_2_28_x86_64.whl")


def test_refresh_adds_new_releases_and_python_wheels_never_removes():
    mod = _refresh_mod()
    base = json.loads((REPO / "templates" / "pytorch" / "matrix.json").read_text())
    base["releases"] = [r for r in base["releases"] if r["torch"] != "2.15"]
    for r in base["releases"]:
        if r["torch"] == "2.5":
            r["python"] = ["3.9", "3.10", "3.11", "3.12"]
    pages = {mod.INDEX + "torch/": TORCH, mod.INDEX + "torchvision/": VISION}
    new, changes = mod.refresh(base, pages.__getitem__)
    assert changes == [
        "torch 2.5: Python 3.13 added (wheels on the index)",
        "torch 2.15: added (CUDA 13.0, 13.2; Python 3.12, 3.13, 3.14)",
        "torch 2.16: skipped (no torchvision release found for it)",
    ]
    row = new["releases"][-1]
    assert (row["torch"], row["torchvision"], row["torchaudio"], row["default_cuda"], row["sources"]) == (
        "2.15",
        "0.30",
        "2.11",
        "13.0",
        ["PYTORCH_INDEX"],
    )
    assert next(r for r in new["releases"] if r["torch"] == "2.5")["python"][-1] == "3.13"
    assert new["sources"]["PYTORCH_INDEX"]["url"] == "https://download.pytorch.org/whl/torch/"
    # what the matrix loader reads back

    path = REPO / "templates" / "pytorch" / "matrix.json"
    assert mod.dump_matrix(json.loads(path.read_text())) == path.read_text()  # the committed layout


def test_refresh_offline_keeps_the_committed_matrix():
    mod = _refresh_mod()
    base = json.loads((REPO / "templates" / "pytorch" / "matrix.json").read_text())

    def offline(url):
        raise OSError("Name or service not known")

    new, changes = mod.refresh(base, offline)
    assert new is base
    assert changes == ["offline: OSError: Name or service not known; the committed matrix is kept"]


@pytest.mark.parametrize("torch,tv", [("2.14", "0.29"), ("2.15", "0.30")])
def test_new_releases_have_templates(envkit_cli, torch, tv):
    r = envkit_cli("template", "pytorch", "--torch", torch, "--style", "pip")
    assert r.exit_code == 0, r.stderr
    assert f"    - torch=={torch}.*\n" in r.stdout and f"    - torchvision=={tv}.*\n" in r.stdout
    assert "--index-url https://download.pytorch.org/whl/cu130" in r.stdout
    r = envkit_cli("template", "pytorch", "--torch", "2.14.1", "--cuda", "12.6", "--style", "pip")
    assert r.exit_code == 0 and "    - torch==2.14.1\n" in r.stdout


def test_torch_2_5_with_python_3_13_is_offered_as_wheels(envkit_cli):
    r = envkit_cli("template", "pytorch", "--torch", "2.5", "--python", "3.13", "--style", "pip")
    assert r.exit_code == 0, r.stderr
    assert "  - python=3.13\n" in r.stdout
    r = envkit_cli("template", "pytorch", "--torch", "2.5", "--python", "3.13")
    assert r.exit_code == 2
    assert r.stderr == (
        "error: torch 2.5 has no Python 3.13 build on conda-forge; available: 3.9, 3.10, 3.11, "
        "3.12\nhint: the official wheels have Python 3.13: use --style pip\n"
    )
