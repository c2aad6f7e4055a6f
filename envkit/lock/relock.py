"""Re-locking with the smallest change: keep what a previous lock chose unless it must move.

`PlatformSolver` is one platform's py-rattler solve (channels, virtual packages, a cutoff, one
gateway so that repodata is fetched once across attempts).  `relock_platform` re-solves a spec
against a previous lock's packages of that platform:

1. every locked conda package is pinned (name, version, build, channel) except the ones asked for
   (`update`), the ones a spec entry no longer accepts (a tightened or changed entry), and the ones
   the newest version of an updated package rejects (its `depends`/`constrains`);
2. an updated package is asked for at its newest record (matching its spec entry, if any, and the
   cutoff), so that "update a" moves a even where the pins would hold it back;
3. when the pins still make the spec unsolvable, they become preferences (rattler's locked
   packages): the solver keeps what it can and moves what it must; when the newest updated
   version cannot be installed at all, the solve picks the newest that can.

What moved is reported as `Move`s with the reason: asked for, the spec changed, forced by which
package (whose dependency rejects the old version), new, no longer needed.
"""

from __future__ import annotations

import asyncio
import datetime
import os
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from envkit.errors import ParseError, Where
from envkit.lock.cutoff import ExcludeNewer, keep_record
from envkit.lock.packages import accepts
from envkit.model import CondaDep, EnvSpec, LockedPackage, split_depend

_UNSOLVABLE = ("SolverError", "UnsolvableError")


@dataclass(frozen=True, slots=True, kw_only=True)
class Reason:
    """Why a package moved: `kind` is "asked" (to update), "spec" (an entry no longer accepts the
    locked version), "cutoff" (uploaded after it), "forced" (by a package's new version), "needed"
    (new, by a package), "in-spec" (new, in the spec), "unneeded", "solve" (moved by the solve),
    "newest" (asked, but already the newest that fits), "new" (a new pip package) or "pip"
    (re-resolved by pip); envkit.render.lock_text words them.  `by` the package (`a 2.0`) whose new
    version forced it or needs it; for kind "spec", the entry (`spec`) and where it is (`where`,
    file:line)."""

    kind: str
    by: str | None = None
    spec: str | None = None
    where: str | None = None

    def to_dict(self) -> dict[str, str]:
        out = {"kind": self.kind}
        out.update({k: v for k, v in (("by", self.by), ("spec", self.spec), ("where", self.where)) if v})
        return out


@dataclass(frozen=True, slots=True, kw_only=True)
class Move:
    """One package a re-lock changed on `platform`: `old`/`new` are `version build` (None: added /
    removed); `reason` says why (a Reason)."""

    platform: str
    name: str
    old: str | None
    new: str | None
    reason: Reason
    manager: str = "conda"

    def to_dict(self) -> dict[str, object]:
        return {
            "platform": self.platform,
            "manager": self.manager,
            "name": self.name,
            "old": self.old,
            "new": self.new,
            "reason": self.reason.to_dict(),
        }


def _vb(p: LockedPackage | None) -> str | None:
    """`version build` of `p` (a Move's old or new), None when there is no package."""
    if p is None:
        return None
    return f"{p.version} {p.build}" if p.build else p.version


