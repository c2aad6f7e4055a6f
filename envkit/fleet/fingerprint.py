"""Fingerprints: one short digest per environment and one per machine class, and the one line
`envkit fingerprint` prints.

The environment digest covers what `envkit diff` compares package by package: each package's
manager, canonical name, version, build and channel name, and a pip package's direct source (a VCS
or local install; an index URL is where it was downloaded, not what it is).  Paths, host names,
environment names and the order packages are listed in are left out, so one environment installed
on many hosts has one digest.  The machine class covers what decides whether that environment
runs: platform, NVIDIA driver and the CUDA it supports, the GPUs (model and sm_XY), glibc or
macOS, and the x86-64 (or other) CPU level.
"""

from __future__ import annotations

import hashlib
from collections import Counter
from dataclasses import dataclass

from envkit.machine.profile import MachineProfile
from envkit.model import EnvSpec, LiveEnv, Lock, LockedPackage

#: Hex digits of the environment digest and of the machine-class digest.
ENV_DIGITS = 12
MACHINE_DIGITS = 8

_DIRECT_SCHEMES = ("git+", "hg+", "svn+", "bzr+", "file:")


@dataclass(frozen=True, slots=True, kw_only=True)
class EnvPrint:
    """An environment's digest and the few facts a person reads next to it."""

    digest: str
    packages: int
    concrete: bool  # False: a loose spec (its entries are fingerprinted, not packages)
    platform: str | None = None
    python: str | None = None
    torch: str | None = None  # `2.2.2 (CUDA 12.1)`

    def summary(self) -> str:
        """`212 packages, python 3.11.8, pytorch 2.2.2 (CUDA 12.1)`."""
        what = "packages" if self.concrete else "spec entries"
        bits = [f"{self.packages} {what}"]
        if self.python:
            bits.append(f"python {self.python}")
        if self.torch:
            bits.append(f"pytorch {self.torch}")
        return ", ".join(bits)


@dataclass(frozen=True, slots=True, kw_only=True)
class MachineClass:
    """A machine profile reduced to what an environment depends on."""

    digest: str
    platform: str
    driver: str  # `575.57.08 (CUDA 12.9)` or `none`
    gpus: str  # `8x NVIDIA H100 80GB HBM3 (sm_90)` or `none`
    libc: str  # `glibc 2.35`, `macOS 14.5` or `—`
    cpu_level: str

    def summary(self) -> str:
        """`linux-64, glibc 2.35, x86_64_v3, driver 575.57.08 (CUDA 12.9), 8x NVIDIA H100 (sm_90)`."""
        return f"{self.platform}, {self.libc}, {self.cpu_level}, driver {self.driver}, GPUs {self.gpus}"

    def rows(self) -> tuple[tuple[str, str], ...]:
        """(label, value) rows in the order the diff header shows a machine."""
        return (
            ("Platform", self.platform),
            ("Driver", self.driver),
            ("GPUs", self.gpus),
            ("libc/OS", self.libc),
            ("CPU level", self.cpu_level),
        )


def packages_of(
    model: EnvSpec | Lock | LiveEnv, platform: str | None = None
) -> tuple[LockedPackage, ...] | None:
    """The concrete packages of `model` (a multi-platform lock's on `platform`, else on its only
    platform or this machine's), or None for a loose spec."""
    from envkit.model import resolved_view

    view = resolved_view(model, platform)
    if view is None:
        return None
    plats = view.lock.platforms if view.lock is not None else ()
    if len(plats) > 1:
        from envkit.backends.prefix_scan import host_platform

        want = platform if platform in plats else host_platform()
        return view.packages(want if want in plats else plats[0])
    return view.all_packages


