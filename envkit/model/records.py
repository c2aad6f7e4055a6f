"""The records of envkit's environment model (see envkit.model)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # pragma: no cover
    from typing import Literal

    Manager = Literal["conda", "pip"]
    PipKind = Literal["requirement", "url", "vcs", "path", "option"]

# The model's own canonical texts live here, below every other module (envkit.conda.matchspec
# parses specs, envkit.conda.names maps names; both import these, the model imports neither).
_SIMPLE_VERSION = re.compile(r"[A-Za-z0-9_.+!]+")
_PEP503_SEP = re.compile(r"[-_.]+")


def pep503(name: str) -> str:
    """PEP 503 normalized project name: lowercase, runs of `-_.` become `-`."""
    return _PEP503_SEP.sub("-", name).lower()


#: a depends entry's name ends at the first space, comparison operator or bracket
_DEPEND = re.compile(r"([^\s<>=!~\[]+)\s*(.*)", re.S)


def split_depend(text: str) -> tuple[str, str]:
    """A conda depends entry as a LockedPackage keeps it, (name, spec): `"python >=3.11,<3.12.0a0"`
    -> `("python", ">=3.11,<3.12.0a0")`, `"python>=3.8"` -> `("python", ">=3.8")`, a bare name
    gets `""`."""
    s = text.strip()
    m = _DEPEND.match(s)
    if m is None:  # it starts with an operator: there is no name to take
        return s, ""
    return m.group(1), m.group(2)


def format_spec(dep: CondaDep) -> str:
    """The canonical text of a CondaDep (the rules are in envkit.conda.matchspec's docstring)."""
    prefix = ""
    if dep.channel:
        prefix = f"{dep.channel}/{dep.subdir}::" if dep.subdir else f"{dep.channel}::"
    name = dep.name
    v, b = dep.version, dep.build
    if dep.extra:
        parts = []
        if v is not None:
            parts.append(f"version='{v}'")
        if b is not None:
            parts.append(f"build='{b}'")
        parts.extend(f"{k}='{val}'" for k, val in dep.extra)
        return f"{prefix}{name}[{','.join(parts)}]"
    if b is None:
        if v is None:
            return prefix + name
        if v.endswith(".*") and _SIMPLE_VERSION.fullmatch(v[:-2]):
            return f"{prefix}{name}={v[:-2]}"
        if v.startswith("==") and _SIMPLE_VERSION.fullmatch(v[2:]):
            return f"{prefix}{name}=={v[2:]}"
        if v[0] in "<>!~=":
            return f"{prefix}{name}{v}"
        return f"{prefix}{name} {v}"
    if v is None or v == "*":
        return f"{prefix}{name}=*={b}"
    if v.startswith("==") and _SIMPLE_VERSION.fullmatch(v[2:]):
        return f"{prefix}{name}={v[2:]}={b}"
    if v.endswith(".*") and _SIMPLE_VERSION.fullmatch(v[:-2]):
        # `name=2.7=cuda*` would pin exactly 2.7 (conda reads a version before a build as exact);
        # the `.*` keeps the fuzzy meaning.
        return f"{prefix}{name}={v}={b}"
    return f"{prefix}{name} {v} {b}"


#: Placeholder written where a credential was removed from a URL.
REDACTED = "<TOKEN>"


@dataclass(slots=True, kw_only=True, unsafe_hash=True)
class Channel:
    """A conda channel.

    `name` is the canonical short form where one exists (`conda-forge`, `pytorch`,
    `nvidia/label/cuda-11.7.0`, `defaults`, `nodefaults`) and otherwise the URL without credentials.
    `url` is the full base URL without credentials (empty for `defaults`/`nodefaults`, which are
    not URLs).  `had_credentials` records that a token or user:password was removed.
    `redacted_url` is how the channel is written back when its URL carries a credential: the base URL
    with each credential where it was, replaced by its placeholder (`/t/<TOKEN>/`,
    `<USER>:<PASSWORD>@`, `<TOKEN>@`, `?token=<TOKEN>`) or kept when it is an environment-variable
    reference (`/t/${TOKEN}/`, as conda-lock writes); "" when there is none.  It takes no part in
    equality: the channel is the same whatever credential reaches it.
    """

    name: str
    url: str = ""
    had_credentials: bool = False
    redacted_url: str = field(default="", compare=False)

    def __str__(self) -> str:
        return self.name


@dataclass(slots=True, kw_only=True, unsafe_hash=True)
class CondaDep:
    """One conda dependency: a match spec, split into its parts.

    `version` and `build` are conda version/build specs as conda's MatchSpec normalizes them
    (`numpy=1.26` has version `1.26.*`; `numpy=1.26.4=py311h0_0` has version `==1.26.4`).
    `extra` holds the other bracket keys (`build_number`, `md5`, `sha256`, `license`, ...) in a
    canonical order.  `raw` is the text as written; `line` where it was written.
    """

    name: str
    version: str | None = None
    build: str | None = None
    channel: str | None = None
    subdir: str | None = None
    extra: tuple[tuple[str, str], ...] = ()
    raw: str = field(default="", compare=False)
    line: int | None = field(default=None, compare=False)

    def spec(self) -> str:
        """The canonical match-spec string for this dependency (see `format_spec`)."""
        return format_spec(self)

    def __str__(self) -> str:
        return self.spec()


@dataclass(slots=True, kw_only=True, unsafe_hash=True)
class PipDep:
    """One entry of a pip section or requirements file.

    kind:
      - "requirement": a PEP 508 requirement (`name[extras]>=1; marker`), `name`/`specifier`/`extras`/
        `marker` filled in;
      - "url": `name @ https://...` or a bare archive URL;
      - "vcs": `git+https://...` (with `#egg=name` when given);
      - "path": a local path (`.`, `../pkg`, `./dist/x.whl`);
      - "option": a pip option line kept as such (`--index-url URL`, `-r file.txt`, `--pre`, `-f URL`).
    `editable` marks `-e` entries.  `name` is as written; `key` is its PEP 503 normalized form.
    `text` is the canonical text of the entry (credentials redacted).
    """

    kind: PipKind
    text: str
    name: str | None = None
    specifier: str = ""
    extras: tuple[str, ...] = ()
    marker: str | None = None
    url: str | None = None
    editable: bool = False
    raw: str = field(default="", compare=False)
    line: int | None = field(default=None, compare=False)

    @property
    def key(self) -> str | None:
        """PEP 503 normalized project name, or None when the entry names no project."""
        if self.name is None:
            return None
        return pep503(self.name)

    def __str__(self) -> str:
        return self.text


@dataclass(slots=True, kw_only=True, unsafe_hash=True)
class EnvSpec:
    """An environment.yml (hand-written or `conda env export`), or a requirements file.

    `channels` keep their order: it is priority.  `variables` keep theirs.  `prefix` is the path
    of a `prefix:` line when the file had one.  `platforms` is conda-lock's non-standard top-level
    key.  `kind` says what the file looked like: "spec" (hand-written, loose), "export" (every conda
    entry `name=version=build`), or "requirements" (pip only).  `lines` maps top-level keys to the
    line they start on.
    """

    name: str | None = None
    channels: tuple[Channel, ...] = ()
    conda: tuple[CondaDep, ...] = ()
    pip: tuple[PipDep, ...] = ()
    variables: tuple[tuple[str, str], ...] = ()
    prefix: str | None = None
    platforms: tuple[str, ...] = ()
    kind: Literal["spec", "export", "requirements"] = "spec"
    has_pip_section: bool = False
    source: str | None = field(default=None, compare=False)
    lines: tuple[tuple[str, int], ...] = field(default=(), compare=False)
    #: other top-level keys, in file order, as (key, value as canonical JSON text): kept, never dropped
    extra: tuple[tuple[str, str], ...] = ()
    #: `lines` as a dict, each key's first line: built at the first `line_of` (callers ask once per
    #: key, and a file may have thousands)
    _line_index: dict[str, int] | None = field(default=None, init=False, repr=False, compare=False)

    def line_of(self, key: str) -> int | None:
        index = self._line_index
        if index is None:
            index = self._line_index = dict(reversed(self.lines))
        return index.get(key)

    def conda_by_name(self) -> dict[str, CondaDep]:
        """name -> dependency (the last one wins when a name is repeated)."""
        return {d.name: d for d in self.conda}


@dataclass(slots=True, kw_only=True, unsafe_hash=True)
class LockedPackage:
    """One exact package of a lock, an explicit file or a live environment.

    `platform` is the platform the package was locked for (linux-64, osx-arm64, ...); `subdir` is
    where the artifact lives (the same, or `noarch`).  For pip packages `build`, `build_number` and
    `subdir` are None, `channel` is None, and `url`/`sha256` are filled when known.
    `depends` keeps (name, spec) pairs in the order recorded.  `requested` is True when the user
    asked for it (history or spec), None when unknown.
    """

    manager: Manager
    name: str
    version: str
    build: str | None = None
    build_number: int | None = None
    channel: str | None = None
    platform: str | None = None
    subdir: str | None = None
    url: str | None = None
    md5: str | None = None
    sha256: str | None = None
    depends: tuple[tuple[str, str], ...] = ()
    #: a live conda record's `constrains` (no lock format carries them: not part of equality)
    constrains: tuple[str, ...] = field(default=(), compare=False)
    category: str = "main"
    optional: bool = False
    editable: bool = False
    #: pip only: the PEP 508 marker under which the package is installed (a pylock.toml entry's
    #: `marker`); None means always
    marker: str | None = None
    #: pip only: the package index it was locked from (pylock `index`, uv.lock `source.registry`)
    index: str | None = None
    #: pip only: (url, sha256) of further artifacts of the same release that a cross-platform lock
    #: lists (the other wheels, the sdist), in file order; `url`/`sha256` hold the first
    other_files: tuple[tuple[str, str | None], ...] = ()
    requested: bool | None = field(default=None, compare=False)
    line: int | None = field(default=None, compare=False)
    #: conda only: the record's `license` as written, where the source records it (a live prefix)
    license: str | None = field(default=None, compare=False)
    #: the package URLs the source records for it (pixi.lock's `purls:`: a conda package's PyPI identity)
    purls: tuple[str, ...] = field(default=(), compare=False)

    @property
    def key(self) -> tuple[str, str]:
        """Identity within one platform: (manager, name)."""
        return (self.manager, self.name)

    def pin(self) -> str:
        """`name==version`, or the name alone when no version is locked (a path install)."""
        return f"{self.name}=={self.version}" if self.version else self.name

    def conda_form(self) -> str:
        """`channel::name=version=build` (conda packages) or `name==version` (pip)."""
        if self.manager == "pip":
            return f"{self.name}=={self.version}"
        head = f"{self.channel}::" if self.channel else ""
        tail = f"={self.build}" if self.build else ""
        return f"{head}{self.name}={self.version}{tail}"


@dataclass(slots=True, kw_only=True, unsafe_hash=True)
class Lock:
    """A set of exact packages per platform, with what produced it.

    `kind` is the format it came from: "conda-lock", "pixi", "explicit", "conda-list",
    "export" (a `conda env export` with builds) or "live".  `content_hash` maps platform -> hash
    of the spec it was locked from (conda-lock's `metadata.content_hash`).  `sources` are the
    spec files it was made from.  `environment` names the pixi environment when relevant.
    """

    kind: str
    platforms: tuple[str, ...]
    packages: tuple[LockedPackage, ...]
    channels: tuple[Channel, ...] = ()
    content_hash: tuple[tuple[str, str], ...] = ()
    sources: tuple[str, ...] = ()
    environment: str | None = None
    pip_options: tuple[str, ...] = ()
    metadata: tuple[tuple[str, str], ...] = ()
    source: str | None = field(default=None, compare=False)

    def for_platform(self, platform: str) -> tuple[LockedPackage, ...]:
        """The packages locked for `platform`, in lock order."""
        return tuple(p for p in self.packages if p.platform == platform)

    def hash_for(self, platform: str) -> str | None:
        return next((h for p, h in self.content_hash if p == platform), None)


@dataclass(slots=True, kw_only=True, unsafe_hash=True)
class PipDist:
    """A Python distribution found in a live prefix's site-packages that no conda record owns."""

    name: str
    version: str
    installer: str | None = None  # the INSTALLER file: "pip", "uv", "conda", ...
    url: str | None = None  # direct_url.json url
    vcs: str | None = None  # "git", ...
    commit: str | None = None
    editable: bool = False
    sha256: str | None = None
    path: str = ""  # the .dist-info / .egg-info directory


@dataclass(slots=True, kw_only=True, unsafe_hash=True)
class LiveEnv:
    """A snapshot of an installed environment (a conda prefix).

    `packages` holds conda records (manager "conda") then pip distributions (manager "pip").
    `requested` are the specs the user asked for, replayed from conda-meta/history.  `channels`
    are in priority order (from the .condarc search path and the env's own .condarc);
    `channel_priority` is "strict", "flexible", "disabled" or None when unknown.  `warnings` are
    things the reader noticed (a pip dist that overwrote a conda package, an unreadable record).
    """

    prefix: str
    name: str | None
    platform: str
    packages: tuple[LockedPackage, ...]
    pip_dists: tuple[PipDist, ...] = ()
    requested: tuple[CondaDep, ...] = ()
    channels: tuple[Channel, ...] = ()
    channel_priority: str | None = None
    variables: tuple[tuple[str, str], ...] = ()
    python_version: str | None = None
    warnings: tuple[str, ...] = ()
    backend: str = "native"
    #: conda package name -> PyPI project names whose dist-info it owns (derived from the prefix)
    pypi_names: tuple[tuple[str, tuple[str, ...]], ...] = ()
    #: (pip distribution name, conda package name) for each pip install over a conda package's
    #: files: the record's dist-info gone (pip uninstalled it) or rewritten by pip (a reinstall of the
    #: same version).  The native reader fills it; `envkit lock` records it so `envkit create` can
    #: install the pip package over the conda one the same way.
    pip_over_conda: tuple[tuple[str, str], ...] = ()

    def conda_packages(self) -> tuple[LockedPackage, ...]:
        return tuple(p for p in self.packages if p.manager == "conda")

    def pip_packages(self) -> tuple[LockedPackage, ...]:
        return tuple(p for p in self.packages if p.manager == "pip")
