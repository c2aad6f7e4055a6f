"""Impact (high / medium / low), group and one-line reason of a change."""

from __future__ import annotations

from envkit.envdiff.categories import _BLAS, _CUDA_CORE, _NUMPY, category_of, is_platform_only
from envkit.envdiff.pip_origin import _SourceChange
from envkit.envdiff.records import IMPACTS, Change, PackageState
from envkit.envdiff.sides import _Context, _Side
from envkit.envdiff.versions import _conda_version, _major, _major_minor, _split_local


def _classify(
    name: str,
    kind: str,
    a: PackageState | None,
    b: PackageState | None,
    tags: list[str],
    ia,
    ib,
    ctx: _Context,
    source: _SourceChange | None = None,
) -> Change:
    cat = category_of(name)
    if cat is None and a is not None and b is not None and b.name != name:
        cat = category_of(b.name)
    if cat:
        tags.append(cat)
    if source is not None and kind in ("rebuilt", "source"):
        # a pip package's source changed, its version did not (a new commit is like a rebuild)
        impact, reason = source.impact, source.reason
    else:
        impact, reason = _impact(name, kind, a, b, ia, ib, cat, ctx)
        if source is not None:
            reason = f"{reason}; {source.short}"
            if IMPACTS.index(source.impact) < IMPACTS.index(impact):
                impact = source.impact
    group = "matter" if impact in ("high", "medium") else "other"
    if ctx.cross:
        one_sided = a is None or b is None
        if (one_sided and kind != "duplicate" and is_platform_only(name)) or (
            kind == "rebuilt" and source is None
        ):
            group = "platform"
            tags.append("platform")
            if kind == "rebuilt":
                impact, reason = "low", "same version, built per platform"
            else:
                fam = (ctx.sa if b is None else ctx.sb).info.platform
                impact, reason = "low", f"exists on {fam} only"
    return Change(
        name=name,
        kind=kind,
        a=a,
        b=b,
        tags=tuple(dict.fromkeys(tags)),
        impact=impact,
        reason=reason,
        group=group,
        category=cat,
    )


def _impact(
    name: str,
    kind: str,
    a: PackageState | None,
    b: PackageState | None,
    ia,
    ib,
    cat: str | None,
    ctx: _Context,
) -> tuple[str, str]:
    """(impact, one-line reason) of one change."""
    n = name.lower()
    if kind == "duplicate":
        return (
            "high",
            f"installed by both conda and pip on {'B' if a is None else 'A'} only: pip's copy shadows "
            f"conda's and the solver cannot see it",
        )
    if kind == "manager":
        return _manager_reason(a, b, cat)
    if kind in ("added", "removed") or a is None or b is None:
        return _one_sided_reason(name, kind, ia, ib, cat, ctx)
    # the same package on both sides
    va, vb = a.version, b.version
    if kind == "rebuilt":
        return "low", "same version, rebuilt (build hash or number only)"
    if kind == "channel":
        if cat or (a.build and b.build and a.build != b.build):
            return (
                "medium",
                f"same version from another channel ({a.channel} → {b.channel}): "
                "a different build and dependencies",
            )
        return "low", f"from another channel ({a.channel} → {b.channel})"
    if cat == "python":
        return _python_reason(kind, va, vb)
    if cat == "torch":
        return _torch_reason(kind, va, vb, ia, ib)
    if kind == "variant" and not (cat == "blas" and ctx.blas_a != ctx.blas_b):
        return _variant_reason(ia, ib, cat)
    if cat in _LIBRARY_CATEGORIES:
        return _library_reason(cat, n, f"{va} → {vb}", ctx, one_sided=False)
    if cat == "numpy":
        if _major(va) != _major(vb):
            return (
                "high",
                f"numpy {_major(va)}.x → {_major(vb)}.x: an ABI break; extensions built "
                f"for numpy {_major(min(va, vb, key=lambda v: _conda_version(v) or v))}.x fail to import",
            )
        return "medium", f"numpy {va} → {vb}: array semantics and numerics may differ"
    if kind == "upgraded":
        return "low", "newer on B"
    if kind == "downgraded":
        return "low", "older on B"
    return "low", "a different version"


def _variant_reason(ia, ib, cat: str | None) -> tuple[str, str]:
    """(impact, reason) of the same version built differently: say how, not "1.26.4 → 1.26.4"."""
    words = _variant_words(ia, ib)
    if ia is not None and ib is not None and _only_python_differs(ia, ib):
        return "low", f"same version, built for another Python ({words})"
    if cat and ia is not None and ib is not None and ia.accelerator != ib.accelerator:
        return "high", f"same version, built for another GPU stack ({words})"
    return ("medium" if cat else "low"), f"same version, a different build variant ({words})"


def _manager_reason(a, b, cat) -> tuple[str, str]:
    """(impact, reason) of a package installed by conda on one side, pip on the other."""
    va, vb = a.version, b.version
    mgr = f"installed by {a.manager} on A, {b.manager} on B"
    if _split_local(va)[0] != _split_local(vb)[0]:
        mgr = f"{_split_local(va)[0]} → {_split_local(vb)[0]}, {mgr}"
    if cat == "torch":
        return (
            "high",
            f"{mgr}: PyTorch's pip wheels bundle their own CUDA libraries; pip's "
            f"copy is invisible to the conda solver",
        )
    if cat in ("numpy", "python", "cuda", "cudnn", "nccl", "blas"):
        return (
            "high",
            f"{mgr}: a different build (compiler flags, linked libraries); pip's "
            f"copy is invisible to the conda solver",
        )
    return ("low", f"{mgr}: pip's copy is invisible to the conda solver")


