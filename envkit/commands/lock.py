"""`envkit lock`: lock a live environment exactly, solve a spec into conda-lock.yml or pixi.lock
(keeping what a previous lock chose), or check a lock.  Options in, `envkit.ops.lock` does the work
(`_lock_run` says which mode the options ask for; `_lock_check`, `_lock_spec`,
`_lock_live` call it and render)."""

from __future__ import annotations

import click

from envkit.commands._options import LIVE_BACKENDS


@click.command("lock")
@click.option("-n", "--name", metavar="NAME", help="Lock the live environment with this name.")
@click.option(
    "-p",
    "--prefix",
    metavar="PREFIX",
    type=click.Path(file_okay=False),
    help="Lock the live environment at this path.",
)
@click.option(
    "-f",
    "--file",
    "spec_file",
    type=click.Path(dir_okay=False),
    help="Solve this environment file (environment.yml) instead of reading a live environment.",
)
@click.option(
    "--platform",
    "platforms",
    multiple=True,
    metavar="SUBDIR",
    help="Platform to solve -f for (repeatable; default: the file's `platforms:`, else those of the lock -o "
    "rewrites, else this machine's).",
)
@click.option(
    "-o",
    "--output",
    metavar="FILE",
    default="conda-lock.yml",
    show_default=True,
    help="Where to write the lock ('-' for stdout).",
)
@click.option(
    "--to",
    "target",
    type=click.Choice(("conda-lock", "pixi", "pixi-v7")),
    default=None,
    help="With -f: the lock's format: conda-lock, pixi (pixi.lock version 6) or pixi-v7 "
    "[default: what envkit wrote to -o before; else pixi for -o pixi.lock, conda-lock for any other].",
)
@click.option(
    "--env-lock",
    "env_lock",
    default=None,
    metavar="FILE",
    help="Where -n/-p writes the exact environment file [default: named after -o, beside it: "
    "conda-lock.yml -> environment.lock.yml, X.conda-lock.yml -> X.environment.lock.yml, "
    "STEM.EXT -> STEM.environment.lock.yml; none with -o -].",
)
@click.option("--no-env-lock", is_flag=True, help="With -n/-p, do not write the exact environment file.")
@click.option(
    "--backend",
    type=click.Choice(LIVE_BACKENDS),
    default="native",
    show_default=True,
    help="How -n/-p reads the environment.",
)
@click.option(
    "--channel-priority",
    type=click.Choice(("strict", "flexible", "disabled")),
    default="strict",
    show_default=True,
    help="Channel priority when solving -f.",
)
@click.option(
    "--virtual-package",
    "virtual_packages",
    multiple=True,
    metavar="[PLATFORM:]__NAME=VERSION",
    help="Set a virtual package when solving, e.g. linux-64:__cuda=12.4 (repeatable); with --check, "
    "the ones a conda-lock lock was made with.",
)
@click.option(
    "--solver",
    type=click.Choice(("rattler", "conda-lock")),
    default="rattler",
    show_default=True,
    help="Solve -f with py-rattler, or with conda-lock (needs a conda executable).",
)
@click.option("--no-pip", is_flag=True, help="Do not lock the pip section of -f.")
@click.option(
    "--allow-unhashed-pip",
    is_flag=True,
    help="With -n/-p, lock pip packages whose artifact pip cannot find without URL or hash "
    "(marked #envkit-unresolved) instead of failing.",
)
@click.option(
    "-q",
    "--quiet",
    is_flag=True,
    help="No progress on stderr (it is shown only on a terminal, or with ENVKIT_PROGRESS=1).",
)
@click.option(
    "--update",
    "update",
    multiple=True,
    metavar="NAME",
    help="With -f over a previous lock: let NAME move to its newest version (and what that forces); "
    "every other locked package stays (repeatable, or NAME,NAME).",
)
@click.option(
    "--update-all", is_flag=True, help="With -f: solve afresh, ignoring the previous lock's versions."
)
@click.option(
    "--exclude-newer",
    metavar="DATE|DURATION",
    help="Solve -f as the channels were then: leave out records uploaded after DATE (2025-01-01, "
    "2025-01-01T12:00Z) or DURATION ago (30d, 12h, 2w) [default: the cutoff the previous lock records].",
)
@click.option(
    "--exclude-newer-package",
    "exclude_newer_package",
    multiple=True,
    metavar="NAME=DATE|CHANNEL::=DATE",
    help="A cutoff for one package, or every package of one channel, beating --exclude-newer (repeatable).",
)
@click.option(
    "--check",
    is_flag=True,
    help="Do not lock: exit 1 when --lock is stale or does not satisfy -f, 0 when it fits.",
)
@click.option(
    "--lock",
    "lock_file",
    type=click.Path(dir_okay=False),
    metavar="FILE",
    help="The lock --check reads, or the previous lock -f starts from (conda-lock.yml or pixi.lock) "
    "[default: conda-lock.yml with --check; the -o file with -f].",
)
@click.option(
    "--env",
    "environment",
    metavar="NAME",
    help="The environment of a pixi.lock --lock [default: default].",
)
@click.option(
    "--format",
    "output_format",
    type=click.Choice(("text", "json")),
    default="text",
    show_default=True,
    help="The report's format: with -f, json prints what was locked and moved on stdout (the lock "
    "goes to -o); with --check, the verdict.",
)
def lock(**opts) -> int:
    """Lock a live environment exactly, or solve an environment file for several platforms.

    \b
      envkit lock -p ./env                      conda-lock.yml + environment.lock.yml of ./env
      envkit lock -f environment.yml --platform linux-64 --platform osx-arm64
      envkit lock -f environment.yml --update numpy      (only numpy, and what it forces, moves)
      envkit lock -f environment.yml --update-all --exclude-newer 7d
      envkit lock -f environment.yml -o pixi.lock        (a pixi.lock, version 6)
      envkit lock --check -f environment.yml --lock conda-lock.yml    (exit 1 when stale)
    """
    from envkit.commands._lock_run import LockOptions, mode

    o = LockOptions(**opts)
    chosen = mode(o)
    if chosen in ("check", "spec"):
        from envkit.commands._lock_manifest import run_manifest

        done = run_manifest(o, chosen)  # a pixi.toml / pyproject.toml: judged, never solved
        if done is not None:
            return done
    if chosen == "check":
        from envkit.commands._lock_check import run_check

        return run_check(o)
    if chosen == "spec":
        from envkit.commands._lock_spec import run_spec

        return run_spec(o)
    from envkit.commands._lock_live import run_live

    return run_live(o)
