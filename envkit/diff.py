"""Why do two environments differ?  `diff(a, b) -> EnvDiff`, a pure function over envkit's models.

Each side is any model envkit reads: an `EnvSpec` (a hand-written spec, a requirements file, or a
`conda env export`), a `Lock` (conda-lock, pixi, explicit, `conda list`), or a `LiveEnv` (a prefix).

* Two concrete sides (locks, exports with versions, live environments) are compared package by
  package: added, removed, upgraded, downgraded (conda's version order from py-rattler; PEP 440 for
  pip packages), rebuilt (same version, only hash/build number), build variant changed (the decoded
  build string says something different: CPU vs CUDA, MKL vs OpenBLAS, another Python ABI), channel
  changed, manager changed (conda <-> pip, PyPI names mapped to conda names), and duplicates (one
  project installed by both conda and pip on one side only).
* A spec against a concrete side gives, per spec entry, satisfied / not satisfied / missing (conda's
  match semantics, PEP 440 for pip), plus the concrete packages the spec does not mention.
* Two specs are compared entry by entry.

Each change gets an impact (high / medium / low) and a one-line reason, and a group: "matter" (the
"likely to matter" section: Python, PyTorch, CUDA, cuDNN, NCCL, BLAS, compiler runtimes, numpy,
duplicates, conda<->pip moves), "platform" (expected differences between two platforms: packages only
one OS has, and the same version built per platform), or "other".  Channels (list, order, priority),
pip index options and environment variables are compared too.  Nothing here prints or reads files.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Iterable, Sequence

from envkit._text import plural
from envkit.conda.buildstr import decode
from envkit.errors import UsageError
from envkit.model import CondaDep, EnvSpec, LiveEnv, Lock, LockedPackage, PipDep

#: Change kinds, in the order a summary lists them.
KINDS = ("added", "removed", "upgraded", "downgraded", "changed", "variant", "rebuilt", "source",
         "channel", "manager", "duplicate")
#: Human names of the kinds.
KIND_TITLES = {
    "added": "added", "removed": "removed", "upgraded": "upgraded", "downgraded": "downgraded",
    "changed": "changed", "variant": "build variant changed", "rebuilt": "rebuilt",
    "source": "install source changed",
    "channel": "channel changed", "manager": "manager changed", "duplicate": "duplicate",
}
IMPACTS = ("high", "medium", "low")
#: `LiveEnv.backend` of an environment read from envkit's JSON export (envkit.sources) rather than
#: from a prefix: its channels are the ones packages came from, not the configured ones.
EXPORT_JSON_BACKEND = "envkit-export"
GROUPS = ("matter", "platform", "other")
SPEC_STATUSES = ("not-satisfied", "missing", "satisfied", "skipped")

# ---------------------------------------------------------------------------------------------
# Records


@dataclass(frozen=True, slots=True, kw_only=True)
class PackageState:
    """One side of a change: a package as installed/locked, or a spec entry (version = the spec)."""

    name: str
    manager: str
    version: str
    build: str | None = None
    channel: str | None = None
    labels: tuple[str, ...] = ()  # decoded build string: ('CUDA 12.1', 'cuDNN 8.9.2', 'py3.11')
    #: a pip package's source when it was not installed from an index: `git+URL@commit`, a
    #: `file://` path or an archive URL (credentials redacted); None from an index or unknown
    url: str | None = None
    editable: bool = False

    def as_dict(self) -> dict:
        return {"name": self.name, "version": self.version, "build": self.build,
                "channel": self.channel, "manager": self.manager, "labels": list(self.labels),
                "url": self.url, "editable": self.editable}


@dataclass(frozen=True, slots=True, kw_only=True)
class Change:
    """One package that differs.  `a`/`b` is None on the side that lacks it."""

    name: str
    kind: str  # one of KINDS
    a: PackageState | None
    b: PackageState | None
    tags: tuple[str, ...] = ()  # aspects (version, build, variant, channel, manager, duplicate,
    #                             platform) and category (python, torch, cuda, cudnn, nccl, blas,
    #                             compiler-runtime, numpy)
    impact: str = "low"
    reason: str = ""
    group: str = "other"
    category: str | None = None

    def as_dict(self) -> dict:
        return {"name": self.name, "kind": self.kind,
                "a": self.a.as_dict() if self.a else None,
                "b": self.b.as_dict() if self.b else None,
                "tags": list(self.tags), "impact": self.impact, "reason": self.reason,
                "group": self.group}


@dataclass(frozen=True, slots=True, kw_only=True)
class SpecCheck:
    """One spec entry checked against the concrete side."""

    spec: str  # the entry's canonical text
    name: str
    manager: str  # of the spec entry: conda or pip
    status: str  # satisfied | not-satisfied | missing | skipped
    found: PackageState | None = None
    note: str = ""
    line: int | None = None

    def as_dict(self) -> dict:
        return {"spec": self.spec, "name": self.name, "manager": self.manager,
                "status": self.status, "found": self.found.as_dict() if self.found else None,
                "note": self.note, "line": self.line}


@dataclass(frozen=True, slots=True, kw_only=True)
class ChannelDiff:
    """Channel lists (priority order, as each side records them) and channel priority."""

    a: tuple[str, ...] | None  # None: that side records no channels
    b: tuple[str, ...] | None
    added: tuple[str, ...] = ()
    removed: tuple[str, ...] = ()
    order_changed: bool = False
    priority_a: str | None = None
    priority_b: str | None = None
    note: str = ""
    #: a live prefix compared with a file: its configured channels no installed package came from
    #: (left out of `a`/`b`, which then hold the channels packages came from; not a difference)
    unused_a: tuple[str, ...] = ()
    unused_b: tuple[str, ...] = ()

    @property
    def priority_changed(self) -> bool:
        """Both sides record `channel_priority` and the values differ (unknown on one side is not a
        difference)."""
        return (self.priority_a is not None and self.priority_b is not None
                and self.priority_a != self.priority_b)

    @property
    def changed(self) -> bool:
        return bool(self.added or self.removed or self.order_changed or self.priority_changed)

    def as_dict(self) -> dict:
        return {"a": list(self.a) if self.a is not None else None,
                "b": list(self.b) if self.b is not None else None,
                "added": list(self.added), "removed": list(self.removed),
                "order_changed": self.order_changed,
                "priority": {"a": self.priority_a, "b": self.priority_b},
                "changed": self.changed, "note": self.note,
                "unused": {"a": list(self.unused_a), "b": list(self.unused_b)}}


@dataclass(frozen=True, slots=True, kw_only=True)
class ListDiff:
    """Two ordered lists of strings (pip index options, environment variables as KEY=VALUE).

    Credentials never appear: a variable whose value is a secret (`HF_TOKEN`, `WANDB_API_KEY`, a URL
    with a password) is listed as `NAME=<TOKEN>`, and `secrets_changed` names those whose real
    values differ although their redacted forms are equal (so the values are compared, not shown).
    """

    a: tuple[str, ...] | None  # None: unknown on that side
    b: tuple[str, ...] | None
    secrets_changed: tuple[str, ...] = ()
    #: secrets whose value is a placeholder (`<TOKEN>`, as an export writes it) on at least one
    #: side: unknown, so not compared (never a change)
    secrets_unknown: tuple[str, ...] = ()

    @property
    def changed(self) -> bool:
        return self.a is not None and self.b is not None and (self.a != self.b or bool(self.secrets_changed))

    def as_dict(self) -> dict:
        return {"a": list(self.a) if self.a is not None else None,
                "b": list(self.b) if self.b is not None else None, "changed": self.changed,
                "secrets_changed": list(self.secrets_changed),
                "secrets_unknown": list(self.secrets_unknown)}


@dataclass(frozen=True, slots=True, kw_only=True)
class SideInfo:
    """What one side is: where it came from, its kind and platform."""

    source: str
    kind: str  # spec | requirements | export | conda-lock | pixi | explicit | conda-list | live ...
    concrete: bool
    platform: str | None = None
    platforms: tuple[str, ...] = ()  # all platforms the source has (a multi-platform lock)
    name: str | None = None
    packages: int = 0  # conda + pip packages (concrete) or entries (spec)
    platform_guessed: bool = False  # a `conda env export` does not say; guessed from its packages
    records_pip: bool = True  # False: the format cannot hold pip packages (an explicit file)

    def as_dict(self) -> dict:
        return {"source": self.source, "kind": self.kind, "concrete": self.concrete,
                "platform": self.platform, "platform_guessed": self.platform_guessed,
                "platforms": list(self.platforms), "name": self.name, "packages": self.packages,
                "records_pip": self.records_pip}


@dataclass(frozen=True, slots=True, kw_only=True)
class PipNotRecorded:
    """One side's format cannot hold pip packages (`conda list --explicit`): the other side's pip
    packages are not compared (not listed as removed or added); `skipped` counts them."""

    side: str  # "a" or "b": the side that cannot record pip packages
    kind: str  # its format ("explicit")
    skipped: int  # pip packages of the other side left out

    def as_dict(self) -> dict:
        return {"side": self.side, "kind": self.kind, "skipped": self.skipped}

    def sentence(self) -> str:
        """`B is an explicit file, which cannot record pip packages: A's 144 pip packages are not
        compared.`"""
        me, other = self.side.upper(), ("B" if self.side == "a" else "A")
        n = plural(self.skipped, "pip package")
        verb = "are" if self.skipped != 1 else "is"
        return f"{me} is {_a_file(self.kind)}, which cannot record pip packages: {other}'s {n} {verb} not compared."


def _a_file(kind: str) -> str:
    """`an explicit file`, `a conda-lock file`."""
    return f"{'an' if kind[:1] in 'aeiou' else 'a'} {kind} file"


@dataclass(frozen=True, slots=True, kw_only=True)
class DuplicateInfo:
    conda: str
    pip: str
    project: str

    def as_dict(self) -> dict:
        return {"conda": self.conda, "pip": self.pip, "project": self.project}


@dataclass(frozen=True, slots=True, kw_only=True)
class EnvDiff:
    """The result of `diff`.  `changes` are ranked: group (matter, platform, other), impact, then
    category and name.  `same` says whether the two sides are equivalent (exit code 0)."""

    a: SideInfo
    b: SideInfo
    changes: tuple[Change, ...] = ()
    unchanged: tuple[PackageState, ...] = ()
    channels: ChannelDiff = field(default_factory=lambda: ChannelDiff(a=None, b=None))
    pip_options: ListDiff = field(default_factory=lambda: ListDiff(a=None, b=None))
    variables: ListDiff = field(default_factory=lambda: ListDiff(a=None, b=None))
    duplicates_a: tuple[DuplicateInfo, ...] = ()
    duplicates_b: tuple[DuplicateInfo, ...] = ()
    spec_side: str | None = None  # "a" or "b" when one side is a spec and the other concrete
    spec_checks: tuple[SpecCheck, ...] = ()
    unmentioned: tuple[PackageState, ...] = ()
    highlights: tuple[tuple[str, str | None, str | None], ...] = ()  # (label, a, b)
    cross_platform: bool = False
    pip_not_recorded: PipNotRecorded | None = None

    @property
    def same(self) -> bool:
        if self.changes or self.channels.changed or self.pip_options.changed or self.variables.changed:
            return False
        return not any(c.status in ("not-satisfied", "missing") for c in self.spec_checks)

    def notes(self) -> list[str]:
        """Sentences about what was not compared (said once, never a difference): pip packages a
        format cannot record, credential values written as placeholders, configured channels no
        package came from."""
        out = []
        if self.pip_not_recorded is not None:
            out.append(self.pip_not_recorded.sentence())
        for letter, unused in (("A", self.channels.unused_a), ("B", self.channels.unused_b)):
            if unused:
                out.append(f"channels configured for {letter} that no installed package came from "
                           f"(not compared): {', '.join(unused)}.")
        hidden = self.variables.secrets_unknown
        if hidden:
            n = len(hidden)
            out.append(f"{plural(n, 'credential value')} could not be compared (written as a "
                       f"placeholder such as <TOKEN> on one side): {', '.join(hidden)}.")
        return out

    def differing_lists(self) -> list[str]:
        """'channels differ', 'pip index options differ', 'environment variables differ': the
        side-level lists that differ, in that order (for summaries)."""
        out = []
        for changed, what in ((self.channels.changed, "channels"),
                              (self.pip_options.changed, "pip index options"),
                              (self.variables.changed, "environment variables")):
            if changed:
                out.append(f"{what} differ")
        return out

    def by_group(self, group: str) -> list[Change]:
        return [c for c in self.changes if c.group == group]

    def summary(self) -> dict:
        """Counts: per kind, per group, per impact, spec statuses, and the total."""
        kinds = {k: 0 for k in KINDS}
        groups = {g: 0 for g in GROUPS}
        impacts = {i: 0 for i in IMPACTS}
        for c in self.changes:
            kinds[c.kind] += 1
            groups[c.group] += 1
            impacts[c.impact] += 1
        spec = {s: 0 for s in SPEC_STATUSES}
        for s in self.spec_checks:
            spec[s.status] += 1
        return {"same": self.same, "changes": len(self.changes), "kinds": kinds, "groups": groups,
                "impacts": impacts, "spec": spec, "unchanged": len(self.unchanged),
                "unmentioned": len(self.unmentioned), "channels_changed": self.channels.changed,
                "pip_options_changed": self.pip_options.changed,
                "variables_changed": self.variables.changed,
                "pip_not_compared": self.pip_not_recorded.skipped if self.pip_not_recorded else 0}


# ---------------------------------------------------------------------------------------------
# Package categories: what is likely to matter, and why


_PYTHON = frozenset({"python"})
_TORCH = frozenset({"pytorch", "torch", "torchvision", "torchaudio", "libtorch", "pytorch-cuda",
                    "pytorch-base", "torchvision-base",  # Open-CE's names (corpus 55)
                    "pytorch-cpu", "pytorch-gpu", "cpuonly", "pytorch-mutex", "_pytorch_select",
                    "torchtriton"})
_CUDA_CORE = frozenset({"cudatoolkit", "cuda-toolkit", "cuda-version", "cuda-runtime",
                        "cuda-cudart", "nvidia-cuda-runtime-cu11", "nvidia-cuda-runtime-cu12",
                        "nvidia-cuda-runtime", "cuda"})
_CUDA_LIBS = frozenset({"libcublas", "libcufft", "libcurand", "libcusolver", "libcusparse",
                        "libnvjitlink", "libnpp", "libnvjpeg", "libcufile", "libcusparselt",
                        "libnvfatbin", "libnvjitlink-dev", "cupti", "magma"})
_CUDNN = frozenset({"cudnn"})
_NCCL = frozenset({"nccl"})
_BLAS = frozenset({"mkl", "mkl-service", "mkl_fft", "mkl_random", "mkl-include", "mkl-devel",
                   "blas", "libblas", "libcblas", "liblapack", "liblapacke", "blas-devel",
                   "openblas", "libopenblas", "blis", "libflame", "mkl-fft", "mkl-random"})
_RUNTIME = frozenset({"libstdcxx-ng", "libstdcxx", "libgcc-ng", "libgcc", "libgomp", "libcxx",
                      "libcxxabi", "llvm-openmp", "_openmp_mutex", "intel-openmp", "libgfortran",
                      "libgfortran-ng", "libgfortran5", "vc", "vs2015_runtime", "vc14_runtime",
                      "ucrt"})
_NUMPY = frozenset({"numpy", "numpy-base"})  # defaults splits numpy: the code is in numpy-base

#: The order of the "likely to matter" section.
CATEGORY_ORDER = ("python", "torch", "cuda", "cudnn", "nccl", "blas", "compiler-runtime", "numpy")
_CAT_RANK = {c: i for i, c in enumerate(CATEGORY_ORDER)}

#: Packages that exist on one platform family only: with two different platforms, their presence on
#: one side only is expected and grouped as a platform difference rather than mixed into the noise.
PLATFORM_ONLY = frozenset({
    # linux
    "_libgcc_mutex", "_openmp_mutex", "libgcc-ng", "libgcc", "libgomp", "libstdcxx-ng", "libstdcxx",
    "libgfortran-ng", "libgfortran", "ld_impl_linux-64", "ld_impl_linux-aarch64",
    "ld_impl_linux-ppc64le", "sysroot_linux-64", "sysroot_linux-aarch64", "kernel-headers_linux-64",
    "kernel-headers_linux-aarch64", "libnsl", "libuuid", "libxcrypt", "libsanitizer", "libcap",
    "libudev1", "libsystemd0", "libdrm", "libglvnd", "libegl", "libgl", "libopengl", "libglx",
    "libpciaccess", "libnuma", "attr", "keyutils", "libselinux", "pthread-stubs", "alsa-lib",
    "pulseaudio-client", "libxcb", "libxkbcommon", "libxshmfence", "libnl", "rdma-core",
    "libgcc-devel_linux-64", "libstdcxx-devel_linux-64", "triton", "libasprintf", "libcap-ng",
    "libevent", "dbus", "libglib", "nspr", "nss", "libsqlite", "gcc_impl_linux-64",
    # macOS
    "libcxx", "libcxxabi", "llvm-openmp", "tapi", "cctools", "cctools_osx-64", "cctools_osx-arm64",
    "ld64", "ld64_osx-64", "ld64_osx-arm64", "libcxx-devel", "appnope", "libgfortran5",
    "pyobjc-core", "pyobjc-framework-cocoa", "libllvm14", "libllvm15", "libllvm16", "libllvm17",
    # Windows
    "vc", "vs2015_runtime", "vc14_runtime", "ucrt", "intel-openmp", "wincertstore", "pywin32",
    "pywin32-ctypes", "pywinpty", "win_inet_pton", "winpty", "libwinpthread", "menuinst",
    "m2w64-gcc-libs", "m2w64-gcc-libs-core", "m2w64-gmp", "m2w64-libwinpthread-git",
    "msys2-conda-epoch", "pyreadline", "pyreadline3", "colorama_win",
})
_PLATFORM_ONLY_RE = re.compile(r"^(?:xorg-|xcb-util|m2w64-|msys2-|pyobjc-|api-ms-win-|libgcc-devel_|"
                               r"libstdcxx-devel_|gcc_impl_|gxx_impl_|gfortran_impl_|sysroot_|"
                               r"kernel-headers_|ld_impl_|clang_osx|clangxx_osx)|_(?:linux|osx|win)-")


def category_of(name: str) -> str | None:
    """The "likely to matter" category of a package name (conda or pip), or None."""
    n = name.lower()
    if n in _PYTHON:
        return "python"
    if n in _TORCH:
        return "torch"
    if n in _CUDNN or n.startswith("nvidia-cudnn-"):
        return "cudnn"
    if n in _NCCL or n.startswith("nvidia-nccl-"):
        return "nccl"
    if n in _CUDA_CORE or n in _CUDA_LIBS or n.startswith("cuda-") or n.startswith("nvidia-"):
        return "cuda"
    if n in _BLAS:
        return "blas"
    if n in _RUNTIME:
        return "compiler-runtime"
    if n in _NUMPY:
        return "numpy"
    return None


def is_platform_only(name: str) -> bool:
    """Whether `name` is a package that exists on one platform family only (see PLATFORM_ONLY)."""
    n = name.lower()
    return n in PLATFORM_ONLY or _PLATFORM_ONLY_RE.search(n) is not None


def platforms_differ(a: str | None, b: str | None) -> bool:
    """Whether two platforms (or OS families, "osx") are known to differ."""
    if not a or not b:
        return False
    if platform_family(a) != platform_family(b):
        return True
    return "-" in a and "-" in b and a != b


def platform_family(platform: str | None) -> str | None:
    """'linux', 'osx', 'win', ... (the part before the dash), or None."""
    if not platform:
        return None
    return platform.split("-", 1)[0]


# ---------------------------------------------------------------------------------------------
# Versions


@lru_cache(maxsize=65536)
def _conda_version(text: str):
    from rattler import Version

    try:
        return Version(text)
    except Exception:  # rattler raises its own error type for an invalid version
        return None


@lru_cache(maxsize=65536)
def _pep440(text: str):
    from packaging.version import InvalidVersion, Version

    try:
        return Version(text)
    except InvalidVersion:
        return None


def compare_versions(a: str, b: str, manager: str = "conda") -> int | None:
    """-1, 0 or 1 comparing version `a` with `b` (conda order via py-rattler for conda packages, PEP
    440 for pip packages, each falling back to the other); None when neither can order them."""
    if a == b:
        return 0
    order = (_pep440, _conda_version) if manager == "pip" else (_conda_version, _pep440)
    for parse in order:
        va, vb = parse(a), parse(b)
        if va is not None and vb is not None:
            return (va > vb) - (va < vb)
    return None


def _split_local(version: str) -> tuple[str, str]:
    public, _, local = version.partition("+")
    return public, local


def _major_minor(version: str) -> str:
    parts = re.split(r"[.+_-]", version)
    return ".".join(parts[:2])


def _major(version: str) -> str:
    return re.split(r"[.+_-]", version)[0]


# ---------------------------------------------------------------------------------------------
# Sides


@dataclass(slots=True)
class _Side:
    info: SideInfo
    packages: tuple[LockedPackage, ...] = ()
    spec: EnvSpec | None = None
    channels: tuple[str, ...] | None = None
    priority: str | None = None
    pip_options: tuple[str, ...] | None = None
    variables: tuple[str, ...] | None = None  # KEY=VALUE, credentials redacted
    secrets: dict | None = None  # KEY -> the real value, for the variables that were redacted
    owned: dict | None = None  # live env: conda name -> PyPI names it owns
    python_version: str | None = None
    dists: dict | None = None  # live env: PEP 503 name -> PipDist (VCS and commit of direct installs)
    base_dir: str | None = None  # the directory of the file the side was read from (relative paths)
    used_channels: tuple[str, ...] | None = None  # live prefix: the channels its packages came from
    unused_channels: tuple[str, ...] = ()
    pip_sources: bool = True  # whether the side records where pip packages came from (see _side)


def model_platforms(model: EnvSpec | Lock | LiveEnv) -> tuple[str, ...]:
    """The platforms a model is for: a lock's platforms, a live env's platform, () for a spec."""
    if isinstance(model, LiveEnv):
        return (model.platform,) if model.platform else ()
    if isinstance(model, Lock):
        if model.platforms:
            return tuple(model.platforms)
        return tuple(dict.fromkeys(p.platform for p in model.packages if p.platform))
    if _is_concrete_spec(model):
        guess = _guess_export(model)
        if guess and "-" in guess:
            return (guess,)
    return ()


def _guess_export(spec: EnvSpec) -> str | None:
    return guess_platform(((d.name, d.build) for d in spec.conda), spec.prefix)


def pick_platforms(a: EnvSpec | Lock | LiveEnv, b: EnvSpec | Lock | LiveEnv, *,
                   platform: str | None = None, host_platform: str | None = None,
                   labels: tuple[str, str] = ("A", "B")) -> tuple[str | None, str | None]:
    """The platform to compare on each side.

    A multi-platform lock uses `platform` when given (UsageError when it lacks it); otherwise the
    other side's platform when the other side has exactly one, else the host's; a single-platform
    source uses its own.  Raises UsageError when a multi-platform lock has none of those.
    """
    pa, pb = model_platforms(a), model_platforms(b)
    # a `conda env export` may name only its OS family ("win"): take the other side's platform of
    # that family (corpus 37, a Windows export, against a lock for linux-64, osx-*, win-64)
    pa = pa or _family_platform(a, pb, b, platform)
    pb = pb or _family_platform(b, pa, a, platform)
    host = host_platform or current_platform()

    def choose(model, mine: tuple[str, ...], other: tuple[str, ...], label: str) -> str | None:
        if platform is not None and isinstance(model, Lock) and mine:
            if platform not in mine:
                raise UsageError(f"{label} has no platform {platform}; it has {', '.join(mine)}",
                                 hint="pick one of those with --platform")
            return platform
        if len(mine) <= 1:
            return mine[0] if mine else None
        if len(other) == 1 and other[0] in mine:
            return other[0]
        if host in mine:
            return host
        theirs = f" or the other side's ({other[0]})" if len(other) == 1 else ""
        raise UsageError(
            f"{label} is locked for several platforms ({', '.join(mine)}) and none is this "
            f"machine's ({host}){theirs}",
            hint=f"say which with --platform, e.g. --platform {mine[0]}")

    return choose(a, pa, pb, labels[0]), choose(b, pb, pa, labels[1])


def _family_platform(model, other: tuple[str, ...], other_model, platform: str | None) -> tuple[str, ...]:
    """For an export whose guessed platform is an OS family only ("win", "osx"), the platform of
    that family the other side has: `--platform` when it is of that family, the only one, or (a lock
    with osx-64 and osx-arm64) the one whose packages share the most exact builds with the export.
    () when the export says nothing or the other side has no platform of its family."""
    if not isinstance(model, EnvSpec) or not _is_concrete_spec(model):
        return ()
    family = _guess_export(model)
    if not family or "-" in family:
        return ()
    if platform is not None and platform_family(platform) == family and (not other or platform in other):
        return (platform,)
    candidates = [p for p in other if platform_family(p) == family]
    if len(candidates) <= 1:
        return tuple(candidates)
    mine = {(d.name, _exact_version(d.version), d.build) for d in model.conda}
    packages = other_model.packages if isinstance(other_model, (Lock, LiveEnv)) else ()

    def shared(plat: str) -> int:
        return sum(1 for p in packages if p.platform == plat and (p.name, p.version, p.build) in mine)

    best = max(candidates, key=lambda c: (shared(c), -candidates.index(c)))
    return (best,)


def _exact_version(version: str | None) -> str | None:
    return version[2:] if version and version.startswith("==") else version


def current_platform() -> str:
    """The conda platform of this machine (linux-64, osx-arm64, ...), from py-rattler."""
    from rattler import Subdir

    return str(Subdir.current())


def _is_concrete_spec(spec: EnvSpec) -> bool:
    """An EnvSpec that lists what was installed (`conda env export`, with or without builds)."""
    return spec.kind == "export" and bool(spec.conda)


_ARCH_IN_BUILD = re.compile(r"(?:^|_)(linux64|linuxaarch64|linuxppc64le|osx64|osxarm64|win64)(?:_|$)")
_ARCH_NAMES = {"linux64": "linux-64", "linuxaarch64": "linux-aarch64", "linuxppc64le": "linux-ppc64le",
               "osx64": "osx-64", "osxarm64": "osx-arm64", "win64": "win-64"}
_LINUX_MARKERS = frozenset({"_libgcc_mutex", "libgcc-ng", "libstdcxx-ng", "libgcc", "libstdcxx",
                            "libgomp", "_openmp_mutex", "libuuid", "libnsl", "libxcrypt"})
_OSX_MARKERS = frozenset({"libcxx", "libcxxabi", "appnope", "tapi", "cctools", "ld64"})
_WIN_MARKERS = frozenset({"vc", "vs2015_runtime", "vc14_runtime", "ucrt", "wincertstore", "pywin32",
                          "m2w64-gcc-libs", "winpty", "pywinpty"})


def guess_platform(names_builds: Iterable[tuple[str, str | None]], prefix: str | None = None) -> str | None:
    """The platform a `conda env export` was made on, from what it contains (a `conda env export`
    does not record it): `ld_impl_linux-64` or a `20_linux64_openblas` BLAS build name the platform;
    `libgcc-ng`, `libcxx`, `vc` (and the `prefix:` path) name only the OS family, which is returned
    alone ("osx").  None when nothing tells."""
    family = None
    for name, build in names_builds:
        n = name.lower()
        m = re.search(r"_(linux-64|linux-aarch64|linux-ppc64le|osx-64|osx-arm64|win-64)$", n)
        if m:
            return m.group(1)
        if build:
            m = _ARCH_IN_BUILD.search(build.lower())
            if m:
                return _ARCH_NAMES[m.group(1)]
        if family is None:
            if n in _LINUX_MARKERS:
                family = "linux"
            elif n in _OSX_MARKERS:
                family = "osx"
            elif n in _WIN_MARKERS or n.startswith("m2w64-"):
                family = "win"
    if family is None and prefix:
        if prefix.startswith("/Users/"):
            family = "osx"
        elif re.match(r"^[A-Za-z]:[\\/]", prefix):
            family = "win"
        elif prefix.startswith("/home/"):
            family = "linux"
    return family


def export_as_lock(spec: EnvSpec, platform: str | None = None) -> Lock:
    """A `conda env export` EnvSpec as a Lock, through the format reader's `export_to_lock`."""
    from envkit.formats.envyml import export_to_lock

    return export_to_lock(spec, platform=platform)


