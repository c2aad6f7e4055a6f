"""PyTorch environment templates: the compatibility matrix as data, and options -> environment file.

The matrix and the template files live in the top-level `templates/` directory of the source tree
(`templates/pytorch/matrix.json`, `templates/pytorch/<style>.yml.in`); an installed wheel carries
the same files as package data under `envkit/_templates/` (see `templates_dir`).

Public API (pure; nothing here prints or runs a program, except `detect_gpu`):

* `load_matrix(path=None) -> Matrix`: the matrix, cached.  Useful calls for other modules::

      m = load_matrix()
      m.companions("2.7.1")            # {"torchvision": "0.22", "torchaudio": "2.7"}
      m.is_compatible("2.7.1", "torchvision", "0.22.1")   # True (None: torch unknown)
      m.cuda_variants("2.7", "pip")    # ("11.8", "12.6", "12.8")
      m.cuda_variants("2.7", "conda-forge")
      m.pythons("2.7"), m.default_cuda("2.7", "pip"), m.min_driver("12.6")

* `plan_pytorch(matrix, options) -> TemplatePlan`: resolve defaults and refuse impossible
  combinations (UsageError listing what is possible, e.g.
  ``torch 2.7 has no CUDA 12.1 build; available: 11.8, 12.6, 12.8``);
* `render(plan) -> str`: the environment.yml text (byte-stable);
* `to_envspec(plan) -> EnvSpec`: the same environment as a model;
* `detect_gpu()` / `pick_detected_cuda(...)`: `--detect` (nvidia-smi, then py-rattler's `__cuda`);
* `render_list(matrix)`, `render_compatibility_markdown(matrix)`: `template list` and
  docs/compatibility.md.
"""
from __future__ import annotations

import json
import os
import re
import shlex
import textwrap
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Callable, Iterable, Mapping

from envkit.errors import EnvkitError, ParseError, UsageError, Where

if TYPE_CHECKING:  # pragma: no cover
    from envkit.model import EnvSpec

STYLES = ("conda-forge", "pip", "pytorch-channel")
DEFAULT_STYLE = "conda-forge"
DEFAULT_WITH = ("torchvision", "torchaudio")
COMPANIONS = ("torchvision", "torchaudio")

STYLE_HELP = {
    "conda-forge": "everything from conda-forge: pytorch=<ver>.*=cuda* (or =cpu*), cuda-version",
    "pip": "Python from conda-forge, torch from download.pytorch.org in the pip section",
    "pytorch-channel": "the legacy pytorch channel (-c pytorch -c nvidia): torch <= 2.5 only",
}

_MATRIX_FILE = "pytorch/matrix.json"


# ------------------------------------------------------------------------------------------------
# Locating the data


def templates_dir() -> Path:
    """The directory holding the matrix and template files.

    Looked up, in order: package data of an installed wheel (`envkit/_templates/`), then the
    source checkout's top-level `templates/` (editable installs and running from the repo).
    Raises EnvkitError when neither has the matrix.
    """
    here = Path(__file__).resolve().parent
    candidates = (here / "_templates", here.parent / "templates")
    for cand in candidates:
        if (cand / _MATRIX_FILE).is_file():
            return cand
    raise EnvkitError(
        "the PyTorch compatibility matrix is missing: looked for "
        + " and ".join(str(c / _MATRIX_FILE) for c in candidates),
        hint="reinstall envkit; a wheel must ship envkit/_templates/ (see templates/README.md)",
    )


# ------------------------------------------------------------------------------------------------
# Versions


def vkey(version: str) -> tuple[int, ...]:
    """A sort key for dotted numeric versions (`12.10` after `12.9`); non-numeric parts are 0."""
    out = []
    for part in version.split("."):
        m = re.match(r"\d+", part)
        out.append(int(m.group()) if m else 0)
    return tuple(out)


_MINOR = re.compile(r"^\s*v?(\d+)\.(\d+)(?:\.(\d+))?")


def torch_minor(version: str) -> str | None:
    """`2.7.1+cu126` -> `2.7`; None when `version` does not start with major.minor."""
    m = _MINOR.match(version or "")
    return f"{int(m.group(1))}.{int(m.group(2))}" if m else None


def normalize_cuda(text: str) -> str:
    """`12.6`, `12.6.3`, `cu126`, `126` -> `12.6`.  Raises UsageError for anything else."""
    s = text.strip().lower()
    if s.startswith("cu") and not s.startswith("cuda"):
        s = s[2:]
    elif s.startswith("cuda"):
        s = s[4:].lstrip("-= ")
    m = re.fullmatch(r"(\d{1,2})\.(\d{1,2})(?:\.\d+)?", s)
    if m:
        return f"{int(m.group(1))}.{int(m.group(2))}"
    if s.isdigit() and len(s) in (2, 3):  # cu92, cu126: the last digit is the minor
        return f"{int(s[:-1])}.{int(s[-1])}"
    raise UsageError(f"invalid CUDA version {text!r}; write it as major.minor, e.g. 12.6")


def _join(items: Iterable[str]) -> str:
    return ", ".join(items)


# ------------------------------------------------------------------------------------------------
# The matrix


