"""`envkit normalize` and `envkit validate`."""

from __future__ import annotations

import click

from envkit.commands._options import environment_option
from envkit.formats import FORMATS
from envkit.output import echo


def _read(path: str, *, keep_bom: bool = False) -> str:
    """The text of `path` ('-': stdin), decoded as envkit.io.decode_text does; ParseError for
    anything else, as for files.  A byte-order mark is stripped unless `keep_bom`."""
    if path != "-":
        from envkit.io import read_text

        return read_text(path, keep_bom=keep_bom)
    from envkit.stdin import read_stdin

    return read_stdin(keep_bom=keep_bom)


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
    from envkit.errors import UsageError
    from envkit.io import emit
    from envkit.ops.normalize import normalize_source
    from envkit.output import warn

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
        result = normalize_source(_read(path, keep_bom=True), name, format=fmt)
        if not (write or check):
            _refuse_other_name(output, path, result.format)
        for msg in result.warnings:
            warn(msg)
        if check:
            if result.changed:
                _print_diff(result.original, result.text, name)
                status = 1
        elif write and result.changed:
            from envkit.io import atomic_write

            atomic_write(path, result.text, unchanged_since=before)
            echo(f"normalized {path}")
        elif write:
            echo(f"{path} is already normalized")
        else:
            emit(result.text, output)
    return status


def _refuse_other_name(output: str | None, path: str, fmt: str) -> None:
    """UsageError when `output`'s name says another format than `fmt`, the one normalize writes
    (its input's): `normalize env.yml -o pixi.lock` would put an environment file under pixi's name."""
    from envkit.formats.registry import output_format

    hint = f"normalize writes {fmt}, as it read; to change the format: envkit convert {path} -o {output}"
    output_format(output, (fmt,), fmt, command="normalize", option=None, hint=hint)


def _print_diff(raw: str, new: str, name: str) -> None:
    """The unified diff of `raw` against its normalized text on stdout; notes on stderr."""
    from envkit.render import render

    text, notes = render("normalize-check", "unified-diff", raw, new, name)
    echo(text, nl=False)
    for note in notes:
        echo(f"note: {name}: {note}", err=True)


@click.command(context_settings={"help_option_names": ["-h", "--help"]})
@click.argument("files", nargs=-1, required=True, metavar="FILE...")
@click.option(
    "--input-format",
    "fmt",
    type=click.Choice(FORMATS),
    help="Read every FILE as this format (default: detected).",
)
@click.option("--format", "fmt_alias", type=click.Choice(FORMATS), hidden=True)  # the old spelling
@environment_option("pixi.lock: check only this environment (default: all of them).")
def validate(files: tuple[str, ...], fmt: str | None, fmt_alias: str | None, environment: str | None) -> int:
    """Parse environment files and report errors, one line per file.

    `ok: FILE: ...` on stdout for a usable file; `error: FILE...` (and a `hint:` when there is a
    known fix) on stderr for one that is not.  Exit codes: 0 every file is usable, 2 at least one
    is not.
    """
    from envkit.errors import EnvkitError, Where
    from envkit.ops.normalize import validate_source
    from envkit.output import echo_errors, warn

    fmt = fmt or fmt_alias
    status = 0
    for path in files:
        name = "<stdin>" if path == "-" else path
        try:
            result = validate_source(_read(path), name, format=fmt, environment=environment)
        except EnvkitError as exc:
            if exc.where is None or not exc.where.file:
                w = exc.where or Where()
                exc.where = Where(file=name, line=w.line, key=w.key)
            # errors go to stderr, as every other command's do, with the hint that says the fix
            echo_errors([exc], first_line=True)
            status = 2
            continue
        for msg in result.warnings:
            warn(msg)
        echo(f"ok: {name}: {result.summary}")
    return status
