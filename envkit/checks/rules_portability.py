"""Rules about files that work on one machine only: platform-only packages, no channels, exact
short pins, PyPI-only names in the conda section."""

from __future__ import annotations

import os
import re
from collections.abc import Iterator

from envkit._text import first_of
from envkit.checks._helpers import conda_names, join_names
from envkit.checks.core import Context, Hit, Target, rule

#: wheel platform tag -> the operating system it runs on (PEP 425 / PEP 600 platform tags)
_WHEEL_PLATFORM = (
    r"-(?P<plat>win32|win_amd64|win_arm64|macosx_[0-9a-z_]+|manylinux[0-9a-z_]+"
    r"|musllinux_[0-9a-z_]+|linux_[0-9a-z_]+)(?:\.[0-9a-z_.]+)?\.whl(?:$|[#?])"
)
#: packages built for one operating system only, by name (conda and PyPI): pywin32, pywinpty and
#: pypiwin32 publish Windows wheels only (PyPI) and conda-forge builds them for win-* only; the
#: m2w64-*, vs2015_runtime, vc14_runtime, ucrt runtimes are Windows-only conda packages; pyobjc and
#: Apple's tensorflow-macos/tensorflow-metal are macOS-only; _libgcc_mutex, libgcc-ng and
#: libstdcxx-ng are linux-* only conda packages (conda-forge, defaults).
PLATFORM_ONLY = {
    "pywin32": "Windows",
    "pywinpty": "Windows",
    "pypiwin32": "Windows",
    "vs2015_runtime": "Windows",
    "vc14_runtime": "Windows",
    "ucrt": "Windows",
    "pyobjc": "macOS",
    "pyobjc-core": "macOS",
    "tensorflow-macos": "macOS",
    "tensorflow-metal": "macOS",
    "_libgcc_mutex": "Linux",
    "libgcc-ng": "Linux",
    "libstdcxx-ng": "Linux",
}
_PREFIX_ONLY = (("m2w64-", "Windows"), ("pyobjc-framework-", "macOS"))
_PREFIXES = tuple(pre for pre, _ in _PREFIX_ONLY)
#: words in a file name that restrict it to one operating system (`environment-linux.yml`)
_NAME_PLATFORM = r"(?:^|[-_.])(linux|win|windows|win64|osx|macos|mac|darwin)(?:[-_.0-9]|$)"
_OS_OF_SUBDIR = {"win": "Windows", "osx": "macOS", "linux": "Linux"}


def _only_on(name: str | None) -> str | None:
    if not name:
        return None
    n = name.lower()
    os_ = PLATFORM_ONLY.get(n)
    if os_ is not None:
        return os_
    if not n.startswith(_PREFIXES):  # most names: one C call, no generator
        return None
    return next((os_ for pre, os_ in _PREFIX_ONLY if n.startswith(pre)), None)


def _wheel_os(url: str | None) -> tuple[str, str] | None:
    m = re.search(_WHEEL_PLATFORM, url) if url and ".whl" in url else None
    if m is None:
        return None
    tag = m.group("plat")
    os_ = "Windows" if tag.startswith("win") else "macOS" if tag.startswith("macosx") else "Linux"
    return os_, tag


