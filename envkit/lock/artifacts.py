"""The artifacts of index-installed pip packages of a live environment, asked of pip."""

from __future__ import annotations

import os
import re
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from envkit.conda.names import pep503
from envkit.errors import BackendError, Remedy
from envkit.lock.pip import (
    MIN_ENV_PIP,
    MIN_PIP,
    own_pip_version,
    pip_argv,
    report_installs,
    report_package,
    run_pip,
)
from envkit.model import LiveEnv, LockedPackage

if TYPE_CHECKING:  # pragma: no cover
    from envkit._proc import Result

#: pip records no artifact URL for a distribution it installed from an index (no direct_url.json),
#: so `envkit lock -p` asks pip which artifact that release is (`resolve_index_artifacts`).  When
#: pip cannot say (offline, the index no longer has it) and the user passed --allow-unhashed-pip,
#: the package is still locked, with this marker as its URL (conda-lock.yml requires one): the PyPI
#: page of the release plus the fragment `#envkit-unresolved`.  It is not an artifact; `envkit
#: create` installs such a package by pin (`name==version`) from the index pip is configured with.
UNRESOLVED_URL = "https://pypi.org/project/{name}/{version}/#envkit-unresolved"
#: The marker envkit wrote before it resolved index installs (the same page, no fragment); still
#: understood by `envkit create`.
INDEX_URL = "https://pypi.org/project/{name}/{version}/"


def index_placeholder_url(name: str, version: str) -> str:
    """The marker URL of a pip package whose artifact could not be resolved (see UNRESOLVED_URL)."""
    return UNRESOLVED_URL.format(name=pep503(name), version=version)


def is_index_placeholder(pkg: LockedPackage) -> bool:
    """True when `pkg` is a pip package locked without an artifact URL: the UNRESOLVED_URL marker
    (or the older INDEX_URL one).  `envkit create` installs it by pin."""
    if pkg.manager != "pip" or not pkg.url:
        return False
    name, version = pep503(pkg.name), pkg.version
    return pkg.url in (
        UNRESOLVED_URL.format(name=name, version=version),
        INDEX_URL.format(name=name, version=version),
    )


@dataclass(frozen=True, slots=True, kw_only=True)
class IndexResolution:
    """What pip said about the index-installed pip packages of a live environment.

    `found` maps the PEP 503 name to (artifact URL, sha256 or None) for each release pip found;
    `unresolved` names (`name==version`) the ones it did not, in name order; `warnings` are the
    messages to show (one per reason, naming its packages);
    `pip` is the pip command line used (without its requirement file), None when none ran.
    """

    found: Mapping[str, tuple[str, str | None]]
    unresolved: tuple[str, ...] = ()
    warnings: tuple[str, ...] = ()
    pip: tuple[str, ...] | None = None


#: pip runs at most this many times to resolve index installs: once for all, then again without
#: each release it reported missing.  Offline, every release is "missing" one after the other, so
#: the bound keeps `envkit lock -p` of an environment with many pip packages quick.
MAX_PIP_ATTEMPTS = 4

_NOT_FOUND = re.compile(r"No matching distribution found for (?P<req>\S+)")


def _index_pip_argv(env: LiveEnv, *, requirements_file: str, report_file: str, own: bool = True) -> list[str]:
    """The pip command that resolves pinned releases for `env`: the environment's own Python and
    pip when they can run here and `own` (its interpreter's tags, its site pip.conf), else envkit's
    pip with the environment's platform and Python version as targets (wheels only)."""
    from envkit.backends.prefix_scan import host_platform
    from envkit.conda.platform import python_of

    python = python_of(env.prefix, env.platform)
    if own and os.path.exists(python) and env.platform == host_platform():
        args = "-m pip install --dry-run --ignore-installed --no-deps --quiet --disable-pip-version-check"
        return [python, *args.split(), "--no-input", "--report", report_file, "-r", requirements_file]
    version = env.python_version or next((p.version for p in env.conda_packages() if p.name == "python"), "3")
    argv = pip_argv(env.platform, version, requirements_file=requirements_file, report_file=report_file)
    return argv[:-2] + ["--no-deps", "-r", requirements_file]


