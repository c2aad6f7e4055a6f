"""`envkit create`: create an environment from a lock, without solving."""

from __future__ import annotations

import click

from envkit._text import plural
from envkit.formats import FORMATS
from envkit.output import echo


@click.command("create")
@click.option(
    "--lock",
    "lock_file",
    required=True,
    type=click.Path(dir_okay=False),
    help="The lock to install (conda-lock.yml, an explicit file, pixi.lock, ...).",
)
@click.option(
    "-p",
    "--prefix",
    metavar="PREFIX",
    type=click.Path(file_okay=False),
    help="Create the environment at this path.",
)
@click.option(
    "-n",
    "--name",
    metavar="NAME",
    help="Create the environment with this name (in the first envs directory).",
)
@click.option(
    "--platform",
    default=None,
    metavar="SUBDIR",
    help="The locked platform to install [default: this machine's].",
)
@click.option(
    "--env",
    "environment",
    metavar="NAME",
    help="The environment of a pixi.lock to install [default: default].",
)
@click.option(
    "--input-format",
    type=click.Choice(FORMATS),
    help="Read the lock as this format [default: detected from the content].",
)
@click.option(
    "--backend",
    type=click.Choice(("rattler", "conda", "mamba", "micromamba")),
    default="rattler",
    show_default=True,
    help="Install the conda packages with py-rattler, or with a conda executable.",
)
@click.option(
    "-q",
    "--quiet",
    is_flag=True,
    help="No progress on stderr (downloads and linking are shown only on a terminal, or with "
    "ENVKIT_PROGRESS=1).",
)
def create(lock_file, prefix, name, platform, environment, input_format, backend, quiet) -> int:
    """Create an environment holding exactly the packages of a lock.

    Conda packages are installed first (hashes verified; any failure removes the half-made
    environment), then the pip packages with the new environment's own pip (`--no-deps`, and
    `--require-hashes` when every pip package has a hash).
    """
    from envkit.commands.progress import enabled, reporter
    from envkit.ops.create import plan_create, run_create
    from envkit.output import warn

    plan = plan_create(
        lock_file, prefix=prefix, name=name, platform=platform, environment=environment, format=input_format
    )
    for w in plan.warnings:
        warn(w)
    say = reporter(quiet)
    if say and plan.packages:
        n_conda = plan.conda_count
        say(
            f"creating {plan.target}: {plural(n_conda, 'conda package')} (download, verify, link), then "
            f"{plural(len(plan.packages) - n_conda, 'pip package')}"
        )
    outcome = run_create(plan, backend=backend, show_progress=enabled(quiet))
    for w in outcome.warnings:
        warn(w)
    result = outcome.result
    hashes = ", pip hashes required" if result.require_hashes else ""
    echo(
        f"created {result.prefix} ({result.platform}, {result.backend}): "
        f"{plural(result.conda, 'conda package')} and {plural(result.pip, 'pip package')}{hashes}"
    )
    return 0