def _side(model: EnvSpec | Lock | LiveEnv, platform: str | None, label: str) -> _Side:
    guessed = False
    export_vars = None  # a `conda env export`'s variables: (a Lock has no place for them)
    if isinstance(model, EnvSpec) and _is_concrete_spec(model):
        export_vars = model.variables
        guess = _guess_export(model)
        if platform is None or platform == guess:
            platform = guess
            guessed = guess is not None
        elif guess and "-" not in guess and platform_family(platform) == guess:
            guessed = True  # the family was guessed, the platform taken from the other side
        model = export_as_lock(model, platform)
    if isinstance(model, LiveEnv):
        pkgs = tuple(model.packages)
        kind = "envkit-export" if model.backend == EXPORT_JSON_BACKEND else "live"
        info = SideInfo(source=label, kind=kind, concrete=True, platform=model.platform,
                        platforms=model_platforms(model), name=model.name, packages=len(pkgs))
        used = None
        if kind == "live":
            from envkit.backends.convert import export_channels

            # what `envkit export` writes: the configured channels packages came from, in priority
            # order, then those no configuration names
            used = _chan_names(export_channels(model))
        return _Side(info=info, packages=pkgs, channels=_chan_names(model.channels) or None,
                     used_channels=used,
                     priority=model.channel_priority, pip_options=None,
                     variables=_variables(model.variables), secrets=_secrets(model.variables),
                     owned={k: tuple(v) for k, v in model.pypi_names} or None,
                     python_version=model.python_version,
                     dists={_pep503(d.name): d for d in model.pip_dists} or None)
    if isinstance(model, Lock):
        plats = model_platforms(model)
        if platform is not None and plats:
            pkgs = tuple(p for p in model.packages if p.platform == platform or p.platform is None)
        else:
            pkgs = tuple(model.packages)
        info = SideInfo(source=label, kind=model.kind, concrete=True, platform=platform,
                        platforms=plats, name=model.environment, packages=len(pkgs),
                        platform_guessed=guessed, records_pip=records_pip(model))
        pip_opts = tuple(model.pip_options) if model.pip_options or model.kind != "explicit" else None
        # a format records pip sources when any pip entry has one (`conda env export` writes every
        # pip package as name==version, so a VCS install there is not "from an index")
        pip_sources = any(p.manager == "pip" and (p.url or p.editable) for p in pkgs)
        return _Side(info=info, packages=pkgs, channels=_chan_names(model.channels) or None,
                     pip_options=pip_opts, pip_sources=pip_sources, base_dir=_base_dir(model.source),
                     variables=_variables(export_vars) if export_vars is not None else None,
                     secrets=_secrets(export_vars) if export_vars is not None else None)
    spec = model
    info = SideInfo(source=label, kind=spec.kind, concrete=False, platform=None,
                    platforms=tuple(spec.platforms), name=spec.name,
                    packages=len(spec.conda) + sum(1 for p in spec.pip if p.kind != "option"))
    return _Side(info=info, spec=spec, channels=_chan_names(spec.channels) or None,
                 base_dir=_base_dir(spec.source),
                 pip_options=tuple(p.text for p in spec.pip if p.kind == "option"),
                 variables=_variables(spec.variables), secrets=_secrets(spec.variables))


