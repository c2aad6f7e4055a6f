"""`envkit normalize` and `envkit validate`."""

from __future__ import annotations

import sys

import click

from envkit._text import plural
from envkit.formats import FORMATS


def _read(path: str, *, keep_bom: bool = False) -> str:
    """The text of `path` ('-': stdin), decoded as envkit.io.decode_text does; ParseError for
    anything else, as for files.  A byte-order mark is stripped unless `keep_bom`."""
    from envkit.io import MAX_INPUT_BYTES, read_text

    if path != "-":
        return read_text(path, keep_bom=keep_bom)
    from envkit.errors import ParseError, Where

    data = sys.stdin.buffer.read(MAX_INPUT_BYTES + 1)
    if len(data) > MAX_INPUT_BYTES:
        raise ParseError(
            f"input is larger than the {MAX_INPUT_BYTES / 2**20:.0f} MiB envkit reads",
            where=Where(file="<stdin>"),
        )
    from envkit.io import decode_text

    return decode_text(data, "<stdin>", keep_bom=keep_bom)


@click.command(context_settings={"help_option_names": ["-h", "--help"]})
@click.argument("files", nargs=-1, required=True, metavar="FILE...")
@click.option("-o", "--output", metavar="OUT", help="Write the normalized file to OUT ('-': stdout).")
@click.option(
    "--write", "write", is_flag=True, help="Rewrite each FILE in place (atomically), keeping comments."
)
@click.option(
    "--check",
    is_flag=True,
    help="Change nothing; exit 1 and print a unified diff when a FILE is not normalized.",
)
@click.option(
    "--input-format", "fmt", type=click.Choice(FORMATS), help="Read FILE as this format (default: detected)."
)
@click.option("--format", "fmt_alias", type=click.Choice(FORMATS), hidden=True)  # the old spelling
def normalize(
    files: tuple[str, ...],
    output: str | None,
    write: bool,
    check: bool,
    fmt: str | None,
    fmt_alias: str | None,
) -> int:
    """Rewrite environment files in canonical form.

    environment.yml: keys name, channels, dependencies, variables; no prefix; canonical channel
    names, credentials replaced by a placeholder; conda specs canonical and sorted; pip options
    first, then requirements sorted; duplicates removed; comments kept.  Also requirements.txt,
    conda-lock.yml, explicit files and `conda list` output.  FILE '-' reads stdin.

    Exit codes: 0 done (or already normalized with --check), 1 --check found a file to change,
    2 unusable input.
    """
    from envkit.canonical import render_normalized
    from envkit.commands._common import warn_duplicates
    from envkit.errors import UsageError
    from envkit.formats import detect_format, read_text

    fmt = fmt or fmt_alias
    if write and check:
        raise UsageError("--write and --check do not go together: --check changes nothing")
    if output is not None and (write or check):
        raise UsageError("-o/--output does not go with --write or --check")
    if len(files) > 1 and not (write or check):
        raise UsageError(
            "several FILEs need --write or --check", hint="normalize one file at a time to stdout"
        )
    if write and "-" in files:
        raise UsageError("--write cannot rewrite stdin")
    status = 0
    for path in files:
        name = "<stdin>" if path == "-" else path
        if write:
            from envkit.io import file_identity

            before = file_identity(path)  # before reading: an edit from here on is not overwritten
        raw = _read(path, keep_bom=True)
        # the model is read without the byte-order mark; the comparisons below are with the file as
        # it is, so that a BOM (which the canonical form has not) counts as a change
        text = raw[1:] if raw.startswith("\ufeff") else raw
        kind = fmt or detect_format(text, name)
        model = read_text(text, filename=name, format=kind)
        if kind == "env" and fmt is None:
            from envkit.checks.targets import not_an_environment_file

            not_an_environment_file(model, text, name)  # a workflow must not get `dependencies: []`
        warn_duplicates([model], label=len(files) > 1)
        new = render_normalized(model, text, kind)
        if check:
            if new != raw:
                _print_diff(raw, new, name)
                status = 1
            continue
        if write:
            if new != raw:
                from envkit.io import atomic_write

                atomic_write(path, new, unchanged_since=before)
                click.echo(f"normalized {path}")
            else:
                click.echo(f"{path} is already normalized")
            continue
        from envkit.output import emit

        emit(new, output)
    return status