def _unresolved(
    failed: Mapping[str, str], wanted: Mapping[str, LockedPackage]
) -> tuple[tuple[str, ...], list[str]]:
    """(the unresolved pins in name order, one warning per reason naming its pins)."""
    pin_of = {n: f"{n}=={wanted[n].version}" for n in sorted(failed)}
    by_reason: dict[str, list[str]] = {}
    for n, pin in pin_of.items():
        by_reason.setdefault(failed[n], []).append(pin)
    warnings = []
    for why, pins in by_reason.items():
        one = len(pins) == 1
        warnings.append(
            f"pip could not resolve the artifact{'' if one else 's'} of {', '.join(pins)} (installed "
            f"from an index): {why}; locked without URL or hash (marked #envkit-unresolved): "
            f"`envkit create` installs {'it' if one else 'them'} by pin from the index pip is "
            f"configured with"
        )
    return tuple(pin_of.values()), warnings


def resolve_index_artifacts(env: LiveEnv, *, timeout: float = 300) -> IndexResolution:
    """Resolve the artifact (URL and sha256) of every pip package of `env` that records no URL.

    Runs pip's resolver (`pip install --dry-run --ignore-installed --no-deps --report`) on
    `name==version` pins, with the pip configuration of the user and the environment (index URLs,
    `PIP_*` variables, pip.conf, credentials: nothing is overridden), through `envkit._proc.run`.
    A release pip reports missing is left out and the rest resolved again (at most MAX_PIP_ATTEMPTS
    runs).  Never raises for pip's failures: they become `unresolved` with warnings.
    """
    wanted = {pep503(p.name): p for p in env.pip_packages() if not p.url}
    if not wanted:
        return IndexResolution(found={})
    pending = dict(sorted(wanted.items()))
    found: dict[str, tuple[str, str | None]] = {}
    failed: dict[str, str] = {}
    argv_used: tuple[str, ...] | None = None
    with tempfile.TemporaryDirectory(prefix="envkit-pip-resolve-") as tmp:
        req = os.path.join(tmp, "requirements.txt")
        report = os.path.join(tmp, "report.json")
        own = True
        for _attempt in range(MAX_PIP_ATTEMPTS):
            if not pending:
                break
            Path(req).write_text("".join(f"{n}=={p.version}\n" for n, p in pending.items()), encoding="utf-8")
            result, why, argv, own = _run_index_pip(env, own, req=req, report=report, timeout=timeout)
            argv_used = tuple(a for a in argv if a not in (req, report))
            if result is not None and result.ok and os.path.isfile(report):
                found.update(_reported(report, env, pending))
                failed.update((n, "pip's report does not list it") for n in pending if n not in found)
                pending = {}
                break
            missing = _missing_release(result, pending)
            if missing is not None:
                failed[missing] = "no such release on the configured index"
                del pending[missing]
                continue
            if result is not None:
                why = _failure(result, timeout)
            failed.update((n, "pip failed: " + why.replace("\n", " | ")) for n in pending)
            pending = {}
        for n in pending:  # MAX_PIP_ATTEMPTS releases in a row were missing: offline, most likely
            failed[n] = (
                f"not tried: the {MAX_PIP_ATTEMPTS} releases asked for before were all missing, so the "
                "index is probably unreachable"
            )
    unresolved, warnings = _unresolved(failed, wanted)
    return IndexResolution(found=found, unresolved=unresolved, warnings=tuple(warnings), pip=argv_used)