@rule(
    "platform-only",
    order=24,
    severity="warning",
    summary="A package or wheel for one operating system in a file that names no platform.",
    description="""
        An environment file with no `platforms:` list (and no operating system in its name, such
        as `environment-linux.yml`) is taken to work everywhere.  A package that exists for one
        operating system only breaks it on the others: `pywin32`, `pywinpty`, the `m2w64-*` and
        `vs2015_runtime` runtimes (Windows), `pyobjc` and Apple's `tensorflow-macos` (macOS),
        `libgcc-ng`, `libstdcxx-ng`, `_libgcc_mutex` (Linux); a pip wheel URL with a platform tag
        (`...-win_amd64.whl`, `...-manylinux_2_17_x86_64.whl`); a `channel/win-64::` subdir prefix.
        conda then fails with `PackagesNotFoundError`, pip with `is not a supported wheel on this
        platform`.

        A pip entry with an environment marker (`pywin32; sys_platform == "win32"`) is fine, and
        exports (`conda env export`) are not checked: they record one machine's packages by design.

        Fix: add a marker to the pip entry, move the package to a per-platform file, or list the
        platforms the file is for (`platforms: [win-64]`, as conda-lock reads it).
        """,
    example="""
        channels: [conda-forge, nodefaults]
        dependencies:
          - python=3.11
          - pip
          - pip:
            - pywin32==306
        """,
    example_fixed="""
        channels: [conda-forge, nodefaults]
        dependencies:
          - python=3.11
          - pip
          - pip:
            - pywin32==306; sys_platform == "win32"
        """,
    applies_to=("spec",),
)
def platform_only(target: Target, ctx: Context) -> Iterator[Hit]:
    spec = target.loose  # an export is for the one platform it was made on
    if spec is None or spec.platforms:
        return
    base = os.path.basename(target.path).lower()
    if re.search(_NAME_PLATFORM, base):
        return
    where = "a file that names no platform (no `platforms:` list)"
    # (the first entry without a build ends the `all`: most files are not counted)
    if all(d.build for d in spec.conda if not d.name.startswith("__")) and (
        sum(1 for d in spec.conda if not d.name.startswith("__")) >= 5
    ):
        return  # every entry pins an exact build: an export in effect, one machine's packages by design
    names, joined = conda_names(target, spec)
    # most files name no platform-only package and no subdir: then no entry needs a look
    maybe = (
        not names.isdisjoint(PLATFORM_ONLY)
        or any("\n" + pre in joined for pre in _PREFIXES)
        or any(d.subdir for d in spec.conda)
    )
    by_subdir: dict[str, list] = {}
    only_on = _only_on
    for d in spec.conda if maybe else ():
        os_ = only_on(d.name)
        if d.subdir and d.subdir != "noarch":
            sub_os = _OS_OF_SUBDIR.get(d.subdir.split("-", 1)[0]) or os_
            if sub_os:
                by_subdir.setdefault(d.subdir, []).append((d, sub_os))
                continue
        if os_:
            yield Hit(d.line, f"{d.name} exists for {os_} only, in {where}: conda fails elsewhere", (d.name,))
    yield from _subdir_hits(by_subdir, where)
    yield from _pip_hits(spec, where)


def _subdir_hits(by_subdir: dict[str, list], where: str) -> Iterator[Hit]:
    # one subdir prefix on many entries is one cause: one finding with the count and the lines
    for subdir, hits in by_subdir.items():
        d, os_ = hits[0]
        if len(hits) == 1:
            yield Hit(
                d.line, f"{d.name} is pinned to the {subdir} subdir, for {os_} only, in {where}", (d.name,)
            )
            continue
        lines = first_of([str(h[0].line) for h in hits], 10)
        yield Hit(
            d.line,
            f"{len(hits)} entries are pinned to the {subdir} subdir, for {os_} only, in {where} "
            f"({join_names(h[0].name for h in hits)}; lines {lines})",
            tuple(h[0].name for h in hits),
        )


def _pip_hits(spec, where: str) -> Iterator[Hit]:
    for p in spec.pip:
        if p.marker:
            continue
        wheel = _wheel_os(p.url)
        if wheel:
            yield Hit(
                p.line,
                f"pip wheel {p.name or p.url} is built for {wheel[0]} only ({wheel[1]}), "
                f"in {where}: add a marker such as `; sys_platform == ...`",
                (p.name or p.text,),
            )
        elif p.kind == "requirement" and p.name and _only_on(p.name):
            yield Hit(
                p.line,
                f"pip package {p.name} exists for {_only_on(p.name)} only, in {where}: "
                f"add a marker such as `; sys_platform == ...`",
                (p.name,),
            )


@rule(
    "no-channels",
    order=23,
    severity="warning",
    summary="An environment file without `channels:`: each user's .condarc decides where packages come from.",
    description="""
        Without a `channels:` list (or with an empty one), `conda env create` takes the channels of
        the user's `.condarc`: `defaults` for one person, conda-forge for another, a mirror in CI.
        The same file then builds different environments (or fails to solve) on different
        machines.

        Fix: list the channels the file is meant for, in priority order
        (`channels: [conda-forge, nodefaults]`).
        """,
    example="""
        dependencies:
          - python=3.11
          - numpy
        """,
    example_fixed="""
        channels: [conda-forge, nodefaults]
        dependencies:
          - python=3.11
          - numpy
        """,
    applies_to=("spec",),
)
def no_channels(target: Target, ctx: Context) -> Iterator[Hit]:
    spec = target.env_file
    if spec is None or spec.kind == "requirements" or spec.channels or not spec.conda:
        return
    line = spec.line_of("channels")
    what = "an empty `channels:` list" if line else "no `channels:`"
    yield Hit(
        line or spec.line_of("dependencies") or 1,
        f"{what}: the channels come from each user's .condarc, so the environment differs from "
        f"machine to machine; list them (channels: [conda-forge, nodefaults])",
        (),
    )


#: packages whose releases always have three version parts, so `==X.Y` is a mistake for `=X.Y`
_THREE_PART = ("python",)


