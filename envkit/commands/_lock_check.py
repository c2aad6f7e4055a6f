"""`envkit lock --check`: does the lock still fit the spec, and if not, which entries changed."""

from __future__ import annotations

from envkit.commands._lock_files import regen_advice
from envkit.output import echo

#: `envkit lock` has no --input-format (-f is an environment file, --lock a lock): the hints of
#: format detection, which name --format, say what each option takes instead.
SPEC_FORMATS_HINT = "-f takes an environment file: environment.yml (or a requirements.txt)"
LOCK_FORMATS_HINT = (
    "--lock takes a lock: conda-lock.yml, pixi.lock, an explicit file (@EXPLICIT), "
    "`conda list --json` or `conda list --export` output"
)


def read_spec(path: str):
    from envkit.errors import ParseError, Where
    from envkit.lock.read import read_lock_file
    from envkit.model import EnvSpec

    spec = read_lock_file(path, None, None, format_hint=SPEC_FORMATS_HINT)[1]
    if not isinstance(spec, EnvSpec):
        raise ParseError(
            "not an environment file (it reads as a lock)",
            where=Where(file=path),
            hint="pass an environment.yml with -f",
        )
    return spec


def run_check(o) -> int:
    from envkit.commands._common import warn_duplicates
    from envkit.create import choose_platform
    from envkit.errors import ParseError, UsageError, Where
    from envkit.lock import parse_virtual_package
    from envkit.lock.cutoff import parse_exclude_newer
    from envkit.lock.read import read_lock_file
    from envkit.model import Lock
    from envkit.ops.create import pixi_environments
    from envkit.ops.lock import check_lock

    lock_file = o.lock_file or "conda-lock.yml"
    spec = read_spec(o.spec_file)
    text, lk = read_lock_file(lock_file, None, o.environment, format_hint=LOCK_FORMATS_HINT)
    if not isinstance(lk, Lock):
        from envkit.checks._compiled import compiled_inputs

        if compiled_inputs(text):
            return _run_compiled(o, lock_file)
        raise ParseError(
            "not a lock file",
            where=Where(file=lock_file),
            hint="pass conda-lock.yml with --lock, or a requirements file pip-compile wrote from -f",
        )
    if o.environment and lk.kind != "pixi":
        raise UsageError(
            f"--env picks an environment of a pixi.lock; this is a {lk.kind} lock, which holds "
            "one environment",
            where=Where(file=lock_file),
            hint="leave out --env",
        )
    if lk.kind == "pixi" and not lk.platforms:
        # nothing locked would check nothing and pass: say so, and name the environments that have packages
        choose_platform(lk, None, environments=pixi_environments(text, lk, lock_file, None))
    warn_duplicates(spec)
    cutoff = parse_exclude_newer(o.exclude_newer) if o.exclude_newer else None
    verdict = check_lock(
        spec,
        lk,
        lock_text=text,
        virtual_packages=[parse_virtual_package(v) for v in o.virtual_packages],
        exclude_newer=cutoff,
    )
    advice = regen_advice(lk, o.spec_file, lock_file, text) if o.output_format == "text" else ""
    return _report(o, verdict, lock_file, advice)


def _report(o, verdict, lock_file: str, advice: str) -> int:
    """The verdict on stdout (the text report with `advice`): exit 0 when the lock fits, else 1."""
    from envkit.render import render

    extra = {"advice": advice} if o.output_format == "text" else {}
    echo(
        render("lock-check", o.output_format, verdict, spec_file=o.spec_file, lock_file=lock_file, **extra),
        nl=False,
    )
    return 0 if verdict.ok else 1


def _run_compiled(o, lock_file: str) -> int:
    """`-f docs.in --lock docs.txt`: a requirements file pip-compile (or `uv pip compile`) wrote,
    paired and judged as `envkit check docs.in docs.txt` pairs and judges them (envkit.checks):
    every requirement of the `.in` pinned, and satisfied by its pin."""
    from envkit.checks import load_targets
    from envkit.checks._compiled import compiled_inputs
    from envkit.checks.rules_lock import lock_problems
    from envkit.errors import UsageError, Where
    from envkit.model import Lock
    from envkit.ops.lock import LockCheck

    for option, given in (("--env", o.environment), ("--exclude-newer", o.exclude_newer)):
        if given:
            raise UsageError(
                f"{option} is for conda locks; {lock_file} is a requirements file pip-compile wrote",
                where=Where(file=lock_file),
                hint=f"leave out {option}",
            )
    targets = load_targets([o.spec_file, lock_file])
    spec_t, lock_t = targets[0], targets[-1]
    if spec_t.lock is not lock_t:
        named = ", ".join(compiled_inputs(lock_t.text)) or "another file"
        raise UsageError(
            f"compiled from {named} (its header says so), not from {o.spec_file}",
            where=Where(file=lock_file),
            hint=f"pass the .in file its header names with -f, or compile {o.spec_file} into its own file",
        )
    verdict = LockCheck(
        lock=Lock(kind="pip-compile", platforms=(), packages=(), source=lock_file),
        problems=tuple(lock_problems(spec_t, lock_t)),
    )
    return _report(o, verdict, lock_file, f"compile {o.spec_file} again")
