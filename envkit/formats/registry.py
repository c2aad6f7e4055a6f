"""Every format envkit reads or writes, each one `Format` record: the one place a format's facts live.

    REGISTRY              the formats, in the order `--format` lists them
    get(name)             one of them (UsageError naming the choices for an unknown name)
    detect(text, name)    the format of a file: the highest-ranked format whose sniff accepts it
    format_of_name(path)  the format a file's name says (the one rule every command's -o follows)
    output_format(...)    the format a command writes to a path: its flag, else the name, else its default

A record says what a format is called (name, how messages name a file of it, its file names), how
it is told from content (`rank` and `sniff`: detection is a max over the ranks of the formats that
accept the text; the file name only breaks ties, through `file_names`), which function reads and
which options the writer takes, who owns files of it (pixi.lock, uv.lock: read, never rewritten),
and what a file of it can carry and hold (convert's loss report and its docs table are built from
`carries` / `holds`).  Adding a format is one record here and its reader/writer module.  Nothing
here imports a reader: this module is imported by every command's option parsing.
"""

from __future__ import annotations

import fnmatch
import importlib
import os
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING

from envkit.errors import ParseError, Remedy, UsageError, Where

if TYPE_CHECKING:
    from envkit.model import EnvSpec, Lock


class Probe:
    """What the sniffers look at, computed once and only when asked for."""

    def __init__(self, text: str, filename: str | None) -> None:
        self.text = text
        self.base = os.path.basename(filename or "").lower()
        self.head = text.lstrip("\ufeff \t\r\n")

    @cached_property
    def keys(self) -> frozenset[str]:
        # anchored on a literal newline (the text is searched with one prepended): much faster on
        # big files than a MULTILINE `^`, which tries every position
        return frozenset(_TOP_KEY.findall("\n" + self.text))

    def content(self) -> Iterator[str]:
        """The text's non-blank, non-comment lines, stripped, lazily (a big file is never split)."""
        return (c for c in (ln.strip() for ln in self.text.splitlines()) if c and not c.startswith("#"))

    @cached_property
    def empty(self) -> bool:
        return next(self.content(), None) is None


@dataclass(frozen=True, slots=True, kw_only=True)
class Format:
    """One format.  `reader` / `writer` are "module:function" in envkit.formats (None: never read /
    a writer write_text calls itself); `write_options` the options write_text takes (None: read,
    never written); `spec` whether it reads as an EnvSpec (else a Lock); `owner` the tool that owns
    its files (envkit reads them and does not rewrite them); `carries` / `holds` convert's features
    (envkit.convert.FEATURES) that a file read from / written to it can have; `convert_rank` its
    place in convert's target list."""

    name: str
    title: str
    reader: str | None = None
    writer: str | None = None
    spec: bool = False
    write_options: tuple[str, ...] | None = None
    file_names: tuple[str, ...] = ()
    rank: int = 0
    sniff: Callable[[Probe], bool] | None = None
    owner: str | None = None
    carries: frozenset[str] = field(default_factory=frozenset)
    holds: frozenset[str] = field(default_factory=frozenset)
    convert_rank: int | None = None
    #: whether the reader picks one of several environments (`environment=`)
    environments: bool = False

    @property
    def reads(self) -> bool:
        return self.reader is not None

    @property
    def writes(self) -> bool:
        return self.write_options is not None

    def read(
        self, text: str, filename: str | None = None, *, environment: str | None = None
    ) -> EnvSpec | Lock:
        """The model of `text` (EnvSpec or Lock); the readers' ParseError family for bad input."""
        if self.reader is None:
            raise UsageError(f"envkit writes {self.name} but does not read it")
        module, func = self.reader.split(":")
        fn: Callable[..., EnvSpec | Lock] = getattr(importlib.import_module(f"envkit.formats.{module}"), func)
        if self.environments:
            return fn(text, filename, environment=environment)
        return fn(text, filename)


# -- sniffers: each says whether the text is of its format, given that no higher-ranked format
# claimed it (the ranks encode that order)