@dataclass(slots=True)
class PlatformSolver:
    """One platform's solve with py-rattler; `solve()` raises rattler's own exceptions."""

    platform: str
    sources: list[str]
    specs: list
    virtual_packages: list
    priority: Any
    timeout: float | None
    cutoffs: ExcludeNewer | None = None
    gateway: Any = None
    #: records left out by the cutoff, and kept without a time, once sources are prepared
    excluded: set[tuple[str, str, str]] = field(default_factory=set)
    untimed: int = 0
    _prepared: list | None = None

    def _subdirs(self):
        import rattler

        return [rattler.Subdir(self.platform), rattler.Subdir("noarch")]

    async def _sources(self, extra: Sequence = ()) -> list:
        """The channels, or with a cutoff in-memory sources holding only the records it keeps."""
        if not self.cutoffs:
            return list(self.sources)
        if self._prepared is not None:
            return self._prepared
        import rattler

        result = await self.gateway.query(
            [rattler.Channel(s) for s in self.sources],
            self._subdirs(),
            list(self.specs) + list(extra),
            recursive=True,
        )
        by_channel: dict[str, list] = {}
        for group in result:
            for rec in group:
                verdict = keep_record(rec, self.cutoffs)
                if verdict is False:
                    self.excluded.add((rec.name.normalized, str(rec.version), str(rec.build)))
                    continue
                if verdict is None:
                    self.untimed += 1
                by_channel.setdefault(str(rec.channel or "").rstrip("/"), []).append(rec)
        self._prepared = [
            _Records(by_channel.get(str(rattler.Channel(s).base_url).rstrip("/"), [])) for s in self.sources
        ]
        return self._prepared

    async def solve(self, specs: Sequence = (), constraints: Sequence = (), locked: Sequence = ()) -> list:
        import rattler

        return await rattler.solve(
            sources=await self._sources(specs),
            specs=list(self.specs) + list(specs),
            gateway=self.gateway,
            platforms=self._subdirs(),
            virtual_packages=self.virtual_packages,
            channel_priority=self.priority,
            constraints=list(constraints) or None,
            locked_packages=list(locked) or None,
            timeout=datetime.timedelta(seconds=self.timeout) if self.timeout else None,
        )

    async def records_of(self, names: Iterable[str]) -> list:
        """Every record of the packages `names` this solve can see (after the cutoff)."""
        import rattler

        wanted = sorted(set(names))
        if not wanted:
            return []
        if self.cutoffs:
            srcs = await self._sources()
            return [r for s in srcs for r in s.all if r.name.normalized in set(wanted)]
        result = await self.gateway.query(
            [rattler.Channel(s) for s in self.sources], self._subdirs(), wanted, recursive=False
        )
        return [r for group in result for r in group]


class _Records:
    """A py-rattler RepoDataSource serving a fixed list of records (one channel's, after a cutoff)."""

    def __init__(self, records: list) -> None:
        self.all = records
        self._by: dict[tuple[str, str], list] = {}
        for r in records:
            self._by.setdefault((str(r.subdir), r.name.normalized), []).append(r)

    async def fetch_package_records(self, platform, name) -> list:
        return self._by.get((str(platform), name.normalized), [])

    def package_names(self, platform) -> list[str]:
        return sorted({n for s, n in self._by if s == str(platform)})


def _dep(name: str, rest: str) -> CondaDep | None:
    from envkit.conda.matchspec import parse_spec

    try:
        return parse_spec(f"{name} {rest}".strip())
    except Exception:  # an unreadable depends entry of a record: it cannot reject anything
        return None


def plan_pins(
    spec: EnvSpec, previous: Sequence[LockedPackage], update: Iterable[str]
) -> tuple[dict[str, LockedPackage], dict[str, Reason]]:
    """(the previous conda packages to pin, by name; name -> why each other one is released)."""
    asked = {n.lower() for n in update}
    held: dict[str, LockedPackage] = {}
    released: dict[str, Reason] = {}
    for p in previous:
        if p.manager != "conda":
            continue
        if p.name in asked:
            released[p.name] = Reason(kind="asked")
        else:
            held[p.name] = p
    for d in spec.conda:
        kept = held.get(d.name)
        if kept is not None and not accepts(d, kept):
            del held[kept.name]
            where = f"{os.path.basename(spec.source)}:{d.line}" if spec.source and d.line else None
            released[kept.name] = Reason(kind="spec", spec=d.spec(), where=where)
    return held, released


def _pins(held: Iterable[LockedPackage], sources: Sequence[str]) -> dict[str, Any]:
    """The MatchSpec that holds each `held` package, by name: name, exact version and build, and the channel
    when it is one of several the solve searches (a lock read from another channel, a mirror, pins
    the rest).  With one channel every candidate comes from it, so the channel would hold nothing
    more, and a channel-qualified spec costs rattler twice the parse."""
    from rattler import MatchSpec

    from envkit.conda.channels import parse_channel

    names = frozenset(parse_channel(c).name for c in sources) if len(sources) > 1 else frozenset()
    out = {}
    for p in held:
        base = f"{p.name} =={p.version} {p.build}" if p.build else f"{p.name} =={p.version}"
        if p.channel and p.channel in names:
            try:
                out[p.name] = MatchSpec(f"{p.channel}::{base}", strict=False)
                continue
            except Exception:  # a channel rattler cannot name: the version and build still hold it
                pass
        out[p.name] = MatchSpec(base, strict=False)
    return out


