"""The records `diff` returns: EnvDiff and its parts (frozen, with `as_dict` for the JSON report)."""

from __future__ import annotations

from dataclasses import dataclass, field

#: Change kinds, in the order a summary lists them.
KINDS = (
    "added",
    "removed",
    "upgraded",
    "downgraded",
    "changed",
    "variant",
    "rebuilt",
    "source",
    "channel",
    "manager",
    "duplicate",
)


#: Human names of the kinds (the others are their own).
KIND_TITLES = {k: k for k in KINDS} | {
    "variant": "build variant changed",
    "source": "install source changed",
    "channel": "channel changed",
    "manager": "manager changed",
}


IMPACTS = ("high", "medium", "low")


#: `LiveEnv.backend` of an environment read from envkit's JSON export (envkit.sources) rather than
#: from a prefix: its channels are the ones packages came from, not the configured ones.
EXPORT_JSON_BACKEND = "envkit-export"


GROUPS = ("matter", "platform", "other")


SPEC_STATUSES = ("not-satisfied", "missing", "satisfied", "skipped")


def _fields_dict(record, names: str) -> dict:
    """The JSON-ready values of `record`'s attributes `names`, in that order: tuples as lists,
    records as their `as_dict`."""
    out = {}
    for name in names.split():
        value = getattr(record, name)
        if isinstance(value, tuple):
            value = list(value)
        elif hasattr(value, "as_dict"):
            value = value.as_dict()
        out[name] = value
    return out


@dataclass(frozen=True, slots=True, kw_only=True)
class PackageState:
    """One side of a change: a package as installed/locked, or a spec entry (version = the spec)."""

    name: str
    manager: str
    version: str
    build: str | None = None
    channel: str | None = None
    labels: tuple[str, ...] = ()  # decoded build string: ('CUDA 12.1', 'cuDNN 8.9.2', 'py3.11')
    #: a pip package's source when it was not installed from an index: `git+URL@commit`, a
    #: `file://` path or an archive URL (credentials redacted); None from an index or unknown
    url: str | None = None
    editable: bool = False

    def as_dict(self) -> dict:
        return _fields_dict(self, "name version build channel manager labels url editable")


@dataclass(frozen=True, slots=True, kw_only=True)
class Change:
    """One package that differs.  `a`/`b` is None on the side that lacks it."""

    name: str
    kind: str  # one of KINDS
    a: PackageState | None
    b: PackageState | None
    tags: tuple[str, ...] = ()  # aspects (version, build, variant, channel, manager, duplicate,
    #                             platform) and category (python, torch, cuda, cudnn, nccl, blas,
    #                             compiler-runtime, numpy)
    impact: str = "low"
    reason: str = ""
    group: str = "other"
    category: str | None = None

    def as_dict(self) -> dict:
        return _fields_dict(self, "name kind a b tags impact reason group")


@dataclass(frozen=True, slots=True, kw_only=True)
class SpecCheck:
    """One spec entry checked against the concrete side."""

    spec: str  # the entry's canonical text
    name: str
    manager: str  # of the spec entry: conda or pip
    status: str  # satisfied | not-satisfied | missing | skipped
    found: PackageState | None = None
    note: str = ""
    line: int | None = None

    def as_dict(self) -> dict:
        return _fields_dict(self, "spec name manager status found note line")


@dataclass(frozen=True, slots=True, kw_only=True)
class ChannelDiff:
    """Channel lists (priority order, as each side records them) and channel priority."""

    a: tuple[str, ...] | None  # None: that side records no channels
    b: tuple[str, ...] | None
    added: tuple[str, ...] = ()
    removed: tuple[str, ...] = ()
    order_changed: bool = False
    priority_a: str | None = None
    priority_b: str | None = None
    note: str = ""
    #: a live prefix compared with a file: its configured channels no installed package came from
    #: (left out of `a`/`b`, which then hold the channels packages came from; not a difference)
    unused_a: tuple[str, ...] = ()
    unused_b: tuple[str, ...] = ()

    @property
    def priority_changed(self) -> bool:
        """Both sides record `channel_priority` and the values differ (unknown on one side is not a
        difference)."""
        return (
            self.priority_a is not None and self.priority_b is not None and self.priority_a != self.priority_b
        )

    @property
    def changed(self) -> bool:
        return bool(self.added or self.removed or self.order_changed or self.priority_changed)

    def as_dict(self) -> dict:
        return {
            **_fields_dict(self, "a b added removed order_changed"),
            "priority": {"a": self.priority_a, "b": self.priority_b},
            **_fields_dict(self, "changed note"),
            "unused": {"a": list(self.unused_a), "b": list(self.unused_b)},
        }