def _base_dir(source: str | None) -> str | None:
    """The directory of a local file a model was read from (relative pip paths are relative to
    it), or None (stdin, a remote file, no file)."""
    import os

    if not source or source.startswith("<") or "://" in source:
        return None
    return os.path.dirname(os.path.abspath(source))


def _variables(pairs) -> tuple[str, ...]:
    """`KEY=VALUE` texts with credentials redacted (envkit.urls.redact_variable)."""
    from envkit.urls import redact_variable

    return tuple(f"{k}={redact_variable(k, v)[0]}" for k, v in pairs)


def _secrets(pairs) -> dict[str, str]:
    """KEY -> real value of the variables whose value `_variables` redacts (kept to compare only)."""
    from envkit.urls import redact_variable

    return {k: v for k, v in pairs if redact_variable(k, v)[1]}


def _diff_variables(sa: _Side, sb: _Side) -> ListDiff:
    """The variables of both sides, redacted; secrets whose redacted forms match are compared by
    their real values and named in `secrets_changed` when those differ.  A value that is already a
    placeholder on a side (`API_KEY: <TOKEN>` in an export) is unknown there: named in
    `secrets_unknown`, never a change."""
    from envkit.urls import has_placeholder

    changed: list[str] = []
    unknown: list[str] = []
    if sa.variables is not None and sb.variables is not None:
        ra = dict(x.split("=", 1) for x in sa.variables)
        rb = dict(x.split("=", 1) for x in sb.variables)
        secret_a, secret_b = sa.secrets or {}, sb.secrets or {}
        for k in ra:
            if k not in rb or ra[k] != rb[k]:
                continue
            # a side whose value was not redacted here but holds a placeholder wrote it redacted
            hidden_a = k not in secret_a and _is_placeholder(ra[k], has_placeholder)
            hidden_b = k not in secret_b and _is_placeholder(rb[k], has_placeholder)
            if hidden_a or hidden_b:
                unknown.append(k)
            elif (k in secret_a or k in secret_b) and secret_a.get(k) != secret_b.get(k):
                changed.append(k)
    return ListDiff(a=sa.variables, b=sb.variables, secrets_changed=tuple(changed),
                    secrets_unknown=tuple(unknown))


