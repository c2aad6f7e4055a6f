"""`envkit lock`'s three modes and which options go together in each (the command runs the mode:
`_lock_check`, `_lock_spec`, `_lock_live`)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class LockOptions:
    name: str | None
    prefix: str | None
    spec_file: str | None
    platforms: tuple[str, ...]
    output: str
    target: str | None
    env_lock: str | None
    no_env_lock: bool
    backend: str
    channel_priority: str
    virtual_packages: tuple[str, ...]
    solver: str
    no_pip: bool
    allow_unhashed_pip: bool
    quiet: bool
    update: tuple[str, ...]
    update_all: bool
    exclude_newer: str | None
    exclude_newer_package: tuple[str, ...]
    check: bool
    lock_file: str | None
    environment: str | None
    output_format: str


def _refuse(options: tuple[tuple[str, object], ...], why: str, hint: str | None = None) -> None:
    from envkit.errors import UsageError

    for opt, given in options:
        if given:
            raise UsageError(why.format(opt=opt), hint=hint)


def _relock_options(o: LockOptions) -> tuple[tuple[str, object], ...]:
    return (
        ("--update", o.update),
        ("--update-all", o.update_all),
        ("--exclude-newer-package", o.exclude_newer_package),
    )


def mode(o: LockOptions) -> str:
    """The mode the options ask for: "check" (--check), "spec" (-f) or "live" (-n/-p).

    Raises UsageError for options that do not go together."""
    from envkit.errors import UsageError

    if o.check:
        _check_check(o)
        return "check"
    sources = sum(bool(x) for x in (o.name, o.prefix, o.spec_file))
    if sources != 1:
        raise UsageError("give exactly one of -n NAME, -p PREFIX or -f FILE")
    if o.no_env_lock and o.env_lock:
        raise UsageError("give --env-lock FILE or --no-env-lock, not both")
    if o.spec_file:
        _check_spec(o)
        return "spec"
    _check_live(o)
    return "live"


def _check_check(o: LockOptions) -> None:
    from envkit.errors import UsageError

    if not o.spec_file:
        raise UsageError("--check needs the environment file (-f)")
    if o.name or o.prefix:
        raise UsageError("--check compares -f with --lock; it does not read a live environment")
    _refuse(
        (
            ("--platform", o.platforms),
            ("--no-pip", o.no_pip),
            ("--solver", o.solver != "rattler"),
            ("--channel-priority", o.channel_priority != "strict"),
            ("--env-lock", o.env_lock),
            ("--no-env-lock", o.no_env_lock),
            ("--to", o.target),
            ("--allow-unhashed-pip", o.allow_unhashed_pip),
            *_relock_options(o),
        ),
        "{opt} is for locking; --check reads the lock as it is",
        hint="--virtual-package and --exclude-newer are the solver options --check takes (a conda-lock "
        "lock made with non-default virtual packages; the cutoff the lock must have been solved with)",
    )


def _check_spec(o: LockOptions) -> None:
    from envkit.errors import UsageError

    if o.no_env_lock or o.env_lock:
        raise UsageError("--env-lock/--no-env-lock are for -n/-p (a spec lock has several platforms)")
    if o.allow_unhashed_pip:
        raise UsageError(
            "--allow-unhashed-pip is for -n/-p: a spec's pip section is always locked with hashes (or fails)",
            hint="use --no-pip to leave the pip section out",
        )
    if o.update and o.update_all:
        raise UsageError("give --update NAME or --update-all, not both")
    if o.environment and not o.lock_file:
        raise UsageError("--env picks the environment of a pixi.lock --lock; give --lock pixi.lock")
    if o.output_format == "json" and o.output == "-":
        raise UsageError(
            "--format json prints the report on standard output, where -o - would write the lock",
            hint="write the lock to a file (-o FILE)",
        )


def _check_live(o: LockOptions) -> None:
    from envkit.errors import UsageError

    if o.output_format != "text":
        raise UsageError("--format is for -f and --check: a live environment's lock is reported in words")
    _refuse(
        (
            ("--platform", o.platforms),
            ("--virtual-package", o.virtual_packages),
            ("--no-pip", o.no_pip),
            ("--solver", o.solver != "rattler"),
            ("--channel-priority", o.channel_priority != "strict"),
            ("--exclude-newer", o.exclude_newer),
            *_relock_options(o),
        ),
        "{opt} is for solving -f; a live environment is locked as it is",
    )
    if o.lock_file:
        raise UsageError("--lock is for --check and -f (the lock to write is -o)")
    if o.target not in (None, "conda-lock"):
        raise UsageError(
            f"--to {o.target} is for -f: a live environment is locked into conda-lock.yml",
            hint="convert the lock afterwards: `envkit convert conda-lock.yml -o pixi.lock`",
        )
    if o.environment:
        raise UsageError("--env picks the environment of a pixi.lock --lock")