def _print_diff(raw: str, new: str, name: str) -> None:
    """The unified diff of `raw` against its normalized text on stdout; notes on stderr."""
    from envkit.render import render

    text, notes = render("normalize-check", "unified-diff", raw, new, name)
    click.echo(text, nl=False)
    for note in notes:
        warn_note(f"{name}: {note}")


def warn_note(message: str) -> None:
    """One `note: ...` line on stderr."""
    click.echo(f"note: {message}", err=True)


@click.command(context_settings={"help_option_names": ["-h", "--help"]})
@click.argument("files", nargs=-1, required=True, metavar="FILE...")
@click.option(
    "--input-format",
    "fmt",
    type=click.Choice(FORMATS),
    help="Read every FILE as this format (default: detected).",
)
@click.option("--format", "fmt_alias", type=click.Choice(FORMATS), hidden=True)  # the old spelling
@click.option(
    "-e",
    "--env",
    "--environment",
    "environment",
    metavar="NAME",
    help="pixi.lock: check only this environment (default: all of them).",
)
def validate(files: tuple[str, ...], fmt: str | None, fmt_alias: str | None, environment: str | None) -> int:
    """Parse environment files and report errors, one line per file.

    `ok: FILE: ...` on stdout for a usable file; `error: FILE...` (and a `hint:` when there is a
    known fix) on stderr for one that is not.  Exit codes: 0 every file is usable, 2 at least one
    is not.
    """
    from envkit.commands._common import warn_duplicates
    from envkit.errors import EnvkitError, Where
    from envkit.output import cli_hint

    fmt = fmt or fmt_alias
    status = 0
    for path in files:
        name = "<stdin>" if path == "-" else path
        try:
            summary, models = _validate_one(path, name, fmt, environment)
            warn_duplicates(models, label=True)
            click.echo(f"ok: {name}: {summary}")
        except EnvkitError as exc:
            if exc.where is None or not exc.where.file:
                w = exc.where or Where()
                exc.where = Where(file=name, line=w.line, key=w.key)
            # errors go to stderr, as every other command's do, with the hint that says the fix
            click.echo(f"error: {str(exc).splitlines()[0]}", err=True)
            hint = cli_hint(exc)
            if hint:
                click.echo(f"hint: {hint}", err=True)
            status = 2
    return status


def _validate_one(path: str, name: str, fmt: str | None, environment: str | None) -> tuple[str, list]:
    """A one-line summary of the file, and the models read from it."""
    from envkit.formats import detect_format, read_text
    from envkit.model import EnvSpec

    text = _read(path)
    kind = fmt or detect_format(text, name)
    if kind == "pixi" and environment is None:
        from envkit.formats.pixilock import read_pixi_environments

        envs = read_pixi_environments(text, name)
        parts = [f"{env} ({_lock_summary(lock)})" for env, lock in envs.items()]
        return (f"pixi.lock, {plural(len(parts), 'environment')}: " + ", ".join(parts), list(envs.values()))
    model = read_text(text, filename=name, format=kind, environment=environment)
    if kind == "env" and fmt is None:
        from envkit.checks.targets import not_an_environment_file

        not_an_environment_file(model, text, name)
    if isinstance(model, EnvSpec):
        if kind == "requirements":
            return f"requirements, {plural(len(model.pip), 'entry', 'entries')}", [model]
        label = "environment export" if model.kind == "export" else "environment spec"
        return f"{label}, {len(model.conda)} conda, {len(model.pip)} pip", [model]
    return f"{kind}, {_lock_summary(model)}", [model]


def _lock_summary(lock) -> str:
    n = len(lock.packages)
    p = len(lock.platforms)
    plats = f" ({', '.join(lock.platforms)})" if lock.platforms else ""
    return f"{plural(n, 'package')}, {plural(p, 'platform')}{plats}"
