"""`envkit check` (the CI gate for environment files, locks and live environments) and
`envkit explain RULE`."""

from __future__ import annotations

import os

import click

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

    out: list[str] = []
    for v in values:
        for name in v.split(","):
            name = name.strip()
            if name:
                get_rule(name)  # raises UsageError for an unknown rule
                out.append(name)
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
    list_rules: bool,
) -> int:
    """Check environment files, locks and live environments (the CI gate).

    With no FILE (and no -n/-p), checks environment.yml / environment.yaml, conda-lock.yml and
    pixi.lock in the current directory.  FILE (or LOCK) '-' reads standard input, once.  A lock is
    compared with its spec when they are paired:
    --lock, the lock's `sources:`, or one spec and one conda-lock.yml checked together.

    Exit codes: 0 no finding at or above --fail-on, 1 findings, 2 usage or parse error.
    `envkit explain RULE` describes a rule with an example.
    """
    from envkit.errors import UsageError
    from envkit.output import emit

    if list_rules:
        from envkit.render.rule_docs import render_rule_list

        emit(render_rule_list(), output)
        return 0
    from envkit.checks import severity_at_least
    from envkit.config import load_config

    if name is not None and prefix is not None:
        raise UsageError("give either -n NAME or -p PREFIX, not both")
    config = load_config(config_path)
    config = config.merged(select=_rule_list(select), ignore=_rule_list(ignore, "--ignore") or ())
    threshold = fail_on or config.fail_on or "error"
    paths = _paths(files, name, prefix, lock_file)
    stdin_text = _stdin_text(paths, lock_file, fix)
    live = None
    if name is not None or prefix is not None:
        from envkit.backends import open_env

        live = open_env(name=name, prefix=prefix)
    profile = None
    if machine is not None:
        from envkit.machine import resolve_machine

        profile = resolve_machine(machine)

    # with several files, one that cannot be read is reported after the others are checked
    unreadable: list | None = [] if len(paths) > 1 else None

    def run():
        if unreadable:
            unreadable.clear()
        return _run(paths, lock_file, live, stdin_text, input_format, profile, config, unreadable)

    targets, findings = run()
    if unreadable is not None and len(unreadable) == len(paths) and lock_file is None and live is None:
        _report_unreadable(unreadable[:-1])
        raise unreadable[-1]
    _warn_duplicates(targets, config)
    fixed: list = []
    if fix and any(f.fixable for f in findings):
        from envkit.checks.fix import apply_fixes

        texts = {t.path: t.text for t in targets if t.text is not None}
        fixed = apply_fixes(findings, texts)
        if fixed:
            targets, findings = run()
    _report(fmt, targets, findings, fixed, threshold, output)
    if unreadable:
        _report_unreadable(unreadable)
    _raise_entry_errors(targets)
    if unreadable:
        return 2
    if any(t.parse_error is not None for t in targets):
        # a file whose YAML could not be read (a duplicated key) is unusable input, as validate,
        # normalize and diff say with exit 2; its raw-text findings are still reported above
        return 2
    return 1 if any(severity_at_least(f.severity, threshold) for f in findings) else 0


def _paths(files: tuple[str, ...], name: str | None, prefix: str | None, lock_file: str | None) -> list[str]:
    """The FILEs, else (with no live environment) the environment files found here."""
    from envkit.checks.targets import discover
    from envkit.errors import UsageError

    paths = []
    for f in files:  # a directory: its environment files, as with no FILE at all in it
        if f != "-" and os.path.isdir(f):
            found = discover(f)
            if not found:
                raise UsageError(
                    f"{f}: a directory with no environment.yml, environment.yaml, conda-lock.yml "
                    "or pixi.lock in it",
                    hint="pass the files to check",
                )
            paths += found
        else:
            paths.append(f)
    if not paths and name is None and prefix is None:
        paths = discover(".")
        if not paths and lock_file is None:
            raise UsageError(
                "nothing to check: no FILE given and no environment.yml, "
                "environment.yaml, conda-lock.yml or pixi.lock here",
                hint="pass files, or -n NAME / -p PREFIX for a live environment",
            )
    return paths


