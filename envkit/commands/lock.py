"""`envkit lock`: lock a live environment exactly, solve a spec into conda-lock.yml, or check a lock."""

from __future__ import annotations

import os
import shlex

import click

BACKENDS = ("native", "conda", "mamba", "micromamba")


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
    help="Platform to solve -f for (repeatable; default: the file's `platforms:`, else this machine's).",
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
    type=click.Choice(BACKENDS),
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
    "--check",
    is_flag=True,
    help="Do not lock: exit 1 when --lock is stale or does not satisfy -f, 0 when it fits.",
)
@click.option(
    "--lock",
    "lock_file",
    type=click.Path(dir_okay=False),
    metavar="FILE",
    help="The lock --check reads [default: conda-lock.yml].",
)
@click.option(
    "--env",
    "environment",
    metavar="NAME",
    help="With --check: the environment of a pixi.lock to check [default: default].",
)
def lock(
    name,
    prefix,
    spec_file,
    platforms,
    output,
    env_lock,
    no_env_lock,
    backend,
    channel_priority,
    virtual_packages,
    solver,
    no_pip,
    allow_unhashed_pip,
    quiet,
    check,
    lock_file,
    environment,
) -> int:
    """Lock a live environment exactly, or solve an environment file for several platforms.

    \b
      envkit lock -p ./env                      conda-lock.yml + environment.lock.yml of ./env
      envkit lock -f environment.yml --platform linux-64 --platform osx-arm64
      envkit lock --check -f environment.yml --lock conda-lock.yml    (exit 1 when stale)
    """
    from envkit.errors import UsageError

    if check:
        if not spec_file:
            raise UsageError("--check needs the environment file (-f)")
        if name or prefix:
            raise UsageError("--check compares -f with --lock; it does not read a live environment")
        for opt, given in (
            ("--platform", platforms),
            ("--no-pip", no_pip),
            ("--solver", solver != "rattler"),
            ("--channel-priority", channel_priority != "strict"),
            ("--env-lock", env_lock),
            ("--no-env-lock", no_env_lock),
            ("--allow-unhashed-pip", allow_unhashed_pip),
        ):
            if given:
                raise UsageError(
                    f"{opt} is for locking; --check reads the lock as it is",
                    hint="--virtual-package is the one solver option --check takes (for a "
                    "conda-lock lock made with non-default virtual packages)",
                )
        return _check(spec_file, lock_file or "conda-lock.yml", virtual_packages, environment)
    if lock_file:
        raise UsageError("--lock is only for --check (the lock to write is -o)")
    if environment:
        raise UsageError("--env is only for --check (it picks the environment of a pixi.lock --lock)")
    sources = sum(bool(x) for x in (name, prefix, spec_file))
    if sources != 1:
        raise UsageError("give exactly one of -n NAME, -p PREFIX or -f FILE")
    if no_env_lock and env_lock:
        raise UsageError("give --env-lock FILE or --no-env-lock, not both")
    if spec_file:
        if no_env_lock or env_lock:
            raise UsageError("--env-lock/--no-env-lock are for -n/-p (a spec lock has several platforms)")
        if allow_unhashed_pip:
            raise UsageError(
                "--allow-unhashed-pip is for -n/-p: a spec's pip section is always locked with "
                "hashes (or fails)",
                hint="use --no-pip to leave the pip section out",
            )
        return _lock_spec(
            spec_file, platforms, output, channel_priority, virtual_packages, solver, no_pip, quiet
        )
    for opt, given in (
        ("--platform", platforms),
        ("--virtual-package", virtual_packages),
        ("--no-pip", no_pip),
        ("--solver", solver != "rattler"),
        ("--channel-priority", channel_priority != "strict"),
    ):
        if given:
            raise UsageError(f"{opt} is for solving -f; a live environment is locked as it is")
    return _lock_live(name, prefix, backend, output, env_lock, no_env_lock, allow_unhashed_pip, quiet)


def _regen(*parts: str) -> str:
    return " ".join(shlex.quote(p) for p in ("envkit", "lock") + parts)


def header_for(command: str) -> str:
    """The generated-by header of a lock written by `command`."""
    from envkit import __version__

    return f"Generated by envkit {__version__}. Do not edit: regenerate with\n  {command}"


def _format_title(name: str) -> str:
    """How a refusal to overwrite names a file of format `name` (the registry's title, and for a
    format another tool owns, how to regenerate it)."""
    from envkit.formats.registry import get

    f = get(name)
    if f.owner:
        return (
            f"{f.title} ({f.owner}'s own lock, which envkit does not write: regenerate it with "
            f"`{f.owner} lock`)"
        )
    return f.title


