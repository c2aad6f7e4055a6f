"""Every command shown in README.md and docs/ runs, and shows its real output."""

import os
import subprocess
import sys

from conftest import REPO


def test_console_blocks_show_real_output():
    proc = subprocess.run(
        [sys.executable, str(REPO / "scripts" / "docs_sync.py"), "--check"],
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert proc.returncode == 0, "docs are stale; run `python scripts/docs_sync.py --write`:\n" + proc.stdout


def test_bash_completion_script_and_command_completion():
    envkit = os.path.join(os.path.dirname(sys.executable), "envkit")
    script = subprocess.run(
        [envkit], env={**os.environ, "_ENVKIT_COMPLETE": "bash_source"}, capture_output=True, text=True
    )
    assert "_envkit_completion()" in script.stdout
    words = subprocess.run(
        [envkit],
        env={
            **os.environ,
            "_ENVKIT_COMPLETE": "bash_complete",
            "COMP_WORDS": "envkit nor",
            "COMP_CWORD": "1",
        },
        capture_output=True,
        text=True,
    )
    assert words.stdout.split("\n")[0:1] == ["plain,normalize"]
