"""The PyTorch compatibility matrix as data (`templates/pytorch/matrix.json`), and where the
template files are."""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from typing import TYPE_CHECKING

from envkit.conda.families import COMPANIONS
from envkit.conda.versions import minor_text, version_key
from envkit.errors import EnvkitError, ParseError, Remedy, UsageError, Where

if TYPE_CHECKING:  # pragma: no cover
    from pathlib import Path


STYLES = ("conda-forge", "pip", "pytorch-channel")
DEFAULT_STYLE = "conda-forge"
DEFAULT_WITH = COMPANIONS

STYLE_HELP = {
    "conda-forge": "everything from conda-forge: pytorch=<ver>.*=cuda* (or =cpu*), cuda-version",
    "pip": "Python from conda-forge, torch from download.pytorch.org in the pip section",
    "pytorch-channel": "the legacy pytorch channel (-c pytorch -c nvidia): torch <= 2.5 only",
}
#: where a style's builds are, as messages say it ("torch 2.7 has no CUDA 12.1 build on conda-forge")
ON_STYLE = {"pip": "", "conda-forge": " on conda-forge", "pytorch-channel": " on the pytorch channel"}

_MATRIX_FILE = "pytorch/matrix.json"


def templates_dir() -> Path:
    """The directory holding the matrix and template files.

    Looked up, in order: package data of an installed wheel (`envkit/_templates/`), then the
    source checkout's top-level `templates/` (editable installs and running from the repo).
    Raises EnvkitError when neither has the matrix.
    """
    from pathlib import Path

    return Path(_templates_dir())


def _templates_dir() -> str:
    # os.path, not pathlib: `check` reads the matrix, and pathlib is a start-up cost it need not pay
    here = os.path.dirname(os.path.dirname(os.path.realpath(__file__)))  # envkit/
    candidates = (os.path.join(here, "_templates"), os.path.join(os.path.dirname(here), "templates"))
    for cand in candidates:
        if os.path.isfile(os.path.join(cand, _MATRIX_FILE)):
            return cand
    raise EnvkitError(
        "the PyTorch compatibility matrix is missing: looked for "
        + " and ".join(os.path.join(c, _MATRIX_FILE) for c in candidates),
        hint="reinstall envkit; a wheel must ship envkit/_templates/ (see templates/README.md)",
    )


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
        found = self.find_release(torch)
        if found is None:
            raise UsageError(f"unknown torch version {torch}; known: {', '.join(self.torch_versions())}")
        return found

    def find_release(self, torch: str) -> Release | None:
        """Like `release` but None instead of an error."""
        minor = minor_text(torch)
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
        minor = minor_text(version)
        if r is None or minor is None or package not in COMPANIONS:
            return None
        want = r.torchvision if package == "torchvision" else r.torchaudio
        if minor == want:
            return True
        if package == "torchaudio":
            stable = version_key(self.torchaudio_stable_abi_from)
            return version_key(minor) >= stable and version_key(minor) <= version_key(r.torch)
        return False

    def pythons(self, torch: str, style: str = "pip") -> tuple[str, ...]:
        """Python versions `torch` supports in `style`: the official wheels' list, or a channel
        row's own `python` where that channel has fewer."""
        # (_row raises for a style without that torch; its row for pip is the release)
        return self._row(torch, style).python or self.release(torch).python

    def cuda_variants(self, torch: str, style: str = "pip") -> tuple[str, ...]:
        """CUDA versions `torch` is built for in `style` (oldest first)."""
        return self._row(torch, style).cuda

    def default_cuda(self, torch: str, style: str = "pip") -> str:
        """The CUDA version `style` picks for `torch` when none is asked for."""
        return self._row(torch, style).default_cuda

    def experimental(self, torch: str, cuda: str) -> bool:
        """True when the release notes mark `cuda` experimental for `torch`'s wheels."""
        return cuda in self.release(torch).experimental_cuda

    def styles(self, torch: str) -> tuple[str, ...]:
        """The styles that offer `torch`."""
        minor = minor_text(torch)
        return tuple(s for s in STYLES if minor in self.torch_versions(s))

    def cuda_package(self, torch: str) -> str:
        """The metapackage selecting CUDA on the pytorch channel: `pytorch-cuda` or `cudatoolkit`."""
        return self._row(torch, "pytorch-channel").cuda_package or "pytorch-cuda"

    # -- internals -----------------------------------------------------------------------------

    def _rows(self, style: str) -> tuple[ChannelRow, ...]:
        if style == "conda-forge":
            return self.conda_forge
        if style == "pytorch-channel":
            return self.pytorch_channel
        raise UsageError(f"unknown style {style!r}; available: {', '.join(STYLES)}")

    def _row(self, torch: str, style: str):
        release = self.release(torch)
        if style == "pip":
            return release
        for row in self._rows(style):
            if row.torch == release.torch:
                return row
        if style == "pytorch-channel" and version_key(release.torch) > version_key(self.pytorch_channel_last):
            raise UsageError(
                f"the pytorch channel stopped at torch {self.pytorch_channel_last} "
                f"(pytorch/pytorch#138506); torch {release.torch} is not on it",
                hint="use {} or {}, or {} or older",
                remedy=(
                    Remedy(option="style", value="conda-forge"),
                    Remedy(option="style", value="pip"),
                    Remedy(option="torch", value=self.pytorch_channel_last),
                ),
            )
        versions = self.torch_versions(style)
        raise UsageError(
            f"torch {release.torch} is not in envkit's {style} table; available: {', '.join(versions)}",
            hint="use {} (official wheels) for this torch version",
            remedy=Remedy(option="style", value="pip"),
        )