def refuse_overwrite(path: str | None, writes: str, option: str) -> None:
    """Raise UsageError when `path` holds a file of another format than `writes` ("conda-lock" for
    the lock, "env" for environment.lock.yml), told by its content (`envkit.formats.detect_format`),
    and when a conda-lock file would be written to a path named pixi.lock (pixi would read it).

    A missing or empty file, or content of no format envkit knows, may be written.  The lock
    written over a pixi.lock, an explicit file or the environment file it came from would destroy
    a file another tool (or the user) owns; regenerating it is that tool's job.
    """
    from envkit.errors import ParseError, UsageError, Where
    from envkit.formats import detect_format

    if not path or path == "-":
        return
    other = "--env-lock FILE" if writes == "env" else "-o conda-lock.yml"
    noun = "the exact environment file" if writes == "env" else "the lock"
    found = None
    if os.path.isfile(path):
        from envkit.io import read_text

        try:
            text = read_text(path)
            found = detect_format(text, path) if text.strip() else None
        except ParseError:
            found = None  # not text envkit reads, or no format it knows: nothing of its own to protect
    if found is not None and found != writes:
        raise UsageError(
            f"refusing to write {noun} ({option}) over {_format_title(found)}",
            where=Where(file=path),
            hint=f"write it elsewhere ({other}), or remove the file first if it is no longer wanted",
        )
    if writes == "conda-lock" and os.path.basename(path).lower() == "pixi.lock":
        raise UsageError(
            f"refusing to write {noun} ({option}), a conda-lock file, under pixi's lock name "
            "(pixi would read it as its own lock)",
            where=Where(file=path),
            hint=f"write it elsewhere ({other})",
        )


def env_lock_path(output: str) -> str | None:
    """The exact environment file `envkit lock -n/-p` writes beside the lock `output`, named after it
    (None for `-o -` or another stream such as /dev/stdout: nothing is written as a side effect of
    printing the lock).

    `conda-lock.yml` -> `environment.lock.yml`; `X.conda-lock.yml` -> `X.environment.lock.yml`;
    any other `STEM.EXT` (or `STEM`) -> `STEM.environment.lock.yml`; in the directory of `output`.
    So two locks written to different files never share (and overwrite) one environment file.
    """
    if output in (None, "-"):
        return None
    if os.path.exists(output) and not os.path.isfile(output):
        return None  # /dev/stdout, a FIFO: a stream like -o -, with no place beside it
    folder, base = os.path.split(output)
    for suffix in ("conda-lock.yml", "conda-lock.yaml"):
        head = base[: len(base) - len(suffix)]
        if base.lower().endswith(suffix) and (not head or head[-1] in ".-_"):
            return os.path.join(folder, head + "environment.lock.yml")
    stem = base.rsplit(".", 1)[0] if "." in base.lstrip(".") else base
    return os.path.join(folder, f"{stem}.environment.lock.yml")


def _lock_live(
    name, prefix, backend, output, env_lock, no_env_lock, allow_unhashed_pip=False, quiet=False
) -> int:
    from envkit.backends import open_env
    from envkit.commands._common import warn_duplicates
    from envkit.errors import UsageError
    from envkit.formats.condalock import write_conda_lock
    from envkit.formats.envyml import write_env
    from envkit.lock import live_env_spec, lock_live, resolve_index_artifacts
    from envkit.output import emit, warn

    env_path = None if no_env_lock else (env_lock or env_lock_path(output))
    if env_path and output != "-" and os.path.abspath(env_path) == os.path.abspath(output):
        raise UsageError(
            f"--env-lock and -o both name {output}", hint="write the two files to different paths"
        )
    refuse_overwrite(output, "conda-lock", "-o")
    refuse_overwrite(env_path, "env", "--env-lock" if env_lock else "named after -o")
    env = open_env(name=name, prefix=prefix, backend=backend)
    for w in env.warnings:
        warn(w)
    warn_duplicates([env])
    # the prefix as found, not as typed: a path relative to the cwd of the run would regenerate
    # nothing from anywhere else
    which = ("-n", name) if name else ("-p", str(env.prefix))
    args = list(which) + (["--backend", backend] if backend != "native" else [])
    if env_lock:
        args += ["--env-lock", env_lock]
    elif no_env_lock:
        args.append("--no-env-lock")
    if allow_unhashed_pip:
        args.append("--allow-unhashed-pip")
    args += ["-o", output]
    header = header_for(_regen(*args))
    # pip installs from an index record no artifact: ask pip which one each release is
    from envkit.commands.progress import reporter

    say = reporter(quiet)
    pending = sum(1 for p in env.pip_packages() if not p.url)
    if say and pending:
        say(f"asking pip for the artifacts (URL, sha256) of {pending} pip package(s) installed from an index")
    resolution = resolve_index_artifacts(env)
    if resolution.unresolved and not allow_unhashed_pip:
        from envkit.lock import unresolved_pip_error

        raise unresolved_pip_error(resolution)
    for w in resolution.warnings:
        warn(w)
    result = lock_live(env, index_artifacts=resolution.found)
    text = write_conda_lock(result, header=header)
    if env_path:
        from envkit.io import atomic_write

        atomic_write(env_path, write_env(live_env_spec(env), header=header))
    emit(text, output)
    # always say which files were written (on stderr: with -o - stdout is the lock)
    n_conda = sum(1 for p in result.packages if p.manager == "conda")
    n_pip = len(result.packages) - n_conda
    from envkit._text import plural

    extra = f" and {env_path}" if env_path else ""
    where = "standard output" if output == "-" else output
    click.echo(
        f"locked {env.prefix} ({result.platforms[0]}): {plural(n_conda, 'conda package')} and "
        f"{plural(n_pip, 'pip package')} -> {where}{extra}",
        err=True,
    )
    return 0


