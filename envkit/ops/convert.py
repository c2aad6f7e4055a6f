"""`convert`, proved: write the target, read the output back, and diff it against the source with
envkit's own diff for every platform written.  The diff is the loss report.

    result = convert_model(model, "pylock", source_format="uv-lock")
    result.text              the output
    result.changes_install   what gets installed differs (a package, version, build, hash, platform,
                             pip artifact, marker): the diff of the read-back, per platform
    result.losses            the features the target cannot hold that change what is installed
                             (conda packages in pylock.toml, a pip package without a version, ...)
    result.notes             metadata the target cannot hold by definition, that installs the same
                             (depends in an explicit file, channel order, hashes in an environment.yml)
    result.verified          the output was read back and diffed (a CycloneDX SBOM is not read back)

A caller (the CLI) fails on `changes_install` or `losses` unless told to accept them; notes never
fail.
"""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Any

from envkit.conda.platform import marker_text
from envkit.convert import FEATURES, Conversion, Loss, convert
from envkit.errors import EnvkitError
from envkit.model import EnvSpec, Lock, LockedPackage, pep503

if TYPE_CHECKING:  # pragma: no cover
    from envkit.envdiff.records import Change, ChannelDiff, PackageState

#: features whose loss leaves what gets installed as it was: the target cannot hold them by
#: definition (an explicit file has no dependency lists and no channel order, an environment.yml no
#: hashes, a requirements file resolves index packages by name)
NOTE_FEATURES = ("depends", "channels", "hashes", "urls", "pip-urls", "indexes", "platforms")
#: record fields a conda package can differ in after the round trip without installing another
#: artifact (conda-lock.yml writes no `subdir`: it is the URL's; its dependencies are a mapping)
_RECORD_NOTES = ("depends", "constrains", "subdir")
#: read_source's uv_options when none are given: (extras, all_extras, groups, all_groups, no_default_groups)
_NO_UV_OPTIONS: tuple[Any, ...] = ((), False, (), False, False)
#: the formats envkit reads a target's output back as (a target not here is not read back)
_READ_AS = {
    "env": "env",
    "requirements": "requirements",
    "explicit": "explicit",
    "conda-lock": "conda-lock",
    "pixi": "pixi",
    "pixi-v7": "pixi",
    "pylock": "pylock",
    "conda-list-json": "conda-list-json",
    "conda-list-export": "conda-list-export",
}


@dataclass(frozen=True, slots=True, kw_only=True)
class InstallChange:
    """One package that the output installs differently from the source, on `platform`: the diff's
    kind (removed, upgraded, rebuilt, source, ...; `marker` for a pip marker the diff does not
    compare), each side as `name==version` text (None: absent) and the diff's reason."""

    platform: str | None
    name: str
    kind: str
    a: str | None
    b: str | None
    reason: str = ""
    #: the pixi.lock environment, when several were written
    environment: str | None = None

    def as_dict(self) -> dict[str, object]:
        out = asdict(self)
        if self.environment is None:
            del out["environment"]
        return out


@dataclass(frozen=True, slots=True, kw_only=True)
class ConvertResult:
    conversion: Conversion
    losses: tuple[Loss, ...] = ()
    notes: tuple[Loss, ...] = ()
    changes_install: tuple[InstallChange, ...] = ()
    verified: bool = False
    #: why the output was not read back (verified False), e.g. "cyclonedx is not read back"
    unverified_because: str = ""
    #: a pixi.lock output as read back, each environment by name (empty for another target)
    read_back: Mapping[str, Lock] = field(default_factory=dict)

    @property
    def text(self) -> str:
        return self.conversion.text

    @property
    def changes_what_is_installed(self) -> bool:
        return bool(self.losses or self.changes_install)

    @property
    def lossless(self) -> bool:
        return not (self.losses or self.notes or self.changes_install)


