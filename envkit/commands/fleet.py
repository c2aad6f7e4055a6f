"""`envkit fleet SOURCE...` and `envkit fingerprint [ENV]`: which machines of a fleet differ, and how."""

from __future__ import annotations

import click

from envkit.fleet import DEFAULT_JOBS, DEFAULT_TIMEOUT, TRANSPORTS

FORMATS = ("text", "json", "markdown", "html")


@click.command(context_settings={"help_option_names": ["-h", "--help"]})
@click.argument("sources", nargs=-1, metavar="SOURCE...")
@click.option(
    "--env",
    "env",
    metavar="NAME|PATH",
    help="The environment read on hosts whose SOURCE names none (default: base).",
)
@click.option(
    "--via",
    type=click.Choice(TRANSPORTS),
    default="ssh",
    show_default=True,
    help="How host names are reached.",
)
@click.option(
    "-j",
    "--jobs",
    type=click.IntRange(1, 1024),
    metavar="N",
    default=DEFAULT_JOBS,
    show_default=True,
    help="Hosts read at once.",
)
@click.option(
    "--timeout",
    type=click.FloatRange(1, 3600),
    metavar="SECONDS",
    default=DEFAULT_TIMEOUT,
    show_default=True,
    help="Seconds one host may take.",
)
@click.option(
    "--lock",
    "lock",
    metavar="LOCK",
    help="Also compare every host with this lock (conda-lock.yml, pixi.lock, ...) and check it "
    "against each machine; a manifest (pixi.toml, pyproject.toml) means the lock beside it.",
)
@click.option("--platform", metavar="P", help="Platform of a multi-platform lock or collected file.")
@click.option("--no-machine", is_flag=True, help="Do not probe the machines (group by environment only).")
@click.option(
    "--format", "fmt", type=click.Choice(FORMATS), default="text", show_default=True, help="Output format."
)
@click.option("-o", "--output", metavar="FILE", help="Write the report to FILE instead of stdout.")
def fleet(sources, env, via, jobs, timeout, lock, platform, no_machine, fmt, output) -> int:
    """Group many hosts by environment and machine, and explain each outlier.

    A SOURCE is ssh://[user@]host[:port][/PATH|/env:NAME], a host name or a host-list expression
    (node[001-128], rack[1-2]-n[01-04], login1,gpu[1-4]), @FILE (a file of SOURCEs, one a line),
    a directory of collected files (any format envkit reads, or `envkit export --format json`;
    the file stem is the host; `envkit machine --format json` profiles beside them give the machines),
    a single collected file, or a local prefix.  With --via srun and no SOURCE, every node of
    the Slurm allocation.

    An unreachable or failing host is a row of the report, never an abort.  ssh runs with
    BatchMode=yes (it never asks for a password).  Exit codes: 0 every host the same (and like
    the lock), 1 hosts differ or could not be read, 2 error.
    """
    from envkit.commands._lock_manifest import lock_of
    from envkit.fleet import fleet as run_fleet
    from envkit.io import emit
    from envkit.output import warn
    from envkit.render import render

    if lock:  # a manifest (pixi.toml, pyproject.toml) stands for the lock its tool wrote beside it
        lock = lock_of(lock, "--lock")
    report = run_fleet(
        list(sources),
        env=env,
        via=via,
        jobs=jobs,
        timeout=timeout,
        lock=lock,
        platform=platform,
        machine=not no_machine,
    )
    for host, named in report.duplicates:
        warn(f"{host} is named more than once ({', '.join(named)}); it is read once")
    for w in report.warnings:
        warn(w)
    from envkit.fleet.hostlist import fold
    from envkit.ops._duplicates import duplicate_messages

    # each warning once, naming every host it applies to
    seen: dict[str, list[str]] = {}
    messages: dict[str, list[str]] = {}
    for g in report.groups:
        if g.model is not None and g.env.digest not in seen:
            seen[g.env.digest] = duplicate_messages(g.model)
        for msg in seen.get(g.env.digest, ()):
            messages.setdefault(msg, []).extend(g.members)
    for msg, hosts in messages.items():
        warn(f"{fold(sorted(hosts))}: {msg}")
    emit(render("fleet", fmt, report), output)
    return 0 if report.same else 1


@click.command(context_settings={"help_option_names": ["-h", "--help"]})
@click.argument("source", required=False, metavar="[ENV]")
@click.option("--no-machine", is_flag=True, help="Fingerprint the environment only.")
def fingerprint(source: str | None, no_machine: bool) -> int:
    """Print one line that is the same on every host with the same environment and machine class.

    ENV is any SOURCE envkit reads (env:NAME, a prefix, a file, ssh://HOST/env:NAME); default
    the active environment ($CONDA_PREFIX), else base.  `clush -b envkit fingerprint env:NAME`
    groups nodes by it.
    """
    from envkit.fleet import fingerprint as run_fingerprint
    from envkit.fleet import fingerprint_line
    from envkit.io import emit

    ep, mc = run_fingerprint(source, machine=not no_machine)
    emit(fingerprint_line(ep, mc) + "\n", None)
    return 0
