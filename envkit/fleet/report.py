"""The fleet report: hosts grouped by environment fingerprint and machine class, the majority
named, and each outlier group's ranked diff against it (envkit.envdiff.diff: "likely to matter"
first).  Pure data; envkit.render.fleet_* word it.

Memory grows with the number of distinct environments, not hosts: one model is kept per
environment digest (the first host's), every other host keeps its fingerprint only.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field, replace

from envkit.envdiff import EnvDiff
from envkit.fleet.fingerprint import EnvPrint, MachineClass, env_fingerprint, machine_class
from envkit.fleet.jobs import HostResult
from envkit.model import EnvSpec, LiveEnv, Lock


@dataclass(frozen=True, slots=True, kw_only=True)
class Unreachable:
    """A host that could not be read, and why."""

    host: str
    source: str
    via: str
    status: str  # unreachable | failed
    why: str

    def as_dict(self) -> dict:
        return asdict(self)


@dataclass(frozen=True, slots=True, kw_only=True)
class LockDrift:
    """A group's environment against the lock: the diff (A = the lock) and the machine findings
    (`envkit check --machine` on the lock, for this group's machine)."""

    diff: EnvDiff
    findings: tuple = ()  # envkit.checks Finding


@dataclass(frozen=True, slots=True, kw_only=True)
class Group:
    """Hosts with one environment digest and machine class."""

    members: tuple[str, ...]
    env: EnvPrint
    machine: MachineClass | None
    #: the reference group holds more than half of the hosts read
    majority: bool = False
    #: the group every other is compared with: the largest (on a tie, the first read)
    reference: bool = False
    #: against the reference group (A = it, B = this group); None for the reference itself
    diff: EnvDiff | None = None
    #: (label, the reference group's value, this group's value) for each machine row that differs
    machine_differs: tuple[tuple[str, str, str], ...] = ()
    #: package -> this group's `version build` for the packages that differ across the fleet
    versions: tuple[tuple[str, str], ...] = ()
    lock: LockDrift | None = None
    #: the environment itself (the first member's model; every member's is the same)
    model: EnvSpec | Lock | LiveEnv | None = field(default=None, compare=False, repr=False)

    @property
    def fingerprint(self) -> str:
        return f"env:{self.env.digest}" + (f"+machine:{self.machine.digest}" if self.machine else "")


@dataclass(frozen=True, slots=True, kw_only=True)
class FleetReport:
    """The result of `envkit.fleet.fleet`: groups (the majority first, then outliers by size),
    hosts that could not be read, hosts named twice, and the lock compared when one was given."""

    groups: tuple[Group, ...]
    unreachable: tuple[Unreachable, ...] = ()
    duplicates: tuple[tuple[str, tuple[str, ...]], ...] = ()
    warnings: tuple[str, ...] = ()
    lock: str | None = None
    #: the packages named in `Group.versions`, in the order the view lists them (most important first)
    packages: tuple[str, ...] = ()

    @property
    def hosts(self) -> int:
        return sum(len(g.members) for g in self.groups) + len(self.unreachable)

    @property
    def majority(self) -> Group | None:
        """The group holding more than half of the hosts read, if one does."""
        return self.groups[0] if self.groups and self.groups[0].majority else None

    @property
    def same(self) -> bool:
        """One group, every host read, and (with a lock) no drift from it."""
        if len(self.groups) > 1 or self.unreachable:
            return False
        return all(g.lock is None or (g.lock.diff.same and not g.lock.findings) for g in self.groups)


@dataclass(slots=True)
class Grouper:
    """Groups hosts as their results arrive; keeps one model per distinct environment."""

    platform: str | None = None  # of multi-platform locks and exports (see env_fingerprint)
    _models: dict[str, EnvSpec | Lock | LiveEnv] = field(default_factory=dict)
    _by_model: dict[int, EnvPrint] = field(default_factory=dict)
    _prints: dict[str, EnvPrint] = field(default_factory=dict)
    _machines: dict[str, MachineClass] = field(default_factory=dict)
    _profiles: dict[str, object] = field(default_factory=dict)
    _members: dict[tuple[str, str | None], list[str]] = field(default_factory=dict)
    _failed: list[Unreachable] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)

    def add(self, r: HostResult) -> None:
        j = r.job
        for w in r.warnings:
            self.warnings.append(f"{j.host}: {w}")
        if r.model is None:
            self._failed.append(
                Unreachable(host=j.host, source=j.source, via=j.via, status=r.status, why=r.why)
            )
            return
        # identical collected files share one model object: fingerprint it once (an id is only
        # trusted for a model kept here, so it cannot be a freed object's recycled id)
        ep = self._by_model.get(id(r.model))
        if ep is None or self._models.get(ep.digest) is not r.model:
            ep = env_fingerprint(r.model, self.platform)
        self._prints.setdefault(ep.digest, ep)
        if self._models.setdefault(ep.digest, r.model) is r.model:
            self._by_model[id(r.model)] = ep
        mkey = None
        if r.profile is not None:
            mc = machine_class(r.profile)
            self._machines.setdefault(mc.digest, mc)
            self._profiles.setdefault(mc.digest, r.profile)
            mkey = mc.digest
        self._members.setdefault((ep.digest, mkey), []).append(j.host)

    def report(
        self,
        *,
        duplicates=(),
        lock=None,
        lock_label: str | None = None,
        check_machine=None,
    ) -> FleetReport:
        """The FleetReport.  `lock` (a model) is compared with every group; `check_machine`
        (lock model, profile) -> findings gives the machine findings per group."""
        # the largest group first; among groups of one size, the first read first (a stable sort)
        keys = sorted(self._members, key=lambda k: -len(self._members[k]))
        # a majority is more than half of the hosts read; else the largest group is only the
        # reference the others are compared with
        is_majority = bool(keys) and 2 * len(self._members[keys[0]]) > sum(map(len, self._members.values()))
        diffs: dict[str, EnvDiff] = {}
        groups: list[Group] = []
        for i, k in enumerate(keys):
            group = self._group(i, k, keys[0], is_majority, diffs)
            if lock is not None:
                drift = self._drift(k[0], k[1], lock, lock_label, check_machine)
                group = replace(group, lock=drift)
            groups.append(group)
        names = _view_packages(diffs.values())
        groups = [_with_versions(g, self._models[g.env.digest], names, self.platform) for g in groups]
        return FleetReport(
            groups=tuple(groups),
            unreachable=tuple(self._failed),
            duplicates=tuple((h, tuple(s)) for h, s in duplicates),
            warnings=tuple(self.warnings),
            lock=lock_label,
            packages=tuple(names),
        )

    def _group(self, i: int, k: tuple, major: tuple, is_majority: bool, diffs: dict) -> Group:
        """The `i`-th group (hosts with environment and machine `k`), its diff against the first
        group `major` (each environment diffed once, kept in `diffs`)."""
        from envkit.envdiff import diff

        ed, md = k
        d = None
        if i and ed != major[0]:
            if ed not in diffs:
                label = "majority" if is_majority else "group 1"
                diffs[ed] = diff(
                    self._models[major[0]],
                    self._models[ed],
                    platform=self.platform,
                    label_a=label,
                    label_b="this group",
                )
            d = diffs[ed]
        mc = self._machines.get(md) if md else None
        base_machine = self._machines.get(major[1]) if major[1] else None
        mdiff: tuple[tuple[str, str, str], ...] = ()
        if i and (mc is not None or base_machine is not None):
            mdiff = _machine_differs(base_machine, mc)
        return Group(
            members=tuple(self._members[k]),
            env=self._prints[ed],
            machine=mc,
            majority=i == 0 and is_majority,
            reference=i == 0,
            diff=d,
            machine_differs=mdiff,
            model=self._models[ed],
        )

    def _drift(self, ed: str, md: str | None, lock, lock_label, check_machine) -> LockDrift:
        """The environment `ed` against the lock, with the machine findings for machine `md`."""
        from envkit.envdiff import diff

        ld = diff(
            lock, self._models[ed], platform=self.platform, label_a=lock_label or "lock", label_b="hosts"
        )
        found = tuple(check_machine(self._profiles.get(md))) if check_machine and md else ()
        return LockDrift(diff=ld, findings=found)


