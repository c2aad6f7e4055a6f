"""`envkit check`: the CI gate for environment files, locks and live environments (parse the
options, run envkit.ops.check, render the findings)."""

from __future__ import annotations

import click

from envkit.commands._options import split_commas
from envkit.formats import FORMATS as INPUT_FORMATS

FORMATS = ("text", "json", "github", "sarif")
SEVERITY_CHOICES = ("error", "warning", "info")


def _rule_list(values: tuple[str, ...], option: str = "--select") -> tuple[str, ...] | None:
    """`--select a,b --select c` -> ("a", "b", "c"), checked against the registry.

    Raises UsageError for an unknown rule, and for a `--select` that names no rule at all (`--select
    ""`, as an empty CI variable gives): that would run no rule and pass every file."""
    if not values:
        return None
    from envkit.checks.registry import get_rule

    out = split_commas(values)
    for name in out:
        get_rule(name)  # raises UsageError for an unknown rule
    if not out and option == "--select":
        from envkit.errors import UsageError

        raise UsageError(
            "--select names no rule, so no rule would run",
            hint="give rule names (`envkit check --list-rules`), or leave --select out to run every rule",
        )
    return tuple(dict.fromkeys(out))


@click.command(context_settings={"help_option_names": ["-h", "--help"]})
@click.argument("files", nargs=-1, metavar="[FILE]...")
@click.option(
    "--lock",
    "lock_file",
    metavar="LOCK",
    help="The lock to compare the FILEs (stale-lock, lock-unsatisfied) and the live "
    "environment (env-drift) with.",
)
@click.option("-n", "--name", metavar="NAME", help="Also check the live conda environment NAME.")
@click.option("-p", "--prefix", metavar="PREFIX", help="Also check the live environment at PREFIX.")
@click.option(
    "--select", multiple=True, metavar="RULES", help="Run only these rules (comma-separated; repeatable)."
)
@click.option(
    "--ignore", multiple=True, metavar="RULES", help="Skip these rules (comma-separated; repeatable)."
)
@click.option(
    "--format", "fmt", type=click.Choice(FORMATS), default="text", show_default=True, help="Output format."
)
@click.option(
    "--fail-on",
    type=click.Choice(SEVERITY_CHOICES),
    default=None,
    help="Exit 1 when a finding is at least this severe [default: error, or fail-on in the configuration].",
)
@click.option(
    "--fix",
    is_flag=True,
    help="Apply the safe mechanical fixes (remove `prefix:`, redact credentials, add "
    "`pip`), atomically, and report them.",
)
@click.option(
    "--input-format",
    type=click.Choice(INPUT_FORMATS),
    help="Read the FILEs as this format (default: detected from the content and name).",
)
@click.option("-o", "--output", metavar="OUT", help="Write the report to OUT instead of stdout.")
@click.option(
    "--config",
    "config_path",
    metavar="TOML",
    help="Configuration file [default: .envkit.toml or pyproject.toml [tool.envkit], searched upwards].",
)
@click.option(
    "--machine",
    "machine",
    metavar="PROFILE|host|ssh://HOST",
    help="Also check that the FILEs install and run on this machine: a profile file "
    "(`envkit machine -o FILE`), `host` (this machine) or ssh://HOST (the machine-* rules).",
)
@click.option(
    "--audit",
    is_flag=True,
    help="Also run the audit rules (known vulnerabilities, licences) on locks and live environments "
    "against the advisory database configured (db in [tool.envkit.audit], else $ENVKIT_AUDIT_DB; "
    "they run whenever one is); exit 2 when none is.",
)
@click.option("--list-rules", is_flag=True, help="List the rules and exit.")
def check(
    files: tuple[str, ...],
    lock_file: str | None,
    name: str | None,
    prefix: str | None,
    select: tuple[str, ...],
    ignore: tuple[str, ...],
    fmt: str,
    fail_on: str | None,
    fix: bool,
    input_format: str | None,
    output: str | None,
    config_path: str | None,
    machine: str | None,
    audit: bool,
    list_rules: bool,
) -> int:
    """Check environment files, locks and live environments (the CI gate).

    With no FILE (and no -n/-p), checks environment.yml / environment.yaml, conda-lock.yml,
    pixi.lock and the manifests with their locks (pixi.toml, a pyproject.toml that asks for
    packages, uv.lock, pylock.toml) in the current directory; a directory FILE, those files in it
    and every folder below it (not hidden ones).  FILE (or LOCK) '-' reads standard input, once.  A
    lock is compared with its spec when they are paired: --lock, the lock's `sources:` (relative to
    the lock), one spec and one conda-lock.yml of one folder checked together, or a manifest and
    the lock its tool writes beside it.

    Exit codes: 0 no finding at or above --fail-on, 1 findings, 2 usage or parse error.
    `envkit explain RULE` describes a rule with an example.
    """
    from envkit.errors import UsageError
    from envkit.io import emit

    if list_rules:
        from envkit.render.rule_docs import render_rule_list

        emit(render_rule_list(), output)
        return 0
    from envkit.ops.check import check as check_op
    from envkit.ops.check import check_paths

    if name is not None and prefix is not None:
        raise UsageError("give either -n NAME or -p PREFIX, not both")
    config = _config(config_path, select, ignore, audit)
    threshold = fail_on or config.fail_on or "error"
    paths = check_paths(files, live=name is not None or prefix is not None, lock=lock_file)
    stdin_text = _stdin_text(paths, lock_file, fix)
    live, profile = _live_and_machine(name, prefix, machine)
    result = check_op(
        paths,
        lock=lock_file,
        live=live,
        stdin=stdin_text,
        format=input_format,
        config=config,
        machine=profile,
        fix=fix,
    )
    alone = lock_file is None and live is None
    return _finish(result, len(paths), alone=alone, fmt=fmt, threshold=threshold, output=output)