@dataclass(frozen=True, slots=True, kw_only=True)
class ListDiff:
    """Two ordered lists of strings (pip index options, environment variables as KEY=VALUE).

    Credentials never appear: a variable whose value is a secret (`HF_TOKEN`, `WANDB_API_KEY`, a URL
    with a password) is listed as `NAME=<TOKEN>`, and `secrets_changed` names those whose real
    values differ although their redacted forms are equal (so the values are compared, not shown).
    """

    a: tuple[str, ...] | None  # None: unknown on that side
    b: tuple[str, ...] | None
    secrets_changed: tuple[str, ...] = ()
    #: secrets whose value is a placeholder (`<TOKEN>`, as an export writes it) on at least one
    #: side: unknown, so not compared (never a change)
    secrets_unknown: tuple[str, ...] = ()

    @property
    def changed(self) -> bool:
        return self.a is not None and self.b is not None and (self.a != self.b or bool(self.secrets_changed))

    def as_dict(self) -> dict:
        return _fields_dict(self, "a b changed secrets_changed secrets_unknown")


@dataclass(frozen=True, slots=True, kw_only=True)
class SideInfo:
    """What one side is: where it came from, its kind and platform."""

    source: str
    kind: str  # spec | requirements | export | conda-lock | pixi | explicit | conda-list | live ...
    concrete: bool
    platform: str | None = None
    platforms: tuple[str, ...] = ()  # all platforms the source has (a multi-platform lock)
    name: str | None = None
    packages: int = 0  # conda + pip packages (concrete) or entries (spec)
    platform_guessed: bool = False  # a `conda env export` does not say; guessed from its packages
    records_pip: bool = True  # False: the format cannot hold pip packages (an explicit file)

    def as_dict(self) -> dict:
        return _fields_dict(
            self, "source kind concrete platform platform_guessed platforms name packages records_pip"
        )


@dataclass(frozen=True, slots=True, kw_only=True)
class PipNotRecorded:
    """One side's format cannot hold pip packages (`conda list --explicit`): the other side's pip
    packages are not compared (not listed as removed or added); `skipped` counts them."""

    side: str  # "a" or "b": the side that cannot record pip packages
    kind: str  # its format ("explicit")
    skipped: int  # pip packages of the other side left out

    def as_dict(self) -> dict:
        return _fields_dict(self, "side kind skipped")


@dataclass(frozen=True, slots=True, kw_only=True)
class DuplicateInfo:
    conda: str
    pip: str
    project: str

    def as_dict(self) -> dict:
        return _fields_dict(self, "conda pip project")


@dataclass(frozen=True, slots=True, kw_only=True)
class DiffNote:
    """Something the diff did not compare, for a renderer to say once (see `EnvDiff.notes`).

    `kind` is "pip-not-recorded" (`side`'s `format` cannot hold pip packages;
    `count` pip packages of the other side left out), "unused-channels" (`side` is a live prefix;
    `values` are its configured channels no installed package came from), "secrets-unknown"
    (`values` are the variables whose credential is a placeholder on a side), "platforms" (two
    multi-platform sources: `format` is the platform compared in full, `values` each other shared
    platform as `PLATFORM=N`, N packages differing there)."""

    kind: str
    side: str | None = None  # "a" or "b"
    format: str | None = None
    count: int = 0
    values: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True, kw_only=True)