def convert_model(
    model: EnvSpec | Lock | Mapping[str, Lock] | str | os.PathLike[str],
    target: str,
    *,
    source_format: str | None = None,
    platform: str | None = None,
) -> ConvertResult:
    """`model` (an EnvSpec, a Lock or the path of a file) written as `target` (one of
    envkit.convert.TARGETS, see envkit.convert.convert), read back and diffed against what was
    written from: `text`, `losses`, `changes_install`, `notes`, `verified`.  `source_format` is
    the format the model was read from (what it carries decides what the target loses; None: the
    format a path is read as), `platform` the platform to write for a one-platform target.
    `model` may be every environment of a pixi.lock (name -> Lock; a pixi.lock path is read so): a
    pixi target keeps them all, each read back and diffed; another target takes the one that has
    packages.  Raises UsageError (an unknown target, a model without its format, a spec where a lock
    belongs, several platforms) and the ParseError family for a file that cannot be read."""
    from envkit.ops._inputs import is_path, model_or_path

    if is_path(model):
        model, source_format = read_source(os.fspath(model), source_format)
    if isinstance(model, Mapping):  # every environment of a pixi.lock
        model_m = model
    else:
        model_m = model_or_path("convert_model", "model", model, ("EnvSpec", "Lock"))
    if source_format is None:
        from envkit.errors import Remedy, UsageError

        raise UsageError(
            "convert_model(): a model needs the format it was read from (what that format carries)",
            hint="pass {}",
            remedy=Remedy(option="source_format", metavar="FORMAT"),
        )
    conv = convert(model_m, target, source_format=source_format, platform=platform)
    losses = tuple(x for x in conv.losses if x.feature not in NOTE_FEATURES)
    notes = [x for x in conv.losses if x.feature in NOTE_FEATURES]
    changes, more, why, back = _readback(conv, target)
    notes += [n for n in more if n.feature not in {m.feature for m in notes}]
    return ConvertResult(
        conversion=conv,
        losses=losses,
        notes=tuple(sorted(notes, key=lambda n: list(FEATURES).index(n.feature))),
        changes_install=changes,
        verified=not why,
        unverified_because=why,
        read_back=back,
    )


def _readback(
    conv: Conversion, target: str
) -> tuple[tuple[InstallChange, ...], tuple[Loss, ...], str, Mapping[str, Lock]]:
    """(install changes, notes, why not verified: "" when it was, a pixi.lock output's environments
    as read back) of `conv`."""
    from envkit.formats.pixilock import read_pixi_environments  # a pixi.lock is read back in one parse

    src, name = conv.written_from, f"converted.{target}"
    envs: Mapping[str, Lock] = {}
    if conv.environments:  # a pixi.lock of several environments: its reader's errors are raised
        envs = read_pixi_environments(conv.text, name)
        return (*_readback_environments(conv, envs), "", envs)
    if target not in _READ_AS:
        return (), (), f"{target} is not read back", envs
    if src is None:
        return (), (), "nothing to compare", envs
    back: EnvSpec | Lock
    try:
        if _READ_AS[target] == "pixi":
            envs = read_pixi_environments(conv.text, name)
            [back] = envs.values()  # the one environment written, under the name it had
        else:
            back = _read_one(conv.text, target)
    except EnvkitError as exc:
        return (), (), f"the output did not read back: {exc}", envs
    plats = src.platforms if isinstance(src, Lock) and src.platforms else (None,)
    return (*readback_diff(src, back, target, plats), "", envs)


def _read_one(text: str, target: str) -> EnvSpec | Lock:
    """`text`, written as `target`, read back (a requirements file of pins as a lock)."""
    from envkit.formats import read_text
    from envkit.model import resolved_view

    back: EnvSpec | Lock = read_text(text, filename=f"converted.{target}", format=_READ_AS[target])
    if isinstance(back, EnvSpec) and resolved_view(back) is None and back.pip and not back.conda:
        from envkit.formats.requirements import requirements_to_lock

        back = requirements_to_lock(back)  # pins of pip packages: compare them as a lock
    return back


def _readback_environments(
    conv: Conversion, back: Mapping[str, Lock]
) -> tuple[tuple[InstallChange, ...], tuple[Loss, ...]]:
    """readback_diff of every environment a pixi.lock conversion wrote, its changes named by it."""
    from dataclasses import replace

    changes: list[InstallChange] = []
    notes: dict[str, Loss] = {}
    for name, lock in conv.environments:
        got, more = readback_diff(lock, back[name], conv.target, lock.platforms or (None,))
        changes += [replace(c, environment=name) for c in got]
        for n in more:
            notes.setdefault(n.feature, n)
    return tuple(changes), tuple(notes.values())


