"""`envkit audit`: known vulnerabilities and licences of environments, offline (parse the options,
run envkit.ops.audit, render the result)."""

from __future__ import annotations

import click

from envkit.audit.config import FAIL_ON
from envkit.commands._options import split_commas

FORMATS = ("text", "json", "sarif", "github")


@click.command(context_settings={"help_option_names": ["-h", "--help"]})
@click.argument("sources", nargs=-1, metavar="[SOURCE]...")
@click.option("-n", "--name", metavar="NAME", help="Also audit the live conda environment NAME.")
@click.option("-p", "--prefix", metavar="PREFIX", help="Also audit the live environment at PREFIX.")
@click.option(
    "--db",
    metavar="PATH",
    help="The OSV database: OSV's PyPI all.zip or a directory of OSV records "
    "[default: db in the configuration, else $ENVKIT_AUDIT_DB].",
)
@click.option(
    "--fetch-db",
    metavar="DIR",
    help="Download OSV's PyPI dump into DIR/PyPI/all.zip, build its index, and exit "
    "(the one network access of envkit audit).",
)
@click.option(
    "--format", "fmt", type=click.Choice(FORMATS), default="text", show_default=True, help="Output format."
)
@click.option(
    "--fail-on",
    type=click.Choice(FAIL_ON),
    default=None,
    help="Exit 1 when a vulnerability reaches this CVSS rating (`any`: every known one; "
    "`unknown`: also what cannot be known; an unscored advisory reaches every level) or a licence "
    "is not allowed [default: any, or fail-on in the configuration].",
)
@click.option(
    "--vex", metavar="FILE", help="A CycloneDX VEX file: its not_affected statements silence advisories."
)
@click.option(
    "--license-allow",
    multiple=True,
    metavar="IDS",
    help="Allowed SPDX licences (comma-separated; repeatable).",
)
@click.option(
    "--license-deny", multiple=True, metavar="IDS", help="Denied SPDX licences (comma-separated; repeatable)."
)
@click.option(
    "--config",
    "config_path",
    metavar="TOML",
    help="Configuration file [default: .envkit.toml [audit] or pyproject.toml [tool.envkit.audit], "
    "searched upwards].",
)
@click.option("-o", "--output", metavar="OUT", help="Write the report to OUT instead of stdout.")
def audit(
    sources: tuple[str, ...],
    name: str | None,
    prefix: str | None,
    db: str | None,
    fetch_db: str | None,
    fmt: str,
    fail_on: str | None,
    vex: str | None,
    license_allow: tuple[str, ...],
    license_deny: tuple[str, ...],
    config_path: str | None,
    output: str | None,
) -> int:
    """Audit environments for known vulnerabilities and licences, offline.

    SOURCE is any lock or environment file envkit reads, a prefix or env:NAME, or a directory
    of collected host files (as `envkit fleet DIR` reads it): each host audited.  Packages are
    matched against an OSV database on disk; conda packages through their PyPI identity.  What
    has no advisory source (native libraries) is listed as unknown, never as clean.

    Exit codes: 0 nothing reaches --fail-on, 1 something does, 2 usage error, unreadable input
    or no database.
    """
    from envkit.errors import UsageError
    from envkit.io import emit
    from envkit.output import echo

    if fetch_db is not None:
        return _fetch(fetch_db)
    if name is not None and prefix is not None:
        raise UsageError("give either -n NAME or -p PREFIX, not both")
    if not sources and name is None and prefix is None:
        raise UsageError("nothing to audit", hint="pass lock or environment files, or -n NAME / -p PREFIX")
    from envkit.audit.config import load_audit_config
    from envkit.ops.audit import audit as audit_op
    from envkit.render import render

    live = None
    if name is not None or prefix is not None:
        from envkit.backends import open_env

        live = open_env(name=name, prefix=prefix)
    result = audit_op(
        _hosts(sources),
        live=live,
        db=db,
        vex=vex,
        license_allow=split_commas(license_allow),
        license_deny=split_commas(license_deny),
        fail_on=fail_on,
        config=load_audit_config(_config_file(config_path)),
    )
    for text in result.lapsed:
        echo(f"warning: {text}", err=True)
    emit(render("audit", fmt, result), output)
    return 1 if result.failed else 0


def _fetch(url: str) -> int:
    from envkit.ops.audit import fetch
    from envkit.output import echo

    path, index = fetch(url)
    echo(f"{path}: {index.records} advisories, indexed in {index.path or '(not cached)'}")
    return 0


def _hosts(sources: tuple[str, ...]) -> tuple[str, ...]:
    """`sources` with each directory of collected host files (one file per host, as `envkit fleet`
    reads it; machine profiles beside them are not environments) replaced by its hosts' files."""
    import os

    from envkit.fleet.collect import plan

    out: list[str] = []
    for s in sources:
        if os.path.isdir(s) and not os.path.isdir(os.path.join(s, "conda-meta")):
            jobs, _ = plan([s], env=None, via="ssh", environ={})
            out += [j.path for j in jobs if j.path]
        else:
            out.append(s)
    return tuple(out)


def _config_file(config_path: str | None) -> str | None:
    """--config, else the config file envkit.config finds from the working directory."""
    from envkit.config import find_config

    found = config_path if config_path is not None else find_config(None)
    return None if found is None else str(found)