def _config(config_path: str | None, select: tuple[str, ...], ignore: tuple[str, ...], audit: bool):
    """The configuration check runs with: the file's, with --select/--ignore (and --audit)."""
    from envkit.config import load_config

    config = load_config(config_path)
    config = config.merged(select=_rule_list(select), ignore=_rule_list(ignore, "--ignore") or ())
    return _with_audit(config) if audit else config


def _with_audit(config):
    """`config` with the audit rules selected; AuditDbError when no advisory database is configured."""
    from envkit.checks.rules_audit import AUDIT_RULES, configured_db

    if configured_db(config) is None:
        from envkit.audit.index import ENV_DB, AuditDbError

        raise AuditDbError(
            "--audit: no advisory database is configured",
            hint=f"name one with `db` in [tool.envkit.audit] (.envkit.toml: [audit]) or ${ENV_DB}; "
            "`envkit audit --fetch-db DIR` downloads OSV's PyPI dump once",
        )
    if config.select is None:
        return config
    return config.merged(select=tuple(dict.fromkeys(config.select + AUDIT_RULES)))


def _live_and_machine(name: str | None, prefix: str | None, machine: str | None):
    """The live environment of -n/-p and the machine profile of --machine (each None when not given)."""
    live = None
    if name is not None or prefix is not None:
        from envkit.backends import open_env

        live = open_env(name=name, prefix=prefix)
    profile = None
    if machine is not None:
        from envkit.machine import resolve_machine

        profile = resolve_machine(machine)
    return live, profile


def _finish(result, n_paths: int, *, alone: bool, fmt: str, threshold: str, output: str | None) -> int:
    """Report `result` and return the exit code; `alone`: the FILEs are all that was checked."""
    from envkit.errors import raise_collected
    from envkit.output import echo_errors, warn

    # with several files, one that cannot be read is reported after the others are checked
    if result.unreadable and len(result.unreadable) == n_paths and alone:
        echo_errors(result.unreadable[:-1])
        raise result.unreadable[-1]
    for text in result.warnings:
        warn(text)
    _report(fmt, result, threshold, output)
    echo_errors(result.unreadable)
    raise_collected(result.entry_errors)
    # an unread file, or YAML that did not parse (a duplicated key): unusable input, exit 2
    return 2 if result.unusable else 1 if result.fails(threshold) else 0


def _stdin_text(paths: list[str], lock_file: str | None, fix: bool) -> str | None:
    """Standard input, read once, when a FILE or the LOCK is '-' (which --fix cannot rewrite)."""
    from envkit.errors import UsageError
    from envkit.stdin import STDIN, check_stdin_once, read_stdin

    check_stdin_once(paths + [lock_file])
    if STDIN not in paths and lock_file != STDIN:
        return None
    if fix:
        raise UsageError("--fix cannot rewrite standard input (-)", hint="pass the file's path instead")
    return read_stdin()


def _report(fmt: str, result, threshold: str, output: str | None) -> None:
    """Write the report in `fmt`; outside text and JSON, the fixes go to stderr."""
    from envkit.io import emit
    from envkit.output import echo
    from envkit.render import render_findings

    if fmt not in ("text", "json"):  # json reports fixes itself; the others keep stdout machine-readable
        for x in result.fixed:
            echo(f"{x.file}:{x.line}: fixed {x.rule}: {x.description}", err=True)
    text = render_findings(
        fmt,
        list(result.findings),
        checked=list(result.checked),
        fixed=list(result.fixed),
        environments=list(result.environments),
        fail_on=threshold,
    )
    emit(text, output)