@rule(
    "short-exact-pin",
    order=25,
    severity="warning",
    summary="`python==3.6`: conda's `==` is exact, so it means 3.6.0 only.",
    description="""
        In a conda match spec `==` is an exact match and `3.6` equals `3.6.0`, so `python==3.6`
        (and `python 3.6`) accepts only Python 3.6.0, never 3.6.15: the solver takes a years-old
        first release or fails.  pip's `==3.6` means the same, but there it is rarely written for
        Python itself.

        Fix: `python=3.6` (3.6.*, any 3.6 release) or the full version (`python==3.6.15`).
        """,
    example="""
        channels: [conda-forge, nodefaults]
        dependencies:
          - python==3.6
        """,
    example_fixed="""
        channels: [conda-forge, nodefaults]
        dependencies:
          - python=3.6
        """,
    applies_to=("spec",),
)
def short_exact_pin(target: Target, ctx: Context) -> Iterator[Hit]:
    spec = target.env_file
    if spec is None:
        return
    if conda_names(target, spec)[0].isdisjoint(_THREE_PART):  # lowercase names: no entry is one
        return
    for d in spec.conda:
        v = d.version or ""
        if d.name in _THREE_PART and re.fullmatch(r"==\d+\.\d+", v) and not d.build:
            short = v[2:]
            yield Hit(
                d.line,
                f"'{(d.raw or d.spec()).strip()}' means {d.name} {short}.0 only (conda's == is "
                f"exact); write {d.name}={short} for any {short}.x, or the full version",
                (d.name,),
            )


#: names that exist on PyPI only, never on conda-forge or defaults, with what to write instead.
#: tensorflow-macos / tensorflow-metal: Apple's "Get started with tensorflow-metal" (pip only);
#: mediapipe: Google's wheels (google-ai-edge/mediapipe#1894: PackagesNotFoundError from conda);
#: opencv-python*: the PyPI names of OpenCV, which conda-forge ships as `opencv` / `py-opencv`
#: (conda-forge's name mapping, regro/cf-graph-countyfair); torch: PyPI's name of conda's `pytorch`;
#: nvidia-*-cuXX: NVIDIA's CUDA wheels for pip (conda has cuda-* / cudnn / nccl packages).
PYPI_ONLY = {
    "tensorflow-macos": "move it to the pip section",
    "tensorflow-metal": "move it to the pip section",
    "mediapipe": "move it to the pip section",
    "opencv-python": "conda-forge calls it opencv (or py-opencv)",
    "opencv-python-headless": "conda-forge calls it opencv (or py-opencv)",
    "opencv-contrib-python": "conda-forge calls it opencv (or py-opencv)",
    "opencv-contrib-python-headless": "conda-forge calls it opencv (or py-opencv)",
    "torch": "conda calls it pytorch",
}
_NVIDIA_WHEEL = r"^nvidia-[a-z0-9-]+-cu\d+$"


def pypi_only(name: str) -> str | None:
    """What to do about conda dependency `name` when it is a PyPI-only project, else None."""
    n = name.lower()
    what = PYPI_ONLY.get(n)
    if what is not None:
        return what
    if n.startswith("nvidia-") and re.match(_NVIDIA_WHEEL, n):
        return "it is NVIDIA's pip wheel; conda's CUDA packages are named cuda-*, cudnn, nccl"
    return None


@rule(
    "pypi-only-in-conda",
    order=26,
    severity="error",
    summary="A project that exists only on PyPI (`mediapipe`, `tensorflow-macos`) in the conda list.",
    description="""
        Some projects are published only as pip wheels: `tensorflow-macos` and `tensorflow-metal`
        (Apple), `mediapipe` (Google), NVIDIA's `nvidia-*-cu12` CUDA wheels; others go by another
        name on conda (`opencv-python` is conda-forge's `opencv`, `torch` is `pytorch`).  In the
        conda dependencies they fail the whole solve with `PackagesNotFoundError`.

        Fix: move the entry to the `pip:` section (adding `pip` to the conda dependencies), or use
        the conda name.
        """,
    example="""
        channels: [conda-forge, nodefaults]
        dependencies:
          - python=3.11
          - mediapipe=0.10.14
        """,
    example_fixed="""
        channels: [conda-forge, nodefaults]
        dependencies:
          - python=3.11
          - pip
          - pip:
            - mediapipe==0.10.14
        """,
    applies_to=("spec",),
)
def pypi_only_in_conda(target: Target, ctx: Context) -> Iterator[Hit]:
    spec = target.env_file
    if spec is None or spec.kind == "requirements":
        return
    names, joined = conda_names(target, spec)
    # most files name no PyPI-only project: then no entry needs a look
    if names.isdisjoint(PYPI_ONLY) and "\nnvidia-" not in joined:
        return
    for d in spec.conda:
        what = pypi_only(d.name)
        if what and not (d.channel and d.channel not in ("conda-forge", "defaults")):
            yield Hit(d.line, f"{d.name} is not a conda package (PyPI only): {what}", (d.name,))
