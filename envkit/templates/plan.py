"""Template options -> a plan: defaults resolved, impossible combinations refused with what is possible."""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass

from envkit.conda.cuda_compat import min_driver
from envkit.conda.families import CPU_SELECTOR, CUDA_PINS, TORCH_BUILDS
from envkit.conda.versions import minor_text
from envkit.errors import EnvkitError, Remedy, UsageError
from envkit.templates.matrix import (
    COMPANIONS,
    DEFAULT_STYLE,
    DEFAULT_WITH,
    ON_STYLE,
    STYLES,
    Matrix,
    Release,
    normalize_cuda,
)


@dataclass(frozen=True, slots=True, kw_only=True)
class PytorchOptions:
    """What `envkit template pytorch` was asked for; None means "the default"."""

    torch: str | None = None
    cuda: str | None = None
    cpu: bool = False
    python: str | None = None
    style: str = DEFAULT_STYLE
    with_: tuple[str, ...] | None = None
    name: str | None = None
    output: str | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class TemplatePlan:
    """A fully resolved template: every default filled in, every combination checked."""

    style: str
    torch: str  # as pinned: "2.13" (any patch) or "2.13.0"
    release: Release
    python: str
    cuda: str | None  # None: CPU
    name: str
    with_: tuple[str, ...]
    channels: tuple[str, ...]
    conda: tuple[str, ...]  # match specs, as written in the file
    pip: tuple[str, ...]  # pip section lines (options first), empty when no pip section
    notes: tuple[str, ...]  # header comment lines (without "# ")
    command: str  # the envkit command line that regenerates this file
    output: str | None = None
    last_pytorch_channel: str = ""
    warnings: tuple[str, ...] = ()  # said on stderr: what was asked for and left out


def _split_with(values: tuple[str, ...] | None) -> tuple[str, ...]:
    if values is None:
        return DEFAULT_WITH
    out: list[str] = []
    for v in values:
        for part in v.split(","):
            part = part.strip()
            if part.lower() in COMPANIONS:
                part = part.lower()
            if part and part.lower() != "none" and part not in out:
                out.append(part)
    return tuple(out)


def _pick_python(matrix: Matrix, release: Release, style: str, requested: str | None) -> str:
    """The Python minor to write: `requested` (as X.Y) when this style has it, else the newest."""
    pythons = matrix.pythons(release.torch, style)
    python = requested.strip() if requested else pythons[-1]
    python = minor_text(python) or python
    if python not in pythons:
        if python in release.python:  # the wheels have it, this channel does not
            raise UsageError(
                f"torch {release.torch} has no Python {python} build{ON_STYLE[style]}; "
                f"available: {', '.join(pythons)}",
                hint=f"the official wheels have Python {python}: use {{}}",
                remedy=Remedy(option="style", value="pip"),
            )
        raise UsageError(
            f"torch {release.torch} does not support Python {python}; available: {', '.join(pythons)}"
        )
    return python


def _pick_cuda(matrix: Matrix, release: Release, style: str, requested: str | None) -> str:
    """The CUDA variant to write: `requested` when this style has a build of it, else the default."""
    variants = matrix.cuda_variants(release.torch, style)
    cuda = normalize_cuda(requested) if requested else matrix.default_cuda(release.torch, style)
    if cuda not in variants:
        wheels = style != "pip" and cuda in release.cuda
        raise UsageError(
            f"torch {release.torch} has no CUDA {cuda} build{ON_STYLE[style]}; "
            f"available: {', '.join(variants)}",
            hint=f"the official wheels have CUDA {cuda}: use {{}}" if wheels else None,
            remedy=Remedy(option="style", value="pip") if wheels else None,
        )
    return cuda