def _is_placeholder(value: str, has_placeholder) -> bool:
    """`<TOKEN>`, `https://<USER>:<PASSWORD>@host`, `***`: a value written with its credential
    already removed."""
    v = value.strip().strip("'\"")
    return has_placeholder(v) or re.fullmatch(r"<[A-Z_]+>|\*{3,}", v) is not None


def records_pip(model: EnvSpec | Lock | LiveEnv) -> bool:
    """Whether `model`'s format can hold pip packages.  An explicit file (`conda list --explicit`)
    cannot, unless it has conda-lock's `# pip name @ url` lines; every other format can."""
    if isinstance(model, Lock) and model.kind == "explicit":
        return any(p.manager == "pip" for p in model.packages)
    return True


def _chan_names(channels) -> tuple[str, ...]:
    return tuple(dict.fromkeys(str(c) for c in channels))


@lru_cache(maxsize=4096)
def _canon_channel(text: str) -> str:
    from envkit.conda.channels import parse_channel

    return parse_channel(text).name


def _key(p: LockedPackage) -> tuple[str, str]:
    if p.manager == "pip":
        return ("pip", _pep503(p.name))
    return ("conda", p.name.lower())


@lru_cache(maxsize=65536)
def _pep503(name: str) -> str:
    from envkit.conda.names import pep503

    return pep503(name)


# ---------------------------------------------------------------------------------------------
# The diff


def diff(a: EnvSpec | Lock | LiveEnv, b: EnvSpec | Lock | LiveEnv, *, platform: str | None = None,
         host_platform: str | None = None, label_a: str = "A", label_b: str = "B",
         platform_a: str | None = None, platform_b: str | None = None) -> EnvDiff:
    """Compare two environments and return an EnvDiff (see the module docstring).

    `platform` picks the platform of multi-platform locks (see `pick_platforms`); `platform_a` /
    `platform_b` force one side's platform (a `conda env export` does not say which it is; the
    caller may know).  Raises UsageError when a multi-platform lock's platform cannot be chosen.
    """
    pa, pb = pick_platforms(a, b, platform=platform, host_platform=host_platform,
                            labels=(label_a, label_b))
    sa = _side(a, platform_a or pa, label_a)
    sb = _side(b, platform_b or pb, label_b)
    _live_channels_against_a_file(sa, sb)
    cross = platforms_differ(sa.info.platform, sb.info.platform)
    changes: list[Change] = []
    unchanged: list[PackageState] = []
    spec_side = None
    checks: tuple[SpecCheck, ...] = ()
    unmentioned: tuple[PackageState, ...] = ()
    dups_a = _duplicates(sa)
    dups_b = _duplicates(sb)
    pip_gap = None
    if sa.info.concrete and sb.info.concrete:
        _name_pip_entries(sa, sb)
        _name_pip_entries(sb, sa)
        changes, unchanged, skipped = _diff_concrete(sa, sb, dups_a, dups_b, cross)
        blind = "a" if not sa.info.records_pip else "b" if not sb.info.records_pip else None
        if blind and sa.info.records_pip != sb.info.records_pip:
            pip_gap = PipNotRecorded(side=blind, kind=(sa if blind == "a" else sb).info.kind, skipped=skipped)
    elif sa.info.concrete != sb.info.concrete:
        spec_side = "b" if sa.info.concrete else "a"
        spec, conc = (sb, sa) if sa.info.concrete else (sa, sb)
        checks, unmentioned = _check_spec(spec.spec, conc)
    else:
        changes, unchanged = _diff_specs(sa.spec, sb.spec)
    ranked = tuple(sorted(changes, key=_rank_key))
    return EnvDiff(
        a=sa.info, b=sb.info, changes=ranked,
        unchanged=tuple(sorted(unchanged, key=lambda s: (s.name.lower(), s.manager))),
        channels=_diff_channels(sa, sb), pip_options=ListDiff(a=sa.pip_options, b=sb.pip_options),
        variables=_diff_variables(sa, sb),
        duplicates_a=dups_a, duplicates_b=dups_b, spec_side=spec_side, spec_checks=checks,
        unmentioned=unmentioned, highlights=_highlights(sa, sb), cross_platform=cross,
        pip_not_recorded=pip_gap)


#: Within a category, the package that defines it comes first (pytorch before pytorch-cuda).
_PRIMARY = ("python", "pytorch", "torch", "cuda-version", "cudatoolkit", "cudnn", "nccl", "libblas",
            "blas", "numpy")
#: Changes of one package on both sides first, then packages only on one side.
_KIND_RANK = {k: i for i, k in enumerate(("manager", "variant", "upgraded", "downgraded", "changed",
                                          "source", "channel", "rebuilt", "removed", "added",
                                          "duplicate"))}


def _rank_key(c: Change):
    n = c.name.lower()
    return (GROUPS.index(c.group), IMPACTS.index(c.impact),
            _CAT_RANK.get(c.category, len(CATEGORY_ORDER) + (c.kind != "duplicate")),
            _PRIMARY.index(n) if n in _PRIMARY else len(_PRIMARY),
            _KIND_RANK[c.kind], n, c.name)


def _duplicates(side: _Side) -> tuple[DuplicateInfo, ...]:
    from envkit.conda.names import find_duplicates

    if side.spec is not None:
        conda = [d.name for d in side.spec.conda]
        pip = [p.name for p in side.spec.pip if p.name]
    else:
        conda = [p.name for p in side.packages if p.manager == "conda"]
        pip = [p.name for p in side.packages if p.manager == "pip"]
    if not conda or not pip:
        return ()
    return tuple(DuplicateInfo(conda=d.conda_name, pip=d.pip_name, project=d.project)
                 for d in find_duplicates(conda, pip, owned=side.owned))


def _state(p: LockedPackage, *, labels: bool = True, side: _Side | None = None,
           extra: tuple[str, ...] = ()) -> PackageState:
    lab: tuple[str, ...] = ()
    if labels:
        lab = tuple(decode(p.build, p.version, p.name).labels())
    url = None
    if p.manager == "pip":
        origin = pip_origin(p, _dist(side, p) if side is not None else None)
        url = origin.text if origin is not None else None
    return PackageState(name=p.name, manager=p.manager, version=p.version, build=p.build,
                        channel=p.channel, labels=lab + extra, url=url,
                        editable=p.editable if p.manager == "pip" else False)


# ---------------------------------------------------------------------------------------------
# Where a pip package came from: an index, a VCS commit, a local path (editable or not), a URL


_VCS_PREFIXES = ("git+", "hg+", "svn+", "bzr+")
_HEX = re.compile(r"^[0-9a-f]{7,64}$")


@dataclass(frozen=True, slots=True)
class PipOrigin:
    """A pip package's direct source (PEP 610 `direct_url.json`, or a `name @ URL` / `-e` entry).

    `kind` is "vcs", "path" (a local directory or file) or "url" (an archive); `base` is what is
    compared (credentials removed, no revision, no `.git`, host lower-cased); `text` is how it is
    shown (credentials redacted, the revision kept); `rev` is a VCS commit or ref."""

    kind: str
    base: str
    text: str
    vcs: str | None = None
    rev: str | None = None


def pip_origin(p: LockedPackage, dist=None) -> PipOrigin | None:
    """The direct source of pip package `p`, or None when it came from an index (or no source is
    recorded).  `p.url` is read as written (`git+URL@commit`, a `direct_url.json` URL, `file://`, a
    path); `dist` (the live env's PipDist) adds the VCS and commit that a bare URL lacks."""
    url = p.url or (dist.url if dist is not None else None)
    if not url:
        return None
    return _parse_origin(url.strip(), dist.vcs if dist is not None else None,
                         dist.commit if dist is not None else None)


@lru_cache(maxsize=4096)
def _parse_origin(url: str, dist_vcs: str | None, dist_commit: str | None) -> PipOrigin:
    from urllib.parse import unquote, urlsplit

    from envkit.urls import redact_url, strip_credentials

    shown = redact_url(url)[0]
    plain = strip_credentials(url)
    plain, _, frag = plain.partition("#")
    shown = shown.partition("#")[0]
    sub = "".join(f"#{x}" for x in frag.split("&") if x.startswith("subdirectory="))
    vcs = None
    if plain.lower().startswith(_VCS_PREFIXES):
        vcs = plain.split("+", 1)[0].lower()
        plain, shown = plain.split("+", 1)[1], shown.split("+", 1)[1]
    elif dist_vcs:
        vcs = dist_vcs.lower()
    if vcs:
        plain, rev = _split_rev(plain)
        shown, _ = _split_rev(shown)
        rev = rev or dist_commit
        base = _norm_url(plain)
        base = base[:-4] if base.endswith(".git") else base
        text = f"{vcs}+{shown}" + (f"@{rev}" if rev else "")
        return PipOrigin(kind="vcs", base=f"{vcs}+{base}{sub}", text=text, vcs=vcs, rev=rev)
    if plain.lower().startswith("file:"):
        path = unquote(urlsplit(plain).path)
        if re.match(r"^/[A-Za-z]:[\\/]", path):  # file:///C:/src/x
            path = path[1:]
        return PipOrigin(kind="path", base=_norm_path(path), text=path)
    if "://" not in plain:
        return PipOrigin(kind="path", base=_norm_path(plain), text=plain)
    return PipOrigin(kind="url", base=_norm_url(plain) + sub, text=shown)


def _split_rev(url: str) -> tuple[str, str | None]:
    """`https://host/me/x.git@3f1c0a9` -> (`https://host/me/x.git`, "3f1c0a9"): the revision is
    after the last `@` of the path (`user@host` belongs to the host part)."""
    scheme, sep, rest = url.partition("://")
    if not sep:
        scheme, rest = "", url
    host, slash, path = rest.partition("/")
    rev = None
    if "@" in path:
        path, _, rev = path.rpartition("@")
    return (f"{scheme}{sep}{host}{slash}{path}", rev or None)


def _norm_url(url: str) -> str:
    scheme, sep, rest = url.partition("://")
    if not sep:
        return url.rstrip("/")
    host, slash, path = rest.partition("/")
    return f"{scheme.lower()}://{host.lower()}{slash}{path}".rstrip("/")


def _norm_path(path: str) -> str:
    import posixpath

    p = path.replace("\\", "/")
    return posixpath.normpath(p) if p else p


def _dist(side: _Side | None, p: LockedPackage):
    if side is None or not side.dists or p.manager != "pip":
        return None
    return side.dists.get(_pep503(p.name))