_TOP_KEY = re.compile(r"\n([A-Za-z_][A-Za-z0-9_-]*)[ \t]*:")
_EXPLICIT = r"(?m)^[ \t]*@EXPLICIT[ \t]*\r?$"
_ITEM = r"(?m)^[ \t]*- "
_KEY_LINE = r"^[A-Za-z_][A-Za-z0-9_-]*:\s"
_EXPORT_LINE = r"^(?:[^\s:]+::)?[^\s=#]+=[^\s=]+=[^\s=]+$"
# TOML locks: PEP 751's required `lock-version`, uv.lock's `version = N` with `[[package]]` tables
# (each `^word` written `word(?<=^word)`: searched for as a literal, not tried at every character)
_PYLOCK = r"(?m)lock-version(?<=^lock-version)[ \t]*="
_UV_LOCK = r"(?m)\[\[package\]\](?<=^\[\[package\]\])[ \t]*(?:#.*)?$"
_UV_VERSION = r"(?m)version(?<=^version)[ \t]*=[ \t]*\d"
# a JSON environment (`conda export --format environment-json`, `conda env export --json`)
_JSON_ENV = r'^\{\s*"(?:name|channels|dependencies|prefix|variables)"\s*:'
_REQ_LINE = r"^(?:-[A-Za-z-]|[A-Za-z0-9][A-Za-z0-9._-]*\s*(?:\[|[<>=!~;@]|$)|git\+|https?://|\.|/)"
_YAML_NULLS = frozenset({"null", "Null", "NULL", "~", "---", "--- null", "--- ~", "..."})


def _conda_lock_shaped(p: Probe) -> bool:
    return "version" in p.keys and bool(p.keys & {"package", "metadata"}) and "environments" not in p.keys


def _legacy_pixi(p: Probe) -> bool:
    """A pixi.lock version 1 to 3: conda-lock's shape (see pixilegacy.conda_lock_shaped)."""
    if not _conda_lock_shaped(p):
        return False  # the common case, without importing the reader
    from envkit.formats.pixilegacy import conda_lock_shaped

    return conda_lock_shaped(p.text)


def _env(p: Probe) -> bool:
    if p.head.startswith("{") and re.match(_JSON_ENV, p.head):
        return True  # JSON is YAML: the env reader reads it
    keys = p.keys
    if keys & {"dependencies", "channels"} or ("name" in keys and re.search(_ITEM, p.text)):
        return True
    # a YAML document that is null (`null`), not a requirement on a package `null`
    return not p.empty and all(c in _YAML_NULLS for c in p.content())


def _conda_list_export(p: Probe) -> bool:
    export_line = re.compile(_EXPORT_LINE).match
    return not p.empty and all(export_line(c) and "[" not in c for c in p.content())


def _conda_requirements(p: Probe) -> bool:
    from envkit.formats.condareq import MARKER, looks_conda

    return not p.empty and (MARKER in p.text or looks_conda(p.content()))


def _requirements(p: Probe) -> bool:
    req_line, key_line = re.compile(_REQ_LINE).match, re.compile(_KEY_LINE).match
    return not p.empty and all(
        req_line(c) and not c.startswith("- ") and not key_line(c) for c in p.content()
    )


# -- what files of each format can carry and hold (convert.FEATURES)

_LOCKS = frozenset(
    {"conda", "pip", "platforms", "hashes", "urls", "pip-urls", "depends", "channels", "indexes"}
)
_NO_URL = frozenset({"conda-no-url", "pip-no-url"})
_ENV = frozenset({"conda", "pip", "channels", "indexes"}) | _NO_URL
_EXPLICIT_FEATURES = frozenset({"conda", "pip", "hashes", "urls", "pip-urls", "pip-no-version"})
_CONDA_LIST = frozenset({"conda", "pip"}) | _NO_URL
_PYLOCK_FEATURES = frozenset(
    {"pip", "hashes", "pip-urls", "depends", "editable", "markers", "indexes", "pip-no-version"}
)

# manifests: pixi.toml / [tool.pixi] (read by envkit.formats.pixitoml), pyproject.toml (pyproject)
_PIXI_HEADER = (
    r"(?m)^\[(?:tool\.pixi[.\]]|workspace\]|project\]|feature\.|environments[.\]]|dependencies\]"
    r"|pypi-dependencies\]|tasks\]|target\.)"
)
_CHANNELS_KEY = r"(?m)^channels\s*="


