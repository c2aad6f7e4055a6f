"""Locking a spec's pip section for a target platform with pip's resolver
(`pip install --dry-run --report`)."""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from envkit.conda.names import pep503
from envkit.conda.platform import LEGACY_MANYLINUX, MACHINE, marker_holds, target_markers
from envkit.errors import BackendError, UsageError, Where
from envkit.lock.packages import pip_accepts
from envkit.lock.relock import Move, Reason
from envkit.lock.virtual import DEFAULT_VIRTUAL_PACKAGES, VirtualPackage, virtual_packages_for, vp_value
from envkit.model import EnvSpec, LockedPackage, PipDep

if TYPE_CHECKING:  # pragma: no cover
    from envkit._proc import Result


def wheel_platform_tags(platform: str, virtual_packages: Sequence[VirtualPackage] = ()) -> list[str]:
    """Wheel platform tags a conda `platform` accepts, best first.  Linux tags go down from the
    `__glibc` virtual package's version (manylinux_2_X ... 2_5 and the legacy aliases); macOS tags
    from `__osx`'s version."""
    os_part, _, arch = platform.partition("-")
    machine = MACHINE.get(arch, arch)
    tags: list[str] = []
    if os_part == "linux":
        glibc = vp_value(virtual_packages, "__glibc") or DEFAULT_VIRTUAL_PACKAGES.get(platform, {}).get(
            "__glibc", "2.17"
        )
        major, minor = (int(x) for x in (glibc.split(".") + ["0"])[:2])
        minor = minor if major == 2 else 17
        legacy_of = {glibc: tag for tag, glibc in LEGACY_MANYLINUX.items()}
        for m in range(minor, 4, -1):
            tags.append(f"manylinux_2_{m}_{machine}")
            legacy = legacy_of.get((2, m))
            if legacy and (m != 5 or machine in ("x86_64", "i686")):
                tags.append(f"{legacy}_{machine}")
        tags.append(f"linux_{machine}")
    elif os_part == "osx":
        osx = vp_value(virtual_packages, "__osx") or "11.0"
        major, minor = (int(x) for x in (osx.split(".") + ["0"])[:2])
        arches = [machine, "universal2"] + (["intel", "fat64", "universal"] if machine == "x86_64" else [])
        for mj in range(major, 10, -1):
            for a in arches:
                tags.append(f"macosx_{mj}_0_{a}")
        if machine == "x86_64":
            top = minor if major == 10 else 16
            for mn in range(top, 8, -1):
                for a in arches:
                    tags.append(f"macosx_10_{mn}_{a}")
    elif os_part == "win":
        tags.append(
            {"x86_64": "win_amd64", "arm64": "win_arm64", "i686": "win32"}.get(machine, f"win_{machine}")
        )
    else:
        raise UsageError(f"cannot lock pip packages for platform {platform!r}")
    return list(dict.fromkeys(tags))


# Runs pip in-process with PEP 508 markers evaluated for the TARGET platform: pip itself evaluates
# them against the interpreter running it, which would drop `; sys_platform == "darwin"` wheels from
# an osx-arm64 lock made on Linux.  `packaging.markers.default_environment` is the one function
# every marker evaluation in pip's vendored packaging goes through.
_PIP_SHIM = r"""
import json, sys
env = json.loads(sys.argv[1])
from pip._vendor.packaging import markers
_orig = markers.default_environment
def _target():
    d = dict(_orig())
    d.update(env)
    return d
markers.default_environment = _target
from pip._internal.cli.main import main
sys.argv = ["pip"] + sys.argv[2:]
sys.exit(main())
"""


def pip_argv(
    platform: str,
    python_version: str,
    *,
    virtual_packages: Sequence[VirtualPackage] = (),
    requirements_file: str,
    report_file: str,
) -> list[str]:
    """The pip command `lock_pip` runs (pip's resolver in dry-run mode, for the target platform)."""
    import sys

    xy = python_version.split(".")[:2]
    abi = f"cp{''.join(xy)}"
    argv = [
        sys.executable,
        "-c",
        _PIP_SHIM,
        json.dumps(target_markers(platform, python_version), sort_keys=True),
        "install",
        "--dry-run",
        "--ignore-installed",
        "--quiet",
        "--disable-pip-version-check",
        "--no-input",
        "--report",
        report_file,
        "--only-binary=:all:",
        "--implementation",
        "cp",
        "--python-version",
        ".".join(xy),
        "--abi",
        abi,
        "--abi",
        "abi3",
        "--abi",
        "none",
    ]
    for tag in wheel_platform_tags(platform, virtual_packages):
        argv += ["--platform", tag]
    argv += ["-r", requirements_file]
    return argv