def read_source(
    path: str,
    source_format: str | None,
    *,
    environment: str | None = None,
    uv_options: tuple[Any, ...] = (),
) -> tuple[EnvSpec | Lock | Mapping[str, Lock], str]:
    """The model of the file `path` and the format it was read as (`source_format`, else detected):
    a pixi.lock's every environment unless `environment` names one, a uv.lock with the extras and
    groups `uv_options` (extras, all_extras, groups, all_groups, no_default_groups) choose, refused
    as `uv export --frozen` refuses it when the pyproject.toml beside it names another project.
    Each file is parsed once."""
    from envkit.formats import detect_format, read_text
    from envkit.io import read_text as read_path

    text = read_path(path)
    fmt = source_format or detect_format(text, path)
    if any(uv_options) or fmt == "uv-lock":
        if fmt != "uv-lock":
            from envkit.errors import UsageError

            read_text(text, filename=path, format=fmt, environment=environment)  # its errors first
            raise UsageError(
                "--extra, --all-extras, --group, --all-groups and --no-default-groups choose from a uv.lock"
            )
        from envkit.formats.uvlock import read_uv_lock

        extras, all_extras, groups, all_groups, no_default_groups = uv_options or _NO_UV_OPTIONS
        lock = read_uv_lock(
            text.removeprefix("\ufeff"),
            path,
            extras=tuple(extras),
            all_extras=all_extras,
            groups=tuple(groups),
            all_groups=all_groups,
            no_default_groups=no_default_groups,
            frozen=True,  # a lock its project no longer matches is refused, as uv export refuses it
        )
        return lock, fmt
    if fmt == "pixi" and environment is None:  # every environment: convert refuses to drop one silently
        from envkit.formats.pixilock import read_pixi_environments

        return read_pixi_environments(text, path), fmt
    model: EnvSpec | Lock = read_text(text, filename=path, format=fmt, environment=environment)
    return model, fmt


def readback_diff(
    source: Lock | EnvSpec, back: Lock | EnvSpec, target: str, platforms: tuple[str | None, ...]
) -> tuple[tuple[InstallChange, ...], tuple[Loss, ...]]:
    """(install changes, notes) of `back` (what was written as `target` from `source`, read back)
    diffed against `source` on each of `platforms` (None: a lock without platforms)."""
    from envkit.envdiff import diff

    changes: list[InstallChange] = []
    notes: dict[str, Loss] = {}
    for plat in platforms:
        d = diff(source, back, platform=plat)
        a_pkgs, b_pkgs = _packages(source, plat), _packages(back, plat)
        forked = _forked_names(a_pkgs, b_pkgs)
        quiet = _same_artifacts(a_pkgs, b_pkgs, notes)
        changes += [
            InstallChange(
                platform=plat,
                name=ch.name,
                kind=ch.kind,
                a=_state_text(ch.a),
                b=_state_text(ch.b),
                reason=ch.reason,
            )
            for ch in d.changes
            if not (ch.name.lower() in quiet and ch.kind == "rebuilt") and not _forked_pip(ch, forked)
        ]
        if d.pip_not_recorded is not None and d.pip_not_recorded.side == "b" and a_pkgs is not None:
            reason = f"{target} holds no pip packages"
            changes += [
                InstallChange(platform=plat, name=p.name, kind="removed", a=p.pin(), b=None, reason=reason)
                for p in a_pkgs
                if p.manager == "pip"
            ]
        if a_pkgs is not None and b_pkgs is not None:
            changes += _pip_entry_changes(a_pkgs, b_pkgs, plat, forked)
        ch_d = d.channels
        if ch_d.a is not None and ch_d.b is not None and ch_d.changed:
            notes.setdefault("channels", _channel_note(ch_d))
    return tuple(changes), tuple(notes.values())


def _channel_note(ch_d: ChannelDiff) -> Loss:
    """The note of a channel list (or order) the target writes differently."""
    what = "order" if ch_d.order_changed and not (ch_d.added or ch_d.removed) else "list"
    a, b = ch_d.a or (), ch_d.b or ()
    return Loss(
        feature="channels",
        count=len(a),
        packages=tuple(a[:5]),
        detail=f"the channel {what} differs: {', '.join(a)} → {', '.join(b)}",
    )


def _forked_pip(ch: Change, forked: set[str]) -> bool:
    """A change of a pip name locked more than once: compared entry by entry (_pip_entry_changes)."""
    side = ch.a or ch.b
    return side is not None and side.manager == "pip" and pep503(ch.name) in forked