def _stdin_text(paths: list[str], lock_file: str | None, fix: bool) -> str | None:
    """Standard input, read once, when a FILE or the LOCK is '-' (which --fix cannot rewrite)."""
    from envkit.errors import UsageError
    from envkit.sources import STDIN, check_stdin_once, read_stdin

    check_stdin_once(paths + [lock_file])
    if STDIN not in paths and lock_file != STDIN:
        return None
    if fix:
        raise UsageError("--fix cannot rewrite standard input (-)", hint="pass the file's path instead")
    return read_stdin()


def _run(paths, lock_file, live, stdin_text, input_format, profile, config, unreadable=None):
    """(targets, findings): the targets loaded, with the machine profile when given, and checked;
    with `unreadable` given, the errors of the files that cannot be read go there."""
    from envkit.checks import run_checks
    from envkit.checks.targets import load_targets_collecting

    targets = load_targets_collecting(
        paths, lock=lock_file, live=live, stdin=stdin_text, format=input_format, errors=unreadable
    )
    return targets, run_checks(targets, config, machine=profile)


def _report_unreadable(errors) -> None:
    """Each file that could not be read, as the CLI reports an error (`error:`, `hint:`)."""
    from envkit.output import cli_hint

    for exc in errors:
        click.echo(f"error: {exc}", err=True)
        hint = cli_hint(exc)
        if hint:
            click.echo(f"hint: {hint}", err=True)


def _report(fmt: str, targets, findings, fixed, threshold: str, output: str | None) -> None:
    """Write the report in `fmt`; outside text and JSON, the fixes go to stderr."""
    from envkit.output import emit
    from envkit.render import render_findings

    checked = list(dict.fromkeys(t.path for t in targets if t.kind != "live"))
    envs = [t.path for t in targets if t.kind == "live"]
    if fmt not in ("text", "json"):  # json reports fixes itself; the others keep stdout machine-readable
        for x in fixed:
            click.echo(f"{x.file}:{x.line}: fixed {x.rule}: {x.description}", err=True)
    text = render_findings(fmt, findings, checked=checked, fixed=fixed, environments=envs, fail_on=threshold)
    emit(text, output)


def _raise_entry_errors(targets) -> None:
    """After the findings of what parsed: every malformed entry, as an error (exit 2)."""
    from envkit.errors import raise_collected

    seen: set[int] = set()
    errors = []
    for t in targets:
        if id(t.entry_errors) not in seen:  # the environments of one file share one list
            seen.add(id(t.entry_errors))
            errors += t.entry_errors
    raise_collected(errors)


def _warn_duplicates(targets, config) -> None:
    """The shared conda+pip duplicate warning, once per project and source: the environments of a
    pixi.lock (one target each) or a file given twice are one source.  Lines name their source when
    more than one was read.  Silenced as the rule is (config, --ignore, inline suppressions)."""
    from envkit.commands._common import duplicate_messages
    from envkit.output import warn

    per_source: dict[str, list[str]] = {}
    for t in targets:
        messages = per_source.setdefault(t.path, [])
        if t.model is None:
            continue
        for text in duplicate_messages(t.model, config=config, text=t.text):
            if text not in messages:
                messages.append(text)
    label = len(per_source) > 1
    for path, messages in per_source.items():
        for text in messages:
            warn(f"{path}: {text}" if label else text)


@click.command(context_settings={"help_option_names": ["-h", "--help"]})
@click.argument("rule_name", metavar="RULE")
def explain(rule_name: str) -> int:
    """Explain a check rule: what it finds, why it matters, how to fix it, with an example.

    `envkit check --list-rules` lists the rules.
    """
    from envkit.checks.registry import get_rule
    from envkit.render.rule_docs import render_explain

    click.echo(render_explain(get_rule(rule_name)), nl=False)
    return 0
