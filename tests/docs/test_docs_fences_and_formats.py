"""The command docs close every code fence on a line of its own, list every input format `--help`
lists, and do not tell users to install envkit from PyPI, where it is not published."""

from __future__ import annotations

import re

from conftest import REPO

from envkit.formats import FORMATS

DOCS = sorted((REPO / "docs").rglob("*.md")) + [REPO / "README.md"]


def test_a_code_fence_is_alone_on_its_line():
    bad = [
        f"{p.relative_to(REPO)}:{n}"
        for p in DOCS
        for n, line in enumerate(p.read_text().splitlines(), 1)
        if re.match(r"^\s*```\s+\S", line) and not re.match(r"^\s*```\s*[\w+-]+\s*$", line)
    ]
    assert bad == []


def test_create_lists_every_input_format():
    text = (REPO / "docs" / "commands" / "create.md").read_text()
    listed = text.split("`--input-format` (one of ", 1)[1].split(", as for", 1)[0]
    assert re.findall(r"`([\w-]+)`", listed) == list(FORMATS)


def test_no_install_from_pypi():
    assert [p.name for p in DOCS if "pip install envkit" in p.read_text()] == []
