"""What the docs show without running it stays true: the `envkit` command lines of ```text blocks
parse (every option exists), no block shows a path of the machine the docs were made on, and every
repository path a doc cites exists."""

from __future__ import annotations

import re
import shlex

import click
import pytest
from conftest import REPO

from envkit.cli import CONTEXT_SETTINGS, cli

DOCS = [REPO / "README.md", *sorted((REPO / "docs").rglob("*.md")), *sorted(REPO.glob("*/README.md"))]
BLOCK = re.compile(r"^```(\w*)\n(.*?)^```$", re.S | re.M)
CITE = re.compile(
    r"(?<![\w/.~-])((?:envkit|tests|docs|examples|templates|scripts|bench|\.ci)/[\w./*-]*[\w*/])"
)
# where the docs were generated (a checkout, pytest's temporary folders, root's home, local indexes)
MACHINE_PATH = re.compile(r"/work/|/tmp/pytest-of-|/root/|/opt/pypi")
#: Paths a doc names that are not in the repository, by design.
NOT_IN_REPO = {
    "docs/smoke-gpu-report.json": "written by scripts/gpu_smoke.sh on a GPU machine",
    "docs/smoke-gpu-report.txt": "written by scripts/gpu_smoke.sh on a GPU machine",
    "docs/gpu_smoke.log": "written by scripts/gpu_smoke.sh on a GPU machine",
    "docs/gpu-machine": "written by scripts/gpu_machine.sh on a GPU machine",
    "envkit/_templates": "the installed name of templates/ (pyproject.toml's package-dir)",
    "envkit/X/Y.py": "a pattern in tests/README.md",
    "envkit/X.py": "a pattern in tests/README.md",
    "tests/X": "a pattern in tests/README.md",
}


def _blocks(kind: str):
    for doc in DOCS:
        text = doc.read_text()
        for m in BLOCK.finditer(text):
            if kind in ("*", m.group(1)):
                first = text[: m.start()].count("\n") + 2
                for i, line in enumerate(m.group(2).splitlines()):
                    yield doc.relative_to(REPO), first + i, line


def _envkit_argv(line: str) -> list[str] | None:
    """The arguments of a `$ envkit ...` line, up to its first pipe or redirection."""
    cmd = re.split(r"\s(?:\||&&|;|\d?>|<)", " " + line[2:])[0]
    try:
        words = shlex.split(cmd, comments=True)
    except ValueError:
        return None
    while words and re.match(r"^[A-Z_][A-Z0-9_]*=", words[0]):  # VAR=value envkit ...
        words.pop(0)
    return words[1:] if words and words[0] == "envkit" else None


def _parse(cmd: click.Command, args: list[str], parent: click.Context | None = None, name: str = "envkit"):
    """Parse `args` as click would (unknown options and commands raise), converting no value."""
    # the CLI's own help names: click caches a command's help option from the first context it sees
    settings = CONTEXT_SETTINGS if parent is None else {}
    ctx = click.Context(cmd, info_name=name, parent=parent, **settings)
    _opts, rest, _ = cmd.make_parser(ctx).parse_args(args=list(args))
    if isinstance(cmd, click.Group) and rest:
        sub = cmd.get_command(ctx, rest[0])
        if sub is None:
            raise click.UsageError(f"no such command {rest[0]!r}")
        _parse(sub, rest[1:], ctx, rest[0])


def test_text_blocks_show_command_lines_envkit_accepts():
    bad = []
    for doc, line_no, line in _blocks("text"):
        argv = _envkit_argv(line) if line.startswith("$ ") else None
        if argv is None:
            continue
        try:
            _parse(cli, argv)
        except click.ClickException as exc:
            bad.append(f"{doc}:{line_no}: {line}: {exc.format_message()}")
    assert bad == []


def test_no_block_shows_a_path_of_the_build_machine():
    bad = [f"{doc}:{n}: {line}" for doc, n, line in _blocks("*") if MACHINE_PATH.search(line)]
    assert bad == []


def test_every_repository_path_a_doc_cites_exists():
    bad = []
    for doc in DOCS:
        text = doc.read_text()
        for m in CITE.finditer(text):
            path = m.group(1).rstrip("/.")
            if path in NOT_IN_REPO or re.match(r"`?\]\(https?://", text[m.end() :]):
                continue  # by design, or the text of a link to another repository
            if not any((base / path).exists() or any(base.glob(path)) for base in (REPO, doc.parent)):
                bad.append(f"{doc.relative_to(REPO)}:{text[: m.start()].count(chr(10)) + 1}: {path}")
    assert bad == []


@pytest.mark.parametrize(
    "line, error",
    [
        ("$ envkit diff a.yml b.yml --frobnicate", "No such option '--frobnicate'"),
        ("$ envkit templat pytorch", "no such command 'templat'"),
        ("$ CONDA_OVERRIDE_CUDA=12.4 envkit template pytorch --detect --torhc 2.7 > env.yml", "--torhc"),
    ],
)
def test_the_command_line_check_catches_what_it_should(line, error):
    with pytest.raises(click.ClickException) as exc:
        _parse(cli, _envkit_argv(line) or [])
    assert error in exc.value.format_message()
