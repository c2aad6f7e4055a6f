"""`envkit fleet`'s text report: the groups, the majority first, each outlier with its ranked diff
against the majority, then the hosts that could not be read.  Without a majority (no group holds
more than half of the hosts read) the groups are numbered and compared with the first."""

from __future__ import annotations

from envkit._text import plural
from envkit.fleet import FleetReport, Group
from envkit.fleet.hostlist import fold
from envkit.render.diff_text import change_states, found_text, summary_sentence

#: Changes shown per outlier (the rest are counted; --format json has them all).
SHOWN = 12


def render_fleet_text(r: FleetReport, *, width: int = 100) -> str:
    """The report as text; ends with a newline."""
    out: list[str] = []
    read = r.hosts - len(r.unreachable)
    n = len(r.groups)
    out.append(
        f"envkit fleet: {plural(r.hosts, 'host')}, {read} read, {plural(n, 'group')}"
        + (f", {len(r.unreachable)} not read" if r.unreachable else "")
        + (f"; against {r.lock}" if r.lock else "")
    )
    base = reference_name(r)
    if r.groups and r.majority is None:
        out.append(
            f"No majority: no group holds more than half of the {plural(read, 'host')} read; "
            f"each is compared with {base}."
        )
    for i, g in enumerate(r.groups):
        out.append("")
        title = group_name(r, i)
        out.append(f"{title.capitalize()} ({plural(len(g.members), 'host')}): {_wrap_hosts(g, width)}")
        out.append(f"  env {g.env.digest}  {g.env.summary()}")
        if g.machine is not None:
            out.append(f"  machine {g.machine.digest}  {g.machine.summary()}")
        if not g.reference:
            out += _against_reference(g, base)
        if g.lock is not None:
            out += _against_lock(g)
    if r.unreachable:
        out.append("")
        out.append(f"Not read ({len(r.unreachable)})")
        w = max(len(u.host) for u in r.unreachable)
        for u in r.unreachable:
            out.append(f"  {u.host:<{w}}  {u.why}")
    if r.duplicates:
        out.append("")
        out.append(f"Named more than once, read once ({len(r.duplicates)})")
        for host, sources in r.duplicates:
            out.append(f"  {host}: {', '.join(sources)}")
    out.append("")
    out.append(_summary(r))
    return "\n".join(out) + "\n"


def _against_reference(g: Group, base: str) -> list[str]:
    """An outlier's lines: the machine rows and the ranked changes against the reference group."""
    out = [f"  machine differs: {label}  {a} → {b}" for label, a, b in g.machine_differs]
    if g.diff is None:
        return [*out, f"  same environment as {base}"]
    out.append(f"  against {base}: {summary_sentence(g.diff)}")
    changes = list(g.diff.changes)
    w = min(28, max((len(c.name) for c in changes[:SHOWN]), default=0))
    for c in changes[:SHOWN]:
        a, b = change_states(c)
        mark = "!" if c.group == "matter" else " "
        out.append(f"  {mark} {c.name:<{w}}  {a} → {b}")
        if c.reason and c.group == "matter":
            out.append(f"    {'':<{w}}  {c.reason}")
    if len(changes) > SHOWN:
        out.append(f"    … {len(changes) - SHOWN} more (--format json lists them all)")
    if g.diff.channels.changed:
        ch = g.diff.channels
        out.append(f"    channels: {', '.join(ch.a or ())} → {', '.join(ch.b or ())}")
    return out


def _against_lock(g: Group) -> list[str]:
    """A group's lines against the lock: its changes, unsatisfied specs and machine findings."""
    assert g.lock is not None
    out = [f"  against the lock: {summary_sentence(g.lock.diff)}"]
    for c in list(g.lock.diff.changes)[:SHOWN]:
        a, b = change_states(c)
        out.append(f"    {c.name}  {a} → {b}")
    bad = [c for c in g.lock.diff.spec_checks if c.status in ("not-satisfied", "missing")]
    for sc in bad[:SHOWN]:
        out.append(f"    {sc.spec}  {sc.status.replace('-', ' ')} (found {found_text(sc) or '—'})")
    out += [f"    {f.severity} {f.rule}: {f.message}" for f in g.lock.findings]
    return out


def group_name(r: FleetReport, i: int) -> str:
    """How the reports name `r.groups[i]`: the majority and its outliers, or, without a majority,
    group 1, group 2, ..."""
    if r.majority is None:
        return f"group {i + 1}"
    return "majority" if i == 0 else f"outlier {i}"


def reference_name(r: FleetReport) -> str:
    """How the reports name the group the others are compared with."""
    return "the majority" if r.majority is not None else "group 1"


def _wrap_hosts(g: Group, width: int) -> str:
    text = fold(g.members)
    return text if len(text) <= width * 3 else text[: width * 3 - 1] + "…"


def _summary(r: FleetReport) -> str:
    if not r.groups:
        return "No host could be read."
    if r.same:
        return f"Same: every host has the same environment{' and machine' if r.groups[0].machine else ''}."
    parts = []
    outliers = [g for g in r.groups if not g.reference]
    if r.majority is None:
        n = len(r.groups)
        others = "group 2 differs" if n == 2 else f"groups 2–{n} differ"
        read = sum(len(g.members) for g in r.groups)
        parts.append(f"no majority: {plural(read, 'host')} in {n} groups; {others} from group 1")
    elif outliers:
        k = sum(len(g.members) for g in outliers)
        parts.append(
            f"{plural(k, 'host')} in {plural(len(outliers), 'outlier group')} "
            f"{'differs' if k == 1 else 'differ'} from the majority "
            f"({plural(len(r.groups[0].members), 'host')})"
        )
    if r.unreachable:
        parts.append(f"{plural(len(r.unreachable), 'host')} not read")
    drift = [g for g in r.groups if g.lock is not None and (not g.lock.diff.same or g.lock.findings)]
    if drift:
        parts.append(f"{plural(sum(len(g.members) for g in drift), 'host')} drifted from the lock")
    return "Different: " + "; ".join(parts) + "."