@dataclass(frozen=True, slots=True, kw_only=True)
class Release:
    """One PyTorch minor release and its official wheels (download.pytorch.org)."""

    torch: str
    torchvision: str
    torchaudio: str
    python: tuple[str, ...]
    cuda: tuple[str, ...]
    experimental_cuda: tuple[str, ...] = ()
    default_cuda: str = ""
    default_cuda_source: str = ""
    note: str = ""
    sources: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True, kw_only=True)
class ChannelRow:
    """A torch minor release on a conda channel (conda-forge or the legacy pytorch channel)."""

    torch: str
    cuda: tuple[str, ...]
    default_cuda: str
    cuda_package: str = ""
    note: str = ""
    sources: tuple[str, ...] = ()
    python: tuple[str, ...] = ()  # when the channel lacks some of the official wheels' Pythons


@dataclass(frozen=True, slots=True, kw_only=True)
class Matrix:
    """The compatibility matrix (templates/pytorch/matrix.json), rows oldest to newest."""

    releases: tuple[Release, ...]
    conda_forge: tuple[ChannelRow, ...]
    pytorch_channel: tuple[ChannelRow, ...]
    pytorch_channel_last: str
    pytorch_channel_pins: tuple[tuple[str, str, tuple[str, ...]], ...]  # (spec, why, sources)
    drivers: tuple[tuple[str, str, tuple[str, ...]], ...]  # (cuda, min driver, sources)
    sources: tuple[tuple[str, str, str], ...]  # (key, title, url)
    wheel_index: str
    pypi_index: str
    torchaudio_stable_abi_from: str
    path: str = field(default="", compare=False)

    # -- lookups -------------------------------------------------------------------------------

    def torch_versions(self, style: str | None = None) -> tuple[str, ...]:
        """Torch minor versions (oldest first) available in `style` (all when None)."""
        if style in (None, "pip"):
            return tuple(r.torch for r in self.releases)
        return tuple(r.torch for r in self._rows(style))

    def newest(self, style: str | None = None) -> str:
        """The newest torch minor version `style` offers."""
        return self.torch_versions(style)[-1]

    def release(self, torch: str) -> Release:
        """The Release row of `torch` (`2.7`, `2.7.1`, `2.7.1+cu126`).

        Raises UsageError naming the known versions when there is none.
        """
        minor = torch_minor(torch)
        for r in self.releases:
            if r.torch == minor:
                return r
        raise UsageError(f"unknown torch version {torch}; known: {_join(self.torch_versions())}")

    def find_release(self, torch: str) -> Release | None:
        """Like `release` but None instead of an error."""
        minor = torch_minor(torch)
        return next((r for r in self.releases if r.torch == minor), None)

    def companions(self, torch: str) -> dict[str, str]:
        """The torchvision and torchaudio minor versions made for `torch` (any patch/local form).

        Raises UsageError for an unknown torch version.
        """
        r = self.release(torch)
        return {"torchvision": r.torchvision, "torchaudio": r.torchaudio}

    def is_compatible(self, torch: str, package: str, version: str) -> bool | None:
        """Whether `package` (torchvision or torchaudio) at `version` works with `torch`.

        torchvision must be the minor release made for that torch.  torchaudio too, except that
        from 2.11 on (stable ABI) a torchaudio >= 2.11 works with every torch at least as new.
        Returns None when torch or the package is unknown to the matrix.
        """
        r = self.find_release(torch)
        minor = torch_minor(version)
        if r is None or minor is None or package not in COMPANIONS:
            return None
        want = r.torchvision if package == "torchvision" else r.torchaudio
        if minor == want:
            return True
        if package == "torchaudio":
            stable = vkey(self.torchaudio_stable_abi_from)
            return vkey(minor) >= stable and vkey(minor) <= vkey(r.torch)
        return False

    def pythons(self, torch: str, style: str = "pip") -> tuple[str, ...]:
        """Python versions `torch` supports in `style`: the official wheels' list, or a channel
        row's own `python` where that channel has fewer."""
        row = self._row(torch, style)  # raises for a style without that torch
        if style != "pip" and row.python:
            return row.python
        return self.release(torch).python

    def cuda_variants(self, torch: str, style: str = "pip") -> tuple[str, ...]:
        """CUDA versions `torch` is built for in `style` (oldest first)."""
        if style == "pip":
            return self.release(torch).cuda
        return self._row(torch, style).cuda

    def default_cuda(self, torch: str, style: str = "pip") -> str:
        """The CUDA version `style` picks for `torch` when none is asked for."""
        if style == "pip":
            return self.release(torch).default_cuda
        return self._row(torch, style).default_cuda

    def experimental(self, torch: str, cuda: str) -> bool:
        """True when the release notes mark `cuda` experimental for `torch`'s wheels."""
        return cuda in self.release(torch).experimental_cuda

    def styles(self, torch: str) -> tuple[str, ...]:
        """The styles that offer `torch`."""
        minor = torch_minor(torch)
        return tuple(s for s in STYLES if minor in self.torch_versions(s))

    def min_driver(self, cuda: str) -> str | None:
        """Minimum Linux NVIDIA driver for full support of CUDA `cuda` (`12.6` -> `560.28.03`),
        None if unknown (envkit.cuda_compat's table, which the matrix's `drivers` rows mirror)."""
        from envkit.cuda_compat import min_driver

        return min_driver(cuda)

    def cuda_for_driver(self, driver: str) -> str | None:
        """The highest CUDA that `driver` (`570.86.15`) supports fully (what nvidia-smi prints);
        see envkit.cuda_compat.max_cuda_for_driver for minor-version compatibility."""
        from envkit.cuda_compat import max_full_cuda_for_driver

        return max_full_cuda_for_driver(driver)

    def cuda_package(self, torch: str) -> str:
        """The metapackage selecting CUDA on the pytorch channel: `pytorch-cuda` or `cudatoolkit`."""
        return self._row(torch, "pytorch-channel").cuda_package or "pytorch-cuda"

    # -- internals -----------------------------------------------------------------------------

    def _rows(self, style: str) -> tuple[ChannelRow, ...]:
        if style == "conda-forge":
            return self.conda_forge
        if style == "pytorch-channel":
            return self.pytorch_channel
        raise UsageError(f"unknown style {style!r}; available: {_join(STYLES)}")

    def _row(self, torch: str, style: str):
        release = self.release(torch)
        if style == "pip":
            return release
        for row in self._rows(style):
            if row.torch == release.torch:
                return row
        if style == "pytorch-channel" and vkey(release.torch) > vkey(self.pytorch_channel_last):
            raise UsageError(
                f"the pytorch channel stopped at torch {self.pytorch_channel_last} "
                f"(pytorch/pytorch#138506); torch {release.torch} is not on it",
                hint="use --style conda-forge or --style pip, or --torch "
                     f"{self.pytorch_channel_last} or older",
            )
        versions = self.torch_versions(style)
        raise UsageError(
            f"torch {release.torch} is not in envkit's {style} table; available: {_join(versions)}",
            hint="use --style pip (official wheels) for this torch version",
        )