def env_fingerprint(model: EnvSpec | Lock | LiveEnv, platform: str | None = None) -> EnvPrint:
    """The EnvPrint of an environment (see the module docstring); a loose spec is fingerprinted by
    its entries' canonical texts."""
    pkgs = packages_of(model, platform)
    if pkgs is None:
        from envkit.model import loose_spec

        spec = loose_spec(model)
        assert spec is not None  # what is not resolved is a loose spec
        keys = sorted([f"conda {d.raw or d.name}" for d in spec.conda] + [f"pip {p.text}" for p in spec.pip])
        py = next((d.version for d in spec.conda if d.name == "python"), None)
        return EnvPrint(digest=_digest(keys), packages=len(keys), concrete=False, python=py)
    python = torch = None
    for p in pkgs:
        n = p.name.lower()
        if n == "python" and p.manager == "conda":
            python = p.version
        elif n in ("pytorch", "torch") and (torch is None or p.manager == "conda"):
            torch = _torch_text(p)
    plat = getattr(model, "platform", None) or next((p.platform for p in pkgs if p.platform), None)
    return EnvPrint(
        digest=_digest(sorted(_package_key(p) for p in pkgs)),
        packages=len(pkgs),
        concrete=True,
        platform=plat or None,
        python=python,
        torch=torch,
    )


def _digest(keys: list[str]) -> str:
    """The environment digest of its sorted keys, one a line."""
    text = "".join(f"{k}\n" for k in keys)
    return hashlib.sha256(text.encode("utf-8", "surrogateescape")).hexdigest()[:ENV_DIGITS]


def _package_key(p: LockedPackage) -> str:
    if p.manager == "pip":
        from envkit.conda.names import pep503

        src = ""
        if p.editable:
            src = f" editable {p.url or ''}"
        elif p.url and p.url.startswith(_DIRECT_SCHEMES):
            src = f" {p.url}"
        return f"pip {pep503(p.name)} {p.version}{src}"
    chan = _channel_name(p.channel) if p.channel else ""
    return f"conda {p.name.lower()} {p.version} {p.build or ''} {chan}"


def _channel_name(text: str) -> str:
    from envkit.conda.channels import parse_channel

    try:
        return parse_channel(text).name
    except Exception:  # a channel envkit cannot parse is still a name to compare
        return text


def _torch_text(p: LockedPackage) -> str:
    from envkit.conda.buildstr import decode

    labels = [x for x in decode(p.build, p.version, p.name).labels() if not x.startswith("py")]
    return f"{p.version} ({', '.join(labels)})" if labels else p.version


def machine_class(profile: MachineProfile) -> MachineClass:
    """The MachineClass of a profile: host name, kernel, Pythons and notes left out."""
    p = profile
    driver = "none"
    if p.driver or p.driver_cuda:
        driver = f"{p.driver or '?'}" + (f" (CUDA {p.driver_cuda})" if p.driver_cuda else "")
    counts = Counter(f"{g.name} ({g.sm})" if g.sm else g.name for g in p.gpus)
    gpus = ", ".join(f"{n}x {name}" if n > 1 else name for name, n in sorted(counts.items())) or "none"
    libc = f"glibc {p.glibc}" if p.glibc else (f"macOS {p.macos}" if p.macos else "—")
    # over ssh only the x86-64 level is known; locally rattler names the microarchitecture too
    level = p.cpu_level or p.archspec or "—"
    fields = (p.platform or "?", driver, gpus, libc, level)
    digest = hashlib.sha256("\n".join(fields).encode()).hexdigest()[:MACHINE_DIGITS]
    return MachineClass(
        digest=digest, platform=fields[0], driver=driver, gpus=gpus, libc=libc, cpu_level=level
    )


def fingerprint_line(env: EnvPrint, machine: MachineClass | None) -> str:
    """The line `envkit fingerprint` prints: identical on every host with the same environment and
    machine class, so `clush -b` / `dshbak -c` group hosts by it.

        env 3f2a9c1d0b7e (212 packages, python 3.11.8) machine 8a1b2c3d (linux-64, glibc 2.35, ...)
    """
    line = f"env {env.digest} ({env.summary()})"
    if machine is not None:
        line += f" machine {machine.digest} ({machine.summary()})"
    return line