#: `envkit lock` has no --input-format (-f is an environment file, --lock a lock): the hints of
#: format detection, which name --format, say what each option takes instead.
SPEC_FORMATS_HINT = "-f takes an environment file: environment.yml (or a requirements.txt)"
LOCK_FORMATS_HINT = (
    "--lock takes a lock: conda-lock.yml, pixi.lock, an explicit file (@EXPLICIT), "
    "`conda list --json` or `conda list --export` output"
)


def _read_spec(path: str):
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


def _refuse_nothing_to_lock(spec, path: str) -> None:
    """A spec with no dependencies would lock to an empty file (a typo'd `dependencies:` key
    looks like that), and a requirements file has no channels to solve its conda side from."""
    from envkit.errors import ParseError, Where

    if spec.kind == "requirements" and not spec.channels:
        raise ParseError(
            "this is a pip requirements file: `envkit lock` solves conda environments, from a "
            "`channels:` list",
            where=Where(file=path),
            hint="list it in an environment.yml: `channels: [conda-forge]`, `dependencies: [python, pip, "
            f"{{pip: [-r {os.path.basename(path)}]}}]`, then `envkit lock -f environment.yml`",
        )
    if not spec.conda and not any(p.kind != "option" for p in spec.pip):
        raise ParseError(
            "the environment file lists no dependencies: nothing to lock",
            where=Where(file=path, line=spec.line_of("dependencies")),
            hint="add a `dependencies:` list",
        )


def _lock_spec(
    spec_file, platforms, output, channel_priority, virtual_packages, solver, no_pip, quiet=False
) -> int:
    from envkit.commands._common import warn_duplicates
    from envkit.conda.platform import host_platform
    from envkit.formats.condalock import write_conda_lock
    from envkit.lock import parse_virtual_package, solve_spec, solve_with_conda_lock
    from envkit.output import emit

    spec = _read_spec(spec_file)
    _refuse_nothing_to_lock(spec, spec_file)
    refuse_overwrite(output, "conda-lock", "-o")
    warn_duplicates([spec])
    vps = [parse_virtual_package(v) for v in virtual_packages]
    plats = list(platforms) or list(spec.platforms) or [host_platform()]
    if solver == "conda-lock":
        if no_pip or channel_priority != "strict":
            from envkit.errors import UsageError

            raise UsageError(
                "--no-pip and --channel-priority apply to the rattler solver; conda-lock "
                "reads channel_priority from .condarc and always locks the pip section"
            )
        result = solve_with_conda_lock(spec, plats, virtual_packages=vps)
    else:
        from envkit.commands.progress import reporter

        result = solve_spec(
            spec,
            plats,
            channel_priority=channel_priority,
            virtual_packages=vps,
            lock_pip_section=not no_pip,
            progress=reporter(quiet),
        )
    if result.pip_options and output != "-":
        from dataclasses import replace

        from envkit.lock import rebase_pip_options

        here = os.path.dirname(os.path.abspath(spec_file))
        there = os.path.dirname(os.path.abspath(output))
        result = replace(result, pip_options=rebase_pip_options(result.pip_options, here, there))
    args = ["-f", spec_file]
    for p in platforms or ():
        args += ["--platform", p]
    if channel_priority != "strict":
        args += ["--channel-priority", channel_priority]
    for v in virtual_packages:
        args += ["--virtual-package", v]
    if solver != "rattler":
        args += ["--solver", solver]
    if no_pip:
        args.append("--no-pip")
    args += ["-o", output]
    emit(write_conda_lock(result, header=header_for(_regen(*args))), output)
    warn_duplicates([result])
    counts = ", ".join(f"{p}: {len(result.for_platform(p))}" for p in result.platforms)
    where = "standard output" if output == "-" else output
    click.echo(
        f"locked {spec_file} for {len(result.platforms)} platform(s) ({counts} packages) -> {where}", err=True
    )
    return 0


