"""`envkit lock -n/-p`: lock a live environment exactly, with its exact environment file beside."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from envkit.commands._lock_files import env_lock_path, header_for, lock_target, refuse_overwrite, regen
from envkit.output import echo

if TYPE_CHECKING:
    from envkit.commands._lock_run import LockOptions


def run_live(o: LockOptions) -> int:
    from envkit._text import plural
    from envkit.backends import open_env
    from envkit.commands._common import warn_duplicates
    from envkit.commands.progress import reporter
    from envkit.errors import UsageError
    from envkit.formats.condalock import write_conda_lock
    from envkit.formats.envyml import write_env
    from envkit.io import emit, file_identity, write_files
    from envkit.ops.lock import lock_live
    from envkit.output import warn

    env_path = None if o.no_env_lock else (o.env_lock or env_lock_path(o.output))
    # before anything reads them: files another process writes there from now on are not overwritten
    before = {p: file_identity(p, since_start=True) for p in (o.output, env_path) if p and p != "-"}
    if env_path and o.output != "-" and os.path.abspath(env_path) == os.path.abspath(o.output):
        raise UsageError(
            f"--env-lock and -o both name {o.output}", hint="write the two files to different paths"
        )
    refuse_overwrite(o.output, "conda-lock", "-o")
    lock_target(o.output, None, live=True)  # a name saying another format is refused
    refuse_overwrite(env_path, "env", "--env-lock" if o.env_lock else "named after -o")
    env = open_env(name=o.name, prefix=o.prefix, backend=o.backend)
    warn_duplicates(env)
    result = lock_live(env, allow_unhashed_pip=o.allow_unhashed_pip, progress=reporter(o.quiet))
    for w in result.warnings:
        warn(w)
    # the prefix as found, not as typed: a path relative to the cwd of the run would regenerate
    # nothing from anywhere else
    args = ["-n", o.name] if o.name else ["-p", str(env.prefix)]
    args += ["--backend", o.backend] if o.backend != "native" else []
    args += ["--env-lock", o.env_lock] if o.env_lock else ["--no-env-lock"] if o.no_env_lock else []
    args += ["--allow-unhashed-pip"] if o.allow_unhashed_pip else []
    header = header_for(regen(*args, "-o", o.output))
    text = write_conda_lock(result.lock, header=header)
    # both files or neither: a full disk must not leave a lock beside an environment file it does not match
    files = [
        (p, t, before[p])
        for p, t in ((env_path, write_env(result.env_spec, header=header)), (o.output, text))
        if p in before
    ]
    write_files(files)
    if o.output == "-":
        emit(text, o.output)
    # always say which files were written (on stderr: with -o - stdout is the lock)
    n_conda = sum(1 for p in result.lock.packages if p.manager == "conda")
    n_pip = len(result.lock.packages) - n_conda
    extra = f" and {env_path}" if env_path else ""
    where = "standard output" if o.output == "-" else o.output
    echo(
        f"locked {env.prefix} ({result.lock.platforms[0]}): {plural(n_conda, 'conda package')} and "
        f"{plural(n_pip, 'pip package')} -> {where}{extra}",
        err=True,
    )
    return 0
