"""`envkit check`, `normalize` and `validate` of a small environment file import only what that file
needs: no libyaml loader (the fast reader parses it), no ssh source, no template renderer, no lock
reader, solver or machine comparison, no pathlib.  A fresh interpreter runs the command on a real
corpus file and reports the modules it loaded.

The interpreter starts without `site` (its path given explicitly): the editable install's path hook
in the development venv imports pathlib itself, which a user's regular install never does.
"""

from __future__ import annotations

import os
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SMALL = ROOT / "tests" / "data" / "corpus" / "09_CompVis__stable-diffusion__environment.yaml"

_PROBE = """
import sys
from envkit.cli import main
try:
    main(sys.argv[1:])
except SystemExit as exc:
    print("rc", exc.code)
print(" ".join(sorted(sys.modules)))
"""

#: what none of the three commands needs for a 31-line environment.yaml
NEVER = {
    "yaml",
    "envkit.formats._yaml",
    "envkit.sources.ssh",
    "envkit.templates.text",
    "envkit.templates.plan",
    "envkit.templates.gpu",
    "envkit.lock",
    "rattler",
    "packaging.requirements",
    "envkit.machine",
    "pathlib",
    "difflib",  # asked only about a top-level key it does not know
}


def _loaded(*args: str) -> tuple[str, set[str]]:
    path = os.pathsep.join([str(ROOT), sysconfig.get_paths()["purelib"]])
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTHON")}
    env["PYTHONPATH"] = path
    r = subprocess.run(
        [sys.executable, "-S", "-c", _PROBE, *args],
        capture_output=True,
        text=True,
        env=env,
        cwd=ROOT,
        check=False,
    )
    lines = r.stdout.strip().splitlines()
    return lines[-2], set(lines[-1].split())


@pytest.mark.parametrize("command", ["normalize", "validate"])
def test_normalize_and_validate_load_no_yaml_engine_ssh_templates_or_checks(command):
    rc, mods = _loaded(command, str(SMALL))
    assert rc == "rc 0"
    assert "envkit.formats._fastyaml" in mods  # the fast reader did parse it
    also = {"envkit.templates", "envkit.checks.registry", "envkit.checks.engine"}
    assert mods & (NEVER | also) == set()


def test_check_loads_no_yaml_engine_ssh_template_renderer_or_pathlib():
    rc, mods = _loaded("check", str(SMALL))
    assert rc == "rc 0"
    assert "envkit.formats._fastyaml" in mods
    # the torch-pairing rule reads the compatibility matrix, and only that part of envkit.templates
    templates = {m for m in mods if m.startswith("envkit.templates")}
    assert templates == {"envkit.templates", "envkit.templates.matrix"}
    assert mods & NEVER == set()
    assert "urllib.parse" not in mods  # vcs-unpinned reads the URL's path itself