def load_matrix(path: str | os.PathLike[str] | None = None) -> Matrix:
    """Read the compatibility matrix (default: templates/pytorch/matrix.json) into a Matrix.

    Cached per path.  Raises ParseError naming the file when it is not a valid matrix.
    """
    p = Path(path) if path is not None else templates_dir() / _MATRIX_FILE
    return _load_matrix(str(p.resolve()))


@lru_cache(maxsize=8)
def _load_matrix(path: str) -> Matrix:
    from envkit.io import read_text

    text = read_text(path)
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ParseError(f"invalid JSON: {exc.msg}", where=Where(file=path, line=exc.lineno)) from None
    try:
        return _matrix_from(data, path)
    except (KeyError, TypeError, ValueError) as exc:
        raise ParseError(f"not a valid PyTorch matrix: {exc!r}", where=Where(file=path)) from None


def _t(values) -> tuple[str, ...]:
    return tuple(str(v) for v in values)


def _matrix_from(data: Mapping, path: str) -> Matrix:
    if data.get("schema") != 1:
        raise ValueError(f"schema {data.get('schema')!r} (envkit reads schema 1)")
    sources = data["sources"]
    releases = tuple(
        Release(torch=r["torch"], torchvision=r["torchvision"], torchaudio=r["torchaudio"],
                python=_t(r["python"]), cuda=_t(r["cuda"]),
                experimental_cuda=_t(r.get("experimental_cuda", ())),
                default_cuda=r["default_cuda"], default_cuda_source=r.get("default_cuda_source", ""),
                note=r.get("note", ""), sources=_t(r["sources"]))
        for r in data["releases"]
    )

    def rows(section) -> tuple[ChannelRow, ...]:
        return tuple(ChannelRow(torch=r["torch"], cuda=_t(r["cuda"]), default_cuda=r["default_cuda"],
                                cuda_package=r.get("cuda_package", ""), note=r.get("note", ""),
                                sources=_t(r["sources"]), python=_t(r.get("python", ())))
                     for r in section["releases"])

    m = Matrix(
        releases=tuple(sorted(releases, key=lambda r: vkey(r.torch))),
        conda_forge=tuple(sorted(rows(data["conda_forge"]), key=lambda r: vkey(r.torch))),
        pytorch_channel=tuple(sorted(rows(data["pytorch_channel"]), key=lambda r: vkey(r.torch))),
        pytorch_channel_last=data["pytorch_channel"]["last"],
        pytorch_channel_pins=tuple((p["spec"], p["why"], _t(p["sources"]))
                                   for p in data["pytorch_channel"].get("pins", ())),
        drivers=tuple((d["cuda"], d["min_driver"], _t(d["sources"])) for d in data["drivers"]["rows"]),
        sources=tuple((k, v["title"], v["url"]) for k, v in sources.items()),
        wheel_index=data["wheel_index"],
        pypi_index=data["pypi_index"],
        torchaudio_stable_abi_from=data["torchaudio_stable_abi_from"],
        path=path,
    )
    _validate(m, set(sources))
    return m


