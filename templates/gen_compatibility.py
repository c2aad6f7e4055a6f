#!/usr/bin/env python3
"""Regenerate what is derived from templates/pytorch/: docs/compatibility.md and examples/pytorch/.

Run from anywhere: `python templates/gen_compatibility.py` (add `--check` to only report whether
the committed files are current; exit code 1 when not).  tests/templates/test_template_docs.py runs
the check.
`--refresh` first updates templates/pytorch/matrix.json from the PyTorch wheel index when a network is
there (templates/refresh_matrix.py: new torch releases, new CPython wheels); offline it says so and
keeps the committed matrix.
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

#: examples/pytorch/<file> -> the `envkit template pytorch` arguments that make it
EXAMPLES = {
    "environment-cuda.yml": ["--torch", "2.13", "--cuda", "13.0"],
    "environment-cpu.yml": ["--torch", "2.13", "--cpu"],
    "environment-pip-cu128.yml": ["--torch", "2.9", "--cuda", "12.8", "--style", "pip"],
}


def outputs() -> dict[Path, str]:
    """Every derived file and the text it must have."""
    from envkit.templates import load_matrix, render_compatibility_markdown

    matrix = load_matrix(ROOT / "templates" / "pytorch" / "matrix.json")
    out = {ROOT / "docs" / "compatibility.md": render_compatibility_markdown(matrix)}
    for fname, args in EXAMPLES.items():
        out[ROOT / "examples" / "pytorch" / fname] = run_example(args, f"examples/pytorch/{fname}")
    return out


def run_example(args: list[str], relpath: str) -> str:
    """The file `envkit template pytorch ARGS -o RELPATH` writes (run in a scratch directory)."""
    import os
    import tempfile

    from click.testing import CliRunner

    from envkit.cli import cli

    old = os.getcwd()
    with tempfile.TemporaryDirectory() as tmp:
        os.chdir(tmp)
        try:
            Path(relpath).parent.mkdir(parents=True)
            result = CliRunner().invoke(cli, ["template", "pytorch", *args, "-o", relpath])
            if result.exit_code != 0:
                raise SystemExit(f"envkit template pytorch {' '.join(args)} failed: {result.output}")
            return Path(relpath).read_text(encoding="utf-8")
        finally:
            os.chdir(old)


def fetch(url: str, timeout: float = 20) -> str:
    """The text at `url` (the wheel index pages are public: no credentials)."""
    import urllib.request

    with urllib.request.urlopen(url, timeout=timeout) as resp:  # noqa: S310  (a fixed https URL)
        return resp.read().decode("utf-8", "replace")


def refresh_matrix(fetcher=fetch) -> list[str]:
    """Refresh matrix.json from published data (see templates/refresh_matrix.py); the changes."""
    import json

    sys.path.insert(0, str(ROOT / "templates"))
    from refresh_matrix import dump_matrix, refresh

    path = ROOT / "templates" / "pytorch" / "matrix.json"
    matrix, changes = refresh(json.loads(path.read_text(encoding="utf-8")), fetcher)
    if changes and not changes[0].startswith("offline:"):
        path.write_text(dump_matrix(matrix), encoding="utf-8")
    return changes


def main(argv: list[str]) -> int:
    if "--refresh" in argv:
        for line in refresh_matrix():
            print(line)
    stale = []
    for path, text in outputs().items():
        current = path.read_text(encoding="utf-8") if path.exists() else None
        if current == text:
            continue
        stale.append(path.relative_to(ROOT))
        if "--check" not in argv:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
    verb = "stale" if "--check" in argv else "rewrote"
    for p in stale:
        print(f"{verb}: {p}")
    return 1 if stale and "--check" in argv else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
