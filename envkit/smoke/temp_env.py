"""`envkit smoke --create FILE`: a temporary environment, created, smoke-tested and removed."""

from __future__ import annotations

import shutil
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from envkit._text import plural
from envkit.errors import UsageError
from envkit.smoke.runner import run_smoke
from envkit.smoke.target import env_target

CREATE_TIMEOUT = 3600.0


def create_env(model, fmt: str) -> tuple[Path, str]:
    """Create a temporary environment from `model` (a file read in format `fmt`) and return
    (prefix, how).  A lock (conda-lock.yml, pixi.lock, an explicit file envkit reads as a
    lock) goes through `envkit.create.create_from_lock` (exact, hash-checked, no solve); an
    environment.yml is first solved for this machine, natively, as `envkit lock -f` solves it
    (py-rattler, with this machine's virtual packages, its pip section locked with hashes), then
    created the same way: no conda executable is needed.  On failure nothing is left behind;
    raises SolveError / BackendError / UsageError."""
    from envkit.model import env_file, resolved_view

    spec = env_file(model)
    view = resolved_view(model) if spec is None else None  # (an export is solved, as its file says)
    base = Path(tempfile.mkdtemp(prefix="envkit-smoke-env-"))
    prefix = base / "env"
    try:
        if view is not None and view.lock is not None:
            from envkit.create import create_from_lock

            res = create_from_lock(view.lock, prefix, timeout=CREATE_TIMEOUT)
            how = (
                f"envkit create ({res.backend}, {res.platform}: {plural(res.conda, 'conda package')} + "
                f"{plural(res.pip, 'pip package')})"
            )
        elif fmt == "env" and spec is not None:  # (an explicit file is read as a Lock: above)
            from envkit.create import create_from_lock, host_platform
            from envkit.lock.solve import relock_spec

            platform = host_platform()
            lock = relock_spec(spec, [platform], virtual_packages=machine_virtual_packages(platform)).lock
            res = create_from_lock(lock, prefix, platform=platform, timeout=CREATE_TIMEOUT)
            how = (
                f"envkit lock -f + create (rattler, {res.platform}: {res.conda} conda + {res.pip} pip "
                "packages)"
            )
        else:
            raise UsageError(
                f"--create takes an environment.yml or a lock, not a {fmt} file",
                hint="give an environment.yml, conda-lock.yml, pixi.lock or an explicit spec file",
            )
    except BaseException:
        shutil.rmtree(base, ignore_errors=True)
        raise
    return prefix, how


def machine_virtual_packages(platform: str) -> list:
    """This machine's virtual packages (`__cuda` from the driver, `__glibc`, ...) as py-rattler
    detects them, honouring CONDA_OVERRIDE_* as conda does; [] when detection fails (the lock's
    defaults apply then)."""
    from envkit.lock import VirtualPackage
    from envkit.machine.detect import rattler_virtual_packages

    found = rattler_virtual_packages() or ()
    return [VirtualPackage(name=n, version=v, build=b, platform=platform) for n, v, b in found]


def smoke_created(
    source: str,
    *,
    model,
    fmt: str,
    require_cuda: bool = False,
    mode: str = "default",
    timeout: float | None = None,
    keep: bool = False,
    on_event: Callable[[dict], None] | None = None,
) -> dict:
    """Create a temporary env from `source`, run the smoke test in it, and remove it (unless
    `keep`); the report's target says where it was and how it was made."""
    if on_event is not None:
        on_event({"event": "creating", "source": source})
    t0 = time.monotonic()
    prefix, how = create_env(model, fmt)
    created_s = time.monotonic() - t0
    try:
        target = env_target("create", prefix, source=source)
        report = run_smoke(
            target, require_cuda=require_cuda, mode=mode, timeout=timeout, keep=keep, on_event=on_event
        )
    finally:
        if not keep:
            from envkit.create import remove_tree

            remove_tree(str(prefix.parent))
    report["target"].update(created_with=how, create_seconds=round(created_s, 3), kept=keep)
    return report
