"""`envkit export`: write a live conda environment down exactly (`--format json` is envkit's own
schema: docs/commands/export.md, `envkit.render.export.JSON_SCHEMA_VERSION`)."""

from __future__ import annotations

import click

from envkit.commands._options import LIVE_BACKENDS

FORMATS = ("yaml", "explicit", "conda-lock", "json")


@click.command("export")
@click.option("-n", "--name", "env_name", metavar="NAME", help="Environment name (resolved like conda does).")
@click.option(
    "-p", "--prefix", metavar="PREFIX", type=click.Path(file_okay=False), help="Environment prefix path."
)
@click.option(
    "--backend",
    type=click.Choice(LIVE_BACKENDS),
    default="native",
    show_default=True,
    help="Read the prefix directly, or ask that executable's --json commands.",
)
@click.option(
    "--exe",
    metavar="PATH",
    help="The conda/mamba/micromamba executable (default: CONDA_EXE, MAMBA_EXE, PATH).",
)
@click.option(
    "--from-history", is_flag=True, help="Only the specs you asked for (with pip packages and -c channels)."
)
@click.option("--no-builds", is_flag=True, help="Pin versions exactly (name==version) without build strings.")
@click.option(
    "--format",
    "fmt",
    type=click.Choice(FORMATS),
    default=None,
    help="The output format [default: what -o's name says (conda-lock.yml, spec-file.txt, *.yml), "
    "else yaml].",
)
@click.option(
    "--hash",
    "digest",
    type=click.Choice(["md5", "sha256"]),
    default="md5",
    show_default=True,
    help="The hash each URL of --format explicit carries (as `conda list --explicit --md5/--sha256`).",
)
@click.option("-o", "--output", metavar="FILE", help="Write to FILE (atomically) instead of stdout.")
def export(env_name, prefix, backend, exe, from_history, no_builds, fmt, digest, output) -> int:
    """Export a live conda environment exactly.

    Unlike `conda env export`: channels come in their true priority order, every package keeps its
    channel (conda-forge::numpy=1.26.4=py311h...), --from-history keeps pip packages and -c channels,
    there is no prefix: line, tokens are redacted, and pip packages installed from URLs, VCS or
    editable checkouts are written as such.
    """
    from envkit.backends import open_env
    from envkit.commands._common import note_named_format, warn_duplicates
    from envkit.io import emit
    from envkit.output import warn
    from envkit.render.export import render_export

    named = fmt is None
    fmt = fmt or _format_of(output)
    _refuse_options(fmt, from_history, no_builds, exe, backend, digest)
    env = open_env(name=env_name, prefix=prefix, backend=backend, exe=exe)
    for w in env.warnings:
        warn(w)
    warn_duplicates(env)
    import shlex

    regen = "envkit export " + (
        f"-n {shlex.quote(env_name)}" if env_name else f"-p {shlex.quote(str(env.prefix))}"
    )
    if backend != "native":  # the regenerate command reads the environment the same way
        regen += f" --backend {backend}"
    notes: list[str] = []
    text = render_export(
        env,
        fmt=fmt,
        from_history=from_history,
        no_builds=no_builds,
        command=regen,
        notes=notes,
        digest=digest,
    )
    for n in notes:
        warn(n)
    emit(text, output)
    if named and output and fmt != "yaml":
        note_named_format(output, _REGISTRY_NAMES[fmt], "--format")
    return 0


def _refuse_options(fmt: str, from_history: bool, no_builds: bool, exe, backend: str, digest: str) -> None:
    """UsageError for options that do not go with `fmt` or with each other."""
    from envkit.errors import UsageError

    if from_history and fmt in ("explicit", "conda-lock"):
        raise UsageError(
            f"--from-history cannot be written as {fmt}: it has no exact packages",
            hint="use --format yaml or json",
        )
    if no_builds and fmt in ("explicit", "conda-lock"):
        raise UsageError(f"--no-builds does not apply to --format {fmt} (it lists exact artifacts)")
    if exe and backend == "native":
        # the native backend runs no executable: a silently ignored --exe hides a typo'd command line
        raise UsageError(
            "--exe names the executable of --backend conda, mamba or micromamba; the native "
            "backend (the default) runs none",
            hint="add --backend conda (or mamba, micromamba)",
        )
    if digest != "md5" and fmt != "explicit":
        raise UsageError(f"--hash applies to --format explicit only, not {fmt}")


#: export's --format words for the registry's formats (json is envkit's own schema, no registry format)
_REGISTRY_NAMES = {"yaml": "env", "explicit": "explicit", "conda-lock": "conda-lock"}


def _format_of(output: str | None) -> str:
    """The --format that `output`'s name says (envkit.formats.registry's one rule); yaml when it says
    none; UsageError for a name of a format export does not write (pixi.lock)."""
    from envkit.formats.registry import output_format

    writes = tuple(_REGISTRY_NAMES.values())
    named, _ = output_format(output, writes, "env", command="export", option="--format")
    return next(k for k, v in _REGISTRY_NAMES.items() if v == named)