def _table_lines(text: str) -> bool:
    """Whether the first 64 KiB of `text` may hold a TOML table header, a line starting with `[` (a
    substring test at C speed: a MULTILINE `^` search tries every character of a YAML lock)."""
    return text.startswith("[") or text.find("\n[", 0, 65536) >= 0


def _pixi_manifest(p: Probe) -> bool:
    if p.base == "pixi.toml":
        return True
    if not _table_lines(p.text):
        return False
    head = p.text[:65536]
    return bool(re.search(_PIXI_HEADER, head)) and (
        "[tool.pixi" in head or bool(re.search(_CHANNELS_KEY, head))
    )


_PIXI_MANIFEST = Format(
    name="pixi-manifest",
    title="a pixi manifest (pixi.toml, or pyproject.toml with [tool.pixi])",
    reader="pixitoml:read_pixi_manifest",
    spec=True,
    environments=True,
    file_names=("pixi.toml",),
    rank=94,
    sniff=_pixi_manifest,
    carries=frozenset(
        {"conda", "pip", "channels", "platforms", "indexes", "editable", "conda-no-url", "pip-no-url"}
    ),
    owner="pixi",
)


_TABLE_LINE = r"(?m)^\[{1,2}[A-Za-z_\"'][^\]\n]*\]{1,2}[ \t]*(?:#.*)?$"


def _pyproject(p: Probe) -> bool:
    # a TOML table header on a line of its own; `conda list --json` ([{...}]) has none
    return p.base.endswith(".toml") or (_table_lines(p.text) and bool(re.search(_TABLE_LINE, p.text[:65536])))


_PYPROJECT = Format(
    name="pyproject",
    title="a pyproject.toml",
    reader="pyproject:read_pyproject",
    spec=True,
    environments=True,
    file_names=("pyproject.toml",),
    rank=93,
    sniff=_pyproject,
    carries=frozenset({"pip", "markers", "indexes", "pip-urls", "pip-no-url"}),
    owner="uv",
)


