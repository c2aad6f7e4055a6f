"""Checking a lock against its spec: a stale content hash, a spec entry the locked packages do not satisfy."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from envkit.conda.names import pep503
from envkit.conda.platform import marker_holds, target_markers
from envkit.io import file_text
from envkit.lock.packages import accepts, pip_accepts
from envkit.lock.staleness import Staleness, lock_staleness
from envkit.model import CondaDep, EnvSpec, Lock, LockedPackage, PipDep


@dataclass(frozen=True, slots=True, kw_only=True)
class LockProblem:
    """One reason a lock does not fit its spec.

    kind: "stale" (content hash differs or is missing), "missing-platform" (a platform the spec
    names is not locked), "missing" (a spec entry has no locked package), "unsatisfied" (the locked
    package does not match the entry).  `line` is the spec line of the entry, when known.
    """

    kind: str
    platform: str | None
    message: str
    name: str | None = None
    line: int | None = None

    def __str__(self) -> str:
        head = f"{self.platform}: " if self.platform else ""
        return head + self.message


#: The platform selectors conda-lock applies before it hashes and solves an environment file
#: (conda_lock/src_parser/selectors.py, after conda-build's preprocessing selectors:
#: https://docs.conda.io/projects/conda-build/en/latest/resources/define-metadata.html#preprocessing-selectors).
_PLATFORM_SELECTORS = {
    "linux-64": {"linux64", "unix", "linux"},
    "linux-aarch64": {"aarch64", "unix", "linux"},
    "linux-ppc64le": {"ppc64le", "unix", "linux"},
    "osx-64": {"osx64", "osx", "unix"},
    "osx-arm64": {"arm64", "osx", "unix"},
    "win-64": {"win", "win64"},
}
_SELECTOR = re.compile(r"(.+?)\s*(#.*)\[([^\[\]]+)\](?(2)[^\(\)]*)$")


def selected_out_lines(text: str | None, platform: str) -> frozenset[int]:
    """The 1-based lines of an environment file that a selector (`- pywin32  # [win]`) leaves out
    on `platform`, as conda-lock filters them: a line whose selector is not one of the platform's
    names is dropped (conda-lock knows no `not`, `and`, `or`)."""
    if not text or "[" not in text:
        return frozenset()
    names = _PLATFORM_SELECTORS.get(platform)
    if names is None:
        os_name, _, arch = platform.partition("-")
        names = {os_name, arch, "unix"} if os_name in ("linux", "osx") else {os_name}
    out = set()
    for n, line in enumerate(text.splitlines(), 1):
        if "#" not in line or line.lstrip().startswith("#"):
            continue
        m = _SELECTOR.match(line)
        if m and m.group(3).strip() not in names:
            out.add(n)
    return frozenset(out)


def _entry_problem(kind: str, platform: str, dep: CondaDep | PipDep, message: str) -> LockProblem:
    return LockProblem(kind=kind, platform=platform, name=dep.name, line=dep.line, message=message)


def _check_conda(
    spec: EnvSpec, platform: str, conda: Mapping[str, LockedPackage], skipped: frozenset[int]
) -> list[LockProblem]:
    """The spec's conda entries (not virtual packages) the locked conda packages of `platform` lack
    or do not match (conda match semantics)."""
    problems: list[LockProblem] = []
    for dep in spec.conda:
        if dep.name.startswith("__") or dep.line in skipped:
            continue
        pkg = conda.get(dep.name)
        if pkg is None:
            message = f"{dep.spec()}: no such conda package in the lock"
            problems.append(_entry_problem("missing", platform, dep, message))
        elif not accepts(dep, pkg, with_channel=True):
            message = f"{dep.spec()}: locked {pkg.conda_form()} does not match"
            problems.append(_entry_problem("unsatisfied", platform, dep, message))
    return problems


def check_lock(
    spec: EnvSpec,
    lock: Lock,
    *,
    platforms: Sequence[str] | None = None,
    spec_path: str | None = None,
    lock_text: str | None = None,
    staleness: Sequence[Staleness] | None = None,
) -> list[LockProblem]:
    """The problems that make `lock` unfit for `spec` (empty when it fits), in a stable order.

    For each locked platform (or `platforms`): the content hash must not be stale
    (`lock_staleness(spec, lock, spec_path, lock_text=...)`, or the verdicts
    given as `staleness`; a "not-comparable" hash is no problem); every conda entry of the spec
    must be matched (conda match semantics: version, build, build number, channel) by the locked
    conda package of that name; every pip requirement whose marker applies to the platform must be
    matched (PEP 440, pre-releases allowed) by a locked pip package of that name.  Virtual-package
    entries (`__cuda`) and pip options are not package entries and are skipped.  Platforms the spec
    lists (conda-lock's `platforms:` key) but the lock lacks are problems too.  A pixi.lock envkit
    wrote is judged by the content hash its `envkit:` record holds (read from `lock_text`).
    """
    if lock.kind == "pixi" and lock_text and not lock.content_hash:
        from envkit.lock.pixi_out import apply_pixi_record

        lock = apply_pixi_record(lock, lock_text)  # the hash envkit recorded in a pixi.lock it wrote
    plats = list(platforms) if platforms else list(lock.platforms)
    problems = [
        LockProblem(
            kind="missing-platform",
            platform=p,
            message=f"the spec lists platform {p} but the lock has no packages for it",
            line=spec.line_of("platforms"),
        )
        for p in spec.platforms
        if p not in lock.platforms
    ]
    if staleness is None:
        staleness = lock_staleness(spec, lock, spec_path, lock_text=lock_text, platforms=plats)
    verdicts = {s.platform: s for s in staleness}
    text = file_text(spec.source)
    for platform in plats:
        s = verdicts.get(platform)
        if s is not None and s.status == "stale":
            problems.append(LockProblem(kind="stale", platform=platform, message=s.message))
        pkgs = lock.for_platform(platform)
        conda = {p.name: p for p in pkgs if p.manager == "conda"}
        pip = {pep503(p.name): p for p in pkgs if p.manager == "pip"}
        skipped = selected_out_lines(text, platform)
        problems.extend(_check_conda(spec, platform, conda, skipped))
        problems.extend(_check_pip(spec, platform, pip, conda, skipped))
    return problems


def _check_pip(
    spec: EnvSpec,
    platform: str,
    pip: Mapping[str, LockedPackage],
    conda: Mapping[str, LockedPackage],
    skipped: frozenset[int],
) -> list[LockProblem]:
    out: list[LockProblem] = []
    python = conda.get("python")
    env = target_markers(platform, python.version if python else "3")
    for dep in spec.pip:
        if dep.kind == "option" or not dep.name or dep.line in skipped:
            continue
        if dep.marker and not marker_holds(dep.marker, env):
            continue
        pkg = pip.get(pep503(dep.name))
        if pkg is None and spec.kind == "requirements":
            # a requirements file checked against a conda lock: the project may be locked as its
            # conda package (torch as pytorch), as diff matches them
            from envkit.conda.names import conda_names_for_pypi

            pkg = next((conda[n] for n in conda_names_for_pypi(dep.name) if n in conda), None)
        if pkg is None:
            out.append(
                _entry_problem("missing", platform, dep, f"pip {dep.text}: no such pip package in the lock")
            )
            continue
        if dep.kind == "requirement" and dep.specifier and not pip_accepts(dep.specifier, pkg.version):
            message = f"pip {dep.text}: locked {pkg.name}=={pkg.version} does not match"
            out.append(_entry_problem("unsatisfied", platform, dep, message))
    return out