def _validate(m: Matrix, source_keys: set[str]) -> None:
    """Internal consistency: defaults among the variants, rows known, every source defined."""
    known = {r.torch for r in m.releases}
    for r in m.releases:
        if r.default_cuda not in r.cuda:
            raise ValueError(f"torch {r.torch}: default CUDA {r.default_cuda} not among {r.cuda}")
        if not set(r.experimental_cuda) <= set(r.cuda) or not r.python or not r.sources:
            raise ValueError(f"torch {r.torch}: bad experimental/python/sources")
    for row in m.conda_forge + m.pytorch_channel:
        if row.torch not in known:
            raise ValueError(f"channel row for unknown torch {row.torch}")
        if row.default_cuda not in row.cuda:
            raise ValueError(f"torch {row.torch}: default CUDA {row.default_cuda} not among {row.cuda}")
        if not row.sources:
            raise ValueError(f"torch {row.torch}: a channel row without sources")
        official = next(r.python for r in m.releases if r.torch == row.torch)
        if not set(row.python) <= set(official):
            raise ValueError(f"torch {row.torch}: channel Pythons {row.python} not among {official}")
    used = {s for r in m.releases for s in r.sources}
    used |= {s for row in m.conda_forge + m.pytorch_channel for s in row.sources}
    used |= {s for _, _, srcs in m.drivers for s in srcs}
    used |= {s for _, _, srcs in m.pytorch_channel_pins for s in srcs}
    missing = used - source_keys
    if missing:
        raise ValueError(f"undefined sources: {sorted(missing)}")


# ------------------------------------------------------------------------------------------------
# Options -> plan


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


_ON = {"pip": "", "conda-forge": " on conda-forge", "pytorch-channel": " on the pytorch channel"}


def plan_pytorch(matrix: Matrix, options: PytorchOptions) -> TemplatePlan:
    """Resolve `options` against `matrix`.

    Raises UsageError for impossible combinations, naming what is possible.
    """
    style = options.style
    if style not in STYLES:
        raise UsageError(f"unknown style {style!r}; available: {_join(STYLES)}")
    if options.cpu and options.cuda:
        raise UsageError("--cuda and --cpu exclude each other")
    torch_req = options.torch.strip() if options.torch else matrix.newest(style)
    if not re.fullmatch(r"\d+\.\d+(\.\d+)?", torch_req):
        raise UsageError(f"invalid torch version {torch_req!r}; write it as 2.7 or 2.7.1")
    release = matrix.release(torch_req)
    matrix._row(release.torch, style)  # a style that lacks this torch raises here
    torch_pin = torch_req if torch_req.count(".") == 2 else release.torch

    pythons = matrix.pythons(release.torch, style)
    python = options.python.strip() if options.python else pythons[-1]
    if python.count(".") > 1:
        python = ".".join(python.split(".")[:2])
    if python not in pythons:
        if python in release.python:  # the wheels have it, this channel does not
            raise UsageError(f"torch {release.torch} has no Python {python} build{_ON[style]}; "
                             f"available: {_join(pythons)}",
                             hint=f"the official wheels have Python {python}: use --style pip")
        raise UsageError(f"torch {release.torch} does not support Python {python}; "
                         f"available: {_join(pythons)}")

    cuda: str | None
    if options.cpu:
        cuda = None
    else:
        variants = matrix.cuda_variants(release.torch, style)
        cuda = normalize_cuda(options.cuda) if options.cuda else matrix.default_cuda(release.torch, style)
        if cuda not in variants:
            where = _ON[style]
            hint = None
            if style != "pip" and cuda in release.cuda:
                hint = f"the official wheels have CUDA {cuda}: use --style pip"
            raise UsageError(f"torch {release.torch} has no CUDA {cuda} build{where}; "
                             f"available: {_join(variants)}", hint=hint)

    with_ = _split_with(options.with_)
    extras = [w for w in with_ if w not in COMPANIONS]
    name = options.name or f"torch-{release.torch}-" + (f"cu{cuda.replace('.', '')}" if cuda else "cpu")

    notes: list[str] = []
    if cuda:
        drv = matrix.min_driver(cuda)
        notes.append(f"Needs an NVIDIA driver >= {drv} (CUDA {cuda})." if drv else
                     f"Needs an NVIDIA driver that supports CUDA {cuda} (no minimum on record).")
        if matrix.experimental(release.torch, cuda) and style == "pip":
            notes.append(f"PyTorch's release notes mark the CUDA {cuda} wheels of torch "
                         f"{release.torch} experimental.")
    else:
        notes.append("CPU only: no CUDA libraries are installed.")

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
            notes.append("The CUDA build needs the __cuda virtual package (an NVIDIA driver); on a "
                         f"machine without one, create it with CONDA_OVERRIDE_CUDA={cuda}.")
        conda += [f"{c}={comp[c]}" for c in COMPANIONS if c in with_]
        conda += extras
    elif style == "pip":
        channels = ("conda-forge", "nodefaults")
        conda = [f"python={python}", "pip"]
        tag = f"cu{cuda.replace('.', '')}" if cuda else "cpu"
        pip = [f"--index-url {matrix.wheel_index}{tag}", f"--extra-index-url {matrix.pypi_index}"]
        pip.append(f"torch=={torch_pin}.*" if torch_pin == release.torch else f"torch=={torch_pin}")
        pip += [f"{c}=={comp[c]}.*" for c in COMPANIONS if c in with_]
        pip += extras
    else:  # pytorch-channel
        # nvidia carries the CUDA libraries pytorch-cuda pulls in; cudatoolkit (1.12) is in defaults
        nvidia = bool(cuda) and matrix.cuda_package(release.torch) == "pytorch-cuda"
        channels = ("pytorch", "nvidia", "defaults") if nvidia else ("pytorch", "defaults")
        conda = [f"python={python}",
                 f"pytorch={torch_pin}" if torch_pin == release.torch else f"pytorch=={torch_pin}"]
        conda += [f"{c}={comp[c]}" for c in COMPANIONS if c in with_]
        conda.append(f"{matrix.cuda_package(release.torch)}={cuda}" if cuda else "cpuonly")
        for spec, why, _ in matrix.pytorch_channel_pins:
            conda.append(spec)
            notes.append(f"{spec}: {why} (pytorch/pytorch#123097).")
        conda += extras
    _check_extras(extras, style, release)

    argv = ["envkit", "template", "pytorch", "--torch", torch_pin]
    argv += ["--cuda", cuda] if cuda else ["--cpu"]
    argv += ["--python", python, "--style", style, "--with", ",".join(with_) or "none", "--name", name]
    if options.output and options.output != "-":
        argv += ["-o", options.output]
    return TemplatePlan(
        style=style, torch=torch_pin, release=release, python=python, cuda=cuda, name=name,
        with_=with_, channels=channels, conda=tuple(conda), pip=tuple(pip), notes=tuple(notes),
        command=" ".join(shlex.quote(a) for a in argv), output=options.output,
        last_pytorch_channel=matrix.pytorch_channel_last,
    )