def _check(spec_file: str, lock_file: str, virtual_packages=(), environment: str | None = None) -> int:
    from envkit.commands._common import warn_duplicates
    from envkit.create import choose_platform, validate_hashes
    from envkit.errors import ParseError, UsageError, Where
    from envkit.lock import check_lock, lock_staleness, parse_virtual_package
    from envkit.lock.read import read_lock_file
    from envkit.model import Lock

    vps = [parse_virtual_package(v) for v in virtual_packages]
    spec = _read_spec(spec_file)
    text, lk = read_lock_file(lock_file, None, environment, format_hint=LOCK_FORMATS_HINT)
    if not isinstance(lk, Lock):
        raise ParseError(
            "not a lock file", where=Where(file=lock_file), hint="pass conda-lock.yml with --lock"
        )
    if environment and lk.kind != "pixi":
        raise UsageError(
            f"--env picks an environment of a pixi.lock; this is a {lk.kind} lock, which holds "
            "one environment",
            where=Where(file=lock_file),
            hint="leave out --env",
        )
    if lk.kind == "pixi" and not lk.platforms:
        # nothing locked would check nothing and pass: say so, and name the environments that have packages
        from envkit.formats.pixilock import read_pixi_environments

        choose_platform(
            lk,
            None,
            environments={n: e.platforms for n, e in read_pixi_environments(text, lock_file).items()},
        )
    # a hash `envkit create` would refuse (not hex of the right length) fails the check too
    validate_hashes(lk.packages, source=lock_file)
    warn_duplicates([spec])
    staleness = lock_staleness(spec, lk, spec_file, virtual_packages=vps)
    problems = check_lock(spec, lk, staleness=staleness)
    for s in staleness:
        if s.status == "not-comparable":
            click.echo(f"{lock_file}: note: {s}")
    for p in problems:
        where = f"{spec_file}:{p.line}" if p.line else lock_file
        click.echo(f"{where}: {p.kind}: {p}")
    if problems:
        click.echo(
            f"{lock_file} does not fit {spec_file}: {len(problems)} problem(s); "
            f"{_regen_advice(lk, spec_file, lock_file)}"
        )
        return 1
    how = "satisfies" if any(s.status == "not-comparable" for s in staleness) else "is up to date with"
    click.echo(f"{lock_file} {how} {spec_file} ({', '.join(lk.platforms)})")
    return 0


def _regen_advice(lk, spec_file: str, lock_file: str) -> str:
    """How to regenerate a lock that does not fit its spec: `envkit lock ... -o LOCK` only for a
    conda-lock file (what envkit writes); a pixi.lock is pixi's to regenerate, and another lock
    (explicit file, `conda list` output) is not overwritten with a conda-lock file: envkit suggests a
    conda-lock.yml beside it, when that name is free or already a conda-lock file."""
    from envkit.errors import EnvkitError

    plats = [a for p in lk.platforms for a in ("--platform", p)]
    if lk.kind == "conda-lock":
        return f"regenerate it with `{_regen('-f', spec_file, *plats, '-o', lock_file)}`"
    if lk.kind == "pixi":
        return (
            "it is a pixi.lock: regenerate it with `pixi lock` "
            "(envkit writes conda-lock files, not pixi.lock)"
        )
    beside = os.path.join(os.path.dirname(lock_file), "conda-lock.yml")
    what = {"explicit": "an explicit file", "conda-list": "`conda list` output"}.get(
        lk.kind, f"a {lk.kind} lock"
    )
    advice = f"it is {what}: regenerate it with the tool that wrote it"
    try:
        refuse_overwrite(beside, "conda-lock", "-o")
    except EnvkitError:
        return advice
    return (
        advice
        + f", or lock the spec into a conda-lock file: `{_regen('-f', spec_file, *plats, '-o', beside)}`"
    )