def pip_requirements_text(entries: Sequence[PipDep]) -> str:
    """The pip section as a requirements file (options and entries in file order)."""
    lines = []
    for p in entries:
        text = p.raw.strip() if p.kind == "option" and p.raw.strip() else p.text
        if p.editable and not text.startswith("-e"):
            text = f"-e {text}"
        lines.append(text)
    return "\n".join(lines) + "\n"


def lock_pip(
    spec: EnvSpec,
    platform: str,
    python_version: str,
    *,
    virtual_packages: Sequence[VirtualPackage] = (),
    timeout: float = 600,
    constraints: Sequence[str] = (),
) -> tuple[LockedPackage, ...]:
    """Resolve the pip section of `spec` for `platform` and CPython `python_version`, with hashes.

    Runs `pip install --dry-run --ignore-installed --report` (wheels only, `--platform`/`--abi`/
    `--python-version` for the target, markers evaluated for the target) and returns one pip
    LockedPackage per distribution pip would install, with its URL, sha256 (when the index or file
    gave one) and dependencies.  Options in the pip section (`--index-url`, `--find-links`,
    `--no-index`, ...) are passed to pip as written; relative paths are relative to the spec's
    directory.  `constraints` (`name==version` lines) go to pip as a constraints file (`-c`): a
    re-lock keeps the previous versions that way.  Raises BackendError when pip fails or cannot
    resolve.
    """
    if not any(p.kind != "option" for p in spec.pip):
        return ()  # nothing to resolve (a library caller may pass any spec)
    workdir = os.path.dirname(os.path.abspath(spec.source)) if spec.source else os.getcwd()
    check_own_pip()
    with tempfile.TemporaryDirectory(prefix="envkit-pip-") as tmp:
        req = os.path.join(tmp, "requirements.txt")
        report = os.path.join(tmp, "report.json")
        text = pip_requirements_text(spec.pip)
        if constraints:
            cons = os.path.join(tmp, "constraints.txt")
            Path(cons).write_text("".join(f"{c}\n" for c in constraints), encoding="utf-8")
            text += f"-c {cons}\n"
        Path(req).write_text(text, encoding="utf-8")
        argv = pip_argv(
            platform,
            python_version,
            virtual_packages=virtual_packages,
            requirements_file=req,
            report_file=report,
        )
        result = run_pip(argv, timeout=timeout, cwd=workdir)
        if not result.ok:
            raise _pip_failed(result, spec, platform, python_version)
        installs = report_installs(report)
    return tuple(report_package(item, platform, python_version) for item in installs)


def run_pip(argv: Sequence[str], *, timeout: float, cwd: str | None = None) -> Result:
    """Run the pip command `argv` with no prompts and no version check (the user's pip configuration
    otherwise as it is); pip's failure is the Result's, not an exception."""
    from envkit._proc import run

    env = dict(os.environ, PIP_NO_INPUT="1", PIP_DISABLE_PIP_VERSION_CHECK="1")
    return run(argv, timeout=timeout, cwd=cwd, env=env, check=False, what="pip")


def report_installs(report_file: str) -> list:
    """The `install` items of the JSON file pip's `--report` wrote."""
    return json.loads(Path(report_file).read_text(encoding="utf-8")).get("install", [])


def _pip_failed(result: Result, spec: EnvSpec, platform: str, python_version: str) -> BackendError:
    """The error of a pip run that could not lock the pip section of `spec`."""
    from envkit._proc import tail
    from envkit._text import unreachable_hint

    if "No module named pip" in result.stderr:
        return BackendError(
            "pip is not installed in envkit's Python, so the pip section cannot be locked",
            hint="python -m ensurepip, or pip install pip",
        )
    # the pip section's first entry: the line to look at, not the file's `dependencies:`
    first = next((p.line for p in spec.pip if p.line), None) or spec.line_of("dependencies")
    return BackendError(
        f"{platform}: pip could not resolve the pip section (python {python_version})",
        where=Where(file=spec.source, line=first),
        text=tail(result.stderr or result.stdout) or None,
        hint=unreachable_hint(result.stderr + result.stdout),
    )


#: The oldest pip of an environment that can say which artifact it would install for its own
#: platform (`install --dry-run --report`, pip 22.2).
MIN_ENV_PIP = "22.2"
#: The oldest pip envkit itself runs: a dry run for another platform (`--platform` without
#: `--target`) with a report needs pip 23.3.
MIN_PIP = "23.3"


def own_pip_version() -> str | None:
    """The version of the pip installed beside envkit, or None when there is none."""
    import importlib.metadata

    try:
        return importlib.metadata.version("pip")
    except importlib.metadata.PackageNotFoundError:
        return None