# Packages the template itself writes: naming one in --with would write it twice, and a second
# spec for it (python=3.11 next to python=3.14) makes the file unsolvable.
_TORCH_NAMES = ("torch", "pytorch", "pytorch-gpu", "pytorch-cpu")
_CUDA_NAMES = ("cuda-version", "pytorch-cuda", "cudatoolkit", "cpuonly")


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
            raise UsageError(f"--with: {e!r}: {name} gets the version made for torch "
                             f"{release.torch} ({made}); write --with {name}")


# ------------------------------------------------------------------------------------------------
# Rendering


_PLACEHOLDER = re.compile(r"\{\{\s*([a-z_]+)(\|raw)?\s*\}\}")


def render_template(text: str, values: Mapping[str, object], *, filename: str = "<template>") -> str:
    """Fill a template: `{{key}}` is a YAML scalar, `{{key|raw}}` is inserted as is.

    A line whose placeholder value is a list is repeated once per item (an empty list or None
    drops the line).  Raises EnvkitError for an unknown key or two list keys on one line.
    """
    from envkit._yaml import scalar

    out: list[str] = []
    for n, line in enumerate(text.splitlines(), 1):
        found = _PLACEHOLDER.findall(line)
        if not found:
            out.append(line)
            continue
        for key, _ in found:
            if key not in values:
                raise EnvkitError(f"template placeholder {{{{{key}}}}} has no value",
                                  where=Where(file=filename, line=n))
        lists = {k for k, _ in found if isinstance(values[k], (list, tuple))}
        if len(lists) > 1:
            raise EnvkitError("a template line may hold one list placeholder",
                              where=Where(file=filename, line=n))
        if any(values[k] is None for k, _ in found):
            continue
        items = list(values[next(iter(lists))]) if lists else [None]

        def fill(m: re.Match, item) -> str:
            key, raw = m.group(1), m.group(2)
            value = item if key in lists else values[key]
            return str(value) if raw else scalar(str(value))

        for item in items:
            out.append(_PLACEHOLDER.sub(lambda m: fill(m, item), line))
    return "\n".join(out) + "\n"


@lru_cache(maxsize=8)
def _template_text(style: str) -> tuple[str, str]:
    from envkit.io import read_text

    path = templates_dir() / "pytorch" / f"{style}.yml.in"
    return read_text(path), str(path)


def render(plan: TemplatePlan) -> str:
    """The environment.yml text for `plan` (same plan, same bytes)."""
    text, filename = _template_text(plan.style)
    where = {"conda-forge": "conda-forge", "pip": "the PyTorch wheel index",
             "pytorch-channel": "the pytorch channel"}[plan.style]
    variant = f"CUDA {plan.cuda}" if plan.cuda else "CPU"
    comps = [c for c in COMPANIONS if c in plan.with_]
    values = {
        "title": f"PyTorch {plan.torch} ({variant}), Python {plan.python}, from {where}.",
        "command": plan.command,
        "notes": [f"# {line}" for n in plan.notes for line in textwrap.wrap(n, width=96)],
        "name": plan.name,
        "channels": list(plan.channels),
        "conda": list(plan.conda),
        "pip": list(plan.pip),
        "wheels": "torch comes" if not comps else f"torch, {' and '.join(comps)} come",
        "last": plan.last_pytorch_channel,
    }
    rendered = render_template(text, values, filename=filename)
    # Generated files are already in `envkit normalize` form (comments kept), so a pre-commit
    # `envkit normalize --check` never fights the generator.
    from envkit.canonical import normalize_text

    return normalize_text(rendered, filename=filename, format="env")


