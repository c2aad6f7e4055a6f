"""conda <-> PyPI project names, and finding the same project installed by both managers.

The shipped map (`envkit/data/conda_pypi_names.json`, from conda-forge's grayskull mapping) lists the
conda names whose PyPI name differs after PEP 503 normalization; every other name is assumed to be
the same project on both sides, except the conda packages below that are not the PyPI project of the
same name (conda's `graphviz` is the C library; PyPI's `graphviz` is conda's `python-graphviz`).
In a live environment the exact answer is in the prefix: a conda record that owns
`site-packages/<Name>-<ver>.dist-info` installs PyPI project `<Name>` (pass it as `owned`).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from functools import lru_cache

from envkit.model import pep503

#: conda packages that are not Python projects, whose name PyPI uses for something else.
NOT_THE_PYPI_PROJECT = frozenset(
    {
        "graphviz",
        "zstd",
        "pandoc",
        "jq",
        "ffmpeg",
        "snappy",
        "proj",
        "geos",
        "cairo",
        "curl",
        "git",
        "nodejs",
        "sqlite",
        "xz",
        "yaml",
        "boost",
        "eigen",
        "tk",
        "zlib",
        "hdf5",
        "openssl",
        "libxml2",
        "glib",
        "gdk-pixbuf",
        "poppler",
        "qt",
        "readline",
        "make",
        "gettext",
        "expat",
        "libffi",
        "krb5",
        "icu",
        "lz4-c",
        "pcre",
        "pcre2",
        "freetype",
        "fontconfig",
        "harfbuzz",
        "openjpeg",
        "libpng",
        "libtiff",
        "jpeg",
        "bzip2",
        "ncurses",
        "tzdata",
        "ca-certificates",
    }
)

#: Not in conda-forge's mapping (grayskull_pypi_mapping.json, regro/cf-graph-countyfair) but common in
#: ML environments.
EXTRA_CONDA_TO_PYPI: dict[str, tuple[str, ...]] = {
    "py-opencv": (
        "opencv-python",
        "opencv-python-headless",
        "opencv-contrib-python",
        "opencv-contrib-python-headless",
    ),
    "opencv": (
        "opencv-python",
        "opencv-python-headless",
        "opencv-contrib-python",
        "opencv-contrib-python-headless",
    ),
    "pytorch": ("torch",),
    "pytorch-cpu": ("torch",),
    "pytorch-gpu": ("torch",),
    "tensorflow-base": ("tensorflow",),
    "tensorflow-gpu": ("tensorflow",),
    "tensorflow-cpu": ("tensorflow",),
    "ruamel_yaml": ("ruamel-yaml",),
    "faiss-cpu": ("faiss-cpu",),
    "faiss-gpu": ("faiss-gpu",),
    "pyqt": ("pyqt5", "pyqt4"),
}


@lru_cache(maxsize=1)
def _tables() -> tuple[dict[str, tuple[str, ...]], dict[str, tuple[str, ...]]]:
    import os

    # the package's own data files, beside it (a wheel installs them as files): importlib.resources
    # and the tempfile module it imports would cost a small file's check 5-8 ms, pathlib 2-3 ms
    data = os.path.join(os.path.dirname(os.path.dirname(os.path.realpath(__file__))), "data")
    single = _load_json(os.path.join(data, "conda_pypi_names.json"))
    multi = _load_json(os.path.join(data, "conda_pypi_collisions.json"))
    to_pypi: dict[str, set[str]] = {}
    for conda, pypi in single.items():
        to_pypi.setdefault(conda.lower(), set()).add(pep503(pypi))
    for conda, pypis in multi.items():
        to_pypi.setdefault(conda.lower(), set()).update(pep503(p) for p in pypis)
    for conda, pypis in EXTRA_CONDA_TO_PYPI.items():
        to_pypi.setdefault(conda, set()).update(pep503(p) for p in pypis)
    to_conda: dict[str, set[str]] = {}
    for conda, pypis in to_pypi.items():
        for p in pypis:
            to_conda.setdefault(p, set()).add(conda)
    return (
        {k: tuple(sorted(v)) for k, v in to_pypi.items()},
        {k: tuple(sorted(v)) for k, v in to_conda.items()},
    )


def _load_json(path: str) -> dict:
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def pypi_names_for_conda(
    conda_name: str, extra: Mapping[str, Iterable[str]] | None = None
) -> tuple[str, ...]:
    """The PEP 503 PyPI names that conda package `conda_name` installs (possibly none)."""
    name = conda_name.lower()
    found: set[str] = set()
    if extra and name in extra:
        found.update(pep503(p) for p in extra[name])
    mapped = _tables()[0].get(name)
    if mapped:
        found.update(mapped)
    elif name not in NOT_THE_PYPI_PROJECT and not found:
        found.add(pep503(name))
    return tuple(sorted(found))


def conda_names_for_pypi(pypi_name: str) -> tuple[str, ...]:
    """The conda package names known to install PyPI project `pypi_name` (by the map)."""
    key = pep503(pypi_name)
    names = set(_tables()[1].get(key, ()))
    if key not in _tables()[0] and key not in NOT_THE_PYPI_PROJECT:
        names.add(key)
    return tuple(sorted(names))


@dataclass(frozen=True, slots=True)
class Duplicate:
    """One project that both conda (`conda_name`) and pip (`pip_name`, as written) provide."""

    conda_name: str
    pip_name: str
    project: str  # the PEP 503 PyPI name they share


def find_duplicates(
    conda_names: Iterable[str],
    pip_names: Iterable[str],
    *,
    extra: Mapping[str, Iterable[str]] | None = None,
    owned: Mapping[str, Iterable[str]] | None = None,
) -> list[Duplicate]:
    """Pairs (conda package, pip package) that are the same project, in pip-name order.

    `extra` extends the map with project entries (conda name -> PyPI names).  `owned` is the exact
    map derived from a live prefix (conda name -> PyPI names of the dist-info it owns); where it
    knows a conda package, it replaces the name map for that package.
    """
    by_pypi: dict[str, list[str]] = {}
    owned_norm = {k.lower(): tuple(pep503(p) for p in v) for k, v in (owned or {}).items()}
    pip_names = list(pip_names)
    pip_keys = {pep503(p) for p in pip_names}
    if not pip_keys:
        return []
    mapped = _tables()[0]
    extra_keys = {k.lower() for k in extra} if extra else ()
    for conda in dict.fromkeys(conda_names):
        low = conda.lower()
        if low not in owned_norm and low not in mapped and low not in extra_keys:
            # a name the map does not know is its own PyPI name: skip it (the bulk of a big lock)
            # unless a pip package has that name; a plain name is its own PEP 503 form
            plain = "_" not in low and "." not in low and "--" not in low
            if (low if plain else pep503(low)) not in pip_keys:
                continue
        names = owned_norm.get(low) or pypi_names_for_conda(conda, extra)
        for p in names:
            by_pypi.setdefault(p, []).append(conda)
    out: list[Duplicate] = []
    seen: set[tuple[str, str]] = set()
    for pip_name in pip_names:
        key = pep503(pip_name)
        for conda in by_pypi.get(key, ()):
            if (conda, key) not in seen:
                seen.add((conda, key))
                out.append(Duplicate(conda, pip_name, key))
    return sorted(out, key=lambda d: (d.project, d.conda_name))


def duplicate_warning(d: Duplicate) -> str:
    """The one-line stderr warning every command that reads an environment prints."""
    same = "" if d.conda_name == d.project else f" (conda name of PyPI '{d.project}')"
    return (
        f"'{d.pip_name}' is installed by both conda ('{d.conda_name}'{same}) and pip; "
        f"pip's copy shadows conda's and the solver cannot see it"
    )
