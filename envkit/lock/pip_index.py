"""Which package index a pip artifact came from, and whether that is the index the spec named.

pip merges every index it is given (`--index-url` and each `--extra-index-url`) and takes the best
candidate among them, so when the PyTorch wheel index is unreachable (offline, a proxy) pip falls back,
silently, to PyPI's torch, a different build (PyPI's Linux wheels need the CUDA runtime wheels of
PyTorch's default CUDA).  A lock must record where each artifact came from, and fail rather than
record the fallback.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from envkit.conda.buildstr import pytorch_variant
from envkit.conda.families import PYTORCH_INDEX_FAMILY
from envkit.conda.names import pep503

PYPI_SIMPLE = "https://pypi.org/simple"
#: Hosts that serve PyPI's files (the simple index is on pypi.org, the artifacts elsewhere).
_PYPI_FILE_HOSTS = ("files.pythonhosted.org", "pypi.org", "pypi.python.org")
_OPTION = re.compile(r"^(?P<flag>--index-url|-i|--extra-index-url)(?:\s*=\s*|\s+)(?P<url>\S+)$")


def spec_indexes(options: Iterable[str]) -> tuple[str, ...]:
    """The indexes pip searches for a pip section with these option lines, in priority order as
    written: `--index-url` (default PyPI) then each `--extra-index-url`."""
    primary, extra = PYPI_SIMPLE, []
    for text in options:
        m = _OPTION.match(text.strip())
        if not m:
            continue
        url = m.group("url").rstrip("/")
        if m.group("flag") == "--extra-index-url":
            extra.append(url)
        else:
            primary = url
    return tuple(dict.fromkeys([primary, *extra]))


def _host(url: str) -> str:
    m = re.match(r"^[a-z+]+://(?:[^@/]*@)?(?P<host>[^/:]+)", url)
    return m.group("host").lower() if m else ""


def artifact_index(url: str | None, indexes: Sequence[str]) -> str | None:
    """The index of `indexes` that served the artifact at `url`, or None when none of them did (a
    `--find-links` file, a direct URL, or an index envkit does not know the file hosts of)."""
    if not url:
        return None
    variant = pytorch_variant(url)
    for index in indexes:
        if variant and pytorch_variant(index) == variant:
            return index
        base = re.sub(r"/simple/?$", "", index.rstrip("/"))
        if url.startswith(base + "/"):
            return index
    for index in indexes:
        if _host(index) in _PYPI_FILE_HOSTS and _host(url) in _PYPI_FILE_HOSTS:
            return index
    return None


@dataclass(frozen=True, slots=True, kw_only=True)
class IndexMismatch:
    """A pip package locked from another index than the one the spec names for it."""

    name: str
    version: str
    wanted: str  # the index the spec names for it
    got: str | None  # the index the artifact came from (None: not one of the spec's)
    url: str | None


def index_mismatches(
    requested: Iterable[str], locked: Iterable, options: Sequence[str]
) -> list[IndexMismatch]:
    """The pip packages in `locked` (LockedPackage) that the spec's PyTorch wheel index should have
    served and did not: every PyTorch-family project (PYTORCH_INDEX_FAMILY) named in the pip section
    (`requested`, PEP 503 names) when the section names a PyTorch wheel index among `options`."""
    indexes = spec_indexes(options)
    wanted = next((i for i in indexes if pytorch_variant(i)), None)
    if wanted is None:
        return []
    names = {pep503(n) for n in requested} & PYTORCH_INDEX_FAMILY
    return [
        IndexMismatch(name=p.name, version=p.version, wanted=wanted, got=got, url=p.url)
        for p in locked
        if p.manager == "pip"
        and pep503(p.name) in names
        and (got := artifact_index(p.url, indexes)) != wanted
    ]


def index_record(locked: Iterable, options: Sequence[str]) -> dict[str, str]:
    """PEP 503 name -> the index each pip artifact came from (see artifact_index), for the lock."""
    indexes = spec_indexes(options)
    found = {
        pep503(p.name): got for p in locked if p.manager == "pip" and (got := artifact_index(p.url, indexes))
    }
    return dict(sorted(found.items()))


def recorded_indexes(custom: Mapping) -> dict[str, str]:
    """The `envkit.pip_index` record of a lock's custom_metadata (name -> index), {} when absent."""
    from envkit.lock.metadata import recorded_json

    raw = custom.get(INDEX_KEY)
    data = raw if isinstance(raw, dict) else recorded_json(custom, INDEX_KEY)
    return {str(k): str(v) for k, v in data.items()} if data else {}


#: The custom_metadata key a lock records each pip artifact's index under (JSON: name -> index URL).
INDEX_KEY = "envkit.pip_index"