def to_envspec(plan: TemplatePlan) -> EnvSpec:
    """The plan as an EnvSpec (what reading `render(plan)` back gives)."""
    from envkit.conda.channels import parse_channel
    from envkit.conda.matchspec import parse_spec
    from envkit.model import EnvSpec, PipDep

    pip: list[PipDep] = []
    for line in plan.pip:
        if line.startswith("-"):
            pip.append(PipDep(kind="option", text=line, raw=line))
            continue
        from packaging.requirements import Requirement

        req = Requirement(line)
        pip.append(PipDep(kind="requirement", text=line, name=req.name, specifier=str(req.specifier),
                          extras=tuple(sorted(req.extras)), marker=str(req.marker) if req.marker else None,
                          raw=line))
    from envkit.canonical import normalize_spec

    return normalize_spec(EnvSpec(
        name=plan.name,
        channels=tuple(parse_channel(c) for c in plan.channels),
        conda=tuple(parse_spec(s) for s in plan.conda),
        pip=tuple(pip),
        kind="spec",
        has_pip_section=bool(plan.pip),
    ))


# ------------------------------------------------------------------------------------------------
# --detect


@dataclass(frozen=True, slots=True)
class GpuInfo:
    """What the machine's NVIDIA driver offers: the highest CUDA it runs, and its version."""

    cuda: str | None
    driver: str | None
    source: str  # "nvidia-smi", "py-rattler __cuda", "CONDA_OVERRIDE_CUDA", "none"
    detail: str = ""  # why nothing was found


_SMI_DRIVER = re.compile(r"Driver Version:\s*([0-9][0-9.]*)")
_SMI_CUDA = re.compile(r"CUDA Version:\s*([0-9]+\.[0-9]+)")


def parse_nvidia_smi(text: str) -> tuple[str | None, str | None]:
    """(driver version, CUDA version) from `nvidia-smi`'s banner; None for what it lacks."""
    d = _SMI_DRIVER.search(text)
    c = _SMI_CUDA.search(text)
    return (d.group(1) if d else None, c.group(1) if c else None)


def _rattler_cuda() -> str | None:
    from rattler import VirtualPackage, VirtualPackageOverrides

    for vp in VirtualPackage.detect(VirtualPackageOverrides.from_env()):
        g = vp.into_generic()
        if g.name.normalized == "__cuda":
            return str(g.version)
    return None


def detect_gpu(matrix: Matrix, *, environ: Mapping[str, str] | None = None,
               which: Callable[[str], str | None] | None = None,
               run: Callable[..., object] | None = None,
               rattler_cuda: Callable[[], str | None] | None = None) -> GpuInfo:
    """Find the NVIDIA driver's CUDA capability.

    Order: `CONDA_OVERRIDE_CUDA` (conda's own override; empty means no GPU), then `nvidia-smi`
    (driver version and "CUDA Version"), then py-rattler's `__cuda` virtual package detection.
    Never raises for a missing or failing nvidia-smi; returns GpuInfo(cuda=None, ...) then.
    """
    from envkit import _proc

    env = os.environ if environ is None else environ
    which = which or _proc.which
    run = run or _proc.run
    rattler_cuda = rattler_cuda or _rattler_cuda
    if "CONDA_OVERRIDE_CUDA" in env:
        value = env["CONDA_OVERRIDE_CUDA"].strip()
        if not value:
            return GpuInfo(None, None, "CONDA_OVERRIDE_CUDA", "CONDA_OVERRIDE_CUDA is set empty")
        try:
            return GpuInfo(normalize_cuda(value), None, "CONDA_OVERRIDE_CUDA")
        except UsageError:
            raise UsageError(f"CONDA_OVERRIDE_CUDA={value!r} is not a CUDA version",
                             hint="set it to major.minor (12.6), or to nothing for no GPU") from None
    details: list[str] = []
    smi = which("nvidia-smi")
    if smi is None:
        details.append("nvidia-smi not found")
    else:
        try:
            res = run([smi], timeout=30, check=False, what="nvidia-smi")
        except EnvkitError as exc:
            res = None
            details.append(f"nvidia-smi failed: {exc.message}")
        if res is not None:
            if res.ok:
                driver, cuda = parse_nvidia_smi(res.stdout)
                if driver and not cuda:
                    cuda = matrix.cuda_for_driver(driver)
                if cuda:
                    return GpuInfo(cuda, driver, "nvidia-smi")
                details.append("nvidia-smi printed no driver version")
            else:
                last = (res.stdout or res.stderr).strip().splitlines()
                details.append(f"nvidia-smi failed (exit {res.returncode})"
                               + (f": {last[0].strip()}" if last else ""))
    try:
        cuda = rattler_cuda()
    except Exception as exc:  # py-rattler's detection errors are not ours to crash on
        cuda = None
        details.append(f"py-rattler could not detect virtual packages: {exc}")
    if cuda:
        return GpuInfo(normalize_cuda(cuda), None, "py-rattler __cuda")
    details.append("py-rattler reports no __cuda virtual package")
    return GpuInfo(None, None, "none", "; ".join(details))