def _revs_differ(a: str | None, b: str | None) -> bool:
    """Whether two VCS revisions are known to differ: commits compare by prefix (a short hash
    names the full one); unknown (None) is not a difference."""
    if not a or not b:
        return False
    a, b = a.lower(), b.lower()
    if _HEX.match(a) and _HEX.match(b):
        return not (a.startswith(b) or b.startswith(a))
    return a != b


def _short(rev: str) -> str:
    return rev[:7] if _HEX.match(rev.lower()) else rev


@dataclass(frozen=True, slots=True)
class _SourceChange:
    tag: str  # "commit" (the same repository, another commit) or "source"
    impact: str
    reason: str
    short: str  # the reason's core, appended to a version change's reason
    labels_a: tuple[str, ...]
    labels_b: tuple[str, ...]


def _origin_labels(o: PipOrigin | None, editable: bool) -> tuple[str, ...]:
    if o is None:
        out = ("index",)
    elif o.kind == "vcs":
        out = (f"{o.vcs} {_short(o.rev)}" if o.rev else o.vcs or "vcs",)
    elif o.kind == "path":
        out = ("local",)
    else:
        out = ("URL",)
    return out + (("editable",) if editable else ())


def _url_pinned(p: LockedPackage) -> bool:
    """A pip entry without a version that names its source (`mylib @ git+URL@commit`, `-e PATH`):
    the source stands in for the version."""
    return not p.version and (bool(p.url) or p.editable)


def _source_change(pa: LockedPackage, pb: LockedPackage, ctx: "_Context") -> _SourceChange | None:
    """How the sources of one pip package differ between the sides, or None (the same, or not
    comparable: an archive URL a lock records against an index install; a side whose format does
    not record pip sources, such as `conda env export`'s `name==version`)."""
    sa, sb = ctx.sa, ctx.sb
    oa, ob = pip_origin(pa, _dist(sa, pa)), pip_origin(pb, _dist(sb, pb))
    ea, eb = pa.editable, pb.editable
    direct_a = oa is not None and oa.kind != "url"
    direct_b = ob is not None and ob.kind != "url"
    unpinned = not pa.version or not pb.version
    if not (direct_a or direct_b or ea != eb or (unpinned and oa and ob)):
        return None
    # a side that records no pip source at all cannot say "from an index"
    if (oa is None and not ea and not sa.pip_sources) or (ob is None and not eb and not sb.pip_sources):
        return None
    la, lb = _origin_labels(oa, ea), _origin_labels(ob, eb)
    if oa is not None and ob is not None and (oa.kind, oa.base) == (ob.kind, ob.base):
        if oa.kind == "vcs" and _revs_differ(oa.rev, ob.rev):
            core = f"another {oa.vcs} commit ({_short(oa.rev)} → {_short(ob.rev)})"
            same = "same version, " if pa.version == pb.version else ""
            return _SourceChange("commit", "medium", f"{same}{core} of {_no_rev(ob)}: the code may differ",
                                 core, la, lb)
        if ea == eb:
            return None
    if oa is not None and ob is not None and (oa.kind, oa.base) == (ob.kind, ob.base):
        where = oa.text if oa.kind != "vcs" else _no_rev(oa)
        if ea:
            reason = (f"an editable install on A (runs the code in {where} as it is now), a regular "
                      "install on B (a copy made when it was installed)")
        else:
            reason = (f"a regular install on A (a copy made when it was installed), an editable install "
                      f"on B (runs the code in {where} as it is now)")
        return _SourceChange("source", "medium", reason, "editable " + ("on A only" if ea else "on B only"),
                             la, lb)
    core = f"installed from {_from(oa, ea)} on A, from {_from(ob, eb)} on B"
    return _SourceChange("source", "medium", core + ": the code may differ", core, la, lb)


def _no_rev(o: PipOrigin) -> str:
    return o.text[:-(len(o.rev) + 1)] if o.rev and o.text.endswith("@" + o.rev) else o.text


_ENTRY_OPTION = re.compile(r"^(?:-e|--editable)(?:\s+|=)")
_EGG_NAME = re.compile(r"[#&]egg=(?P<name>[A-Za-z0-9][A-Za-z0-9._-]*)")
_ARCHIVE_NAME = re.compile(r"^(?P<name>[A-Za-z0-9][A-Za-z0-9._]*?)-\d[^/]*\.(?:whl|tar\.gz|zip|tar\.bz2|tgz)$")


def entry_source(text: str, base_dir: str | None = None) -> str:
    """The path or URL of a pip entry that names no project (`-e /home/me/src/tool`, `./pkg`,
    `git+https://host/x.git@v1`): without `-e`/`--editable`, a relative path made absolute against
    `base_dir` (the directory of the file it is written in) when that is known."""
    import posixpath

    target = _ENTRY_OPTION.sub("", text.strip()).split(" ")[0]
    if "://" in target or target.lower().startswith(_VCS_PREFIXES):
        return target
    if base_dir and not target.startswith(("/", "~")) and not re.match(r"^[A-Za-z]:[\\/]", target):
        return posixpath.normpath(posixpath.join(base_dir.replace("\\", "/"), target))
    return target


def name_from_source(source: str) -> str | None:
    """The project a pip source names by itself: `#egg=name`, a wheel or sdist file name, else the
    last component of the path or repository (`/home/me/src/tool` -> `tool`, `.../mylib.git@v1` ->
    `mylib`); None when there is none."""
    m = _EGG_NAME.search(source)
    if m:
        return m.group("name")
    body = source.split("#", 1)[0].split("?", 1)[0]
    if body.lower().startswith(_VCS_PREFIXES):
        body = _split_rev(body.split("+", 1)[1])[0]
    last = body.rstrip("/\\").replace("\\", "/").rsplit("/", 1)[-1]
    m = _ARCHIVE_NAME.match(last)
    if m:
        return m.group("name")
    last = last[:-4] if last.endswith(".git") else last
    return last if re.fullmatch(r"[A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?", last) else None


def _is_entry_text(name: str) -> bool:
    """A pip package "named" by its entry text (a nameless `-e PATH`, path or URL entry)."""
    return bool(re.search(r"[/\\\s:]", name)) or name.startswith(("-", "."))


def _installed_from(source: str, side: "_Side") -> LockedPackage | None:
    """The pip package of `side` installed from `source` (the same path, repository or URL)."""
    want = _parse_origin(source, None, None)
    for q in side.packages:
        if q.manager != "pip":
            continue
        o = pip_origin(q, _dist(side, q))
        if o is not None and (o.kind, o.base) == (want.kind, want.base):
            return q
    return None


def _name_pip_entries(side: "_Side", other: "_Side") -> None:
    """Give a name to the pip entries of `side` that were written without one (`-e PATH`, a path or
    URL without `#egg=`): the other side's package installed from that source, else the name the
    source itself gives (`tool` for `/home/me/src/tool`).  Their source goes into `url`."""
    from dataclasses import replace

    if not any(p.manager == "pip" and _is_entry_text(p.name) for p in side.packages):
        return
    out = []
    for p in side.packages:
        if p.manager == "pip" and _is_entry_text(p.name):
            source = p.url or entry_source(p.name, side.base_dir)
            found = _installed_from(source, other)
            name = found.name if found is not None else name_from_source(source)
            if name:
                p = replace(p, name=name, url=source)
        out.append(p)
    side.packages = tuple(out)


def _from(o: PipOrigin | None, editable: bool) -> str:
    if o is None:
        return "an editable checkout" if editable else "a package index"
    text = o.text if o.kind != "vcs" or not o.rev else f"{_no_rev(o)}@{_short(o.rev)}"
    return f"{text} (editable)" if editable else text


def _index(pkgs: Iterable[LockedPackage]) -> dict[tuple[str, str], LockedPackage]:
    out: dict[tuple[str, str], LockedPackage] = {}
    for p in pkgs:
        out.setdefault(_key(p), p)
    return out


def _diff_concrete(sa: _Side, sb: _Side, dups_a, dups_b, cross: bool):
    from envkit.conda.names import conda_names_for_pypi, pypi_names_for_conda

    ia, ib = _index(sa.packages), _index(sb.packages)
    ctx = _Context(sa, sb, cross)
    changes: list[Change] = []
    unchanged: list[PackageState] = []
    a_only: dict[tuple[str, str], LockedPackage] = {}
    for k, pa in ia.items():
        pb = ib.get(k)
        if pb is None:
            a_only[k] = pa
            continue
        ch = _compare(pa, pb, ctx)
        if ch is None:
            unchanged.append(_state(pa, labels=False, side=sa))
        else:
            changes.append(ch)
    b_only = {k: p for k, p in ib.items() if k not in ia}
    # conda <-> pip moves: a conda package on one side, the PyPI project it installs on the other
    for k, pa in list(a_only.items()):
        if pa.manager == "conda":
            owned = (sa.owned or {}).get(pa.name)
            cands = [("pip", n) for n in (owned or pypi_names_for_conda(pa.name))]
        else:
            cands = [("conda", n) for n in conda_names_for_pypi(pa.name)]
        for ck in cands:
            pb = b_only.get(ck)
            if pb is not None:
                del a_only[k]
                del b_only[ck]
                changes.append(_compare(pa, pb, ctx) or _unreachable(pa))
                break
    dup_names_a = _dup_keys(dups_a)
    dup_names_b = _dup_keys(dups_b)
    # a side whose format cannot hold pip packages (an explicit file) says nothing about them: the
    # other side's pip packages are not "removed" or "added" (counted, and said once instead)
    skipped = 0
    for k, p in a_only.items():
        if p.manager == "pip" and not sb.info.records_pip:
            skipped += 1
            continue
        changes.append(_one_sided(p, "a", ctx, k in dup_names_a))
    for k, p in b_only.items():
        if p.manager == "pip" and not sa.info.records_pip:
            skipped += 1
            continue
        changes.append(_one_sided(p, "b", ctx, k in dup_names_b))
    return changes, unchanged, skipped


def _unreachable(p: LockedPackage) -> Change:  # pragma: no cover - a manager move always differs
    raise AssertionError(f"manager move of {p.name} compared equal")


def _dup_keys(dups: Sequence[DuplicateInfo]) -> set[tuple[str, str]]:
    out: set[tuple[str, str]] = set()
    for d in dups:
        out.add(("conda", d.conda.lower()))
        out.add(("pip", _pep503(d.pip)))
    return out


class _Context:
    """Side-level facts the per-package rules need (BLAS implementation, platforms)."""

    __slots__ = ("sa", "sb", "cross", "blas_a", "blas_b")

    def __init__(self, sa: _Side, sb: _Side, cross: bool) -> None:
        self.sa, self.sb, self.cross = sa, sb, cross
        self.blas_a = blas_of(sa.packages)
        self.blas_b = blas_of(sb.packages)


