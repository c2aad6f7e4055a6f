"""Will these packages run on that machine?  The pure core behind the machine rules of `envkit
check --machine`: what a lock (or an export, or a requirements file) needs, against a profile.

Each `*_issues` function returns `Issue` records (data, not sentences: the rules in
envkit/checks/rules_machine.py word them).  Four questions:

* virtual packages: the `__glibc >=2.28`, `__cuda`, `__osx`, `__archspec`, `__cuda_arch` a conda
  record depends on, against the machine's virtual packages;
* CUDA runtime: the CUDA the packages carry (cuda-version, cudatoolkit, pytorch-cuda, cuda-cudart,
  nvidia-*-cuXX wheels, a `+cuXXX` torch, a CUDA build string) against the driver, with NVIDIA's
  minor-version compatibility (envkit.conda.cuda_compat);
* GPU architectures: in envkit.machine.arch;
* wheel tags: manylinux_2_X / macosx_X_Y of the pip wheels against glibc / macOS.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from envkit.conda.cuda_compat import compatibility, max_full_cuda_for_driver, min_driver
from envkit.conda.families import CUDA_RUNTIME, TORCH_CONDA_FAMILY
from envkit.conda.platform import wheel_tag_floor
from envkit.conda.versions import minor_text, version_key
from envkit.machine.profile import MachineProfile
from envkit.model import LockedPackage

#: The virtual packages whose requirements are compared with the machine.
VIRTUAL = ("__glibc", "__cuda", "__osx", "__archspec", "__cuda_arch", "__linux", "__unix", "__win")
_NVIDIA_WHEEL = re.compile(r"^nvidia-[a-z0-9-]+-cu(?P<major>\d{2})$")


@dataclass(frozen=True, slots=True)
class Issue:
    """One way the packages do not fit the machine.

    `kind` is "platform", "virtual", "cuda", "arch" or "wheel"; `level` "error" (will not install
    or run), "warning" (runs in a reduced way) or "info".  `need` is what the packages need
    (`__glibc >=2.28`, `CUDA 12.1`, `sm_120`), `have` what the machine has, `package` the first
    package needing it (`others` the rest), `fix` a short suggestion, `line` where it was found.
    """

    kind: str
    level: str
    need: str
    have: str
    package: str
    line: int | None = None
    others: tuple[str, ...] = ()
    fix: str = ""
    detail: str = ""


# --------------------------------------------------------------------------------------------
# virtual packages


def virtual_issues(pkgs: Sequence[LockedPackage], profile: MachineProfile) -> list[Issue]:
    """Requirements on virtual packages in the records' depends that the machine does not meet,
    one Issue per (virtual package, spec), naming the first package and counting the others."""
    groups: dict[tuple[str, str], list[LockedPackage]] = {}
    for p in pkgs:
        if p.manager != "conda":
            continue
        for name, spec in p.depends:
            if name in VIRTUAL:
                groups.setdefault((name, (spec or "").strip()), []).append(p)
    out = []
    for (name, spec), members in groups.items():
        problem = _virtual_problem(name, spec, profile)
        if problem is not None:
            level, have, fix = problem
            out.append(
                _grouped(
                    members, kind="virtual", level=level, need=f"{name} {spec}".strip(), have=have, fix=fix
                )
            )
    return out


def _grouped(members: list[LockedPackage], **fields: str) -> Issue:
    """An Issue naming the first of `members` and counting the others."""
    first = members[0]
    others = tuple(package_label(m) for m in members[1:])
    return Issue(package=package_label(first), line=first.line, others=others, **fields)


def _virtual_problem(name: str, spec: str, profile: MachineProfile) -> tuple[str, str, str] | None:
    """(level, what the machine has, fix) when `name spec` is not met; None when it is."""
    have = profile.virtual_package(name)
    if have is None and name == "__cuda_arch":
        have = cuda_arch(profile)
    if have is None:
        return "error", _absent(name, profile), _absent_fix(name, profile)
    version, build = have
    candidates = [build]
    if name == "__archspec":  # a generic level (x86_64_v3) is met by any CPU at or above it
        candidates += _levels_up_to(profile.cpu_level)
    if not spec or any(_satisfies(name, spec, version, b) for b in candidates):
        return None
    shown = f"{name} {version}" + (f" ({build})" if build not in ("", "0") else "")
    fix = {
        "__glibc": "lock for an older glibc (conda-forge builds for glibc 2.17 exist for most "
        "packages: pin `sysroot_linux-64=2.17`), or run on a newer OS",
        "__cuda": "update the NVIDIA driver, or lock a CUDA variant the driver supports",
        "__osx": "lock for the machine's macOS (pixi: `system-requirements.macos`), or update macOS",
        "__archspec": "lock without the CPU microarchitecture level (`_x86_64-microarch-level`)",
        "__cuda_arch": "lock a build for this GPU's compute capability",
    }.get(name, "")
    return "error", shown, fix


def cuda_arch(profile: MachineProfile) -> tuple[str, str] | None:
    """CEP 46's `__cuda_arch` (version, build) from the GPUs when the detector did not report it
    (rattler does not yet): the lowest compute capability, and that device's model."""
    found = [
        (tuple(int(x) for x in g.compute_capability.split(".")), g.compute_capability, g.name)
        for g in profile.gpus
        if g.compute_capability and re.fullmatch(r"\d+\.\d+", g.compute_capability)
    ]
    if not found:
        return None
    _, low, name = min(found, key=lambda t: t[0])
    return low, name