def _specs(
    matrix: Matrix,
    release: Release,
    style: str,
    torch_pin: str,
    python: str,
    cuda: str | None,
    with_: tuple[str, ...],
    extras: list[str],
    notes: list[str],
) -> tuple[tuple[str, ...], list[str], list[str]]:
    """(channels, conda specs, pip lines) of the style; appends the notes they need to `notes`."""
    channels: tuple[str, ...]
    conda: list[str]
    pip: list[str] = []
    comp = {"torchvision": release.torchvision, "torchaudio": release.torchaudio}
    if style == "conda-forge":
        channels = ("conda-forge", "nodefaults")
        ver = f"{torch_pin}.*" if torch_pin == release.torch else torch_pin
        conda = [f"python={python}", f"pytorch={ver}={'cuda*' if cuda else 'cpu*'}"]
        if cuda:
            conda.append(f"cuda-version={cuda}")
            notes.append(
                "The CUDA build needs the __cuda virtual package (an NVIDIA driver); on a "
                f"machine without one, create it with CONDA_OVERRIDE_CUDA={cuda}."
            )
        conda += [f"{c}={comp[c]}" for c in COMPANIONS if c in with_]
    elif style == "pip":
        channels = ("conda-forge", "nodefaults")
        conda = [f"python={python}", "pip"]
        tag = f"cu{cuda.replace('.', '')}" if cuda else "cpu"
        pip = [f"--index-url {matrix.wheel_index}{tag}", f"--extra-index-url {matrix.pypi_index}"]
        pip.append(f"torch=={torch_pin}.*" if torch_pin == release.torch else f"torch=={torch_pin}")
        pip += [f"{c}=={comp[c]}.*" for c in COMPANIONS if c in with_]
    else:  # pytorch-channel
        # nvidia carries the CUDA libraries pytorch-cuda pulls in; cudatoolkit (1.12) is in defaults
        nvidia = bool(cuda) and matrix.cuda_package(release.torch) == "pytorch-cuda"
        channels = ("pytorch", "nvidia", "defaults") if nvidia else ("pytorch", "defaults")
        conda = [
            f"python={python}",
            f"pytorch={torch_pin}" if torch_pin == release.torch else f"pytorch=={torch_pin}",
        ]
        conda += [f"{c}={comp[c]}" for c in COMPANIONS if c in with_]
        conda.append(f"{matrix.cuda_package(release.torch)}={cuda}" if cuda else "cpuonly")
        for spec, why, _ in matrix.pytorch_channel_pins:
            conda.append(spec)
            notes.append(f"{spec}: {why} (pytorch/pytorch#123097).")
    (pip if style == "pip" else conda).extend(extras)  # the --with names beyond the companions, last
    return channels, conda, pip


def plan_pytorch(matrix: Matrix, options: PytorchOptions) -> TemplatePlan:
    """Resolve `options` against `matrix`.

    Raises UsageError for impossible combinations, naming what is possible.
    """
    style = options.style
    if style not in STYLES:
        raise UsageError(f"unknown style {style!r}; available: {', '.join(STYLES)}")
    if options.cpu and options.cuda:
        raise UsageError("--cuda and --cpu exclude each other")
    torch_req = options.torch.strip() if options.torch else matrix.newest(style)
    if not re.fullmatch(r"\d+\.\d+(\.\d+)?", torch_req):
        raise UsageError(f"invalid torch version {torch_req!r}; write it as 2.7 or 2.7.1")
    release = matrix.release(torch_req)
    torch_pin = torch_req if torch_req.count(".") == 2 else release.torch

    python = _pick_python(matrix, release, style, options.python)
    cuda = None if options.cpu else _pick_cuda(matrix, release, style, options.cuda)

    with_, left_out = _drop_unpaired_torchaudio(matrix, release, _split_with(options.with_))
    warnings = left_out if options.with_ is not None else []  # asked for by name: on stderr too
    extras = [w for w in with_ if w not in COMPANIONS]
    name = options.name or f"torch-{release.torch}-" + (f"cu{cuda.replace('.', '')}" if cuda else "cpu")

    notes = _driver_notes(matrix, release, style, cuda)
    channels, conda, pip = _specs(matrix, release, style, torch_pin, python, cuda, with_, extras, notes)
    notes += left_out
    _check_extras(extras, style, release)

    argv = ["envkit", "template", "pytorch", "--torch", torch_pin]
    argv += ["--cuda", cuda] if cuda else ["--cpu"]
    argv += ["--python", python, "--style", style, "--with", ",".join(with_) or "none", "--name", name]
    if options.output and options.output != "-":
        argv += ["-o", options.output]
    return TemplatePlan(
        style=style,
        torch=torch_pin,
        release=release,
        python=python,
        cuda=cuda,
        name=name,
        with_=with_,
        channels=channels,
        conda=tuple(conda),
        pip=tuple(pip),
        notes=tuple(notes),
        command=" ".join(shlex.quote(a) for a in argv),
        output=options.output,
        last_pytorch_channel=matrix.pytorch_channel_last,
        warnings=tuple(warnings),
    )


