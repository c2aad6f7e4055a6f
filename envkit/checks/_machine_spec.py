"""What a loose spec asks of a machine's CUDA beyond its exact pins, for `machine-cuda-driver`:
stand-in packages whose CUDA the machine rules read (`cuda-version=12.1`, a torch pinned on a
`/whl/cu124` index, `jax[cuda13]`, `tensorflow[and-cuda]>=2.15`, an `nvidia-*-cu12` wheel), and
the entries whose CUDA only a solve decides, each with the sentence that says why."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from envkit.conda.buildstr import option_variant, variant_cuda
from envkit.conda.families import CUDA_RUNTIME
from envkit.machine.fit import _NVIDIA_WHEEL, package_label
from envkit.model import EnvSpec, LockedPackage, PipDep

_JAX_CUDA = re.compile(r"^cuda(?P<major>\d+)")
_LOWER = re.compile(r"(?:^|,)\s*(?:==|>=|~=|>)\s*(?P<v>\d+(?:\.\d+)*)")
#: `tensorflow[and-cuda]` pulls CUDA 12 wheels (nvidia-*-cu12) from TensorFlow 2.15 on
_TF_CUDA12 = (2, 15)
_SOLVE = "lock it (`envkit lock`) and check the lock with --machine"


@dataclass
class SpecCuda:
    """`asked`: stand-in packages; `unknown`: (line, message) of entries whose CUDA only a solve
    decides; `shown`: a stand-in's label -> the spec text that findings quote instead."""

    asked: list[LockedPackage] = field(default_factory=list)
    unknown: list[tuple[int | None, str]] = field(default_factory=list)
    shown: dict[str, str] = field(default_factory=dict)

    def add(self, pkg: LockedPackage, text: str) -> None:
        self.asked.append(pkg)
        self.shown[package_label(pkg)] = text


def spec_cuda_requests(spec: EnvSpec, exact: list[LockedPackage]) -> SpecCuda:
    """What `spec` asks for beyond `exact` (its exact pins, as packages)."""
    have: set[tuple[str, str]] = {(p.manager, p.name.lower()) for p in exact}
    out = SpecCuda()
    _conda_requests(spec, have, out)
    index = _cuda_index(spec)
    for p in spec.pip:
        if p.kind != "requirement" or not p.key:
            continue
        if p.key == "torch" and index is not None and "+" not in p.specifier:
            # an exact pin without a local version is the index's `+cuXYZ` build: the index says it
            _torch_on_index(p, index, out)
        elif p.key == "jax":
            for extra in p.extras:
                m = _JAX_CUDA.match(extra.lower())
                if m:
                    major = m.group("major")
                    out.add(_pip(f"nvidia-cuda-runtime-cu{major}", major, p.line), p.text)
        elif p.key == "tensorflow" and "and-cuda" in p.extras:
            _tensorflow(p, out)
        else:
            wheel = _NVIDIA_WHEEL.match(p.key)
            if wheel and ("pip", p.key) not in have:  # the name says its CUDA major
                out.add(_pip(p.key, wheel.group("major"), p.line), p.text)
    return out


def _pip(name: str, version: str, line: int | None) -> LockedPackage:
    return LockedPackage(manager="pip", name=name, version=version, line=line)


def _conda_requests(spec: EnvSpec, have: set[tuple[str, str]], out: SpecCuda) -> None:
    """`cuda-version=12.1`, `pytorch-cuda=11.8`, `cudatoolkit>=11.3` as CUDA claims; one of them
    with no version (or only an upper bound) as an entry only a solve decides."""
    for d in spec.conda:
        if d.name not in CUDA_RUNTIME or ("conda", d.name) in have:
            continue
        v = (d.version or "").strip()
        m = re.match(r"^(?:==|=|>=|~=)?\s*(\d+(?:\.\d+)?)", v)
        written = d.raw.strip() or d.spec()
        if m and not v.startswith("<"):
            out.add(LockedPackage(manager="conda", name=d.name, version=m.group(1), line=d.line), written)
        else:
            out.unknown.append(
                (d.line, f"{written} records no CUDA version: not checked against the driver; {_SOLVE}")
            )


def _cuda_index(spec: EnvSpec) -> tuple[str, int | None, bool] | None:
    """(cuXYZ digits, line, another index beside it) of the last PyTorch CUDA index the pip
    options name; another index is PyPI when the CUDA one is only an --extra-index-url, or any
    --extra-index-url beside an --index-url."""
    found = None
    extras = 0
    for p in spec.pip:
        if p.kind != "option":
            continue
        extras += p.text.lstrip().startswith("--extra-index-url")
        variant = option_variant(p.text) or ""
        if variant_cuda(variant):
            found = (variant[2:], p.line)
    return (*found, extras > 0) if found is not None else None


def _torch_on_index(p: PipDep, index: tuple[str, int | None, bool], out: SpecCuda) -> None:
    """A torch requirement beside a `/whl/cuXYZ` index: that index's build when the index is the
    only one, or when an `==` pin makes its `+cuXYZ` the highest match; otherwise pip takes
    PyPI's newer torch, whose CUDA only a solve decides."""
    cu, line, beside = index
    pinned = p.specifier[2:].strip() if p.specifier.startswith("==") and "," not in p.specifier else ""
    # `==2.7.*` too: the index's `2.7.1+cu118` sorts above PyPI's `2.7.1`, so pip takes it
    if beside and not pinned:
        out.unknown.append(
            (
                p.line,
                f"{p.text}: pip searches another index beside the cu{cu} one (line {line}) and takes "
                f"the highest torch, PyPI's newer release, not a cu{cu} build; which CUDA that "
                f"carries only a solve decides; pin torch==X or make the cu{cu} index the only "
                f"one, then {_SOLVE}",
            )
        )
        return
    version = f"{pinned.split('+')[0].removesuffix('.*') or '0'}+cu{cu}"
    out.add(_pip("torch", version, p.line), f"{p.text} (from the cu{cu} index, line {line})")


def _tensorflow(p: PipDep, out: SpecCuda) -> None:
    """`tensorflow[and-cuda]`: from 2.15 on its extra installs CUDA 12 wheels, so a lower bound
    at or above 2.15 needs CUDA 12 whatever the solve picks; below, only a solve decides."""
    m = _LOWER.search(p.specifier or "")
    floor = tuple(int(x) for x in m.group("v").split(".")[:2]) if m else ()
    if floor >= _TF_CUDA12:
        out.add(_pip("nvidia-cuda-runtime-cu12", "12", p.line), p.text)
        return
    out.unknown.append(
        (p.line, f"{p.text} asks for a CUDA build whose CUDA version only a solve decides; {_SOLVE}")
    )