def check_own_pip(version: str | None = None) -> None:
    """BackendError unless envkit's own pip (`version`: the installed one) can resolve for another
    platform: `install --dry-run --platform ... --report` without `--target` needs pip 23.3."""
    if version is None:
        version = own_pip_version()
    if version is None:
        raise BackendError(
            "pip is not installed in envkit's Python, so the pip section cannot be locked",
            hint=f"python -m pip install 'pip>={MIN_PIP}'",
        )
    from packaging.version import InvalidVersion, Version

    try:
        old = Version(version) < Version(MIN_PIP)
    except InvalidVersion:
        return  # a development build: let pip itself say
    if old:
        raise BackendError(
            f"envkit's pip is {version}; locking a pip section for a target platform needs pip >= {MIN_PIP}",
            hint=f"python -m pip install 'pip>={MIN_PIP}' (in the Python that runs envkit)",
        )


def report_package(item: Mapping, platform: str, python_version: str) -> LockedPackage:
    from packaging.requirements import InvalidRequirement, Requirement

    from envkit.urls import redact_url

    meta = item.get("metadata", {})
    info = item.get("download_info", {}) or {}
    url = info.get("url")
    sha256 = None
    archive = info.get("archive_info") or {}
    hashes = archive.get("hashes") or {}
    if "sha256" in hashes:
        sha256 = hashes["sha256"]
    elif str(archive.get("hash", "")).startswith("sha256="):
        sha256 = archive["hash"].split("=", 1)[1]
    vcs = info.get("vcs_info")
    if vcs and url:
        url = f"{vcs.get('vcs', 'git')}+{url}@{vcs.get('commit_id', '')}".rstrip("@")
    env = target_markers(platform, python_version)
    deps: dict[str, str] = {}
    for text in meta.get("requires_dist") or []:
        try:
            r = Requirement(text)
        except InvalidRequirement:
            continue
        if r.marker is not None and not marker_holds(r.marker, env):
            continue
        deps.setdefault(pep503(r.name), str(r.specifier))
    editable = bool((info.get("dir_info") or {}).get("editable"))
    return LockedPackage(
        manager="pip",
        name=pep503(meta.get("name", "")),
        version=str(meta.get("version", "")),
        platform=platform,
        url=redact_url(url)[0] if url else None,
        sha256=sha256,
        depends=tuple(sorted(deps.items())),
        editable=editable,
    )


def lock_pip_kept(
    spec: EnvSpec,
    platform: str,
    python_version: str,
    old_pip: Sequence[LockedPackage],
    update: Sequence[str],
    virtual_packages: Sequence[VirtualPackage],
    timeout: float,
) -> tuple[tuple[LockedPackage, ...], str | None]:
    """The pip section locked with the previous lock's pip versions as constraints (but those asked
    to update and those the spec no longer accepts); when they no longer fit together (pip fails
    with them), locked without, and a note says so."""
    vps = virtual_packages_for(platform, virtual_packages)
    asked = {pep503(n) for n in update}
    keep = [p for p in old_pip if pep503(p.name) not in asked and not _pip_entry_rejects(spec, p)]
    constraints = [f"{pep503(p.name)}=={p.version}" for p in keep if p.version and not p.editable]
    try:
        return lock_pip(
            spec, platform, python_version, virtual_packages=vps, timeout=timeout, constraints=constraints
        ), None
    except BackendError:
        if not constraints:
            raise
    note = (
        f"{platform}: the previous lock's pip versions no longer resolve together with the pip "
        "section; it was resolved afresh"
    )
    return lock_pip(spec, platform, python_version, virtual_packages=vps, timeout=timeout), note


def _pip_entry_rejects(spec: EnvSpec, pkg: LockedPackage) -> bool:
    """Whether a pip requirement of `spec` names `pkg` with a specifier its version does not meet."""
    return any(
        d.kind == "requirement"
        and d.name
        and pep503(d.name) == pep503(pkg.name)
        and d.specifier
        and not pip_accepts(d.specifier, pkg.version)
        for d in spec.pip
    )


def pip_moves(
    platform: str, old: Sequence[LockedPackage], new: Sequence[LockedPackage], update: Sequence[str]
) -> list[Move]:
    """What changed in the pip packages of one platform, by name."""
    asked = {pep503(n) for n in update}
    before = {pep503(p.name): p for p in old}
    after = {pep503(p.name): p for p in new}
    out = []
    for name in sorted(set(before) | set(after)):
        o, n = before.get(name), after.get(name)
        if o is not None and n is not None and o.version == n.version:
            continue
        if name in asked:
            reason = Reason(kind="asked")
        elif o is None:
            reason = Reason(kind="new")
        elif n is None:
            reason = Reason(kind="unneeded")
        else:
            reason = Reason(kind="pip")
        out.append(
            Move(
                platform=platform,
                name=name,
                old=o.version if o else None,
                new=n.version if n else None,
                reason=reason,
                manager="pip",
            )
        )
    return out
