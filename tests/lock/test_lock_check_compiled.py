"""`envkit lock --check -f docs.in --lock docs.txt`: a requirements file pip-compile wrote is
judged as the lock of its `.in`, as `envkit check docs.in docs.txt` judges the pair (the real pairs
of tests/data/corpus/compiled: one commit's, and a `.in` edited after the last compile)."""

from __future__ import annotations

import json
import shutil

from conftest import CORPUS, run_envkit

COMPILED = CORPUS / "compiled"


def _both(folder, spec="docs.in", lock="docs.txt"):
    """`lock --check` (json) and `check` on one pair: (exit code, problems) of each."""
    r = run_envkit("lock", "--check", "-f", spec, "--lock", lock, "--format", "json", cwd=folder)
    c = run_envkit("check", spec, lock, "--format", "json", cwd=folder)
    problems = [(p["line"], p["message"]) for p in json.loads(r.stdout)["problems"]]
    findings = [(f["line"], f["message"]) for f in json.loads(c.stdout)["findings"]]
    return (r.exit_code, problems), (c.exit_code, findings)


def test_a_pair_of_one_commit_is_up_to_date():
    folder = COMPILED / "pallets__click" / "requirements"
    r = run_envkit("lock", "--check", "-f", "docs.in", "--lock", "docs.txt", cwd=folder)
    assert (r.exit_code, r.stdout, r.stderr) == (0, "docs.txt is up to date with docs.in\n", "")
    mine, checks = _both(folder)
    assert mine == (0, []) and checks == (0, [])


def test_an_input_edited_after_the_last_compile_is_stale_as_check_says():
    folder = COMPILED / "pallets__click-e5abf20" / "requirements"
    r = run_envkit("lock", "--check", "-f", "docs.in", "--lock", "docs.txt", cwd=folder)
    assert r.exit_code == 1
    assert r.stdout == (
        "docs.in:5: missing: pip myst-parser: no pin in the compiled file; compile it again\n"
        "docs.txt does not fit docs.in: 1 problem(s); compile docs.in again\n"
    )
    mine, checks = _both(folder)
    assert mine == (1, [(5, "pip myst-parser: no pin in the compiled file; compile it again")])
    assert checks == (1, [(5, "pip myst-parser: no pin in the compiled file; compile it again (docs.txt)")])


def test_a_bound_its_pin_misses(tmp_path):
    shutil.copytree(COMPILED / "pallets__click" / "requirements", tmp_path, dirs_exist_ok=True)
    text = (tmp_path / "docs.in").read_text()
    (tmp_path / "docs.in").write_text(text.replace("sphinx\n", "sphinx<8\n", 1))
    mine, checks = _both(tmp_path)
    message = "pip sphinx<8: the compiled file pins sphinx==8.2.3 (line 58); compile it again"
    assert mine == (1, [(2, message)])
    assert checks == (1, [(2, message + " (docs.txt)")])


def test_a_compiled_file_of_another_input_is_refused(tmp_path):
    shutil.copytree(COMPILED / "pallets__click" / "requirements", tmp_path, dirs_exist_ok=True)
    shutil.copy(tmp_path / "docs.in", tmp_path / "other.in")
    r = run_envkit("lock", "--check", "-f", "other.in", "--lock", "docs.txt", cwd=tmp_path)
    assert (r.exit_code, r.stdout) == (2, "")
    assert r.stderr == (
        "error: docs.txt: compiled from docs.in (its header says so), not from other.in\n"
        "hint: pass the .in file its header names with -f, or compile other.in into its own file\n"
    )


def test_a_requirements_file_no_compiler_wrote_is_not_a_lock(tmp_path):
    (tmp_path / "docs.in").write_text("sphinx\n")
    (tmp_path / "requirements.txt").write_text("sphinx==8.2.3\n")
    r = run_envkit("lock", "--check", "-f", "docs.in", "--lock", "requirements.txt", cwd=tmp_path)
    assert (r.exit_code, r.stdout) == (2, "")
    assert r.stderr == (
        "error: requirements.txt: not a lock file\n"
        "hint: pass conda-lock.yml with --lock, or a requirements file pip-compile wrote from -f\n"
    )
