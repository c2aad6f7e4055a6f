"""`envkit fleet --format markdown`: a summary, one table of the groups, and per outlier its
"likely to matter" differences against the majority, or the largest group when there is no majority
(a ticket or a pull-request comment)."""

from __future__ import annotations

from envkit.fleet import FleetReport
from envkit.fleet.hostlist import fold


def _cell(text: str | None) -> str:
    return (text or "—").replace("|", "\\|").replace("\n", " ")


def render_fleet_markdown(r: FleetReport) -> str:
    from envkit.render.diff_text import change_states, found_text, summary_sentence
    from envkit.render.fleet_text import _summary, group_name, reference_name

    out = ["### envkit fleet", "", f"**{_summary(r)}**", ""]
    out += ["| group | hosts | members | environment | machine |", "|---|---|---|---|---|"]
    base = reference_name(r)
    for i, g in enumerate(r.groups):
        name = group_name(r, i)
        env = f"`{g.env.digest}` {g.env.summary()}"
        mach = f"`{g.machine.digest}` {g.machine.summary()}" if g.machine else "—"
        out.append(
            f"| {name} | {len(g.members)} | `{_cell(fold(g.members))}` | {_cell(env)} | {_cell(mach)} |"
        )
    for i, g in enumerate(r.groups):
        if g.reference:
            continue
        title = group_name(r, i)
        out += ["", f"#### {title.capitalize()}: `{fold(g.members)}`", ""]
        for label, a, b in g.machine_differs:
            out.append(f"- machine: **{label}** {a} → {b}")
        if g.machine_differs:
            out.append("")
        if g.diff is None:
            out.append(f"Same environment as {base}.")
            continue
        out += [
            summary_sentence(g.diff),
            "",
            f"| package | {base.removeprefix('the ')} | this group | impact | why |",
            "|---|---|---|---|---|",
        ]
        for c in g.diff.changes[:40]:
            a, b = change_states(c)
            out.append(f"| `{c.name}` | {_cell(a)} | {_cell(b)} | {c.impact} | {_cell(c.reason)} |")
        if len(g.diff.changes) > 40:
            out.append(f"\n_{len(g.diff.changes) - 40} more: `--format json` lists them all._")
    if r.lock:
        out += ["", f"#### Against `{r.lock}`", ""]
        for g in r.groups:
            if g.lock is None:
                continue
            out.append(f"- `{fold(g.members)}`: {summary_sentence(g.lock.diff)}")
            for c in g.lock.diff.changes[:40]:
                a, b = change_states(c)
                out.append(f"  - `{c.name}`: {_cell(a)} → {_cell(b)}")
            for sc in g.lock.diff.spec_checks:
                if sc.status in ("not-satisfied", "missing"):
                    out.append(
                        f"  - `{sc.spec}` {sc.status.replace('-', ' ')} (found {_cell(found_text(sc))})"
                    )
            for f in g.lock.findings:
                out.append(f"  - {f.severity} `{f.rule}`: {_cell(f.message)}")
    if r.unreachable:
        out += ["", f"#### Not read ({len(r.unreachable)})", "", "| host | why |", "|---|---|"]
        for u in r.unreachable:
            out.append(f"| `{u.host}` | {_cell(u.why)} |")
    return "\n".join(out) + "\n"