REGISTRY: tuple[Format, ...] = (
    Format(
        name="env",
        title="an environment file",
        reader="envyml:read_env",
        spec=True,
        write_options=("header", "comments", "platform"),
        file_names=("*.yml", "*.yaml"),
        rank=60,
        sniff=_env,
        carries=_ENV,
        holds=_ENV,
        convert_rank=0,
    ),
    Format(
        name="explicit",
        title="an explicit file (@EXPLICIT)",
        reader="explicit:read_explicit",
        writer="explicit:write_explicit",
        write_options=("header", "platform"),
        # conda's `spec-file.txt`, conda-lock's `conda-linux-64.lock` (`*.lock` says only "a lock")
        file_names=("*explicit*", "spec-file*", "*.lock"),
        rank=80,
        sniff=lambda p: "@EXPLICIT" in p.text and bool(re.search(_EXPLICIT, p.text)),
        carries=_EXPLICIT_FEATURES,
        holds=_EXPLICIT_FEATURES,
        convert_rank=2,
    ),
    Format(
        name="conda-lock",
        title="a conda-lock file",
        reader="condalock:read_conda_lock",
        writer="condalock:write_conda_lock",
        write_options=("header", "platform"),
        file_names=("*conda-lock.yml", "*conda-lock.yaml"),
        rank=70,
        sniff=lambda p: _conda_lock_shaped(p) and not _legacy_pixi(p),
        carries=_LOCKS,
        holds=_LOCKS,
        convert_rank=3,
    ),
    Format(
        name="pixi",
        title="a pixi.lock",
        reader="pixilock:read_pixi_lock",
        environments=True,
        write_options=("platform",),
        file_names=("pixi.lock", "*.pixi.lock"),
        rank=70,
        sniff=lambda p: ("version" in p.keys and "environments" in p.keys) or _legacy_pixi(p),
        owner="pixi",
        carries=_LOCKS | {"editable", "pip-no-version"},
        holds=_LOCKS,
        convert_rank=4,
    ),
    Format(
        name="requirements",
        title="a requirements file",
        reader="requirements:read_requirements",
        spec=True,
        write_options=("header", "comments"),
        file_names=("requirements*", "*.in", "*requirements.txt"),
        rank=20,
        sniff=_requirements,
        carries=frozenset(
            {"pip", "hashes", "pip-urls", "editable", "markers", "indexes", "pip-no-url", "pip-no-version"}
        ),
        holds=frozenset({"pip", "hashes", "markers", "editable", "indexes", "pip-no-url", "pip-no-version"}),
        convert_rank=1,
    ),
    Format(
        name="conda-list-json",
        title="`conda list --json` output",
        reader="condalist:read_conda_list_json",
        writer="condalist:write_conda_list_json",
        write_options=("platform",),
        file_names=("*.json",),
        rank=90,
        sniff=lambda p: p.head.startswith("["),
        carries=_CONDA_LIST,
        holds=_CONDA_LIST,
        convert_rank=8,
    ),
    Format(
        name="conda-list-export",
        title="`conda list --export` output",
        reader="condalist:read_conda_list_export",
        writer="condalist:write_conda_list_export",
        write_options=("header", "platform"),
        rank=40,
        sniff=_conda_list_export,
        carries=_CONDA_LIST,
        holds=_CONDA_LIST,
        convert_rank=9,
    ),
    Format(
        name="pylock",
        title="a pylock.toml",
        reader="pylock:read_pylock",
        writer="pylock:write_pylock",
        write_options=("header", "platform"),
        file_names=("pylock.toml", "pylock.*.toml"),
        rank=100,
        # (the substring first: a MULTILINE `^` search tries every character of a big lock)
        sniff=lambda p: "lock-version" in p.text and bool(re.search(_PYLOCK, p.text)),
        carries=_PYLOCK_FEATURES,
        holds=_PYLOCK_FEATURES,
        convert_rank=6,
    ),
    Format(
        name="uv-lock",
        title="a uv.lock",
        reader="uvlock:read_uv_lock",
        file_names=("uv.lock",),
        rank=95,
        sniff=lambda p: (
            ("[[package]]" in p.text or p.base == "uv.lock")  # as above, at C speed
            and bool(re.search(_UV_VERSION, p.text))
            and (bool(re.search(_UV_LOCK, p.text)) or p.base == "uv.lock")
        ),
        owner="uv",
        carries=frozenset({"pip", "hashes", "pip-urls", "depends", "editable", "indexes"}),
    ),
    Format(
        name="conda-requirements",
        title="a conda requirements file (MatchSpec lines)",
        reader="condareq:read_conda_requirements",
        spec=True,
        rank=30,
        sniff=_conda_requirements,
    ),
    Format(
        name="pixi-v7",
        title="a pixi.lock (version 7)",
        write_options=("platform",),
        holds=_LOCKS | {"pip-no-version"},
        convert_rank=5,
    ),
    Format(
        name="cyclonedx",
        title="a CycloneDX SBOM",
        writer="cyclonedx:render_cyclonedx",
        write_options=("platform", "name"),
        file_names=("*.cdx.json", "*.cyclonedx.json", "bom.json", "sbom.json"),
        holds=_LOCKS | _NO_URL | {"editable", "markers", "pip-no-version"},
        convert_rank=7,
    ),
    _PIXI_MANIFEST,
    _PYPROJECT,
)

_BY_NAME = {f.name: f for f in REGISTRY}
#: Sniffers in the order they are asked: the first to accept has the highest rank.
_SNIFFERS = sorted((f for f in REGISTRY if f.sniff is not None), key=lambda f: -f.rank)
#: File names are tried in this order: the most specific first (`*.pixi.lock` before `*.lock`,
#: `*conda-lock.yml` before `*.yml`).
_NAME_ORDER = (
    *("cyclonedx", "pixi", "pylock", "uv-lock", "pixi-manifest", "pyproject", "conda-lock", "env"),
    *("requirements", "explicit", "conda-list-json"),
)
#: patterns that say only a syntax (YAML, JSON) or "a lock": they decide the format of a command
#: that writes it, and leave any other command its default
_GENERIC = frozenset({"*.yml", "*.yaml", "*.json", "*.lock"})


