"""`envkit check` collects every rule from the modules that declare it (envkit.checks.registry), and
imports a rule's heavy dependencies only when an input needs them: a fresh interpreter checks a
real corpus file and reports which modules it loaded."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from envkit.checks.registry import all_rules, rule_modules

SMALL = (
    Path(__file__).resolve().parents[1] / "data" / "corpus" / "09_CompVis__stable-diffusion__environment.yaml"
)
ROOT = Path(__file__).resolve().parents[2]

_PROBE = """
import sys
from envkit.cli import main
try:
    main(sys.argv[1:])
except SystemExit as exc:
    print("rc", exc.code)
print(" ".join(sorted(sys.modules)))
"""


def _loaded(*args: str) -> tuple[str, set[str]]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    r = subprocess.run(
        [sys.executable, "-c", _PROBE, *args], capture_output=True, text=True, env=env, cwd=ROOT, check=False
    )
    lines = r.stdout.strip().splitlines()
    return lines[-2], set(lines[-1].split())


def _rule_modules(mods: set[str]) -> set[str]:
    return {m.rsplit(".", 1)[-1] for m in mods if m.startswith("envkit.checks.rules_")}


def test_checking_an_environment_file_loads_no_lock_reader_solver_or_machine_comparison():
    rc, mods = _loaded("check", str(SMALL))
    assert rc == "rc 0"
    assert _rule_modules(mods) == set(rule_modules())
    # no lock reader, solver, machine comparison or PEP 508 parser for a 31-line spec
    heavy = {
        "rattler",
        "envkit.lock",
        "envkit.lock.pip_index",
        "envkit.machine.fit",
        "envkit.machine.arch",
        "packaging.requirements",
    }
    assert mods & heavy == set()


@pytest.mark.parametrize("select", ["fuzzy-pin", "leaked-secret"])
def test_select_loads_no_heavy_dependency(select):
    rc, mods = _loaded("check", "--select", select, str(SMALL))
    assert rc == "rc 0"
    assert mods & {"rattler", "envkit.lock", "envkit.machine.fit", "envkit.machine.arch"} == set()


def test_every_rule_is_collected_once_from_the_module_that_declares_it():
    rules = all_rules()  # raises ValueError for a name or an order declared twice
    assert [r.order for r in rules.values()] == sorted(r.order for r in rules.values())
    assert {r.fn.__module__.rsplit(".", 1)[-1] for r in rules.values()} == set(rule_modules())
    # the machine rules, and only they, need `check --machine`
    assert {n for n, r in rules.items() if r.needs_machine} == {n for n in rules if n.startswith("machine-")}
    assert any(r.needs_machine for r in rules.values())
