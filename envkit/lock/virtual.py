"""Virtual packages: the defaults assumed per platform when solving, and `--virtual-package` overrides."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from envkit.errors import Remedy, UsageError

#: Virtual packages assumed for each platform when solving (name -> "version" or "version build").
#: These are conda-lock's defaults (conda_lock/default-virtual-packages.yaml) without `__cuda`: a
#: CUDA build is only chosen when the user says the target has CUDA (`--virtual-package
#: linux-64:__cuda=12.4`), as `CONDA_OVERRIDE_CUDA` does for conda.
DEFAULT_VIRTUAL_PACKAGES: dict[str, dict[str, str]] = {
    "linux-64": {"__unix": "0", "__linux": "5.10", "__glibc": "2.28", "__archspec": "1 x86_64"},
    "linux-aarch64": {"__unix": "0", "__linux": "5.10", "__glibc": "2.28", "__archspec": "1 aarch64"},
    "linux-ppc64le": {"__unix": "0", "__linux": "5.10", "__glibc": "2.28", "__archspec": "1 ppc64le"},
    "osx-64": {"__unix": "0", "__osx": "11.0", "__archspec": "1 x86_64"},
    "osx-arm64": {"__unix": "0", "__osx": "11.0", "__archspec": "1 arm64"},
    "win-64": {"__win": "0", "__archspec": "1 x86_64"},
    "win-arm64": {"__win": "0", "__archspec": "1 arm64"},
}

_VP_NAME = re.compile(r"__[a-z0-9_]+")


@dataclass(frozen=True, slots=True, kw_only=True)
class VirtualPackage:
    """A virtual package setting: `platform` None means every platform being solved."""

    name: str
    version: str
    build: str = "0"
    platform: str | None = None

    def __str__(self) -> str:
        head = f"{self.platform}:" if self.platform else ""
        return f"{head}{self.name}={self.version}={self.build}"


def parse_virtual_package(text: str) -> VirtualPackage:
    """Parse `[PLATFORM:]__name=version[=build]` (e.g. `linux-64:__cuda=12.4`, `__glibc=2.17`).

    Raises UsageError for any other shape.
    """
    from envkit.conda.channels import is_platform

    raw = text.strip()
    platform = None
    head, sep, rest = raw.partition(":")
    if sep and not head.startswith("__"):
        if not is_platform(head):
            raise UsageError(
                f"--virtual-package {raw!r}: unknown platform {head!r}",
                hint="write PLATFORM:__name=version, e.g. linux-64:__cuda=12.4",
            )
        platform, raw = head, rest
    name, _, tail = raw.partition("=")
    version, _, build = tail.partition("=")
    if not _VP_NAME.fullmatch(name) or not version.strip():
        raise UsageError(
            f"--virtual-package {text!r}: expected [PLATFORM:]__name=version[=build]",
            hint="e.g. {} or {}",
            remedy=(
                Remedy(option="virtual_packages", value="linux-64:__cuda=12.4", many=True),
                Remedy(option="virtual_packages", value="__glibc=2.17", many=True),
            ),
        )
    try:
        from rattler import Version

        Version(version.strip())
    except Exception:
        raise UsageError(f"--virtual-package {text!r}: {version!r} is not a version") from None
    return VirtualPackage(name=name, version=version.strip(), build=build.strip() or "0", platform=platform)


def virtual_packages_for(
    platform: str, overrides: Iterable[VirtualPackage] = ()
) -> tuple[VirtualPackage, ...]:
    """The virtual packages in force for `platform`: the defaults, then `overrides` (a later one
    for the same name wins; a platform-specific one beats an all-platform one).  Sorted by name."""
    found: dict[str, VirtualPackage] = {}
    for name, value in DEFAULT_VIRTUAL_PACKAGES.get(platform, {}).items():
        version, _, build = value.partition(" ")
        found[name] = VirtualPackage(name=name, version=version, build=build or "0", platform=platform)
    overrides = list(overrides)
    for vp in [v for v in overrides if v.platform is None] + [v for v in overrides if v.platform == platform]:
        found[vp.name] = VirtualPackage(name=vp.name, version=vp.version, build=vp.build, platform=platform)
    return tuple(found[k] for k in sorted(found))


def vp_value(vps: Sequence[VirtualPackage], name: str) -> str | None:
    return next((vp.version for vp in vps if vp.name == name), None)


#: The variables conda reads to override a detected virtual package
#: (https://docs.conda.io/projects/conda/en/latest/user-guide/tasks/manage-virtual.html), and the
#: platforms each applies to when a lock is solved for several.
OVERRIDE_VARIABLES = {
    "__cuda": ("CONDA_OVERRIDE_CUDA", ("linux-", "win-")),
    "__glibc": ("CONDA_OVERRIDE_GLIBC", ("linux-",)),
    "__osx": ("CONDA_OVERRIDE_OSX", ("osx-",)),
}


def virtual_advice(platform: str, name: str) -> dict[str, Any]:
    """The `hint` and `remedy` (keyword arguments of an EnvkitError) saying how to set virtual
    package `name` for a solve of `platform`: the virtual-packages option, or the variable conda
    reads (CONDA_OVERRIDE_CUDA, ...) where one applies."""
    example = {"__cuda": "12.4", "__glibc": "2.34", "__osx": "13.0"}.get(name, "VERSION")
    var = OVERRIDE_VARIABLES.get(name)
    tail = f", or set {var[0]}={example} as for conda" if var and platform.startswith(var[1]) else ""
    return {
        "hint": "pass {}" + tail,
        "remedy": Remedy(option="virtual_packages", value=f"{platform}:{name}={example}", many=True),
    }


def environ_virtual_packages(
    environ: Mapping[str, str], platforms: Sequence[str], given: Sequence[VirtualPackage] = ()
) -> tuple[VirtualPackage, ...]:
    """The virtual packages `CONDA_OVERRIDE_CUDA`, `CONDA_OVERRIDE_GLIBC` and `CONDA_OVERRIDE_OSX`
    in `environ` set for each of `platforms` they apply to, as conda honours them; a name set in
    `given` (explicit settings) is left to it.  An empty value sets nothing (conda's way of saying
    "no CUDA", which is the default here).  Raises UsageError for a value that is not a version."""
    out: list[VirtualPackage] = []
    for name, (var, prefixes) in OVERRIDE_VARIABLES.items():
        value = (environ.get(var) or "").strip()
        if not value or any(v.name == name for v in given):
            continue
        try:
            from rattler import Version

            Version(value)
        except Exception:
            raise UsageError(f"{var}={value!r} is not a version", hint=f"e.g. {var}=12.4") from None
        for p in platforms:
            if p.startswith(prefixes):
                out.append(VirtualPackage(name=name, version=value, platform=p))
    return tuple(out)
