"""`envkit diff SOURCE_A SOURCE_B`: why does the server behave differently from my laptop?"""

from __future__ import annotations

import click

from envkit.commands._options import environment_option
from envkit.formats import FORMATS

OUTPUT_FORMATS = ("text", "json", "markdown")


@click.command(context_settings={"help_option_names": ["-h", "--help"]})
@click.argument("source_a", metavar="SOURCE_A")
@click.argument("source_b", metavar="SOURCE_B")
@click.option(
    "--platform",
    metavar="P",
    help="Platform of a multi-platform lock (default: the other side's, else this machine's).",
)
@click.option(
    "--format",
    "fmt",
    type=click.Choice(OUTPUT_FORMATS),
    default="text",
    show_default=True,
    help="Output format.",
)
@click.option("--all", "show_all", is_flag=True, help="Also list unchanged packages (and channels, options).")
@environment_option("The environment of a pixi.lock (default: default).")
@click.option(
    "--input-format",
    type=click.Choice(FORMATS),
    help="Read file sources as this format (default: detected from the content).",
)
@click.option(
    "--color",
    type=click.Choice(("auto", "always", "never")),
    default="auto",
    show_default=True,
    help="Colour the text output: auto = on a terminal, unless NO_COLOR is set.",
)
@click.option("-o", "--output", metavar="FILE", help="Write the report to FILE instead of stdout.")
@click.option(
    "--machine-a",
    metavar="PROFILE",
    help="The machine of SOURCE_A for the header: a profile file (envkit machine -o), host or ssh://HOST.",
)
@click.option("--machine-b", metavar="PROFILE", help="The same for SOURCE_B.")
@click.option(
    "--no-machine", is_flag=True, help="Do not probe or show the machines (no probe runs over ssh)."
)
def diff(
    source_a: str,
    source_b: str,
    platform: str | None,
    fmt: str,
    show_all: bool,
    environment: str | None,
    input_format: str | None,
    color: str,
    output: str | None,
    machine_a: str | None,
    machine_b: str | None,
    no_machine: bool,
) -> int:
    """Explain how two environments differ, most important first.

    A SOURCE is an environment file in any format envkit reads (environment.yml, a `conda env
    export`, an explicit file, conda-lock.yml, pixi.lock, requirements.txt, `conda list --json`
    output), a prefix directory (holding conda-meta/), env:NAME for a named environment, or the same
    on another machine: ssh://[user@]host[:port]/PATH or ssh://[user@]host/env:NAME (runs the system
    ssh; ENVKIT_SSH sets its command and options, ENVKIT_REMOTE_PYTHON the remote interpreter).
    One SOURCE may be '-': an environment file read from stdin.

    When a side is on another machine (ssh://, or --machine-a/--machine-b), the header shows the
    two machines side by side: driver / CUDA, GPUs, glibc or macOS, CPU level.

    Exit codes: 0 the same, 1 different, 2 error.
    """
    from envkit.errors import UsageError
    from envkit.ops.diff import diff_sources
    from envkit.output import warn

    if no_machine and (machine_a or machine_b):
        raise UsageError(
            "--no-machine and --machine-a/--machine-b contradict each other",
            hint="drop --no-machine to show the machines",
        )
    result = diff_sources(
        source_a,
        source_b,
        platform=platform,
        format=input_format,
        environment=environment,
        machines=not no_machine,
        machine_a=machine_a,
        machine_b=machine_b,
    )
    for text in result.warnings:
        warn(text)
    _print(result, fmt, show_all=show_all, color=color, output=output)
    return 0 if result.same else 1


def _print(result, fmt: str, *, show_all: bool, color: str, output: str | None) -> None:
    """Render the diff in `fmt` and write it to stdout or `output`."""
    from envkit.io import emit
    from envkit.render import render_diff

    use_color = fmt == "text" and _use_color(color, output)
    text = render_diff(
        fmt, result.diff, show_all=show_all, machines=result.machines, color=use_color, width=_width()
    )
    emit(text, output)


def _use_color(color: str, output: str | None) -> bool:
    """--color: `auto` colours a terminal's stdout unless NO_COLOR is set or TERM is dumb."""
    import os
    import sys

    if color != "auto":
        return color == "always"
    return (
        output is None
        and sys.stdout.isatty()
        and not os.environ.get("NO_COLOR")
        and os.environ.get("TERM") != "dumb"
    )


def _width() -> int:
    import os
    import shutil

    try:
        cols = int(os.environ.get("COLUMNS", "0"))
    except ValueError:
        cols = 0
    return max(60, cols or shutil.get_terminal_size((100, 24)).columns)
