"""Small pure helpers shared by the rule modules (versions, package views, wheel tags)."""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import TYPE_CHECKING

from envkit.conda.versions import major_minor, minor_text

if TYPE_CHECKING:  # pragma: no cover
    from envkit.model import CondaDep, EnvSpec, PipDep
    from envkit.templates.matrix import Matrix

_SERIES = re.compile(r"[0-9A-Za-z][0-9A-Za-z_.+!]*")


def pinned_series(dep: CondaDep) -> str | None:
    """The single version series a conda dependency pins: `==3.11.4`, `3.11.*`, `3.11.4.*` give the
    version text without `==`/`.*`; ranges, ORs and unpinned give None."""
    v = dep.version
    if not v:
        return None
    if v.startswith("=="):
        v = v[2:]
    elif v.endswith(".*"):
        v = v[:-2]
    elif v.endswith("*"):
        v = v[:-1].rstrip(".")
    if not v or not _SERIES.fullmatch(v):
        return None
    return v


def pip_pinned_version(dep: PipDep) -> str | None:
    """The version a pip requirement pins with `==`/`===` (local version kept), else None."""
    spec = (dep.specifier or "").strip()
    if not spec or "," in spec:
        return None
    for op in ("===", "=="):
        if spec.startswith(op):
            v = spec[len(op) :].strip()
            return v if v and "*" not in v else None
    return None


def pinned_python(spec: EnvSpec) -> str | None:
    """The Python version a spec pins, micro kept (`python=3.11`, `python==3.11.4`,
    `python=3.11.4=h..`, `python=3.13.0rc1`); a pin without a minor (`python=3`: every 3.x) is
    none."""
    for d in spec.conda:
        if d.name == "python":
            v = pinned_series(d)
            if major_minor(v):
                return v
    return None


def spec_python(spec: EnvSpec) -> str | None:
    """The Python major.minor a spec pins (`pinned_python`): what builds and wheels are tagged for."""
    return minor_text(pinned_python(spec))


def pytorch_matrix() -> Matrix | None:
    """The PyTorch compatibility matrix, None where it cannot be read: it is optional data, and
    the checks that need it are skipped without it."""
    try:
        from envkit.templates import load_matrix

        return load_matrix()
    except Exception:
        return None


# `name-version(-build)?-pytag-abitag-platform.whl`
_WHEEL = re.compile(
    r"(?:^|/)[^/]+?-[^/-]+(?:-\d[^/-]*)?-(?P<py>[^/-]+)-(?P<abi>[^/-]+)-[^/-]+\.whl(?:$|[#?])"
)
_CP = re.compile(r"^cp(?P<v>3\d{1,2}|27)$")


def wheel_python(url: str | None) -> tuple[str | None, bool]:
    """The CPython version a wheel URL is built for (`cp310` -> "3.10") and whether it is abi3
    (usable on that version and later).  (None, False) when the wheel is pure or not a wheel."""
    if not url or ".whl" not in url:
        return None, False
    m = _WHEEL.search(url.split("#", 1)[0])
    if not m:
        return None, False
    tags = m.group("py").split(".")
    versions = []
    for t in tags:
        cm = _CP.match(t)
        if not cm:
            return None, False  # py3 / py2.py3 / pp: no single CPython
        d = cm.group("v")
        versions.append(f"{d[0]}.{d[1:]}")
    if len(set(versions)) != 1:
        return None, False
    return versions[0], m.group("abi") == "abi3"


def describe_conda_dep(dep: CondaDep, project: str) -> str:
    """`>=1.24`, `any version`, or `pytorch >=1.10,<2.0` when the conda name differs from `project`."""
    v = dep.version
    if v and v.startswith("==") and dep.build:
        text = f"{v[2:]}={dep.build}"
    elif v and v.endswith(".*") and not any(c in v for c in "<>=!|,"):
        text = "=" + v[:-2]
    else:
        text = v or "any version"
    if dep.name != project:
        return f"{dep.name} {text}" if text != "any version" else dep.name
    return text


def describe_pip_dep(dep: PipDep) -> str:
    if dep.kind == "requirement":
        return dep.specifier or "any version"
    return dep.text


def join_names(names: Iterable[str], limit: int = 8) -> str:
    """`a, b, c` - at most `limit` names, then `and N more`."""
    names = list(names)
    if len(names) <= limit:
        return ", ".join(names)
    return ", ".join(names[:limit]) + f" and {len(names) - limit} more"


def conda_names(target, spec: EnvSpec) -> tuple[frozenset[str], str]:  # target: checks.core.Target
    """The lowercased names of `spec`'s conda entries, as a set and joined with a line end before
    each: what the pre-tests of rules that look for a few names ask (`"\\nm2w64-" in joined`),
    in C loops, made once per target for all of them."""
    cached = target.cache.get("conda-names")
    if cached is None or cached[0] is not spec:
        names = [d.name or "" for d in spec.conda]
        joined = "\n".join(names)
        lower = joined.lower()  # one call: parsed names are lowercase already, mostly
        lowered = frozenset(names) if lower == joined else frozenset(map(str.lower, names))
        cached = target.cache["conda-names"] = (spec, lowered, "\n" + lower)
    return cached[1], cached[2]