def _compare(pa: LockedPackage, pb: LockedPackage, ctx: _Context) -> Change | None:
    same_channel = (pa.channel is None or pb.channel is None or pa.channel == pb.channel
                    or _canon_channel(pa.channel) == _canon_channel(pb.channel))
    src = None
    url_pinned = False
    if pa.manager == pb.manager == "pip":
        src = _source_change(pa, pb, ctx)
        # `mylib @ git+URL@commit` (no version) is satisfied by what was installed from that URL
        url_pinned = (_url_pinned(pa) or _url_pinned(pb)) and bool(pa.version or pb.version)
    if (pa.manager == pb.manager and (pa.version == pb.version or url_pinned) and pa.build == pb.build
            and same_channel and src is None):
        fields = () if ctx.cross or pa.manager != "conda" else record_differences(pa, pb)
        if not fields:
            return None
        return _record_change(pa, pb, fields, ctx)
    tags: list[str] = []
    kind = None
    if pa.manager != pb.manager:
        tags.append("manager")
        kind = "manager"
    va, vb = pa.version, pb.version
    if pa.manager == "pip" or pb.manager == "pip":
        # a local version (+cu121, +cpu) is a build variant, not a newer release
        (va, la), (vb, lb) = _split_local(va), _split_local(vb)
    else:
        la = lb = ""
    cmp = 0 if url_pinned else compare_versions(va, vb, "pip" if pa.manager == "pip" and pb.manager == "pip" else "conda")
    if cmp != 0:
        tags.append("version")
        kind = kind or ("upgraded" if cmp == -1 else "downgraded" if cmp == 1 else "changed")
    ia = decode(pa.build, pa.version, pa.name)
    ib = decode(pb.build, pb.version, pb.name)
    builds_differ = (pa.build is not None and pb.build is not None and pa.build != pb.build) or la != lb
    if builds_differ or (ia.variant != ib.variant and pa.build and pb.build):
        if ia.variant != ib.variant:
            tags.append("variant")
            kind = kind or "variant"
        elif builds_differ:
            tags.append("build")
            kind = kind or "rebuilt"
    if src is not None:
        tags.append(src.tag)
        kind = kind or ("rebuilt" if src.tag == "commit" else "source")
    if not same_channel:
        tags.append("channel")
        kind = kind or "channel"
    if kind is None:
        return None  # equal versions written differently (1.0 vs 1.0.0), no build information
    name = pb.name if pb.manager == "conda" and pa.manager == "pip" else pa.name
    sta = _state(pa, side=ctx.sa, extra=src.labels_a if src else ())
    stb = _state(pb, side=ctx.sb, extra=src.labels_b if src else ())
    return _classify(name, kind, sta, stb, tags, ia, ib, ctx, source=src)


def _deps(pairs) -> frozenset[str]:
    # conda writes `zlib ` (a trailing space) where rattler writes `zlib`: the same dependency
    return frozenset(" ".join(f"{n} {s}".split()) for n, s in pairs)


def record_differences(pa: LockedPackage, pb: LockedPackage) -> tuple[str, ...]:
    """`field: A → B` for each record field of two conda packages with the same name, version,
    build and channel that differs in a way that changes what conda does: build_number (the
    solver prefers the higher), depends and constrains (what it solves against), md5/sha256 and
    url (another artifact), subdir.  A field one side does not record (None, or no depends from
    an explicit file) is not compared."""
    out = []
    for field in ("build_number", "subdir", "url", "md5", "sha256"):
        va, vb = getattr(pa, field), getattr(pb, field)
        if va is not None and vb is not None and va != vb:
            out.append(f"{field} {va} → {vb}")
    for field, fa, fb in (("depends", _deps(pa.depends), _deps(pb.depends)),
                          ("constrains", frozenset(pa.constrains), frozenset(pb.constrains))):
        if fa and fb and fa != fb:
            gone, new = sorted(fa - fb), sorted(fb - fa)
            out.append(f"{field} " + ", ".join([f"-{d}" for d in gone] + [f"+{d}" for d in new]))
    return tuple(out)


def _record_change(pa: LockedPackage, pb: LockedPackage, fields: tuple[str, ...], ctx: _Context) -> Change:
    cat = category_of(pa.name)
    tags = ["record"] + ([cat] if cat else [])
    reason = ("same name, version and build, but the package records differ (" + "; ".join(fields) +
              "): conda sees another package and may replace it")
    return Change(name=pa.name, kind="rebuilt", a=_state(pa, side=ctx.sa), b=_state(pb, side=ctx.sb),
                  tags=tuple(tags), impact="medium", reason=reason, group="matter", category=cat)


def _one_sided(p: LockedPackage, side: str, ctx: _Context, duplicate: bool) -> Change:
    st = _state(p, side=ctx.sa if side == "a" else ctx.sb)
    tags: list[str] = []
    if duplicate:
        kind = "duplicate"
        tags.append("duplicate")
    else:
        kind = "removed" if side == "a" else "added"
    a, b = (st, None) if side == "a" else (None, st)
    info = decode(p.build, p.version, p.name)
    return _classify(p.name, kind, a, b, tags, info if side == "a" else None,
                     info if side == "b" else None, ctx)


def _classify(name: str, kind: str, a: PackageState | None, b: PackageState | None,
              tags: list[str], ia, ib, ctx: _Context, source: _SourceChange | None = None) -> Change:
    cat = category_of(name)
    if cat is None:
        other = b if a is not None and b is not None and b.name != name else None
        if other is not None:
            cat = category_of(other.name)
    if cat:
        tags.append(cat)
    side_label = "B" if a is None else "A"
    if source is not None and kind in ("rebuilt", "source"):
        # a pip package's source changed, its version did not (a new commit is like a rebuild)
        impact, reason = source.impact, source.reason
    else:
        impact, reason = _impact(name, kind, a, b, ia, ib, cat, ctx, side_label)
        if source is not None:
            reason = f"{reason}; {source.short}"
            if IMPACTS.index(source.impact) < IMPACTS.index(impact):
                impact = source.impact
    group = "matter" if impact in ("high", "medium") else "other"
    if ctx.cross:
        one_sided = a is None or b is None
        if (one_sided and kind != "duplicate" and is_platform_only(name)) or (kind == "rebuilt" and source is None):
            group = "platform"
            tags.append("platform")
            if kind == "rebuilt":
                impact, reason = "low", "same version, built per platform"
            else:
                fam = (ctx.sa if b is None else ctx.sb).info.platform
                impact, reason = "low", f"exists on {fam} only"
    return Change(name=name, kind=kind, a=a, b=b, tags=tuple(dict.fromkeys(tags)), impact=impact,
                  reason=reason, group=group, category=cat)


def _fmt_acc(info) -> str:
    return info.accelerator or "unspecified"


def _impact(name, kind, a, b, ia, ib, cat, ctx: _Context, side_label: str) -> tuple[str, str]:
    """(impact, one-line reason) of one change."""
    va = a.version if a else None
    vb = b.version if b else None
    n = name.lower()
    if kind == "duplicate":
        return ("high", f"installed by both conda and pip on {side_label} only: pip's copy shadows "
                        f"conda's and the solver cannot see it")
    if kind == "manager":
        mgr = f"installed by {a.manager} on A, {b.manager} on B"
        if _split_local(va)[0] != _split_local(vb)[0]:
            mgr = f"{_split_local(va)[0]} → {_split_local(vb)[0]}, {mgr}"
        if cat == "torch":
            return ("high", f"{mgr}: PyTorch's pip wheels bundle their own CUDA libraries; pip's "
                            f"copy is invisible to the conda solver")
        if cat in ("numpy", "python", "cuda", "cudnn", "nccl", "blas"):
            return ("high", f"{mgr}: a different build (compiler flags, linked libraries); pip's "
                            f"copy is invisible to the conda solver")
        return ("low", f"{mgr}: pip's copy is invisible to the conda solver")
    if kind in ("added", "removed"):
        where = "B" if kind == "added" else "A"
        only = f"only on {where}"
        if cat == "python":
            return "high", f"Python interpreter {only}"
        if cat == "torch":
            info = ib if kind == "added" else ia
            acc = f" ({info.accelerator})" if info is not None and info.accelerator else ""
            return "high", f"PyTorch component{acc} {only}"
        if cat in _LIBRARY_REASONS:
            return _library_reason(cat, n, only, ctx, one_sided=True)
        if cat == "numpy":
            if n != "numpy":  # numpy-base: it goes with `numpy`, which is reported itself
                return "medium", f"{name} (the compiled part of defaults' numpy) {only}"
            return "high", f"numpy {only}"
        return "low", only
    # the same package on both sides
    if kind == "rebuilt":
        return "low", "same version, rebuilt (build hash or number only)"
    if kind == "channel":
        if cat:
            return "medium", f"same version from another channel ({a.channel} → {b.channel}): " \
                             "a different build and dependencies"
        return "low", f"from another channel ({a.channel} → {b.channel})"
    if cat == "python":
        if _major_minor(va) != _major_minor(vb):
            return ("high", f"a different Python ({_major_minor(va)} → {_major_minor(vb)}): compiled "
                            "extensions and language behaviour differ")
        if kind == "variant":
            return "medium", "a different Python build variant"
        return "medium", f"Python patch release {va} → {vb}: bug fixes may change behaviour"
    if cat == "torch":
        acc_a, acc_b = ia.accelerator if ia else None, ib.accelerator if ib else None
        if acc_a != acc_b and (acc_a or acc_b):
            release = f"{va} → {vb}, " if va != vb else ""
            return ("high", f"PyTorch {release}{_fmt_acc(ia)} build → {_fmt_acc(ib)} build: GPU "
                            "support, kernels and numerics differ")
        if kind == "variant":
            return "high", "a different PyTorch build variant (" + ", ".join(
                _variant_words(ia, ib)) + ")"
        return "high", f"PyTorch {va} → {vb}: operators, defaults and numerics change between releases"
    if kind == "variant" and not (cat == "blas" and ctx.blas_a != ctx.blas_b):
        # the same version built differently: say how, not "1.26.4 → 1.26.4"
        words = ", ".join(_variant_words(ia, ib))
        if ia is not None and ib is not None and _only_python_differs(ia, ib):
            return "low", f"same version, built for another Python ({words})"
        if cat and ia is not None and ib is not None and ia.accelerator != ib.accelerator:
            return "high", f"same version, built for another GPU stack ({words})"
        return ("medium" if cat else "low"), f"same version, a different build variant ({words})"
    if cat in _LIBRARY_REASONS:
        return _library_reason(cat, n, f"{va} → {vb}", ctx, one_sided=False)
    if cat == "numpy":
        if _major(va) != _major(vb):
            return ("high", f"numpy {_major(va)}.x → {_major(vb)}.x: an ABI break; extensions built "
                            f"for numpy {_major(min(va, vb, key=_sort_version))}.x fail to import")
        return "medium", f"numpy {va} → {vb}: array semantics and numerics may differ"
    if kind == "upgraded":
        return "low", "newer on B"
    if kind == "downgraded":
        return "low", "older on B"
    return "low", "a different version"


#: category -> (impact, (what, consequence) when on one side only, (what, consequence) when the
#: versions differ); impact None: high for the core CUDA packages, else medium.  The BLAS and
#: compiler-runtime reasons depend on more than the category (see `_library_reason`).
_LIBRARY_REASONS = {
    "cuda": (None, ("CUDA runtime library", "GPU code paths and driver requirements differ"),
             ("CUDA", "kernels, driver requirements and numerics may differ")),
    "cudnn": ("high", ("cuDNN", "GPU convolutions and their numerics differ"),
              ("cuDNN", "convolution algorithms and numerics differ")),
    "nccl": ("medium", ("NCCL", "multi-GPU communication differs"),
             ("NCCL", "multi-GPU communication may behave differently")),
    "blas": None,
    "compiler-runtime": None,
}


