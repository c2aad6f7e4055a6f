"""envkit's environment model: immutable records shared by every format, backend and command.

Readers (`envkit.formats.*`) produce these, writers consume them, and the cores (normalize, diff,
checks, lock) are functions over them.  Records are frozen, slotted and keyword-only; collections are
tuples so that records compare and hash by value and iteration order is always the file's order.

Positions (`line`) are kept for error messages and findings but never take part in equality: two
files that say the same thing at different lines are equal models.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # pragma: no cover
    from typing import Any, Literal

    Manager = Literal["conda", "pip"]
    PipKind = Literal["requirement", "url", "vcs", "path", "option"]

# The model's own canonical texts live here, below every other module (envkit.conda.matchspec
# parses specs, envkit.conda.names maps names; both import these, the model imports neither).
_SIMPLE_VERSION = re.compile(r"[A-Za-z0-9_.+!]+")
_PEP503_SEP = re.compile(r"[-_.]+")


def pep503(name: str) -> str:
    """PEP 503 normalized project name: lowercase, runs of `-_.` become `-`."""
    return _PEP503_SEP.sub("-", name).lower()


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


@dataclass(frozen=True, slots=True, kw_only=True)
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


@dataclass(frozen=True, slots=True, kw_only=True)
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


@dataclass(frozen=True, slots=True, kw_only=True)
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


@dataclass(frozen=True, slots=True, kw_only=True)
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

    def line_of(self, key: str) -> int | None:
        for k, ln in self.lines:
            if k == key:
                return ln
        return None

    def conda_by_name(self) -> dict[str, CondaDep]:
        """name -> dependency (the last one wins when a name is repeated)."""
        return {d.name: d for d in self.conda}

    def with_(self, **changes: Any) -> EnvSpec:
        return replace(self, **changes)


@dataclass(frozen=True, slots=True, kw_only=True)
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

    def conda_form(self) -> str:
        """`channel::name=version=build` (conda packages) or `name==version` (pip)."""
        if self.manager == "pip":
            return f"{self.name}=={self.version}"
        head = f"{self.channel}::" if self.channel else ""
        tail = f"={self.build}" if self.build else ""
        return f"{head}{self.name}={self.version}{tail}"


@dataclass(frozen=True, slots=True, kw_only=True)
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
        for p, h in self.content_hash:
            if p == platform:
                return h
        return None


@dataclass(frozen=True, slots=True, kw_only=True)
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


@dataclass(frozen=True, slots=True, kw_only=True)
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


# --------------------------------------------------------------------------------------------
# one view over the three models

#: One entry of a `conda env export`: `name=version=build`, or `name=version` (--no-builds).
#: (possessive: no part can give a character back to the next, which starts with one it excludes;
#: a 100,000-entry file's entries are refused without backtracking)
EXPORT_ENTRY = re.compile(
    r"^(?:[^:\s]++::)?(?P<name>[^=\s<>!~*,|\[]++)"
    r"=(?P<version>(?:\d+!)?[^=\s<>!~*,|]++)(?:=(?P<build>[^=\s<>!~*,|\[\]]++))?$"
)


def looks_exported(conda: Sequence[CondaDep], *, has_prefix: bool) -> bool:
    """Whether an environment file's conda entries are a `conda env export`'s: every entry
    `name=version=build`, or (with a `prefix:` line, which conda env export writes) every entry
    `name=version` (--no-builds); or nearly every entry `name=version=build` -- at least 5 of them
    and at most one in ten (at least one) other, the `- pip` or `- pytest` a person added by hand to
    an export (its resolved view keeps those unpinned).  The one definition: the environment.yml
    reader sets `EnvSpec.kind` from it, and `resolved_view` reads that kind."""
    if not conda:
        return False
    with_build = exact = 0
    for d in conda:
        m = EXPORT_ENTRY.match(d.raw.strip())
        if m is None:
            continue
        exact += 1
        if m.group("build"):
            with_build += 1
    if with_build == len(conda) or (has_prefix and with_build == 0 and exact == len(conda)):
        return True
    return with_build >= 5 and len(conda) - with_build <= max(1, len(conda) // 10)


@dataclass(frozen=True, slots=True, kw_only=True)
class Resolved:
    """The concrete view of an environment: exact packages per platform.

    A Lock is one; so is a live environment (its packages, on its platform) and a `conda env
    export` (an EnvSpec of kind "export": its entries as packages, `lock` a Lock(kind="export") for
    the platform asked for, none when none was).  `origin` is the model the view was made from;
    `lock` the Lock it reads as (None for a live environment); `live` the live environment and
    `export` the export it was made from, when it was.  Only `resolved_view` makes these: every
    consumer asks the view its packages, channels and pip options, and a caller that needs what
    only one model records (a live prefix's channel priority, a lock's content hash) finds it on
    `live` or `lock`, never by testing the model's type.
    """

    origin: EnvSpec | Lock | LiveEnv
    lock: Lock | None = None
    live: LiveEnv | None = None
    export: EnvSpec | None = None

    @property
    def kind(self) -> str:
        """The lock's kind ("conda-lock", "pixi", "explicit", "export", ...) or "live"."""
        return self.lock.kind if self.lock is not None else "live"

    @property
    def all_packages(self) -> tuple[LockedPackage, ...]:
        """Every package, every platform, in file order."""
        if self.lock is not None:
            return self.lock.packages
        return self.live.packages if self.live is not None else ()

    @property
    def platforms(self) -> tuple[str, ...]:
        """The platforms it is for: a lock's own list (else those its packages name), a live
        environment's platform; () when nothing says."""
        if self.live is not None:
            return (self.live.platform,) if self.live.platform else ()
        assert self.lock is not None
        if self.lock.platforms:
            return self.lock.platforms
        return tuple(dict.fromkeys(p.platform for p in self.lock.packages if p.platform))

    @property
    def channels(self) -> tuple[Channel, ...]:
        """The channels recorded, in priority order."""
        return self.origin.channels

    @property
    def pip_options(self) -> tuple[str, ...]:
        """The pip options recorded (`--index-url URL`, ...), in order; () for a live environment."""
        return self.lock.pip_options if self.lock is not None else ()

    @property
    def channel_priority(self) -> str | None:
        """A live environment's effective channel priority; None where nothing records one."""
        return self.live.channel_priority if self.live is not None else None

    @property
    def owned(self) -> dict[str, tuple[str, ...]] | None:
        """conda package name -> the PyPI projects whose dist-info it owns (a live prefix's own
        record of it), or None where nothing records it (a lock, an export)."""
        if self.live is None:
            return None
        return dict(self.live.pypi_names)

    def packages(self, platform: str | None = None) -> tuple[LockedPackage, ...]:
        """The packages for `platform` (with those recorded for no platform), in file order; every
        package when `platform` is None.  A live environment is one platform: all of its packages."""
        if platform is None or self.live is not None:
            return self.all_packages
        return tuple(p for p in self.all_packages if p.platform in (platform, None))

    def by_platform(self) -> dict[str, tuple[LockedPackage, ...]]:
        """platform -> its packages in file order ("" for packages recorded for no platform)."""
        if self.live is not None:
            return {self.live.platform: self.live.packages}
        out: dict[str, list[LockedPackage]] = {}
        for p in self.all_packages:
            out.setdefault(p.platform or "", []).append(p)
        return {k: tuple(v) for k, v in out.items()}

    def on(self, platform: str | None) -> str:
        """ " on PLATFORM" where a lock has several platforms (for messages), else ""."""
        if self.lock is not None and platform and len(self.lock.platforms) > 1:
            return f" on {platform}"
        return ""


