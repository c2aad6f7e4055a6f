"""python-abi-mismatch: builds and wheels tagged for another Python than the environment's.

The CUDA builds rule is envkit.checks.rules_cuda."""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence

from envkit.checks._helpers import spec_python, wheel_python
from envkit.checks.core import Context, Hit, Target, rule
from envkit.conda.versions import major_minor, mm_text
from envkit.model import LockedPackage

_PY_QUICK = re.compile(r"(?:py|cp)\d")


@rule(
    "python-abi-mismatch",
    order=12,
    severity="error",
    summary="A build tagged for another Python (`py39...`, `cp310`) than the pinned `python`.",
    description="""
        Compiled Python packages are built for one Python minor version and say so in their
        build string (`numpy=1.26.4=py311h...`, `python_abi=3.10=4_cp310`) or wheel tag
        (`...-cp310-cp310-manylinux...whl`).  Installed into another Python, they fail to import
        (or conda refuses the combination).  This happens when an exported file is edited by hand
        (`python=3.12` with the old builds), or when exports from two environments are merged.

        Checked against the Python the file pins (`python=3.11`, `python==3.11.9`,
        `python=3.11.9=h...`) or the `python` package of a lock (per platform) or a live
        environment.  `abi3` wheels built for an older Python are fine; noarch builds (`pyhd8ed1ab_0`)
        carry no Python tag.
        """,
    example="""
        name: analysis
        channels: [conda-forge, nodefaults]
        dependencies:
          - python=3.12.4=h0_0_cpython
          - numpy=1.26.4=py311h64a7726_0
          - pandas=2.2.2=py312h1d6d2e6_1
        """,
    example_fixed="""
        name: analysis
        channels: [conda-forge, nodefaults]
        dependencies:
          - python=3.12.4=h0_0_cpython
          - numpy=1.26.4=py312heda63a1_0
          - pandas=2.2.2=py312h1d6d2e6_1
        """,
)
def python_abi_mismatch(target: Target, ctx: Context) -> Iterator[Hit]:
    view = target.view
    if view is None:
        m = target.loose
        py = spec_python(m) if m is not None else None
        if m is None or py is None:
            return
        for d in m.conda:
            if d.name == "python" or not d.build or not _PY_QUICK.search(d.build.lower()):
                continue
            hit = _spec_build_mismatch(d.name, d.build, py)
            if hit:
                yield Hit(d.line, hit, (d.name, "python"))
        for p in m.pip:
            built = _wheel_mismatch(p.url, py)
            if built:
                name = p.name or p.text
                yield Hit(
                    p.line,
                    f"pip wheel for {name} is built for {built}, but python is pinned to {py}",
                    (name, "python"),
                )
        return
    for platform, pkgs in view.by_platform().items():
        python = next((p for p in pkgs if p.manager == "conda" and p.name == "python"), None)
        mm = major_minor(python.version) if python is not None else None
        if python is None or mm is None:
            continue
        yield from _packages_mismatch(pkgs, mm_text(mm), python.version, view.on(platform))


def _packages_mismatch(pkgs: Sequence[LockedPackage], py: str, py_full: str, on: str) -> Iterator[Hit]:
    """Locked or installed builds and wheels of one platform tagged for another Python than `py`."""
    # A solver puts `_python_abi3_support` into an environment only for abi3 builds, which keep the
    # tag of the oldest Python they support; without recorded dependencies (explicit files) an
    # older tag beside it is such a build, not a mismatch.
    from envkit.conda.buildstr import decode

    abi3_env = any(p.manager == "conda" and p.name == "_python_abi3_support" for p in pkgs)
    for p in pkgs:
        if p.manager == "conda":
            if p.name == "python" or not p.build or not _PY_QUICK.search(p.build.lower()):
                continue
            tag = decode(p.build, None, p.name).python
            if not tag or tag == py:
                continue
            # an older tag beside `_python_abi3_support` is an abi3 build unless its recorded
            # dependencies pin another Python: the verdict of the explicit file of the same solve
            if (
                abi3_env
                and _older(tag, py)
                and not _depends_disagree(p.depends, py_full, tag, undecided=False)
            ):
                continue
            if _depends_disagree(p.depends, py_full, tag):
                yield Hit(
                    p.line,
                    f"{p.name} {p.version} build '{p.build}' is for Python {tag}, "
                    f"but the python package is {py}{on}",
                    (p.name, "python"),
                )
        elif built := _wheel_mismatch(p.url, py):
            yield Hit(
                p.line,
                f"pip wheel {p.name} {p.version} is built for {built}, but the python package is {py}{on}",
                (p.name, "python"),
            )


def _depends_disagree(
    depends: tuple[tuple[str, str], ...], python: str, tag: str, *, undecided: bool = True
) -> bool:
    """Whether a package whose build is tagged for Python `tag` really cannot go with `python`.

    The recorded dependencies decide when there are any: conda-forge's abi3 builds keep the tag of
    the oldest Python they support (`pyzmq=27.1.0=py312h..._3` depends on `_python_abi3_support`
    and `cpython >=3.12`) and work with every later one; otherwise the `python` and `python_abi`
    constraints are matched against the installed version.  Without dependencies (explicit files,
    exports), or none about Python, the answer is `undecided` (the tag decides)."""
    if not depends:
        return undecided
    from rattler import Version, VersionSpec

    deps = dict(depends)
    if "_python_abi3_support" in deps:
        return _older(python, tag)
    decided = False
    for name in ("python", "python_abi", "cpython"):
        spec = (deps.get(name) or "").strip()
        if not spec:
            continue
        version_part = spec.split()[0]
        try:
            ok = VersionSpec(version_part).matches(Version(python))
        except Exception:  # an odd spec says nothing reliable; fall back to the tag
            continue
        if not ok:
            return True
        decided = True
    return undecided and not decided


def _older(a: str, b: str) -> bool:
    """Whether Python `a`'s major.minor is below `b`'s (False where either has none)."""
    am, bm = major_minor(a), major_minor(b)
    return bool(am and bm and am < bm)


def _spec_build_mismatch(name: str, build: str, py: str) -> str | None:
    """The message when a spec's build (or build glob) cannot be for the pinned Python `py`, else
    None.  A glob's Python tag cut short by `*` is a prefix (`py31*` matches py310-py319, so it
    fits 3.11): flagged only when no tag it could match fits (`py39*` with 3.11)."""
    from envkit.conda.buildstr import decode

    info = decode(build, None, name)
    if info.python_fits(py) is not False:
        return None
    if info.python:
        return f"{name} build '{build}' is for Python {info.python}, but python is pinned to {py}"
    pre = info.python_prefix
    return (
        f"{name} build glob '{build}' matches only builds for Python {pre} or {pre}0-{pre}9, "
        f"but python is pinned to {py}"
    )


def _wheel_mismatch(url: str | None, py: str) -> str | None:
    """`Python 3.10 (abi3)`: what the pip wheel at `url` is built for, where that is not Python
    `py` (an abi3 wheel fits its own Python and every later one); else None."""
    tag, abi3 = wheel_python(url)
    t, p = major_minor(tag), major_minor(py)
    if t is None or p is None or (t <= p if abi3 else t == p):
        return None
    return f"Python {tag}{' (abi3)' if abi3 else ''}"