@dataclass(frozen=True, slots=True)
class NamedFormat:
    """The format a file name says (`format`), and whether only its extension said it (`generic`)."""

    format: str
    generic: bool


def format_of_name(path: str) -> NamedFormat | None:
    """The format the name of `path` says, or None: the one rule for what a file name means, for
    every command that writes a file (`pixi.lock`/`*.pixi.lock` pixi, `conda-lock.yml`/
    `*.conda-lock.yml` conda-lock, `pylock.toml`/`pylock.*.toml` pylock (PEP 751), `*.cdx.json`
    CycloneDX, `requirements*.txt` requirements, `*.yml` env, `*.lock` explicit, ...)."""
    base = os.path.basename(path).lower()
    for name in _NAME_ORDER:
        for pattern in _BY_NAME[name].file_names:
            if fnmatch.fnmatchcase(base, pattern):
                return NamedFormat(name, pattern in _GENERIC)
    return None


def output_format(
    path: str | None,
    writes: tuple[str, ...],
    default: str | None,
    *,
    command: str,
    option: str | None,
    hint: str | None = None,
) -> tuple[str | None, bool]:
    """(the format `command` writes to `path`, whether its name decided it) for a command that
    writes the formats `writes` and `default` when the name says none.  A name that says a format
    the command does not write is refused (UsageError naming `option`, the flag that chooses, if any),
    unless only its extension said it (`l.yml` stays the command's default)."""
    named = format_of_name(path) if path and path != "-" else None
    if named is None or (named.generic and named.format not in writes):
        return default, False
    if named.format not in writes:
        f = _BY_NAME[named.format]
        owner = f" ({f.owner}'s own file)" if f.owner else ""
        raise UsageError(
            f"the name {os.path.basename(path or '')!r} says {f.title}{owner}, which `envkit {command}` "
            "does not write",
            where=Where(file=path),
            hint=hint
            or f"it writes {', '.join(writes)}: name the file after one"
            + (f", or choose it with {option}" if option else ""),
        )
    return named.format, named.format != default


def get(name: str) -> Format:
    """The Format called `name`; UsageError naming the formats read for an unknown one."""
    try:
        return _BY_NAME[name]
    except KeyError:
        reads = ", ".join(f.name for f in REGISTRY if f.reads)
        raise UsageError(f"unknown format {name!r}; choose one of: {reads}") from None


def by_file_name(base: str) -> Format | None:
    """The format envkit reads that a file's name says (lower-case base name), or None."""
    named = format_of_name(base)
    return _BY_NAME[named.format] if named is not None and _BY_NAME[named.format].reads else None


def detect(text: str, filename: str | None = None) -> Format:
    """The format of `text`, decided from the content; `filename` only breaks ties (an empty file,
    or text no sniffer accepts).  ParseError when nothing fits; NotAnEnvironmentFile for other YAML."""
    probe = Probe(text, filename)
    for f in _SNIFFERS:
        if f.sniff is not None and f.sniff(probe):
            return _refuse_other_yaml(f, probe, filename)
    named = by_file_name(probe.base)
    if named is not None:
        return _refuse_other_yaml(named, probe, filename)
    if probe.empty:
        return _BY_NAME["env"]
    raise ParseError(
        "cannot tell the format of this file",
        where=Where(file=filename),
        hint=f"pass {{}} (one of: {', '.join(f.name for f in REGISTRY if f.reads)})",
        remedy=Remedy(option="format"),
    )


def _refuse_other_yaml(f: Format, probe: Probe, filename: str | None) -> Format:
    """`f`, unless it is the env format and the text another YAML file (envyml.refuse_other_yaml
    raises): here every command reading a file by its content comes, so each refuses it alike."""
    if f.name != "env" or probe.keys & {"channels", "dependencies"}:
        return f  # (most environment files: no second parse)
    from envkit.formats.envyml import refuse_other_yaml

    refuse_other_yaml(probe.text, filename)
    return f