def _newest(records: Sequence, name: str, spec: EnvSpec):
    """The best record of `name` (highest version, then build number) that the spec's entry for it
    (if any) accepts; None when there is none."""
    from rattler import Version

    entries = [d for d in spec.conda if d.name == name]
    best = None
    for r in records:
        if r.name.normalized != name:
            continue
        pkg = LockedPackage(
            manager="conda",
            name=name,
            version=str(r.version),
            build=str(r.build),
            build_number=int(r.build_number),
        )
        if any(not accepts(d, pkg) for d in entries):
            continue
        key = (Version(str(r.version)), int(r.build_number))
        if best is None or key > best[0]:
            best = (key, r)
    return best[1] if best else None


async def relock_platform(
    solver: PlatformSolver,
    spec: EnvSpec,
    previous: Sequence[LockedPackage],
    update: Iterable[str] = (),
    *,
    record_to_package,
    lock_file: str | None = None,
) -> tuple[list[LockedPackage], list[Move]]:
    """(the locked packages of the re-lock of `spec` on `solver.platform`, the moves from `previous`,
    read from `lock_file`: a locked record rattler cannot read is a ParseError there)."""
    from rattler.exceptions import InvalidMatchSpecError, InvalidVersionError

    asked = sorted({n.lower() for n in update})
    try:
        return await _relock(solver, spec, previous, asked, record_to_package)
    except (InvalidMatchSpecError, InvalidVersionError):
        _readable(previous, lock_file)  # when a locked version is the cause, it is named in the lock
        raise


async def _relock(
    solver: PlatformSolver,
    spec: EnvSpec,
    previous: Sequence[LockedPackage],
    asked: list[str],
    record_to_package,
) -> tuple[list[LockedPackage], list[Move]]:
    from rattler import MatchSpec

    held, released = plan_pins(spec, previous, asked)
    if solver.cutoffs:
        await solver._sources()  # fetches the records and applies the cutoff: `excluded` is known
        for gone in list(held.values()):  # a locked record the cutoff leaves out cannot stay
            if (gone.name, gone.version, gone.build or "") in solver.excluded:
                del held[gone.name]
                released[gone.name] = Reason(kind="cutoff")
    present = {p.name for p in previous if p.manager == "conda"} | {d.name for d in spec.conda}
    names = [n for n in asked if n in present]
    # the asked packages' records are looked up on rattler's threads while the pins are made here
    lookup = asyncio.ensure_future(solver.records_of(names))
    await asyncio.sleep(0)
    pins = _pins(held.values(), solver.sources)
    targets = _targets(await lookup, spec, names, held, released)
    exact = [MatchSpec(f"{r.name.normalized} =={r.version} {r.build}", strict=False) for r in targets]
    records = await _solve_held(solver, exact, held, [pins[n] for n in held])
    # a package still at its locked record is the previous lock's own (compared, not rebuilt)
    by_name = {p.name: p for p in previous if p.manager == "conda"}
    new = [record_to_package(r, solver.platform, by_name) for r in records]
    return new, moves_between(solver.platform, previous, new, released, asked)


def _readable(previous: Sequence[LockedPackage], lock_file: str | None) -> None:
    """Raise ParseError at the entry in `lock_file` of the first conda package whose version conda
    cannot read (asked once a re-lock has failed on an unreadable spec, which would blame the spec)."""
    from rattler import Version

    for p in previous:
        if p.manager != "conda":
            continue
        try:
            Version(p.version)
        except Exception as exc:  # rattler's own exception class
            raise ParseError(
                f"{p.platform}: the locked {p.name} {p.version!r} is not a conda version: {exc}",
                where=Where(file=lock_file, line=p.line),
                hint="fix or remove that package entry, or lock again without the previous lock",
            ) from None


def _targets(
    candidates: Sequence,
    spec: EnvSpec,
    names: Sequence[str],
    held: dict[str, LockedPackage],
    released: dict[str, Reason],
) -> list:
    """The newest of the `candidates` records of each package in `names` (asked for, and in the
    lock or the spec); the `held` packages its dependencies reject move to `released`, forced by it."""
    targets = []
    for name in names:
        best = _newest(candidates, name, spec)
        if best is None:
            continue
        targets.append(best)
        label = f"{name} {best.version}"
        for text in list(best.depends) + list(best.constrains):
            dn, rest = split_depend(text)
            dep, old = _dep(dn, rest), held.get(dn.lower())
            if dep is not None and old is not None and not accepts(dep, old):
                del held[old.name]
                released[old.name] = Reason(kind="forced", by=label)
    return targets


