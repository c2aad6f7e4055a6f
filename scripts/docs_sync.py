#!/usr/bin/env python3
"""Keep the commands shown in README.md and docs/ honest.

Every ```console block in README.md and docs/**/*.md holds commands (`$ envkit ...`) followed by their
output.  `--check` (what the test suite runs) executes each command from the repository root and
fails when the output shown differs from the real output; `--write` rewrites the blocks with the
real output.  Stdout and stderr are shown together, as a terminal would.  Blocks marked ```text are
illustrations and are not run.  Commands run with NO_COLOR=1, COLUMNS=100, and the envkit of the
interpreter running this script first on PATH.
"""

from __future__ import annotations

import argparse
import difflib
import os
import re
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
BLOCK = re.compile(r"^```console\n(.*?)^```$", re.S | re.M)


def doc_files() -> list[Path]:
    files = [REPO / "README.md"]
    files += sorted((REPO / "docs").rglob("*.md"))
    return [f for f in files if f.exists()]


def run(cmd: str) -> str:
    env = dict(os.environ)
    env["NO_COLOR"] = "1"
    env["COLUMNS"] = "100"
    env["PATH"] = str(Path(sys.executable).parent) + os.pathsep + env.get("PATH", "")
    env.pop("FORCE_COLOR", None)
    proc = subprocess.run(
        cmd,
        shell=True,
        cwd=REPO,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        timeout=300,
    )
    return proc.stdout


def render_block(body: str) -> str:
    out: list[str] = []
    for line in body.splitlines():
        if line.startswith("$ "):
            cmd = line[2:]
            out.append(line)
            text = run(cmd).rstrip("\n")
            if text:
                out.extend(ln.rstrip() for ln in text.splitlines())
    return "\n".join(out) + "\n"


def sync(path: Path) -> tuple[str, str]:
    old = path.read_text()

    def repl(m: re.Match) -> str:
        return "```console\n" + render_block(m.group(1)) + "```"

    return old, BLOCK.sub(repl, old)


def main() -> int:
    ap = argparse.ArgumentParser()
    mode = ap.add_mutually_exclusive_group(required=True)
    mode.add_argument("--check", action="store_true")
    mode.add_argument("--write", action="store_true")
    ap.add_argument("files", nargs="*")
    args = ap.parse_args()
    files = [Path(f).resolve() for f in args.files] or doc_files()
    stale = 0
    for path in files:
        old, new = sync(path)
        if old == new:
            continue
        if args.write:
            path.write_text(new)
            print(f"updated {path.relative_to(REPO)}")
        else:
            stale += 1
            sys.stdout.writelines(
                difflib.unified_diff(
                    old.splitlines(True),
                    new.splitlines(True),
                    f"{path.relative_to(REPO)} (shown)",
                    f"{path.relative_to(REPO)} (real)",
                )
            )
    return 1 if stale else 0


if __name__ == "__main__":
    raise SystemExit(main())
