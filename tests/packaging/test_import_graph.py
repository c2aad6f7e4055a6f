"""scripts/import_graph.py: cycles (function-level imports count, TYPE_CHECKING blocks do not),
upward imports against pyproject.toml's layers, and the size limits, on a small package in tmp_path;
and envkit itself has no upward import."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
_spec = importlib.util.spec_from_file_location("import_graph", ROOT / "scripts" / "import_graph.py")
assert _spec is not None and _spec.loader is not None
import_graph = importlib.util.module_from_spec(_spec)
sys.modules["import_graph"] = import_graph
_spec.loader.exec_module(import_graph)

PYPROJECT = """
[tool.importlinter]
root_package = "envkit"

[[tool.importlinter.contracts]]
name = "layers"
type = "layers"
layers = ["envkit.top", "envkit.mid : envkit.side", "envkit.low"]
"""


def _tree(tmp_path: Path, files: dict[str, str]) -> Path:
    (tmp_path / "pyproject.toml").write_text(PYPROJECT)
    for rel, text in {"envkit/__init__.py": "", **files}.items():
        path = tmp_path / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return tmp_path


def test_a_clean_tree_passes(tmp_path, capsys):
    root = _tree(
        tmp_path,
        {
            "envkit/top.py": "from envkit import mid\n",
            "envkit/mid.py": "from envkit.low import x\nfrom envkit import side\n",
            "envkit/side.py": "",
            "envkit/low.py": (
                "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from envkit import top\nx = 1\n"
            ),
        },
    )
    assert import_graph.main(["--root", str(root)]) == 0
    assert capsys.readouterr().out.splitlines()[-1] == "0 cycles, 0 upward imports, 0 pending size items"


def test_a_cycle_through_a_function_level_import_fails(tmp_path, capsys):
    root = _tree(
        tmp_path,
        {
            "envkit/mid.py": "from envkit import side\n",
            "envkit/side.py": "def f():\n    from envkit.mid import g\n",
        },
    )
    assert import_graph.main(["--root", str(root)]) == 1
    assert "cycle: envkit.mid <-> envkit.side" in capsys.readouterr().out.splitlines()


def test_an_upward_import_fails(tmp_path, capsys):
    root = _tree(tmp_path, {"envkit/top.py": "", "envkit/low.py": "from . import top\n"})
    assert import_graph.main(["--root", str(root)]) == 1
    assert "upward import: envkit.low -> envkit.top" in capsys.readouterr().out.splitlines()


def test_a_long_function_and_a_long_module_fail(tmp_path, capsys):
    body = "def long():\n" + "    x = 1\n" * 61 + "\n" * 440
    root = _tree(tmp_path, {"envkit/low.py": body})
    assert import_graph.main(["--root", str(root)]) == 1
    out = capsys.readouterr().out.splitlines()
    assert "size: envkit/low.py: 502 lines (limit 500)" in out
    assert "size: envkit/low.py:1: long is 62 lines (limit 60)" in out


def test_envkit_has_no_upward_import():
    mods = import_graph.module_files(ROOT, "envkit")
    layers = import_graph.read_layers(ROOT / "pyproject.toml")
    upward = [
        (mod, target)
        for mod, path in mods.items()
        for target in import_graph.imports_of(mod, path, mods)
        if (a := import_graph.layer_of(mod, layers)) is not None
        and (b := import_graph.layer_of(target, layers)) is not None
        and b < a
    ]
    assert upward == []


def test_a_pending_file_within_the_limits_must_leave_the_list(tmp_path, capsys, monkeypatch):
    # the pending list only shrinks: a listed file that was split fails until it is taken off
    monkeypatch.setattr(import_graph, "PENDING_SIZE", frozenset({"envkit/checks/split.py"}))
    root = _tree(tmp_path, {"envkit/checks/split.py": "x = 1\n"})
    assert import_graph.main(["--root", str(root)]) == 1
    out = capsys.readouterr().out.splitlines()
    assert "size: envkit/checks/split.py is within the limits: take it off PENDING_SIZE" in out