class EnvDiff:
    """The result of `diff`.  `changes` are ranked: group (matter, platform, other), impact, then
    category and name.  `same` says whether the two sides are equivalent (exit code 0)."""

    a: SideInfo
    b: SideInfo
    changes: tuple[Change, ...] = ()
    unchanged: tuple[PackageState, ...] = ()
    channels: ChannelDiff = field(default_factory=lambda: ChannelDiff(a=None, b=None))
    pip_options: ListDiff = field(default_factory=lambda: ListDiff(a=None, b=None))
    variables: ListDiff = field(default_factory=lambda: ListDiff(a=None, b=None))
    duplicates_a: tuple[DuplicateInfo, ...] = ()
    duplicates_b: tuple[DuplicateInfo, ...] = ()
    spec_side: str | None = None  # "a" or "b" when one side is a spec and the other concrete
    spec_checks: tuple[SpecCheck, ...] = ()
    unmentioned: tuple[PackageState, ...] = ()
    highlights: tuple[tuple[str, str | None, str | None], ...] = ()  # (label, a, b)
    cross_platform: bool = False
    pip_not_recorded: PipNotRecorded | None = None
    #: two multi-platform sources: each other platform both lock, with how many packages differ
    #: there (the changes above are of the platform compared in full), and the platforms only one
    #: side locks
    other_platforms: tuple[tuple[str, int], ...] = ()
    platforms_only_a: tuple[str, ...] = ()
    platforms_only_b: tuple[str, ...] = ()

    @property
    def same(self) -> bool:
        if self.changes or self.channels.changed or self.pip_options.changed or self.variables.changed:
            return False
        if any(n for _, n in self.other_platforms) or self.platforms_only_a or self.platforms_only_b:
            return False
        return not any(c.status in ("not-satisfied", "missing") for c in self.spec_checks)

    def notes(self) -> tuple[DiffNote, ...]:
        """What was not compared (said once, never a difference): pip packages a format cannot
        record, configured channels no package came from, credential values written as
        placeholders.  Data only: envkit.render.diff_notes words them."""
        out = []
        if self.pip_not_recorded is not None:
            gap = self.pip_not_recorded
            out.append(DiffNote(kind="pip-not-recorded", side=gap.side, format=gap.kind, count=gap.skipped))
        for side, unused in (("a", self.channels.unused_a), ("b", self.channels.unused_b)):
            if unused:
                out.append(DiffNote(kind="unused-channels", side=side, values=unused))
        if self.other_platforms or self.platforms_only_a or self.platforms_only_b:
            out.append(
                DiffNote(
                    kind="platforms",
                    values=tuple(f"{p}={n}" for p, n in self.other_platforms),
                    format=self.a.platform,
                )
            )
        hidden = self.variables.secrets_unknown
        if hidden:
            out.append(DiffNote(kind="secrets-unknown", values=hidden, count=len(hidden)))
        return tuple(out)

    def by_group(self, group: str) -> list[Change]:
        return [c for c in self.changes if c.group == group]

    def summary(self) -> dict:
        """Counts: per kind, per group, per impact, spec statuses, and the total."""
        return {
            "same": self.same,
            "changes": len(self.changes),
            "kinds": {k: sum(c.kind == k for c in self.changes) for k in KINDS},
            "groups": {g: sum(c.group == g for c in self.changes) for g in GROUPS},
            "impacts": {i: sum(c.impact == i for c in self.changes) for i in IMPACTS},
            "spec": {s: sum(c.status == s for c in self.spec_checks) for s in SPEC_STATUSES},
            "unchanged": len(self.unchanged),
            "unmentioned": len(self.unmentioned),
            "channels_changed": self.channels.changed,
            "pip_options_changed": self.pip_options.changed,
            "variables_changed": self.variables.changed,
            "pip_not_compared": self.pip_not_recorded.skipped if self.pip_not_recorded else 0,
        }


#: A highlight on a side whose format cannot hold pip packages, where the other side's value comes
#: from one (`PyTorch 1.13.1 [pip]` against an explicit file).
NOT_RECORDED = "(pip not recorded)"
