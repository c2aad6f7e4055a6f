"""`envkit create`: create an environment from a lock, without solving."""

from __future__ import annotations

from typing import TYPE_CHECKING

import click

from envkit._text import plural
from envkit.formats import FORMATS

if TYPE_CHECKING:  # pragma: no cover
    from envkit.create import CreateResult
    from envkit.model import Lock


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
    from envkit.commands._common import warn_duplicates
    from envkit.commands.progress import enabled, reporter
    from envkit.create import create_from_lock, new_env_prefix
    from envkit.errors import UsageError

    if bool(prefix) == bool(name):
        raise UsageError("give exactly one of -p PREFIX or -n NAME")
    text, lk = _read_lock(lock_file, input_format, environment)
    environments = _pixi_environments(text, lk, lock_file, platform)
    warn_duplicates([lk])
    target = prefix or new_env_prefix(name)
    if lk.pip_options:
        from envkit.create import pip_option_lines
        from envkit.output import warn

        for w in pip_option_lines(lk.pip_options)[1]:
            warn(w)
    say = reporter(quiet)
    if say:
        from envkit.create import choose_platform

        pkgs = lk.for_platform(choose_platform(lk, platform, environments=environments))
        n_conda = sum(1 for p in pkgs if p.manager == "conda")
        say(
            f"creating {target}: {plural(n_conda, 'conda package')} (download, verify, link), then "
            f"{plural(len(pkgs) - n_conda, 'pip package')}"
        )
    result = create_from_lock(
        lk,
        target,
        platform=platform,
        backend=backend,
        environments=environments,
        show_progress=enabled(quiet),
    )
    _warn_result(result)
    hashes = ", pip hashes required" if result.require_hashes else ""
    click.echo(
        f"created {result.prefix} ({result.platform}, {result.backend}): "
        f"{plural(result.conda, 'conda package')} and {plural(result.pip, 'pip package')}{hashes}"
    )
    return 0


def _read_lock(lock_file: str, input_format: str | None, environment: str | None) -> tuple[str, Lock]:
    """The text and the Lock of `lock_file`; a spec, or `--env` for a lock that is no pixi.lock,
    is refused."""
    from envkit.errors import ParseError, UsageError, Where
    from envkit.lock.read import read_lock_file
    from envkit.model import Lock

    text, lk = read_lock_file(lock_file, input_format, environment)
    if not isinstance(lk, Lock):
        raise ParseError(
            "not a lock file (it reads as an environment spec, which needs solving)",
            where=Where(file=lock_file),
            hint="lock it first: envkit lock -f FILE",
        )
    if environment and lk.kind != "pixi":
        raise UsageError(
            f"--env picks an environment of a pixi.lock; this is a {lk.kind} lock, which holds "
            "one environment",
            where=Where(file=lock_file),
            hint="leave out --env",
        )
    return text, lk


def _pixi_environments(
    text: str, lk: Lock, lock_file: str, platform: str | None
) -> dict[str, tuple[str, ...]] | None:
    """For a pixi.lock whose environment lacks the platform: every environment's platforms, so
    that the error says which have it (a second parse, only on this error path)."""
    from envkit.create import host_platform

    if lk.kind != "pixi" or (platform or host_platform()) in lk.platforms:
        return None
    from envkit.formats.pixilock import read_pixi_environments

    return {n: e.platforms for n, e in read_pixi_environments(text, lock_file).items()}


def _warn_result(result: CreateResult) -> None:
    """What the user must know about the new environment: pip packages installed without hash
    checking, and variables the lock has no value for."""
    from envkit.output import warn

    if result.by_pin:
        warn(
            f"{len(result.by_pin)} pip package(s) had no artifact in the lock (#envkit-unresolved) and "
            "were installed by pin from the configured index, without hash checking: "
            f"{', '.join(result.by_pin)}"
        )
    if result.unset_variables:
        names = " ".join(f"{n}=..." for n in result.unset_variables)
        warn(
            f"the lock records {len(result.unset_variables)} environment variable(s) without their "
            "value (a credential, redacted when it was locked), not set: "
            f"{', '.join(result.unset_variables)}; set them with "
            f"`conda env config vars set {names} -p {result.prefix}`"
        )
