"""The README's update loop (`lock --exclude-newer`, `lock --update a`, `diff`, `lock --check`) is
real output: its two blocks run here, in a folder with the README's environment.yml, on the local
channel of the re-lock tests (a 2.0 needs b >=2; c 1.1 is newer than c 1.0)."""

from __future__ import annotations

import importlib.util
import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
SHOWN_CHANNEL = "file:///tmp/demo/chan"


def _make_channel(root: Path):
    spec = importlib.util.spec_from_file_location("relock_channel", REPO / "tests/lock/relock_channel.py")
    assert spec and spec.loader
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod.make_channel(root)


def _blocks() -> list[str]:
    text = (REPO / "README.md").read_text()
    start = text.index("### Update a lock with the smallest change")
    section = text[start : text.index("\n### ", start + 1) if "\n### " in text[start + 1 :] else len(text)]
    blocks = re.findall(r"^```text\n(.*?)^```$", section, re.S | re.M)
    assert len(blocks) == 2, "the README's update loop has two blocks"
    return blocks


def _normal(text: str, channel_url: str) -> str:
    # the content hash covers the channel's URL, which is this test's temporary folder
    text = text.replace(channel_url, SHOWN_CHANNEL)
    return re.sub(r"\b[0-9a-f]{12}\.\.\.", "HASH...", text)


def _run(block: str, cwd: Path, spec: Path) -> str:
    env = {**os.environ, "NO_COLOR": "1", "COLUMNS": "100"}
    out: list[str] = []
    for line in block.splitlines():
        if not line.startswith("$ "):
            continue
        out.append(line)
        cmd = line[2:]
        if "# after `- c` became `- c >=1.1`" in cmd:
            spec.write_text(spec.read_text().replace("  - c\n", "  - c >=1.1\n"))
        argv = shlex.split(cmd, comments=True)
        if argv[0] == "cp":
            shutil.copy(cwd / argv[1], cwd / argv[2])
        elif argv[0] == "envkit":
            proc = subprocess.run(
                [sys.executable, "-m", "envkit", *argv[1:]],
                cwd=cwd,
                env=env,
                stdout=subprocess.PIPE,
                stderr=subprocess.STDOUT,
                text=True,
                timeout=300,
            )
            out.extend(ln.rstrip() for ln in proc.stdout.rstrip("\n").splitlines())
        else:
            assert argv[0] == "git", f"the README's loop runs envkit, cp and git, not {argv[0]}"
    return "\n".join(out) + "\n"


@pytest.mark.skipif(
    not sys.platform.startswith("linux") or os.uname().machine != "x86_64",
    reason="the README's loop locks for this machine's platform, shown as linux-64",
)
def test_the_readme_update_loop_is_real_output(tmp_path):
    chan = _make_channel(tmp_path / "chan")
    work = tmp_path / "demo"
    work.mkdir()
    spec = work / "environment.yml"
    spec.write_text(f"name: demo\nchannels:\n  - {chan.url}\ndependencies:\n  - a\n  - c\n")
    shown = _blocks()
    for block in shown:
        real = _run(block, work, spec)
        assert _normal(real, chan.url) == _normal(block, chan.url)