def _drop_unpaired_torchaudio(
    matrix: Matrix, release: Release, with_: tuple[str, ...]
) -> tuple[tuple[str, ...], list[str]]:
    """`with_` without torchaudio when its newest release was built with another torch, and the
    note saying so."""
    built_with = next(r.torch for r in matrix.releases if r.torchaudio == release.torchaudio)
    if "torchaudio" not in with_ or built_with == release.torch:
        return with_, []
    # torchaudio's last release (2.11) was built with torch 2.11; a pin of it next to a later
    # torch pairs versions no one built together
    return tuple(w for w in with_ if w != "torchaudio"), [
        f"torchaudio is left out: its newest release, {release.torchaudio}, was built with torch "
        f"{built_with}, not {release.torch}; add it yourself if you rely on its stable-ABI "
        f"promise (https://docs.pytorch.org/audio/stable/installation.html)"
    ]


def _driver_notes(matrix: Matrix, release: Release, style: str, cuda: str | None) -> list[str]:
    """The driver `cuda` needs, or that the environment is CPU-only."""
    if not cuda:
        return ["CPU only: no CUDA libraries are installed."]
    drv = min_driver(cuda)
    notes = [
        f"Needs an NVIDIA driver >= {drv} (CUDA {cuda})."
        if drv
        else f"Needs an NVIDIA driver that supports CUDA {cuda} (no minimum on record)."
    ]
    if matrix.experimental(release.torch, cuda) and style == "pip":
        notes.append(
            f"PyTorch's release notes mark the CUDA {cuda} wheels of torch {release.torch} experimental."
        )
    return notes


# Packages the template itself writes: naming one in --with would write it twice, and a second
# spec for it (python=3.11 next to python=3.14) makes the file unsolvable.
_TORCH_NAMES = tuple(n for n in TORCH_BUILDS if n != "libtorch")
_CUDA_NAMES = CUDA_PINS + (CPU_SELECTOR,)


def _check_extras(extras: list[str], style: str, release: Release) -> None:
    """`--with` names beyond torchvision/torchaudio must be valid specs for where they go, and
    must not name what the template already sets (torch, Python, the CUDA selector, or a
    torchvision/torchaudio version other than the one made for that torch).

    Raises UsageError naming the option to use instead.
    """
    for e in extras:
        if style == "pip":
            from packaging.requirements import InvalidRequirement, Requirement

            from envkit.conda.names import pep503

            try:
                name = pep503(Requirement(e).name)
            except InvalidRequirement as exc:
                raise UsageError(f"--with: invalid pip requirement {e!r}: {exc}") from None
        else:
            from envkit.conda.matchspec import parse_spec

            try:
                name = (parse_spec(e).name or "").lower()
            except EnvkitError as exc:
                raise UsageError(f"--with: {exc.message}") from None
        if name in _TORCH_NAMES:
            raise UsageError(f"--with: {e!r} names torch itself; choose its version with --torch")
        if name == "python":
            raise UsageError(f"--with: {e!r}: the Python version is set with --python")
        if name in _CUDA_NAMES and style != "pip":
            raise UsageError(f"--with: {e!r}: the CUDA variant is set with --cuda or --cpu")
        if name in COMPANIONS:
            made = release.torchvision if name == "torchvision" else release.torchaudio
            raise UsageError(
                f"--with: {e!r}: {name} gets the version made for torch {release.torch} ({made}); "
                f"write --with {name}"
            )
