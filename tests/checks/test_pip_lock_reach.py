"""A `pip lock` file (tests/data/corpus/piplock) holds one platform's wheels and says nothing of
where it applies: `check` names the platforms it installs on.  A requirements file saved as
pylock.toml is called what it is."""

from __future__ import annotations

import json
import shutil

from conftest import CORPUS, run_envkit

PIPLOCK = CORPUS / "piplock" / "pylock.toml"


def _findings(*args, cwd=None):
    r = run_envkit("check", "--format", "json", *args, cwd=cwd)
    return r.exit_code, [(f["rule"], f["line"], f["message"]) for f in json.loads(r.stdout)["findings"]]


def test_a_pip_lock_of_one_machine_names_where_it_installs():
    code, found = _findings(str(PIPLOCK))
    assert code == 0  # a warning; --fail-on decides
    assert found == [
        (
            "pip-lock-one-platform",
            4,
            "pylock.toml installs only on Linux x86_64 with CPython 3.11: pyyaml, ujson have no other "
            "wheel and no sdist, and the lock declares no `environments` or `requires-python`",
        )
    ]


def test_a_pip_lock_that_declares_where_it_applies_is_not_flagged(tmp_path):
    text = PIPLOCK.read_text().replace(
        'created-by = "pip"\n',
        'created-by = "pip"\nrequires-python = "==3.11.*"\n'
        "environments = [\"sys_platform == 'linux' and platform_machine == 'x86_64'\"]\n",
    )
    (tmp_path / "pylock.toml").write_text(text)
    assert _findings("pylock.toml", cwd=tmp_path) == (0, [])


def test_the_uv_and_pdm_locks_of_the_corpus_install_anywhere():
    for number in ("83", "84", "85", "86"):
        [path] = sorted(CORPUS.glob(f"{number}_*"))
        code, found = _findings("--select", "pip-lock-one-platform", str(path))
        assert (code, found) == (0, []), path.name


def test_a_requirements_file_named_pylock_toml_is_called_a_requirements_file(tmp_path):
    # pallets/click's compiled docs requirements, saved under the lock's name
    docs = CORPUS / "compiled" / "pallets__click" / "requirements" / "docs.txt"
    shutil.copy(docs, tmp_path / "pylock.toml")
    r = run_envkit("check", "pylock.toml", cwd=tmp_path)
    assert r.exit_code == 2
    assert r.stderr.splitlines() == [
        "error: pylock.toml:1: pylock.toml is a requirements file, not TOML: 31 requirements such as "
        "'alabaster==1.0.0'",
        "hint: name it requirements.txt (pip reads it with -r), or write a pylock.toml from it with "
        "`pip lock -r requirements.txt` or `uv pip compile -o pylock.toml`",
    ]