@dataclass(frozen=True, slots=True)
class Detection:
    """What `--detect` chose: a CUDA version (None: CPU), with notes and warnings to show."""

    cuda: str | None
    messages: tuple[str, ...]
    warnings: tuple[str, ...]


def pick_detected_cuda(matrix: Matrix, torch: str, style: str, gpu: GpuInfo) -> Detection:
    """Pick the highest CUDA variant of `torch` in `style` that `gpu` runs.

    No GPU: CPU, and a message saying so.  A driver too old for every variant: the oldest
    variant, with a warning naming the driver it needs.
    """
    if gpu.cuda is None:
        why = f" ({gpu.detail})" if gpu.detail else ""
        return Detection(None, (f"no NVIDIA GPU detected{why}; generating a CPU environment",), ())
    from envkit.cuda_compat import MINOR_COMPAT_FLOOR, support

    variants = matrix.cuda_variants(torch, style)
    have = f"driver {gpu.driver}, CUDA {gpu.cuda}" if gpu.driver else f"CUDA {gpu.cuda}"

    def full(v: str) -> bool:
        if gpu.driver:
            return support(v, gpu.driver).how == "full"
        return vkey(v) <= vkey(gpu.cuda)  # only the driver's CUDA version is known (__cuda)

    def minor_compat(v: str) -> bool:
        # NVIDIA's minor-version compatibility (envkit.cuda_compat): a CUDA 12.x build runs on any
        # driver >= 525.60.13, not only on the one its toolkit shipped with
        if gpu.driver:
            return support(v, gpu.driver).ok
        return vkey(v)[0] == vkey(gpu.cuda)[0] and vkey(v)[0] in MINOR_COMPAT_FLOOR

    # an experimental variant (new GPUs, whose support needs the newer driver anyway) only with
    # full support; a stable one through minor-version compatibility too
    release = matrix.find_release(torch)
    experimental = set(release.experimental_cuda) if release and style == "pip" else set()
    fitting = [v for v in variants if full(v) or (v not in experimental and minor_compat(v))]
    if fitting:
        chosen = max(fitting, key=vkey)
        notes = [f"detected NVIDIA {have} ({gpu.source}); picked CUDA {chosen}"]
        if vkey(chosen) > vkey(gpu.cuda):
            need = matrix.min_driver(chosen)
            notes.append(f"CUDA {chosen} runs on this driver through NVIDIA's minor-version compatibility "
                         f"(limited feature set); kernels JIT-compiled from PTX need the full driver"
                         f"{f' (>= {need})' if need else ''}")
        return Detection(chosen, tuple(notes), ())
    chosen = min(variants, key=vkey)
    need = matrix.min_driver(chosen)
    need_text = f"an NVIDIA driver >= {need}" if need else f"a driver that supports CUDA {chosen}"
    here = f"driver {gpu.driver} supports CUDA {gpu.cuda}" if gpu.driver else \
        f"driver supports CUDA {gpu.cuda} only"
    warning = (f"CUDA {chosen} needs {need_text}, but this machine's {here} ({gpu.source}); "
               f"update the driver, or use --cpu")
    return Detection(chosen, (f"detected NVIDIA {have} ({gpu.source}); no CUDA variant of torch "
                              f"{torch_minor(torch)} runs on it; picked the oldest, CUDA {chosen}",),
                     (warning,))


# ------------------------------------------------------------------------------------------------
# template list / docs


def _cuda_cell(variants: tuple[str, ...], default: str, experimental: tuple[str, ...] = ()) -> str:
    return ", ".join(v + ("*" if v == default else "") + ("~" if v in experimental else "")
                     for v in variants)


def _py_range(pythons: tuple[str, ...]) -> str:
    return f"{pythons[0]}-{pythons[-1]}" if len(pythons) > 1 else pythons[0]


def _channel_cell(row: ChannelRow) -> str:
    cell = _cuda_cell(row.cuda, row.default_cuda)
    return f"{cell} (py {_py_range(row.python)})" if row.python else cell


def list_rows(matrix: Matrix) -> list[tuple[str, ...]]:
    """Rows of `template list`, newest torch first: torch, torchvision, torchaudio, Python,
    then the CUDA variants of pip, conda-forge and pytorch-channel ('-' where a style lacks it)."""
    cf = {r.torch: r for r in matrix.conda_forge}
    pc = {r.torch: r for r in matrix.pytorch_channel}
    rows = []
    for r in reversed(matrix.releases):
        rows.append((
            r.torch, r.torchvision, r.torchaudio, _py_range(r.python),
            _cuda_cell(r.cuda, r.default_cuda, r.experimental_cuda),
            _channel_cell(cf[r.torch]) if r.torch in cf else "-",
            _cuda_cell(pc[r.torch].cuda, pc[r.torch].default_cuda) if r.torch in pc else "-",
        ))
    return rows