def _same_artifacts(
    a_pkgs: tuple[LockedPackage, ...] | None, b_pkgs: tuple[LockedPackage, ...] | None, notes: dict[str, Loss]
) -> set[str]:
    """The (lower-case) names of conda packages whose records differ only in what the target holds
    its own way (dependencies merged per name, subdir from the URL): the same artifacts.  Noted
    once in `notes` as "depends"."""
    from envkit.envdiff import record_differences

    quiet: set[str] = set()
    if a_pkgs is None or b_pkgs is None:
        return quiet
    bi = {(p.manager, p.name.lower()): p for p in b_pkgs}
    rec: list[str] = []
    for pa in a_pkgs:
        pb = bi.get((pa.manager, pa.name.lower()))
        if pb is None or pa.manager != "conda" or (pa.version, pa.build) != (pb.version, pb.build):
            continue
        fields = record_differences(pa, pb)
        if fields and all(f.split(" ", 1)[0] in _RECORD_NOTES for f in fields):
            quiet.add(pa.name.lower())
            rec.append(pa.name)
    if rec:
        notes.setdefault(
            "depends",
            Loss(
                feature="depends",
                count=len(rec),
                packages=tuple(rec[:5]),
                detail="package records written as the target holds them "
                "(dependencies merged per name, subdir from the URL); the same artifacts",
            ),
        )
    return quiet


def _packages(model: EnvSpec | Lock, platform: str | None) -> tuple[LockedPackage, ...] | None:
    from envkit.model import resolved_view

    view = resolved_view(model, platform)
    if view is None or view.lock is None:
        return None
    lock = view.lock
    if platform is None or not lock.platforms:
        return lock.packages
    return lock.for_platform(platform)


def _forked_names(a: Iterable[LockedPackage] | None, b: Iterable[LockedPackage] | None) -> set[str]:
    """pip names locked more than once on one platform (uv.lock forks: one version per Python); the
    diff matches packages by name, so these are compared here, entry by entry."""
    out: set[str] = set()
    for pkgs in (a or (), b or ()):
        count = Counter(pep503(p.name) for p in pkgs if p.manager == "pip")
        out |= {n for n, k in count.items() if k > 1}
    return out


def _pip_entry_changes(
    a: Iterable[LockedPackage], b: Iterable[LockedPackage], plat: str | None, forked: set[str]
) -> list[InstallChange]:
    """What the diff does not compare: each pip entry's marker, and every entry of a name locked
    more than once (`forked`)."""

    a = tuple(a)
    # a URL entry of a requirements file (`flash-attn @ https://...whl`) names no version: it is
    # the version its URL had in the source
    by_url = {p.url: p.version for p in a if p.manager == "pip" and p.url and p.version}

    def entries(pkgs: Iterable[LockedPackage]) -> dict[str, list[tuple[str, str | None]]]:
        out: dict[str, list[tuple[str, str | None]]] = {}
        for p in pkgs:
            if p.manager == "pip":
                version = p.version or by_url.get(p.url or "", "")
                out.setdefault(pep503(p.name), []).append((version, marker_text(p.marker)))
        return {k: sorted(v, key=lambda e: (e[0], e[1] or "")) for k, v in out.items()}

    ea, eb = entries(a), entries(b)
    changes = []
    for name in sorted(set(ea) | set(eb)):
        xa, xb = ea.get(name, []), eb.get(name, [])
        if name not in forked:
            if xa and xb and xa[0][0] == xb[0][0] and xa[0][1] != xb[0][1]:
                changes.append(
                    InstallChange(
                        platform=plat,
                        name=name,
                        kind="marker",
                        a=_entry(name, xa[0]),
                        b=_entry(name, xb[0]),
                        reason="the environment marker differs: installed under other conditions",
                    )
                )
            continue
        if xa != xb:
            gone = [e for e in xa if e not in xb]
            new = [e for e in xb if e not in xa]
            changes.append(
                InstallChange(
                    platform=plat,
                    name=name,
                    kind="marker" if {v for v, _ in gone} == {v for v, _ in new} else "changed",
                    a="; ".join(_entry(name, e) for e in gone) or None,
                    b="; ".join(_entry(name, e) for e in new) or None,
                    reason="a name locked at several versions (one per environment marker) is "
                    "not written as it was",
                )
            )
    return changes


def _entry(name: str, e: tuple[str, str | None]) -> str:
    return f"{name}=={e[0]}" + (f" ; {e[1]}" if e[1] else "")


def _state_text(st: PackageState | None) -> str | None:
    if st is None:
        return None
    text = f"{st.name}=={st.version}" if st.version else st.name
    if st.build:
        text += f" ({st.build})"
    return text