async def _solve_held(
    solver: PlatformSolver, exact: list, held: Mapping[str, LockedPackage], pins: list
) -> list:
    """The records of a solve for `exact` with the `held` packages pinned (`pins`, their specs); when
    the pins cannot all hold, with them as preferences (the solve moves what must move), and without
    `exact` when the newest updated versions cannot be had."""
    try:
        return await solver.solve(exact, constraints=pins)
    except Exception as exc:
        if type(exc).__name__ not in _UNSOLVABLE:
            raise
    known = await solver.records_of(held)
    soft = [
        r
        for r in known
        if (kept := held.get(r.name.normalized)) is not None
        and str(r.version) == kept.version
        and str(r.build) == (kept.build or str(r.build))
    ]
    try:
        return await solver.solve(exact, locked=soft)
    except Exception as exc:
        if type(exc).__name__ not in _UNSOLVABLE or not exact:
            raise
    return await solver.solve(locked=soft)


def moves_between(
    platform: str,
    previous: Sequence[LockedPackage],
    new: Sequence[LockedPackage],
    released: Mapping[str, Reason],
    asked: Iterable[str] = (),
) -> list[Move]:
    """What changed from `previous` to `new` (conda packages of one platform), with reasons: the
    `released` reason, else "forced by P V" (a package of `new` whose dependency rejects the old
    version), "needed by P" for a new package, "no longer needed" for a removed one."""
    asked = set(asked)
    old = {p.name: p for p in previous if p.manager == "conda"}
    now = {p.name: p for p in new if p.manager == "conda"}
    same = {
        n
        for n, p in now.items()
        if (o := old.get(n)) is not None and (o is p or (o.version, o.build) == (p.version, p.build))
    }
    changed = (set(old) | set(now)) - same
    # who depends on a changed package: read only for one with no reason yet (released ones have)
    unexplained = {n for n in changed if n not in released}
    needs: dict[str, list[tuple[LockedPackage, CondaDep | None]]] = {}
    for p in now.values() if unexplained else ():
        for dn, rest in p.depends:
            if dn.lower() in unexplained:  # parsed only where a reason is wanted
                needs.setdefault(dn.lower(), []).append((p, None if not rest else _dep(dn, rest)))
    out: list[Move] = []
    for name in sorted(changed | {n.lower() for n in asked}):
        o, n = old.get(name), now.get(name)
        if name in same:
            if name not in asked:
                continue
            reason = Reason(kind="newest")
        elif o is None and n is None:
            continue
        else:
            reason = released.get(name) or _reason(o, n, needs.get(name, []), now, changed)
        out.append(Move(platform=platform, name=name, old=_vb(o), new=_vb(n), reason=reason))
    return out


def _reason(
    o: LockedPackage | None,
    n: LockedPackage | None,
    needs: Sequence[tuple[LockedPackage, CondaDep | None]],
    now: Mapping[str, LockedPackage],
    changed: set[str],
) -> Reason:
    """Why a package moved from `o` to `n` (None: absent) when nothing released it: `needs` are
    the packages of `now` that depend on it (with their dependency on it, parsed)."""
    if o is None:
        by = [p for p, _d in needs if n is None or p.name != n.name]
        return Reason(kind="needed", by=f"{by[0].name} {by[0].version}") if by else Reason(kind="in-spec")
    if n is None:
        return Reason(kind="unneeded")
    rejecting = [p for p, d in needs if d is not None and not accepts(d, o)]
    # or the other way round: the old version's own dependency rejects a package's new one
    rejecting += [
        now[dn.lower()]
        for dn, rest in o.depends
        if rest
        and dn.lower() in changed
        and dn.lower() in now
        and (d := _dep(dn, rest)) is not None
        and not accepts(d, now[dn.lower()])
    ]
    if rejecting:
        return Reason(kind="forced", by=f"{rejecting[0].name} {rejecting[0].version}")
    return Reason(kind="solve")
