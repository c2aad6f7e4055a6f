"""One vocabulary over every command: the output format is `--format`, the input format
`--input-format`, `-q` wherever progress is shown, `--env` picks a pixi.lock environment, and no
option shows click's type name as its metavar.  Old spellings stay as hidden aliases."""

from __future__ import annotations

import json

import click
import pytest

from envkit.cli import COMMANDS, CONTEXT_SETTINGS, cli
from envkit.formats import FORMATS

#: the commands that show progress on a terminal
PROGRESS = {"lock", "create", "smoke"}
#: click's own names for a value's type, which say nothing about what to give
TYPE_NAMES = {"TEXT", "INTEGER", "FLOAT", "PATH", "DIRECTORY", "INTEGER RANGE", "FLOAT RANGE", "BOOLEAN"}


def _commands():
    ctx = click.Context(cli, **CONTEXT_SETTINGS)
    for name in sorted(COMMANDS):
        cmd = cli.get_command(ctx, name)
        if isinstance(cmd, click.Group):
            for sub in sorted(cmd.commands):
                yield f"{name} {sub}", cmd.commands[sub], ctx
        else:
            yield name, cmd, ctx


COMMAND_LIST = list(_commands())


def _visible(cmd):
    return [p for p in cmd.params if isinstance(p, click.Option) and not p.hidden]


@pytest.mark.parametrize("label,cmd,ctx", COMMAND_LIST, ids=[c[0] for c in COMMAND_LIST])
def test_one_vocabulary(label, cmd, ctx):
    bad = []
    for opt in _visible(cmd):
        names = set(opt.opts) | set(opt.secondary_opts)
        choices = set(getattr(opt.type, "choices", ()) or ())
        if "--json" in names:
            bad.append("--json: the output format is --format json (--json may stay as a hidden alias)")
        if choices and choices >= set(FORMATS) and "--input-format" not in names:
            bad.append(f"{'/'.join(opt.opts)} reads an input format: name it --input-format")
        if "--format" in names and choices & (set(FORMATS) - {"explicit", "conda-lock"}):
            bad.append("--format is the output format, not the input's")
        if not opt.is_flag and opt.metavar is None and opt.make_metavar(ctx).split("...")[0] in TYPE_NAMES:
            bad.append(f"{'/'.join(opt.opts)} shows click's type name {opt.make_metavar(ctx)!r}")
        if "pixi.lock" in (opt.help or "") and "environment" in (opt.help or "") and "--env" not in names:
            bad.append(f"{'/'.join(opt.opts)} picks a pixi.lock environment: spell it --env")
    if label in PROGRESS:
        quiet = [o for o in _visible(cmd) if "-q" in o.opts]
        if not quiet or "--quiet" not in quiet[0].opts:
            bad.append("shows progress: needs -q/--quiet")
    assert bad == []


@pytest.mark.parametrize(
    "args",
    [
        ("machine", "--json", "--help"),
        ("smoke", "--json", "--help"),
        ("normalize", "--format", "env", "--help"),
        ("validate", "--format", "env", "--help"),
        ("convert", "--format", "env", "--json", "--help"),
    ],
)
def test_old_spellings_still_parse(envkit_cli, args):
    r = envkit_cli(*args)
    assert r.exit_code == 0, r.stderr
    assert r.stdout.startswith("Usage: envkit ")


def test_convert_reads_both_spellings_of_the_input_format_and_the_report(envkit_cli, tmp_path):
    from conftest import CORPUS

    src = str(CORPUS / "51_Cecca__repro-course-ci__conda-lock.yml")
    runs = [
        ("--input-format", "conda-lock", "--format", "json"),
        ("--format", "conda-lock", "--json"),  # the old spellings
    ]
    docs = []
    for i, args in enumerate(runs):
        out = tmp_path / f"o{i}.txt"
        r = envkit_cli("convert", src, "--to", "explicit", "--platform", "linux-64", "-o", str(out), *args)
        assert r.exit_code in (0, 1), r.stderr
        docs.append(json.loads(r.stdout))
    assert docs[0]["source_format"] == docs[1]["source_format"] == "conda-lock"
    assert docs[0]["losses"] == docs[1]["losses"]
