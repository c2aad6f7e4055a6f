"""`envkit lock` given a manifest (pixi.toml, pyproject.toml): `--check` judges its lock by the
owner's definition of fresh; solving it is pixi's or uv's job, and envkit says which command does it."""

from __future__ import annotations

from envkit.output import echo

_TOOLS = {"pixi-manifest": "pixi lock", "pyproject": "uv lock"}


def manifest_of(path: str) -> tuple[str, str] | None:
    """(text, format) when the file at `path` is a manifest, else None (stdin is never one here)."""
    import os

    if path == "-" or not os.path.isfile(path):
        return None
    from envkit.formats import manifest_format
    from envkit.io import read_text

    text = read_text(path)
    fmt = manifest_format(text, path)
    return (text, fmt) if fmt else None


def is_pdm(path: str, text: str) -> bool:
    """Whether a pyproject.toml is PDM's project: a `[tool.pdm]` table, or a pdm.lock beside it
    and no uv.lock."""
    import os
    import re

    here = os.path.dirname(path)
    if os.path.isfile(os.path.join(here, "uv.lock")):
        return False
    return bool(re.search(r"^\[tool\.pdm[.\]]", text, re.MULTILINE)) or os.path.isfile(
        os.path.join(here, "pdm.lock")
    )


def refuse_solve(path: str, fmt: str, text: str) -> None:
    """UsageError: envkit does not solve a manifest; the owner's command does."""
    from envkit.errors import UsageError, Where

    tool = _TOOLS[fmt]
    what = "a pixi manifest" if fmt == "pixi-manifest" else "a pyproject.toml"
    if fmt == "pyproject" and is_pdm(path, text):
        raise UsageError(
            "a PDM project is locked by pdm, not envkit: run `pdm lock`",
            where=Where(file=path),
            hint="`pdm lock --check` says whether its pdm.lock is fresh",
        )
    raise UsageError(
        f"{what} is solved by {tool.split()[0]}, not envkit: run `{tool}`",
        where=Where(file=path),
        hint=f"`envkit lock --check -f {path}` judges the lock {tool.split()[0]} wrote",
    )


def run_manifest(o, chosen: str) -> int | None:
    """`lock --check -f MANIFEST` judged, `lock -f MANIFEST` refused; None when -f is no manifest."""
    manifest = manifest_of(o.spec_file)
    if manifest is None:
        return None
    if chosen == "spec":
        refuse_solve(o.spec_file, manifest[1], manifest[0])
    return run_manifest_check(o, *manifest)


def run_manifest_check(o, text: str, fmt: str) -> int:
    """`lock --check -f MANIFEST [--lock LOCK] [--env NAME]`: exit 0 fresh, 1 stale."""
    from envkit.errors import UsageError
    from envkit.io import read_text
    from envkit.lock.manifest_check import LOCK_NAMES, check_manifest, lock_beside
    from envkit.render import render

    if o.virtual_packages or o.exclude_newer:
        raise UsageError(
            "--virtual-package and --exclude-newer are for conda-lock locks; a manifest's lock "
            "records what its tool was given"
        )
    lock_file = o.lock_file or lock_beside(o.spec_file, fmt)
    if lock_file is None and fmt == "pyproject" and is_pdm(o.spec_file, text):
        raise UsageError(
            f"{o.spec_file} is a PDM project ([tool.pdm] or a pdm.lock beside it): its lock is "
            "pdm.lock, whose freshness PDM judges: run `pdm lock --check`",
            hint="envkit judges a pyproject.toml's uv.lock and a pixi manifest's pixi.lock",
        )
    if lock_file is None:
        raise UsageError(
            f"no {LOCK_NAMES[fmt]} beside {o.spec_file}",
            hint=f"pass the lock with --lock, or run `{_TOOLS[fmt]}`",
        )
    verdict = check_manifest(text, o.spec_file, read_text(lock_file), lock_file, environment=o.environment)
    echo(render("manifest-check", o.output_format, verdict), nl=False)
    return 0 if verdict.ok else 1


def lock_of(path: str, option: str) -> str:
    """The lock a command that compares with exact packages (`fleet --lock`) reads for `path`: the
    file itself when it is no manifest, else the lock its tool wrote beside it (a note says which);
    UsageError when a manifest has none."""
    from envkit.errors import UsageError, Where
    from envkit.lock.manifest_check import LOCK_NAMES, lock_beside
    from envkit.output import note

    manifest = manifest_of(path)
    if manifest is None:
        return path
    fmt = manifest[1]
    lock = lock_beside(path, fmt)
    if lock is None:
        raise UsageError(
            f"a manifest, not a lock: {option} compares with exact packages, and there is no "
            f"{LOCK_NAMES[fmt]} beside it",
            where=Where(file=path),
            hint=f"run `{_TOOLS[fmt]}`, or give {option} the lock",
        )
    note(
        f"{path} is a manifest: {option} reads {lock}, the lock beside it "
        f"(`envkit lock --check -f {path}` says whether it is fresh)"
    )
    return lock