def _python_reason(kind: str, va: str, vb: str) -> tuple[str, str]:
    """(impact, reason) of a Python interpreter on both sides."""
    if _major_minor(va) != _major_minor(vb):
        return (
            "high",
            f"a different Python ({_major_minor(va)} → {_major_minor(vb)}): compiled "
            "extensions and language behaviour differ",
        )
    if kind == "variant":
        return "medium", "a different Python build variant"
    return "medium", f"Python patch release {va} → {vb}: bug fixes may change behaviour"


def _torch_reason(kind: str, va: str, vb: str, ia, ib) -> tuple[str, str]:
    """(impact, reason) of a PyTorch component on both sides (`ia`, `ib`: their decoded builds)."""
    acc_a, acc_b = ia.accelerator if ia else None, ib.accelerator if ib else None
    if acc_a != acc_b and (acc_a or acc_b):
        release = f"{va} → {vb}, " if va != vb else ""
        return (
            "high",
            f"PyTorch {release}{acc_a or 'unspecified'} build → {acc_b or 'unspecified'} build: GPU "
            "support, kernels and numerics differ",
        )
    if kind == "variant":
        return "high", f"a different PyTorch build variant ({_variant_words(ia, ib)})"
    return "high", f"PyTorch {va} → {vb}: operators, defaults and numerics change between releases"


def _one_sided_reason(name, kind, ia, ib, cat, ctx: _Context) -> tuple[str, str]:
    """(impact, reason) of a package on one side only (`kind` added or removed)."""
    n = name.lower()
    where = "B" if kind == "added" else "A"
    only = f"only on {where}"
    if cat == "python":
        return "high", f"Python interpreter {only}"
    if cat == "torch":
        info = ib if kind == "added" else ia
        acc = f" ({info.accelerator})" if info is not None and info.accelerator else ""
        return "high", f"PyTorch component{acc} {only}"
    if cat in _LIBRARY_CATEGORIES:
        return _library_reason(cat, n, only, ctx, one_sided=True)
    if cat == "numpy":
        if n != "numpy":  # numpy-base: it goes with `numpy`, which is reported itself
            return "medium", f"{name} (the compiled part of defaults' numpy) {only}"
        return "high", f"numpy {only}"
    return "low", only


#: category -> (impact, (what, consequence) when on one side only, (what, consequence) when the
#: versions differ); impact None: high for the core CUDA packages, else medium.  The BLAS and
#: compiler-runtime reasons depend on more than the category (see `_library_reason`).
_LIBRARY_REASONS: dict[str, tuple[str | None, tuple[str, str], tuple[str, str]]] = {
    "cuda": (
        None,
        ("CUDA runtime library", "GPU code paths and driver requirements differ"),
        ("CUDA", "kernels, driver requirements and numerics may differ"),
    ),
    "cudnn": (
        "high",
        ("cuDNN", "GPU convolutions and their numerics differ"),
        ("cuDNN", "convolution algorithms and numerics differ"),
    ),
    "nccl": (
        "medium",
        ("NCCL", "multi-GPU communication differs"),
        ("NCCL", "multi-GPU communication may behave differently"),
    ),
}
_LIBRARY_CATEGORIES = frozenset(_LIBRARY_REASONS) | {"blas", "compiler-runtime"}


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


def _only_python_differs(ia, ib) -> bool:
    """Whether two decoded builds differ only in their Python tag (the package follows a Python
    change, which is reported on `python` itself)."""
    from dataclasses import replace

    return ia.python != ib.python and replace(ia, python=None) == replace(ib, python=None)


def _variant_words(ia, ib) -> str:
    la = ia.labels() if ia else []
    lb = ib.labels() if ib else []
    gone = [x for x in la if x not in lb]
    new = [x for x in lb if x not in la]
    return f"{' '.join(gone) or '-'} → {' '.join(new) or '-'}"


def _blas_reason(ctx: _Context, only: str | None) -> tuple[str, str]:
    if ctx.blas_a != ctx.blas_b and (ctx.blas_a or ctx.blas_b):
        return (
            "high",
            f"different BLAS ({ctx.blas_a or _no_blas(ctx.sa)} → {ctx.blas_b or _no_blas(ctx.sb)}): "
            "numerical results and speed may differ",
        )
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
        return (
            "GCC runtime (libstdc++/libgcc): extensions built against a newer one fail to load "
            "(GLIBCXX_... not found)"
        )
    if n in ("libcxx", "libcxxabi"):
        return "C++ runtime (libc++): extensions built against a newer one fail to load"
    if n in ("llvm-openmp", "_openmp_mutex", "libgomp", "intel-openmp"):
        return "OpenMP runtime: threading, speed and fork-safety differ"
    if n.startswith("libgfortran"):
        return "Fortran runtime: compiled SciPy/LAPACK code links against it"
    return "MSVC runtime: extensions built against a newer one fail to load"