def resolved_view(
    model: EnvSpec | Lock | LiveEnv | Resolved | None, platform: str | None = None
) -> Resolved | None:
    """The concrete view of `model`, or None for a loose spec (hand-written, requirements).

    The one place that decides what is concrete: a Lock, a live environment, and an EnvSpec the
    reader found to be a `conda env export` (kind "export"; a conda requirements file of exact
    `name==version=build` lines reads as one too).  An export records no platform: its packages get
    `platform` (None: none)."""
    if model is None or isinstance(model, Resolved):
        return model
    if isinstance(model, Lock):
        return Resolved(origin=model, lock=model)
    if isinstance(model, LiveEnv):
        return Resolved(origin=model, live=model)
    spec = env_file(model)  # (None for what is no model at all: the caller's TypeError to raise)
    if spec is not None and spec.kind == "export" and spec.conda:
        return Resolved(origin=spec, lock=_export_lock(spec, platform), export=spec)
    return None


def env_file(model: EnvSpec | Lock | LiveEnv | None) -> EnvSpec | None:
    """`model` when it is an environment file as written (a loose spec, an export, a requirements
    file): what rules about a file's own text (its channel list, pip options, variables, keys) read,
    whether or not it is concrete.  None for a lock or a live environment."""
    return model if isinstance(model, EnvSpec) else None


def loose_spec(model: EnvSpec | Lock | LiveEnv | None) -> EnvSpec | None:
    """`model` when it is a spec that is not concrete (see `resolved_view`), else None."""
    spec = env_file(model)
    return spec if spec is not None and resolved_view(spec) is None else None


def _export_lock(spec: EnvSpec, platform: str | None) -> Lock:
    """An export's entries as a Lock(kind="export") for `platform`.

    Conda entries become conda packages with the exact version and build written; pip entries pinned
    with `==` become pip packages.  Pip entries that pin nothing (a hand-appended `gdown`, a git URL)
    are kept with an empty version, never dropped; so are conda entries that pin nothing exactly (a
    `- pytest` added by hand to an export: version "" and no build).
    """
    pkgs: list[LockedPackage] = []
    for d in spec.conda:
        m = EXPORT_ENTRY.match(d.raw.strip()) if d.raw else None
        if m is not None:
            version, build = m.group("version"), m.group("build")
        elif d.version and d.version.startswith("==") and _SIMPLE_VERSION.fullmatch(d.version[2:]):
            version, build = d.version[2:], d.build
        else:
            # a loose entry added by hand to an export (`- pip`): kept, with nothing pinned, so a
            # diff still shows it; never dropped
            version, build = "", None
        pkgs.append(
            LockedPackage(
                manager="conda",
                name=d.name,
                version=version,
                build=build,
                channel=d.channel,
                platform=platform,
                subdir=d.subdir,
                line=d.line,
            )
        )
    for p in spec.pip:
        if p.kind == "option":
            continue
        version = ""
        if p.kind == "requirement" and p.specifier.startswith("==") and "," not in p.specifier:
            version = p.specifier[2:]
        pkgs.append(
            LockedPackage(
                manager="pip",
                name=p.name or p.text,
                version=version,
                platform=platform,
                url=p.url,
                editable=p.editable,
                line=p.line,
            )
        )
    return Lock(
        kind="export",
        platforms=(platform,) if platform else (),
        packages=tuple(pkgs),
        channels=spec.channels,
        environment=spec.name,
        pip_options=tuple(p.text for p in spec.pip if p.kind == "option"),
        source=spec.source,
    )