def render_list(matrix: Matrix) -> str:
    """The text of `envkit template list`: the styles, then one line per torch release."""
    lines = ["Styles (--style):"]
    width = max(len(s) for s in STYLES)
    for s in STYLES:
        default = " [default]" if s == DEFAULT_STYLE else ""
        lines.append(f"  {s:<{width}}  {STYLE_HELP[s]}{default}")
    lines.append("")
    header = ("torch", "torchvision", "torchaudio", "python", "pip CUDA", "conda-forge CUDA",
              "pytorch-channel CUDA")
    rows = [header] + list_rows(matrix)
    widths = [max(len(row[i]) for row in rows) for i in range(len(header))]
    for row in rows:
        lines.append("  ".join(cell.ljust(w) for cell, w in zip(row, widths)).rstrip())
    newest = matrix.newest(DEFAULT_STYLE)  # what `template pytorch` picks with no option
    lines += [
        "",
        "* default CUDA of that torch in that style; ~ experimental in PyTorch's release notes.",
        "Every style also has a CPU variant (--cpu).",
        f"Defaults: torch {newest}, Python {matrix.pythons(newest)[-1]}, "
        f"CUDA {matrix.default_cuda(newest, DEFAULT_STYLE)}, style {DEFAULT_STYLE}.",
    ]
    return "\n".join(lines) + "\n"


def render_compatibility_markdown(matrix: Matrix) -> str:
    """docs/compatibility.md: the whole matrix as Markdown tables, every row with its sources."""
    src = {k: (t, u) for k, t, u in matrix.sources}

    def refs(keys: tuple[str, ...]) -> str:
        return ", ".join(f"[{k}]" for k in keys)

    out = [
        "# PyTorch compatibility matrix",
        "",
        "<!-- Generated from templates/pytorch/matrix.json by `python templates/gen_compatibility.py`;"
        " do not edit by hand. -->",
        "",
        "This is the data `envkit template pytorch` renders environments from "
        "(`templates/pytorch/matrix.json`). `*` marks the default CUDA of a release in that style, "
        "`~` a variant PyTorch's release notes call experimental. Every style also has a CPU variant.",
        "",
        "## Official wheels (`--style pip`, download.pytorch.org)",
        "",
        "| torch | torchvision | torchaudio | Python | CUDA | default from | sources |",
        "|---|---|---|---|---|---|---|",
    ]
    for r in reversed(matrix.releases):
        out.append(f"| {r.torch} | {r.torchvision} | {r.torchaudio} | {', '.join(r.python)} | "
                   f"{_cuda_cell(r.cuda, r.default_cuda, r.experimental_cuda)} | "
                   f"{r.default_cuda_source} | {refs(r.sources)} |")
    notes = [f"- torch {r.torch}: {r.note}" for r in reversed(matrix.releases) if r.note]
    out += [""] + (notes + [""] if notes else []) + [
            f"From torchaudio {matrix.torchaudio_stable_abi_from} on, torchaudio is built against "
            "PyTorch's stable ABI and works with that torch and every later one [A].",
            "",
            "## conda-forge (`--style conda-forge`, the default)",
            "",
            "Specs: `pytorch=<ver>.*=cuda*` (or `=cpu*`) and `cuda-version=<X.Y>`, channels "
            "`conda-forge` and `nodefaults`, with `channel_priority: strict`. CUDA builds "
            "(`cuda126_mkl_py312_h…`) depend on the `__cuda` virtual package, so they install only "
            "where an NVIDIA driver is present (or `CONDA_OVERRIDE_CUDA` is set). Python versions "
            "follow the official wheels unless the Python column names fewer.",
            "",
            "| torch | CUDA | Python | sources |",
            "|---|---|---|---|"]
    for row in reversed(matrix.conda_forge):
        py = ", ".join(row.python) if row.python else "as the wheels"
        out.append(f"| {row.torch} | {_cuda_cell(row.cuda, row.default_cuda)} | {py} | {refs(row.sources)} |")
    cf_notes = [f"- torch {row.torch}: {row.note}" for row in reversed(matrix.conda_forge) if row.note]
    if cf_notes:
        out += [""] + cf_notes
    out += ["", "## Legacy `pytorch` channel (`--style pytorch-channel`)", "",
            f"Torch {matrix.pytorch_channel_last} was the last release published there "
            "(pytorch/pytorch#138506); envkit refuses this style for newer torch. Channels "
            "`pytorch`, `nvidia` (CUDA only), `defaults`; CUDA is chosen by the metapackage below, "
            "CPU by `cpuonly`.", "",
            "| torch | CUDA | metapackage | sources |", "|---|---|---|---|"]
    for row in reversed(matrix.pytorch_channel):
        out.append(f"| {row.torch} | {_cuda_cell(row.cuda, row.default_cuda)} | "
                   f"`{row.cuda_package or 'pytorch-cuda'}` | {refs(row.sources)} |")
    for spec, why, keys in matrix.pytorch_channel_pins:
        out += ["", f"Every pytorch-channel template pins `{spec}`: {why} {refs(keys)}."]
    out += ["", "## Minimum NVIDIA driver (Linux)", "",
            "Used by `--detect` and printed in each CUDA template's header.", "",
            "| CUDA | min driver | sources |", "|---|---|---|"]
    for cuda, drv, keys in matrix.drivers:
        out.append(f"| {cuda} | {drv} | {refs(keys)} |")
    out += ["", "## Sources", ""]
    for k, (title, url) in src.items():
        out.append(f"- [{k}] {title}. <{url}>")
    return "\n".join(out) + "\n"