def _machine_differs(a: MachineClass | None, b: MachineClass | None) -> tuple[tuple[str, str, str], ...]:
    ra = dict(a.rows()) if a else {}
    rb = dict(b.rows()) if b else {}
    labels = [lbl for lbl, _ in (a or b).rows()] if (a or b) else []  # type: ignore[union-attr]
    return tuple(
        (lbl, ra.get(lbl, "unknown"), rb.get(lbl, "unknown")) for lbl in labels if ra.get(lbl) != rb.get(lbl)
    )


#: The hosts x packages view shows at most this many packages (the most important differences).
VIEW_PACKAGES = 40


def _view_packages(diffs) -> list[str]:
    """Package names that differ in any outlier, most important first (each diff is ranked)."""
    from envkit.envdiff import GROUPS, IMPACTS

    best: dict[str, tuple] = {}
    for d in diffs:
        for i, c in enumerate(d.changes):
            key = (GROUPS.index(c.group), IMPACTS.index(c.impact), i)
            if c.name not in best or key < best[c.name]:
                best[c.name] = key
    return sorted(best, key=lambda n: (best[n], n))[:VIEW_PACKAGES]


def _with_versions(g: Group, model, names: list[str], platform: str | None) -> Group:
    from envkit.conda.names import pep503
    from envkit.fleet.fingerprint import packages_of

    if not names:
        return g
    pkgs = packages_of(model, platform) or ()
    have: dict[str, str] = {}
    for p in pkgs:
        text = p.version + (f" {p.build}" if p.build else "") + (" [pip]" if p.manager == "pip" else "")
        have.setdefault(p.name.lower(), text)
        if p.manager == "pip":
            have.setdefault(pep503(p.name), text)
    return replace(g, versions=tuple((n, have.get(n.lower(), "—")) for n in names))
