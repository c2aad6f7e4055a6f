"""`envkit check` imports a rule module only when one of its rules will run (envkit.checks.registry's
RULE_HOMES), and a rule's heavy dependencies only when an input needs them: a fresh interpreter
checks a real corpus file and reports which modules it loaded."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from envkit.checks.registry import RULE_HOMES, RULE_MODULES, all_rules

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


def test_checking_an_environment_file_loads_no_lock_pip_lock_or_machine_rule():
    rc, mods = _loaded("check", str(SMALL))
    assert rc == "rc 0"
    assert _rule_modules(mods) == {
        "rules_deps",
        "rules_channels",
        "rules_lock",  # duplicate-key and lock-unsatisfied apply to environment files too
        "rules_builds",
        "rules_cuda",
        "rules_index",
        "rules_pairing",
        "rules_secrets",
        "rules_portability",
    }
    # no lock reader, solver, machine comparison or PEP 508 parser for a 31-line spec
    heavy = {
        "rattler",
        "envkit.lock",
        "envkit.lock.pip_index",
        "envkit.machine.fit",
        "packaging.requirements",
    }
    assert mods & heavy == set()


@pytest.mark.parametrize(
    ("select", "modules"),
    [
        ("fuzzy-pin", {"rules_deps", "rules_lock"}),
        ("leaked-secret", {"rules_secrets", "rules_lock"}),
    ],
)
def test_select_loads_only_the_selected_rules_modules(select, modules):
    rc, mods = _loaded("check", "--select", select, str(SMALL))
    assert rc == "rc 0"
    assert _rule_modules(mods) == modules  # rules_lock: the reader asks it about duplicate keys


def test_rule_homes_name_every_rule_where_it_is_defined():
    rules = all_rules()  # raises ValueError when RULE_HOMES and the rule modules disagree
    assert list(rules) == list(RULE_HOMES)
    assert {r.fn.__module__.rsplit(".", 1)[-1] for r in rules.values()} == set(RULE_MODULES)
    assert {n for n, h in RULE_HOMES.items() if h.needs_machine} == {
        "machine-platform",
        "machine-virtual-package",
        "machine-cuda-driver",
        "machine-gpu-arch",
        "machine-wheel-tag",
    }