def _library_reason(cat: str, n: str, what: str, ctx: _Context, *, one_sided: bool) -> tuple[str, str]:
    """(impact, reason) for a CUDA, cuDNN, NCCL, BLAS or compiler-runtime package that is on one
    side only (`what` = "only on B") or whose version differs (`what` = "1.0 → 1.1")."""
    if cat == "blas":
        return _blas_reason(ctx, what if one_sided else None)
    if cat == "compiler-runtime":
        return "medium", _runtime_reason(n) + f" ({what})"
    impact, one, two = _LIBRARY_REASONS[cat]
    subject, consequence = one if one_sided else two
    if impact is None:
        impact = "high" if n in _CUDA_CORE else "medium"
    return impact, f"{subject} {what}: {consequence}"


def _sort_version(v: str):
    return _conda_version(v) or v


def _only_python_differs(ia, ib) -> bool:
    """Whether two decoded builds differ only in their Python tag (the package follows a Python
    change, which is reported on `python` itself)."""
    from dataclasses import replace

    return ia.python != ib.python and replace(ia, python=None) == replace(ib, python=None)


def _variant_words(ia, ib) -> list[str]:
    la = set(ia.labels()) if ia else set()
    lb = set(ib.labels()) if ib else set()
    gone = [x for x in (ia.labels() if ia else []) if x not in lb]
    new = [x for x in (ib.labels() if ib else []) if x not in la]
    return [f"{' '.join(gone) or '-'} → {' '.join(new) or '-'}"]


def _blas_reason(ctx: _Context, only: str | None) -> tuple[str, str]:
    if ctx.blas_a != ctx.blas_b and (ctx.blas_a or ctx.blas_b):
        return ("high", f"different BLAS ({ctx.blas_a or _no_blas(ctx.sa)} → {ctx.blas_b or _no_blas(ctx.sb)}): "
                        "numerical results and speed may differ")
    if only:
        return "medium", f"BLAS/LAPACK library {only}: numerical results and speed may differ"
    return "medium", "BLAS/LAPACK library version differs: speed and last-digit results may differ"


def _no_blas(side: _Side) -> str:
    """What to call a side's BLAS when `blas_of` cannot name it: "none" when nothing there links a
    BLAS (no BLAS package, no numpy: "MKL → unknown" would suggest a BLAS envkit failed to
    recognise), else "unknown"."""
    for p in side.packages:
        n = p.name.lower()
        if n in _BLAS or n in _NUMPY or (p.manager == "pip" and n in ("scipy", "torch")):
            return "unknown"
    return "none"


def _runtime_reason(n: str) -> str:
    if n in ("libstdcxx-ng", "libstdcxx", "libgcc-ng", "libgcc"):
        return "GCC runtime (libstdc++/libgcc): extensions built against a newer one fail to load " \
               "(GLIBCXX_... not found)"
    if n in ("libcxx", "libcxxabi"):
        return "C++ runtime (libc++): extensions built against a newer one fail to load"
    if n in ("llvm-openmp", "_openmp_mutex", "libgomp", "intel-openmp"):
        return "OpenMP runtime: threading, speed and fork-safety differ"
    if n.startswith("libgfortran"):
        return "Fortran runtime: compiled SciPy/LAPACK code links against it"
    return "MSVC runtime: extensions built against a newer one fail to load"


def blas_of(packages: Iterable[LockedPackage]) -> str | None:
    """The BLAS implementation an environment uses ('MKL', 'OpenBLAS', 'Accelerate', ...), from its
    BLAS selector packages (`blas`, `libblas`), else from which implementation is installed."""
    found = None
    names = set()
    pip_numpy = False
    for p in packages:
        if p.manager != "conda":
            pip_numpy = pip_numpy or p.name.lower() == "numpy"
            continue
        n = p.name
        names.add(n)
        if n in ("libblas", "blas") and p.build:
            info = decode(p.build, p.version, n)
            if info.blas:
                found = found or info.blas
    if found:
        return found
    if "mkl" in names:
        return "MKL"
    if "libopenblas" in names or "openblas" in names:
        return "OpenBLAS"
    if "blis" in names:
        return "BLIS"
    if pip_numpy and "numpy" not in names:
        return "OpenBLAS (numpy wheel)"
    return None


# ---------------------------------------------------------------------------------------------
# Highlights: the few facts a reader wants first


#: A highlight on a side whose format cannot hold pip packages, where the other side's value comes
#: from one (`PyTorch 1.13.1 [pip]` against an explicit file).
NOT_RECORDED = "(pip not recorded)"


def _highlights(sa: _Side, sb: _Side) -> tuple[tuple[str, str | None, str | None], ...]:
    rows = []
    for label, fn in (("Python", _python_of), ("PyTorch", _torch_of), ("CUDA", _cuda_of),
                      ("BLAS", lambda s: blas_of(s.packages) if s.info.concrete else None)):
        va, vb = fn(sa), fn(sb)
        if vb is None and va is not None and not sb.info.records_pip and fn(_without_pip(sa)) != va:
            vb = NOT_RECORDED
        if va is None and vb is not None and not sa.info.records_pip and fn(_without_pip(sb)) != vb:
            va = NOT_RECORDED
        if va is not None or vb is not None:
            rows.append((label, va, vb))
    return tuple(rows)


def _without_pip(side: _Side) -> _Side:
    from dataclasses import replace

    return replace(side, packages=tuple(p for p in side.packages if p.manager != "pip"))


def _find(side: _Side, names: Sequence[str], manager: str | None = None) -> LockedPackage | None:
    """The first package (in the side's order) named one of `names`, tried in order."""
    index = _name_index(side.packages)
    for n in names:
        p = index.get((n, manager))
        if p is not None:
            return p
    return None


_NAME_INDEX: dict[int, tuple[tuple, dict]] = {}


def _name_index(packages: tuple[LockedPackage, ...]) -> dict:
    """(lower name or PEP 503 pip name, manager or None) -> first such package; built once per
    package tuple, so that the highlights' lookups do not rescan every package per name."""
    hit = _NAME_INDEX.get(id(packages))
    if hit is not None and hit[0] is packages:
        return hit[1]
    index: dict = {}
    for p in packages:
        keys = {p.name.lower()}
        if p.manager == "pip":
            keys.add(_pep503(p.name))
        for k in keys:
            index.setdefault((k, None), p)
            index.setdefault((k, p.manager), p)
    if len(_NAME_INDEX) > 8:
        _NAME_INDEX.clear()
    _NAME_INDEX[id(packages)] = (packages, index)
    return index


def _python_of(side: _Side) -> str | None:
    if not side.info.concrete:
        dep = side.spec.conda_by_name().get("python") if side.spec else None
        return dep.spec() if dep else None
    p = _find(side, ("python",), "conda")
    return p.version if p else side.python_version


def _torch_of(side: _Side) -> str | None:
    if not side.info.concrete:
        if side.spec is None:
            return None
        dep = side.spec.conda_by_name().get("pytorch")
        if dep:
            return dep.spec()
        for p in side.spec.pip:
            if p.key == "torch":
                return p.text
        return None
    conda, pip = _find(side, ("pytorch",), "conda"), _find(side, ("torch",), "pip")
    if conda is not None and pip is not None:
        # pip's torch is installed over conda's and is the one imported
        return f"{_torch_text(side, pip)} over conda's {conda.version}"
    p = conda or pip
    return _torch_text(side, p) if p is not None else None


def _torch_text(side: _Side, p: LockedPackage) -> str:
    """`2.2.2 (CUDA 12.1, cuDNN 8.9.2)`, `2.3.1 [pip] (CUDA 12.1)`: a torch package and its variant."""
    info = decode(p.build, p.version, p.name)
    labels = [x for x in info.labels() if not x.startswith("py")]
    if not labels and p.manager == "pip":
        cuda = _find(side, ("nvidia-cuda-runtime-cu12", "nvidia-cuda-runtime-cu11"), "pip")
        if cuda:
            labels = [f"CUDA {_major_minor(cuda.version)}"]
    version = _split_local(p.version)[0] if p.manager == "pip" else p.version
    mgr = " [pip]" if p.manager == "pip" else ""
    return f"{version}{mgr}" + (f" ({', '.join(labels)})" if labels else "")


def _cuda_of(side: _Side) -> str | None:
    if not side.info.concrete:
        return None
    p = _find(side, ("cuda-version", "cudatoolkit", "cuda-runtime", "cuda-cudart",
                     "nvidia-cuda-runtime-cu12", "nvidia-cuda-runtime-cu11"))
    if p is not None:
        return _major_minor(p.version)
    t = _find(side, ("pytorch",), "conda") or _find(side, ("torch",), "pip")
    if t is not None:
        info = decode(t.build, t.version, t.name)
        if info.cuda:
            return _major_minor(info.cuda)
    return None


# ---------------------------------------------------------------------------------------------
# Channels


def _live_channels_against_a_file(sa: _Side, sb: _Side) -> None:
    """A live prefix against a file (an export, a lock, a spec): the file lists the channels its
    packages need, the prefix its whole configuration (.condarc), so the prefix's side is compared
    as the channels its packages came from; the configured ones no package came from are kept
    apart (`unused_channels`), to be mentioned, not counted as a difference.  Two prefixes compare
    their configurations."""
    live = [s for s in (sa, sb) if s.used_channels is not None]
    if len(live) != 1 or (sa if live[0] is sb else sb).channels is None:
        return
    side = live[0]
    used = side.used_channels or ()
    side.unused_channels = tuple(c for c in side.channels or () if c not in used)
    side.channels = used or None


def _diff_channels(sa: _Side, sb: _Side) -> ChannelDiff:
    ca, cb = sa.channels, sb.channels
    note = ""
    if "export" in (sa.info.kind, sb.info.kind):
        note = "`conda env export` does not write channels in priority order (conda#7884)"
    unused = {"unused_a": sa.unused_channels, "unused_b": sb.unused_channels}
    if ca is None or cb is None:
        return ChannelDiff(a=ca, b=cb, priority_a=sa.priority, priority_b=sb.priority, note=note, **unused)
    set_a, set_b = set(ca), set(cb)
    common_a = [c for c in ca if c in set_b]
    common_b = [c for c in cb if c in set_a]
    return ChannelDiff(a=ca, b=cb, added=tuple(c for c in cb if c not in set_a),
                       removed=tuple(c for c in ca if c not in set_b),
                       order_changed=common_a != common_b, priority_a=sa.priority,
                       priority_b=sb.priority, note=note if ca != cb else "", **unused)


# ---------------------------------------------------------------------------------------------
# Spec against a concrete environment


