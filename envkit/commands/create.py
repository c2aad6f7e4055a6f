"""`envkit create`: create an environment from a lock, without solving."""
from __future__ import annotations

import click


@click.command("create")
@click.option("--lock", "lock_file", required=True, type=click.Path(dir_okay=False),
              help="The lock to install (conda-lock.yml, an explicit file, pixi.lock, ...).")
@click.option("-p", "--prefix", type=click.Path(file_okay=False), help="Create the environment at this path.")
@click.option("-n", "--name", help="Create the environment with this name (in the first envs directory).")
@click.option("--platform", default=None, metavar="SUBDIR",
              help="The locked platform to install [default: this machine's].")
@click.option("--backend", type=click.Choice(("rattler", "conda", "mamba", "micromamba")), default="rattler",
              show_default=True, help="Install the conda packages with py-rattler, or with a conda executable.")
def create(lock_file, prefix, name, platform, backend) -> int:
    """Create an environment holding exactly the packages of a lock.

    Conda packages are installed first (hashes verified; any failure removes the half-made
    environment), then the pip packages with the new environment's own pip (`--no-deps`, and
    `--require-hashes` when every pip package has a hash).
    """
    from envkit.commands._common import warn_duplicates
    from envkit.create import create_from_lock, new_env_prefix
    from envkit.errors import ParseError, UsageError, Where
    from envkit.formats import read_file
    from envkit.model import Lock

    if bool(prefix) == bool(name):
        raise UsageError("give exactly one of -p PREFIX or -n NAME")
    lk = read_file(lock_file)
    if not isinstance(lk, Lock):
        raise ParseError("not a lock file (it reads as an environment spec, which needs solving)",
                         where=Where(file=lock_file), hint="lock it first: envkit lock -f FILE")
    warn_duplicates([lk])
    target = prefix or new_env_prefix(name)
    if lk.pip_options:
        from envkit.cli import warn
        from envkit.create import pip_option_lines

        for w in pip_option_lines(lk.pip_options)[1]:
            warn(w)
    result = create_from_lock(lk, target, platform=platform, backend=backend)
    if result.by_pin:
        from envkit.cli import warn

        warn(f"{len(result.by_pin)} pip package(s) had no artifact in the lock (#envkit-unresolved) and were "
             f"installed by pin from the configured index, without hash checking: {', '.join(result.by_pin)}")
    hashes = ", pip hashes required" if result.require_hashes else ""
    click.echo(f"created {result.prefix} ({result.platform}, {result.backend}): {result.conda} conda and "
               f"{result.pip} pip packages{hashes}")
    return 0