def load_matrix(path: str | os.PathLike[str] | None = None) -> Matrix:
    """Read the compatibility matrix (default: templates/pytorch/matrix.json) into a Matrix.

    Cached per path.  Raises ParseError naming the file when it is not a valid matrix.
    """
    p = os.fspath(path) if path is not None else os.path.join(_templates_dir(), _MATRIX_FILE)
    return _load_matrix(os.path.realpath(p))


@lru_cache(maxsize=8)
def _load_matrix(path: str) -> Matrix:
    from envkit.formats._json import load_json
    from envkit.io import read_text

    data = load_json(read_text(path), path)
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
        Release(
            torch=r["torch"],
            torchvision=r["torchvision"],
            torchaudio=r["torchaudio"],
            python=_t(r["python"]),
            cuda=_t(r["cuda"]),
            experimental_cuda=_t(r.get("experimental_cuda", ())),
            default_cuda=r["default_cuda"],
            default_cuda_source=r.get("default_cuda_source", ""),
            note=r.get("note", ""),
            sources=_t(r["sources"]),
        )
        for r in data["releases"]
    )

    def rows(section) -> tuple[ChannelRow, ...]:
        return tuple(
            ChannelRow(
                torch=r["torch"],
                cuda=_t(r["cuda"]),
                default_cuda=r["default_cuda"],
                cuda_package=r.get("cuda_package", ""),
                note=r.get("note", ""),
                sources=_t(r["sources"]),
                python=_t(r.get("python", ())),
            )
            for r in section["releases"]
        )

    m = Matrix(
        releases=tuple(sorted(releases, key=lambda r: version_key(r.torch))),
        conda_forge=tuple(sorted(rows(data["conda_forge"]), key=lambda r: version_key(r.torch))),
        pytorch_channel=tuple(sorted(rows(data["pytorch_channel"]), key=lambda r: version_key(r.torch))),
        pytorch_channel_last=data["pytorch_channel"]["last"],
        pytorch_channel_pins=tuple(
            (p["spec"], p["why"], _t(p["sources"])) for p in data["pytorch_channel"].get("pins", ())
        ),
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
