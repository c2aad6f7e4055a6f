"""Highlights: the few facts a reader wants first (Python, PyTorch, CUDA, BLAS of each side)."""

from __future__ import annotations

from collections.abc import Sequence

from envkit.conda.buildstr import decode
from envkit.envdiff.categories import blas_of
from envkit.envdiff.keys import _pep503
from envkit.envdiff.records import NOT_RECORDED
from envkit.envdiff.sides import _Side, spec_of
from envkit.envdiff.versions import _major_minor, _split_local
from envkit.model import LockedPackage


def _highlights(sa: _Side, sb: _Side) -> tuple[tuple[str, str | None, str | None], ...]:
    rows = []
    for label, fn in (
        ("Python", _python_of),
        ("PyTorch", _torch_of),
        ("CUDA", _cuda_of),
        ("BLAS", lambda s: blas_of(s.packages) if s.info.concrete else None),
    ):
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


#: the packages that say a side's CUDA version, the most telling first
_CUDA_NAMES = (
    "cuda-version",
    "cudatoolkit",
    "cuda-runtime",
    "cuda-cudart",
    "nvidia-cuda-runtime-cu12",
    "nvidia-cuda-runtime-cu11",
)
#: every name the highlights look up (`_find`): the only names the index holds
_LOOKED_UP = frozenset(("python", "pytorch", "torch", *_CUDA_NAMES))


def _find(side: _Side, names: Sequence[str], manager: str | None = None) -> LockedPackage | None:
    """The first package (in the side's order) named one of `names` (of _LOOKED_UP), tried in order."""
    index = _name_index(side.packages)
    for n in names:
        p = index.get((n, manager))
        if p is not None:
            return p
    return None


_NAME_INDEX: dict[int, tuple[tuple, dict]] = {}


def _name_index(packages: tuple[LockedPackage, ...]) -> dict:
    """(lower name or PEP 503 pip name, manager or None) -> first such package, for the names in
    _LOOKED_UP; built once per package tuple, so that the highlights' lookups do not rescan every
    package per name."""
    hit = _NAME_INDEX.get(id(packages))
    if hit is not None and hit[0] is packages:
        return hit[1]
    index: dict = {}
    for p in packages:
        lower = p.name.lower()
        for k in (lower, _pep503(p.name)) if p.manager == "pip" else (lower,):
            if k in _LOOKED_UP:
                index.setdefault((k, None), p)
                index.setdefault((k, p.manager), p)
    if len(_NAME_INDEX) > 8:
        _NAME_INDEX.clear()
    _NAME_INDEX[id(packages)] = (packages, index)
    return index


def _python_of(side: _Side) -> str | None:
    if not side.info.concrete:
        dep = spec_of(side).conda_by_name().get("python")
        return dep.spec() if dep else None
    p = _find(side, ("python",), "conda")
    return p.version if p else side.python_version


def _torch_of(side: _Side) -> str | None:
    if not side.info.concrete:
        spec = spec_of(side)
        dep = spec.conda_by_name().get("pytorch")
        if dep:
            return dep.spec()
        for p in spec.pip:
            if p.key == "torch":
                return p.text
        return None
    conda, pip = _find(side, ("pytorch",), "conda"), _find(side, ("torch",), "pip")
    if conda is not None and pip is not None:
        # pip's torch is installed over conda's and is the one imported
        return f"{_torch_text(side, pip)} over conda's {conda.version}"
    found = conda or pip
    return _torch_text(side, found) if found is not None else None


def _torch_text(side: _Side, p: LockedPackage) -> str:
    """`2.2.2 (CUDA 12.1, cuDNN 8.9.2)`, `2.3.1 [pip] (CUDA 12.1)`: a torch package and its variant."""
    info = decode(p.build, p.version, p.name)
    labels = [x for x in info.labels() if not x.startswith("py")]
    if not labels and p.manager == "pip":
        cuda = _find(side, _CUDA_NAMES[-2:], "pip")
        if cuda:
            labels = [f"CUDA {_major_minor(cuda.version)}"]
    version = _split_local(p.version)[0] if p.manager == "pip" else p.version
    mgr = " [pip]" if p.manager == "pip" else ""
    return f"{version}{mgr}" + (f" ({', '.join(labels)})" if labels else "")


def _cuda_of(side: _Side) -> str | None:
    if not side.info.concrete:
        return None
    p = _find(side, _CUDA_NAMES)
    if p is not None:
        return _major_minor(p.version)
    t = _find(side, ("pytorch",), "conda") or _find(side, ("torch",), "pip")
    if t is not None:
        info = decode(t.build, t.version, t.name)
        if info.cuda:
            return _major_minor(info.cuda)
    return None
