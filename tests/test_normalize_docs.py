"""The console examples of docs/commands/normalize.md run and print exactly what the page shows."""
from __future__ import annotations

import re
import shlex

import pytest

from conftest import REPO, run_envkit

DOC = REPO / "docs" / "commands" / "normalize.md"


def examples():
    text = DOC.read_text(encoding="utf-8")
    out = []
    for block in re.findall(r"```console\n(.*?)```", text, flags=re.S):
        cmd, expected = None, []
        for line in block.splitlines(keepends=True):
            if line.startswith("$ "):
                if cmd:
                    out.append((cmd, "".join(expected)))
                cmd, expected = line[2:].strip(), []
            else:
                expected.append(line)
        if cmd:
            out.append((cmd, "".join(expected)))
    return out


@pytest.mark.parametrize("cmd,expected", examples(), ids=lambda v: v[:60] if isinstance(v, str) else "")
def test_doc_example(cmd, expected):
    args = shlex.split(cmd)
    assert args[0] == "envkit"
    r = run_envkit(*args[1:], cwd=REPO)
    assert r.stdout + r.stderr == expected