def _absent(name: str, profile: MachineProfile) -> str:
    if name == "__cuda":
        return "no NVIDIA driver" + (f" ({profile.notes[-1]})" if profile.notes else "")
    if name == "__cuda_arch":
        return "no CUDA device"
    return f"no {name} (a {profile.platform} machine)"


def _absent_fix(name: str, profile: MachineProfile) -> str:
    if name in ("__cuda", "__cuda_arch"):
        return "use a CPU build (`envkit template pytorch --cpu`), or run on a machine with an NVIDIA GPU"
    return f"lock for {profile.platform}"


def _levels_up_to(level: str | None) -> list[str]:
    names = ["x86_64", "x86_64_v2", "x86_64_v3", "x86_64_v4"]
    return names[: names.index(level) + 1] if level in names else []


def _satisfies(name: str, spec: str, version: str, build: str) -> bool:
    from envkit.conda.matchspec import matches, parse_spec

    try:
        dep = parse_spec(f"{name} {spec}")
    except Exception:  # a spec rattler cannot read is not the machine's fault
        return True
    # a build string as a detector reports it (`__cuda_arch`'s is the device model, with spaces)
    # is made CEP 26-valid first: rattler refuses the record otherwise, which is no match verdict
    build = re.sub(r"[^A-Za-z0-9_.+]", "_", build or "0")
    try:
        return matches(dep, name=name, version=version, build=build)
    except Exception:
        return True


# --------------------------------------------------------------------------------------------
# CUDA runtime against the driver


@dataclass(frozen=True, slots=True)
class CudaClaim:
    """A CUDA version the packages carry: `cuda` is major.minor, or the major alone."""

    cuda: str
    package: str
    line: int | None
    why: str


def cuda_claims(pkgs: Sequence[LockedPackage]) -> list[CudaClaim]:
    """Every CUDA the packages carry, in package order (see the module docstring)."""
    from envkit.conda.buildstr import decode

    out = []
    for p in pkgs:
        name = p.name.lower()
        if p.manager == "conda":
            if name in CUDA_RUNTIME:
                mm = minor_text(p.version)
                if mm:
                    out.append(CudaClaim(mm, package_label(p), p.line, name))
                continue
            info = decode(p.build, p.version, name)
            if info.cuda and name in TORCH_CONDA_FAMILY:
                out.append(CudaClaim(info.cuda, package_label(p), p.line, "its build string"))
            continue
        m = _NVIDIA_WHEEL.match(name)
        if m:
            mm = minor_text(p.version) if name.startswith("nvidia-cuda-runtime-cu") else None
            out.append(CudaClaim(mm or m.group("major"), package_label(p), p.line, name))
            continue
        if name == "torch":
            local = decode(None, p.version, None)
            if local.cuda:
                out.append(CudaClaim(local.cuda, package_label(p), p.line, "its +cu local version"))
    return out


def cuda_issues(pkgs: Sequence[LockedPackage], profile: MachineProfile) -> list[Issue]:
    """The CUDA the packages carry against the machine's driver: the most demanding claim of each
    CUDA major, once.  No driver: a warning (CUDA code falls back to the CPU or fails)."""
    worst: dict[str, CudaClaim] = {}
    for c in cuda_claims(pkgs):
        major = c.cuda.split(".")[0]
        if major not in worst or version_key(c.cuda) > version_key(worst[major].cuda):
            worst[major] = c
    return [issue for c in worst.values() if (issue := _cuda_issue(c, profile)) is not None]