def _check_spec(spec: EnvSpec, conc: _Side) -> tuple[tuple[SpecCheck, ...], tuple[PackageState, ...]]:
    from envkit.conda.matchspec import matches
    from envkit.conda.names import conda_names_for_pypi, pypi_names_for_conda

    index = _index(conc.packages)
    mentioned: set[tuple[str, str]] = set()
    checks: list[SpecCheck] = []
    for dep in spec.conda:
        text = dep.spec()
        if dep.name.startswith("__"):
            checks.append(SpecCheck(spec=text, name=dep.name, manager="conda", status="skipped",
                                    note="virtual package (a property of the machine)",
                                    line=dep.line))
            continue
        key = ("conda", dep.name.lower())
        p = index.get(key)
        note = ""
        if p is None:
            owned = (conc.owned or {}).get(dep.name)
            for n in owned or pypi_names_for_conda(dep.name):
                p = index.get(("pip", n))
                if p is not None:
                    note = _installed_by("pip", p.name, dep.name)
                    break
        if p is None:
            checks.append(SpecCheck(spec=text, name=dep.name, manager="conda", status="missing",
                                    line=dep.line))
            continue
        mentioned.add(_key(p))
        if p.manager == "conda":
            ok = matches(dep, name=p.name, version=p.version, build=p.build,
                         build_number=p.build_number,
                         channel=_canon_channel(p.channel) if p.channel else None)
            # pip installing the same project over it decides what is imported (corpus 53: conda
            # pytorch 1.13.1 satisfies `pytorch<2.0`, pip's torch 2.3.1 is the one in use)
            owned = (conc.owned or {}).get(dep.name)
            shadow = next((index[("pip", n)] for n in owned or pypi_names_for_conda(dep.name)
                           if ("pip", n) in index), None)
            if shadow is not None:
                mentioned.add(_key(shadow))
                note = f"pip's {shadow.name} {shadow.version} is installed over it"
                ok = ok and matches(CondaDep(name=dep.name, version=dep.version), name=dep.name,
                                    version=_split_local(shadow.version)[0])
        else:
            ok = matches(CondaDep(name=dep.name, version=dep.version), name=dep.name,
                         version=_split_local(p.version)[0])
        checks.append(SpecCheck(spec=text, name=dep.name, manager="conda",
                                status="satisfied" if ok else "not-satisfied",
                                found=_state(p), note=note, line=dep.line))
    marker_env = _marker_env(conc)
    spec_dir = _base_dir(spec.source)
    for pd in spec.pip:
        if pd.kind == "option":
            continue
        check = _check_pip(pd, index, mentioned, marker_env, conda_names_for_pypi, conc, spec_dir)
        if check.status == "missing" and not conc.info.records_pip:
            check = SpecCheck(spec=check.spec, name=check.name, manager="pip", status="skipped",
                              note=f"{_a_file(conc.info.kind)} cannot record pip packages", line=check.line)
        checks.append(check)
    unmentioned = tuple(_state(p, labels=False) for k, p in index.items() if k not in mentioned)
    return tuple(checks), tuple(sorted(unmentioned, key=lambda s: (s.name.lower(), s.manager)))


def _check_pip(pd: PipDep, index, mentioned, marker_env, conda_names_for_pypi, conc: _Side,
               spec_dir: str | None = None) -> SpecCheck:
    name = pd.name
    source = None
    if pd.kind in ("url", "vcs", "path"):
        source = pd.url or entry_source(pd.text, spec_dir)
    if not name and source:
        # `-e /home/me/src/tool`: the package installed from that path, else the path's last part
        found = _installed_from(source, conc)
        name = found.name if found is not None else name_from_source(source)
    if not name:
        return SpecCheck(spec=pd.text, name=pd.text, manager="pip", status="skipped",
                         note="names no project (a local path or URL without #egg=)", line=pd.line)
    if pd.marker and marker_env is not None:
        try:
            from packaging.markers import Marker

            if not Marker(pd.marker).evaluate(marker_env):
                return SpecCheck(spec=pd.text, name=name, manager="pip", status="skipped",
                                 note=f"marker is false there: {pd.marker}", line=pd.line)
        except Exception:  # an unparsable marker: check the entry anyway
            pass
    key = ("pip", _pep503(name))
    p = index.get(key)
    note = ""
    if p is None:
        for n in conda_names_for_pypi(name):
            p = index.get(("conda", n))
            if p is not None:
                note = _installed_by("conda", p.name, name)
                break
    if p is None:
        return SpecCheck(spec=pd.text, name=name, manager="pip", status="missing", line=pd.line)
    mentioned.add(_key(p))
    if pd.kind != "requirement" or not pd.specifier:
        ok = True
        if source is not None:
            ok, why = _source_satisfies(source, pd.editable, p, conc)
            note = (note + "; " if note else "") + why if why else note
        return SpecCheck(spec=pd.text, name=name, manager="pip",
                         status="satisfied" if ok else "not-satisfied",
                         found=_state(p, side=conc), note=note, line=pd.line)
    from packaging.specifiers import InvalidSpecifier, SpecifierSet

    try:
        spec_set = SpecifierSet(pd.specifier)
    except InvalidSpecifier:
        return SpecCheck(spec=pd.text, name=name, manager="pip", status="skipped",
                         found=_state(p), note=f"invalid version specifier {pd.specifier!r}",
                         line=pd.line)
    version = _pep440(p.version)
    if version is None:
        ok = any(s.operator in ("==", "===") and s.version == p.version for s in spec_set)
    else:
        ok = spec_set.contains(version, prereleases=True)
    return SpecCheck(spec=pd.text, name=name, manager="pip",
                     status="satisfied" if ok else "not-satisfied", found=_state(p), note=note,
                     line=pd.line)


def _source_satisfies(source: str, editable: bool, p: LockedPackage, conc: _Side) -> tuple[bool, str]:
    """Whether package `p` was installed from a spec entry's `source` (a path, URL or VCS URL,
    with a commit or not), and a note: (True, "") when it was, (False, why) when it is known not to
    be, (True, "source not compared") when the concrete side does not record pip sources."""
    if p.manager != "pip":
        return True, "source not compared"
    want = _parse_origin(source, None, None)
    have = pip_origin(p, _dist(conc, p))
    if have is None and not p.editable and not conc.pip_sources:
        return True, "source not compared"
    if have is None or (have.kind, have.base) != (want.kind, want.base):
        return False, f"installed from {_from(have, p.editable)}"
    if want.kind == "vcs" and _revs_differ(want.rev, have.rev):
        return False, f"installed at {have.vcs} commit {_short(have.rev)}"
    if editable and not p.editable:
        return False, "installed as a regular copy, not editable"
    return True, ""


def _installed_by(manager: str, found: str, wanted: str) -> str:
    """`installed by conda as pytorch` for `torch`; `installed by conda` when the names agree."""
    if _pep503(found) == _pep503(wanted):
        return f"installed by {manager}"
    return f"installed by {manager} as {found}"


_SYS = {"linux": ("linux", "Linux"), "osx": ("darwin", "Darwin"), "win": ("win32", "Windows")}
_MACHINE = {"64": "x86_64", "aarch64": "aarch64", "arm64": "arm64", "ppc64le": "ppc64le",
            "32": "i686", "s390x": "s390x"}


def _marker_env(side: _Side) -> dict | None:
    """PEP 508 marker variables for the concrete side's platform and Python, or None if unknown."""
    plat = side.info.platform
    if not plat or "-" not in plat:
        return None
    fam, arch = plat.split("-", 1)
    if fam not in _SYS:
        return None
    sys_platform, system = _SYS[fam]
    env = {"sys_platform": sys_platform, "platform_system": system,
           "os_name": "nt" if fam == "win" else "posix",
           "platform_machine": "AMD64" if plat == "win-64" else _MACHINE.get(arch, arch)}
    py = _python_of(side)
    if py:
        env["python_version"] = _major_minor(py)
        env["python_full_version"] = py
        env["implementation_name"] = "cpython"
        env["platform_python_implementation"] = "CPython"
    else:
        return None
    return env


# ---------------------------------------------------------------------------------------------
# Spec against spec


def _spec_entries(spec: EnvSpec) -> dict[tuple[str, str], tuple[PackageState, int | None]]:
    out: dict[tuple[str, str], tuple[PackageState, int | None]] = {}
    for d in spec.conda:
        ver = d.version or ""
        st = PackageState(name=d.name, manager="conda", version=ver, build=d.build, channel=d.channel)
        out[("conda", d.name.lower())] = (st, d.line)
    for p in spec.pip:
        if p.kind == "option":
            continue
        if p.kind == "requirement" and p.name:
            extras = f"[{','.join(p.extras)}]" if p.extras else ""
            marker = f"; {p.marker}" if p.marker else ""
            st = PackageState(name=p.name, manager="pip", version=f"{extras}{p.specifier}{marker}")
            out[("pip", _pep503(p.name))] = (st, p.line)
        else:
            # a URL, path or editable entry: its text is the spec (once: an entry that names no
            # project is named by its text, and has no separate "version")
            st = PackageState(name=p.name or p.text, manager="pip", version=p.text if p.name else "")
            out[("pip", _pep503(p.name) if p.name else p.text)] = (st, p.line)
    return out


def _diff_specs(a: EnvSpec, b: EnvSpec) -> tuple[list[Change], list[PackageState]]:
    ea, eb = _spec_entries(a), _spec_entries(b)
    changes: list[Change] = []
    unchanged: list[PackageState] = []
    for k, (sa, _) in ea.items():
        hit = eb.get(k)
        if hit is None:
            changes.append(_spec_change(sa.name, "removed", sa, None))
        elif hit[0] == sa:
            unchanged.append(sa)
        else:
            sb = hit[0]
            tags = ["version"] if (sa.version, sa.build) != (sb.version, sb.build) else []
            if sa.channel != sb.channel:
                tags.append("channel")
            changes.append(_spec_change(sa.name, "changed", sa, sb, tags))
    for k, (sb, _) in eb.items():
        if k not in ea:
            changes.append(_spec_change(sb.name, "added", None, sb))
    return changes, unchanged


def _spec_change(name: str, kind: str, a: PackageState | None, b: PackageState | None,
                 tags: list[str] | None = None) -> Change:
    cat = category_of(name)
    tags = list(tags or [])
    if cat:
        tags.append(cat)
    text_a = _spec_text(a) if a else None
    text_b = _spec_text(b) if b else None
    if kind == "changed":
        reason = f"spec changed: {text_a} → {text_b}"
    elif kind == "added":
        reason = "only in B's spec"
    else:
        reason = "only in A's spec"
    impact = "medium" if cat else "low"
    return Change(name=name, kind=kind, a=a, b=b, tags=tuple(tags), impact=impact, reason=reason,
                  group="matter" if cat else "other", category=cat)


def _spec_text(s: PackageState) -> str:
    if s.manager == "pip":
        v = s.version
        # a specifier, extras or marker follows the name; anything else (`-e git+...#egg=x`, a
        # URL) is the entry's whole text
        return f"{s.name}{v}" if not v or v[0] in "[<>=!~;" else v
    dep = CondaDep(name=s.name, version=s.version or None, build=s.build, channel=s.channel)
    return dep.spec()


def spec_text(state: PackageState) -> str:
    """The spec text of a spec-entry PackageState (as written in a spec file, canonical form)."""
    return _spec_text(state)