def _run_index_pip(
    env: LiveEnv, own: bool, *, req: str, report: str, timeout: float
) -> tuple[Result | None, str, list[str], bool]:
    """Run pip once on the pins in `req`: the environment's own when `own`, and envkit's when that
    one fails for another reason than a missing release.  (pip's result, or None and why when it
    could not run; the command line; whether the environment's pip is still the one to ask)."""
    argv = _index_pip_argv(env, requirements_file=req, report_file=report, own=own)
    try:
        result = run_pip(argv, timeout=timeout)
        if own and not result.ok and not _NOT_FOUND.search(result.stderr or "") and not result.timed_out:
            # the environment's own pip is missing, or too old for `--dry-run --report`
            # (pip < 22.2), or broken: envkit's pip, targeting its platform and Python
            own = False
            argv = _index_pip_argv(env, requirements_file=req, report_file=report, own=own)
            result = run_pip(argv, timeout=timeout)
    except BackendError as exc:
        return None, exc.message, argv, own
    return result, "", argv, own


def _reported(
    report: str, env: LiveEnv, pending: Mapping[str, LockedPackage]
) -> dict[str, tuple[str, str | None]]:
    """PEP 503 name -> (artifact URL, sha256) of each pending release pip's report names."""
    return {
        pkg.name: (pkg.url, pkg.sha256)
        for item in report_installs(report)
        if (pkg := report_package(item, env.platform, "3")).name in pending and pkg.url
    }


def _missing_release(result: Result | None, pending: Mapping[str, LockedPackage]) -> str | None:
    """The pending release pip failed on for want of it on the index, if that is why it failed."""
    missing = None if result is None or result.timed_out else _NOT_FOUND.search(result.stderr or "")
    if not missing:
        return None
    name = pep503(re.split(r"[=<>!~ ;\[]", missing.group("req"), maxsplit=1)[0])
    return name if name in pending else None


def _failure(result: Result, timeout: float) -> str:
    """Why pip failed, in a few words."""
    from envkit._proc import tail

    if result.timed_out:
        return f"pip did not finish within {timeout:g} s"
    return tail(result.stderr or result.stdout, 3) or f"pip exited with code {result.returncode}"


def unresolved_pip_error(resolution: IndexResolution) -> BackendError:
    """The error `envkit lock -n/-p` fails with when pip resolved no artifact for some index-installed
    pip packages: a lock without their URL and hash cannot be reproduced or verified."""
    ours = own_pip_version()
    argv = resolution.pip or ()
    used = "none"
    if argv:  # envkit's own pip runs as `python -c <shim>`: name it rather than print the shim
        used = (
            f"{argv[0]} -m pip (envkit's, for the environment's platform)"
            if argv[1:2] == ("-c",)
            else " ".join(argv[:4])
        )
    pins = ", ".join(resolution.unresolved)
    reasons = "; ".join(
        w.split(" (installed from an index): ", 1)[-1].split("; locked without", 1)[0]
        for w in resolution.warnings
    )
    return BackendError(
        f"pip could not resolve the artifact (URL and sha256) of {pins}: {reasons}; a lock without them "
        "cannot be reproduced",
        hint=f"envkit asks the environment's own pip (>= {MIN_ENV_PIP}, `pip install --dry-run --report`), "
        f"else its own (>= {MIN_PIP}{f', here pip {ours}' if ours else ''}); it ran `{used}`. Check the "
        "index pip is configured with (PIP_INDEX_URL, pip.conf), or pass {} to lock them without URL or hash",
        remedy=Remedy(option="allow_unhashed_pip", value=True),
    )


def resolve_or_refuse(env: LiveEnv, *, allow_unhashed_pip: bool = False) -> IndexResolution:
    """`resolve_index_artifacts(env)`, raising `unresolved_pip_error` when pip named no artifact for
    some release, unless `allow_unhashed_pip`.  The one decision `envkit lock -p` and
    `envkit.lock_live` both take (so the two never disagree on the same prefix)."""
    resolution = resolve_index_artifacts(env)
    if resolution.unresolved and not allow_unhashed_pip:
        raise unresolved_pip_error(resolution)
    return resolution