def _cuda_issue(c: CudaClaim, profile: MachineProfile) -> Issue | None:
    if c.package.split("=")[0].lower() == c.why:
        c = CudaClaim(c.cuda, c.package, c.line, "")  # the package's own version says it
    want = c.cuda if "." in c.cuda else f"{c.cuda}.0"
    if not profile.driver and not profile.driver_cuda:
        level, have = "warning", "no NVIDIA driver"
        fix = (
            "CUDA code will not run here: use a CPU build (`envkit template pytorch --cpu`) "
            "or a machine with an NVIDIA GPU"
        )
    else:
        if profile.driver_cuda and version_key(profile.driver_cuda) >= version_key(want):
            return None
        compat = compatibility(want, profile.driver) if profile.driver else None
        if compat == "full":
            return None
        have = _driver_text(profile)
        level, fix = _driver_fix(want, compat, profile)
    need = f"CUDA {c.cuda}" + ("" if "." in c.cuda else ".x")
    return Issue(
        kind="cuda", level=level, need=need, have=have, package=c.package, line=c.line, detail=c.why, fix=fix
    )


def _driver_fix(want: str, compat: str | None, profile: MachineProfile) -> tuple[str, str]:
    """(level, fix) of a driver too old for CUDA `want`: a warning when it runs through minor-version
    compatibility, else an error."""
    full = min_driver(want)
    if compat == "minor":
        return "warning", (
            f"runs through CUDA minor-version compatibility only (no JIT of "
            f"newer PTX); a driver >= {full or 'of that release'} runs it fully"
        )
    best = profile.driver_cuda or (max_full_cuda_for_driver(profile.driver) if profile.driver else None)
    fix = (
        f"update the NVIDIA driver to >= {full}"
        if full
        else f"update the NVIDIA driver to one supporting CUDA {want}"
    )
    if best:
        fix += f", or lock a CUDA {best.split('.')[0]}.x variant (this driver runs up to CUDA {best})"
    return "error", fix


def _driver_text(profile: MachineProfile) -> str:
    parts = []
    if profile.driver:
        parts.append(f"driver {profile.driver}")
    if profile.driver_cuda:
        parts.append(f"CUDA {profile.driver_cuda}")
    return ", ".join(parts) or "no NVIDIA driver"


# --------------------------------------------------------------------------------------------
# wheel tags


def wheel_needs(filename: str) -> tuple[str | None, str | None]:
    """(glibc, macOS) the platform tags of a wheel file name need: the lowest over its compressed
    tag set (`manylinux_2_17_x86_64.manylinux2014_x86_64` -> 2.17); None for a tag that sets no
    floor (`any`, `musllinux_*`, `win_*`)."""
    from envkit.create.hashes import file_name

    stem = file_name(filename)
    if not stem.endswith(".whl"):
        return None, None
    parts = stem[:-4].split("-")
    if len(parts) < 5:
        return None, None
    floors = [f for f in map(wheel_tag_floor, parts[-1].split(".")) if f is not None]

    def low(kind: str) -> str | None:
        xs = [v for k, v in floors if k == kind]
        return ".".join(map(str, min(xs))) if xs else None

    return low("manylinux"), low("macosx")


def wheel_issues(pkgs: Sequence[LockedPackage], profile: MachineProfile) -> list[Issue]:
    """pip wheels whose manylinux / macOS tag is newer than the machine's glibc / macOS, grouped by
    the version they need (one Issue each, the others counted)."""
    groups: dict[tuple[str, str], list[LockedPackage]] = {}
    for p in pkgs:
        if p.manager != "pip" or not p.url:
            continue
        glibc, macos = wheel_needs(p.url)
        for what, need, os_, have in (
            ("glibc", glibc, "linux", profile.glibc),
            ("macOS", macos, "osx", profile.macos),
        ):
            if need and profile.os == os_ and have and version_key(need) > version_key(have):
                groups.setdefault((what, need), []).append(p)
    out = []
    for (what, need), members in groups.items():
        have = profile.glibc if what == "glibc" else profile.macos
        tag = ("manylinux_" if what == "glibc" else "macosx_") + need.replace(".", "_")
        fix = f"lock on (or for) a machine with {what} {have}: pip then picks an older wheel or the sdist"
        out.append(
            _grouped(
                members,
                kind="wheel",
                level="error",
                need=f"{what} >= {need} ({tag} wheel)",
                have=f"{what} {have}",
                fix=fix,
            )
        )
    return out


# --------------------------------------------------------------------------------------------


def platform_issue(platforms: Iterable[str], profile: MachineProfile) -> Issue | None:
    """An Issue when the lock has platforms and none is the machine's."""
    plats = [p for p in platforms if p]
    if not plats or profile.platform in plats or not profile.platform:
        return None
    return Issue(
        kind="platform",
        level="error",
        need="one of " + ", ".join(plats),
        have=profile.platform,
        package="",
        fix=f"lock for {profile.platform} too (`envkit lock --platform {profile.platform}`)",
    )


def package_label(p: LockedPackage) -> str:
    if p.manager == "pip":
        return f"{p.name}=={p.version}"
    return f"{p.name}={p.version}={p.build}" if p.build else f"{p.name}={p.version}"
