"""A requirements file pip-compile wrote, checked with the `.in` its header names
(tests/data/corpus/compiled): paired, and judged as a lock of it.  Through the CLI, as users run it."""

from __future__ import annotations

import json
import os
import shutil

from conftest import CORPUS

from envkit.checks import load_targets
from tests.conftest import run_envkit

COMPILED = CORPUS / "compiled"


def _findings(*args, cwd):
    r = run_envkit("check", "--format", "json", *args, cwd=cwd)
    found = json.loads(r.stdout)["findings"]
    return r.exit_code, [(f["file"], f["rule"], f["line"], f["message"]) for f in found]


def test_a_compiled_file_and_its_input_of_one_commit_pair_and_agree():
    folder = COMPILED / "pallets__click" / "requirements"
    r = run_envkit("check", "docs.in", "docs.txt", cwd=folder)
    assert (r.exit_code, r.stdout) == (0, "no findings (2 files checked)\n")
    old = os.getcwd()
    os.chdir(folder)
    try:
        spec, compiled = load_targets(["docs.in", "docs.txt"])
    finally:
        os.chdir(old)
    assert (spec.lock, compiled.spec) == (compiled, spec)


def test_an_input_edited_after_the_last_compile_is_stale():
    # docs.in gained myst-parser (line 5) in e5abf20; docs.txt is its parent commit's compile
    folder = COMPILED / "pallets__click-e5abf20"
    code, found = _findings("requirements/docs.txt", "requirements/docs.in", cwd=folder)
    assert code == 1
    assert found == [
        (
            "requirements/docs.in",
            "lock-unsatisfied",
            5,
            "pip myst-parser: no pin in the compiled file; compile it again (requirements/docs.txt)",
        )
    ]


def test_a_bound_the_pin_does_not_meet_is_reported_at_the_input_line(tmp_path):
    shutil.copytree(COMPILED / "pallets__click" / "requirements", tmp_path, dirs_exist_ok=True)
    text = (tmp_path / "docs.in").read_text()
    (tmp_path / "docs.in").write_text(text.replace("sphinx\n", "sphinx<8\n", 1))
    code, found = _findings("docs.in", "--lock", "docs.txt", cwd=tmp_path)
    assert code == 1
    assert found == [
        (
            "docs.in",
            "lock-unsatisfied",
            2,
            "pip sphinx<8: the compiled file pins sphinx==8.2.3 (line 58); compile it again (docs.txt)",
        )
    ]


def test_a_compiled_file_whose_input_is_not_checked_pairs_with_nothing():
    folder = COMPILED / "pallets__click-e5abf20" / "requirements"
    r = run_envkit("check", "docs.txt", cwd=folder)
    assert (r.exit_code, r.stdout) == (0, "no findings (1 file checked)\n")
