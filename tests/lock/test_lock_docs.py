"""docs/commands/lock.md's update, why-stale, pixi.lock and CONDA_OVERRIDE_CUDA blocks, and the
README's update loop, are real output (they need a channel, so docs_sync does not run them): they
run here, in order, in a folder with the docs' environment.yml, on the local channel of the re-lock
tests (a 2.0 needs b >=2; c 1.1 is newer than c 1.0), shown as /tmp/demo/chan."""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from relock_channel import make_channel, spec_file

pytestmark = pytest.mark.slow

REPO = Path(__file__).resolve().parents[2]
DOC = REPO / "docs" / "commands" / "lock.md"
README = REPO / "README.md"
SHOWN_CHANNEL = "file:///tmp/demo/chan"
#: the comments of a command line that change the spec before it runs
AFTER_C = "# after `- c` became `- c >=1.1`"
CUDA_SPEC = "# its dependencies include `- __cuda >=12`"


#: the mark (an HTML comment, invisible in the rendered doc) before each block this test runs
MARK = "<!-- real output: tests/lock/test_lock_docs.py -->"


def command_blocks(text: str) -> list[str]:
    """The ```text blocks of the doc that follow MARK, in order."""
    return re.findall(rf"^{re.escape(MARK)}\n```text\n(.*?)^```$", text, re.S | re.M)


def run_block(block: str, work: Path, channel_url: str) -> str:
    """The real output of the block's `$ ` lines, run in `work` (stdout and stderr together)."""
    from envkit import __version__

    env = {**os.environ, "NO_COLOR": "1", "COLUMNS": "100"}
    env.pop("CONDA_OVERRIDE_CUDA", None)
    out: list[str] = []
    cwd = work
    for line in block.splitlines():
        if not line.startswith("$ "):
            continue
        out.append(line)
        cmd = line[2:]
        if AFTER_C in cmd:
            spec = work / "environment.yml"
            spec.write_text(spec.read_text().replace("  - c\n", "  - c >=1.1\n"))
        if CUDA_SPEC in cmd:
            cwd = work / "cuda"
            cwd.mkdir(exist_ok=True)
            (cwd / "environment.yml").write_text(
                f"name: demo\nchannels:\n  - {channel_url}\ndependencies:\n  - a\n  - __cuda >=12\n"
            )
        argv = shlex.split(cmd, comments=True)
        extra = {}
        while re.match(r"^[A-Z_][A-Z0-9_]*=", argv[0]):
            key, _, value = argv.pop(0).partition("=")
            extra[key] = value
        if argv[0] == "head":
            lines = (cwd / argv[2]).read_text().splitlines()[: int(argv[1].lstrip("-"))]
            out += [ln.rstrip() for ln in lines]
            continue
        if argv[0] == "cp":
            shutil.copy(cwd / argv[1], cwd / argv[2])
            continue
        if argv[0] == "git":  # the commit that ends the loop: no output to show
            continue
        assert argv[0] == "envkit", f"the doc's blocks run envkit, head, cp and git, not {argv[0]}"
        proc = subprocess.run(
            [sys.executable, "-m", "envkit", *argv[1:]],
            cwd=cwd,
            env={**env, **extra},
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            timeout=300,
        )
        out.extend(ln.rstrip() for ln in proc.stdout.rstrip("\n").splitlines())
    text = "\n".join(out) + "\n"
    return text.replace(channel_url, SHOWN_CHANNEL).replace(f"envkit {__version__}.", "envkit VERSION.")


def _normal(text: str) -> str:
    # the content hash covers the channel's URL, which is this test's temporary folder
    text = re.sub(r"\b[0-9a-f]{12}\.\.\.", "HASH...", text)
    return re.sub(r"envkit \d+\.\d+\.\d+\S*\. Do not", "envkit VERSION. Do not", text)


@pytest.mark.skipif(
    not sys.platform.startswith("linux") or os.uname().machine != "x86_64",
    reason="the doc's blocks lock for this machine's platform, shown as linux-64",
)
def test_the_lock_docs_blocks_are_real_output(tmp_path):
    chan = make_channel(tmp_path / "chan")
    work = tmp_path / "demo"
    work.mkdir()
    spec_file(work, chan)
    shown = command_blocks(DOC.read_text())
    assert len(shown) == 5, "the CONDA_OVERRIDE_CUDA, update, JSON, why-stale and pixi.lock blocks"
    for block in shown:
        assert _normal(run_block(block, work, chan.url)) == _normal(block)


@pytest.mark.skipif(
    not sys.platform.startswith("linux") or os.uname().machine != "x86_64",
    reason="the README's loop locks for this machine's platform, shown as linux-64",
)
def test_the_readme_update_loop_is_real_output(tmp_path):
    chan = make_channel(tmp_path / "chan")
    work = tmp_path / "demo"
    work.mkdir()
    spec_file(work, chan)
    shown = command_blocks(README.read_text())
    assert len(shown) == 2, "the README's update loop and its why-stale block"
    for block in shown:
        assert _normal(run_block(block, work, chan.url)) == _normal(block)
