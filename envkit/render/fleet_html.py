"""`envkit fleet --format html`: one self-contained page (no script, font or style from the
network): the groups with their members, a hosts x packages table of the packages that differ
(an outlier's cells stand out where they differ from the majority), each outlier's ranked diff,
and the hosts that could not be read.  Every value is HTML-escaped."""

from __future__ import annotations

from html import escape

from envkit.fleet import FleetReport
from envkit.fleet.hostlist import fold
from envkit.render.diff_text import change_states, summary_sentence
from envkit.render.fleet_text import _summary, group_name, reference_name

_STYLE = """
body{font:14px/1.4 system-ui,sans-serif;margin:1.5em;color:#222}
h1{font-size:1.4em}h2{font-size:1.15em;margin-top:1.6em}
table{border-collapse:collapse;margin:.5em 0}
td,th{border:1px solid #ccc;padding:.2em .5em;text-align:left;vertical-align:top}
th{background:#f3f3f3}code{font-family:ui-monospace,monospace}
tr.majority td.host{background:#eef7ee}tr.reference td.host{background:#eef2f7}
tr.outlier td.host{background:#fde8e8;font-weight:bold}
td.differs{background:#fbd3d3;font-weight:bold}td.same{color:#777}
.matter{color:#a00;font-weight:bold}.summary{font-weight:bold}
"""


def _kind(g) -> str:
    """A group's row class: the majority, the reference group when there is none, an outlier."""
    return "majority" if g.majority else "reference" if g.reference else "outlier"


def render_fleet_html(r: FleetReport) -> str:
    e = escape
    out = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        "<title>envkit fleet</title>",
        f"<style>{_STYLE}</style></head><body>",
        "<h1>envkit fleet</h1>",
        f'<p class="summary" id="summary">{e(_summary(r))}</p>',
        '<h2>Groups</h2><table id="groups"><tr><th>group</th><th>hosts</th><th>members</th>'
        "<th>environment</th><th>machine</th></tr>",
    ]
    base = reference_name(r)
    for i, g in enumerate(r.groups):
        kind = _kind(g)
        name = group_name(r, i)
        mach = f"{g.machine.digest} {g.machine.summary()}" if g.machine else "—"
        out.append(
            f'<tr class="group {kind}" data-fingerprint="{e(g.fingerprint)}" '
            f'data-members="{e(",".join(g.members))}">'
            f"<td>{e(name)}</td><td>{len(g.members)}</td><td><code>{e(fold(g.members))}</code></td>"
            f"<td><code>{e(g.env.digest)}</code> {e(g.env.summary())}</td><td>{e(mach)}</td></tr>"
        )
    out.append("</table>")
    if r.packages and r.groups:
        out += _hosts_by_packages(r)
    for i, g in enumerate(r.groups):
        if not g.reference:
            out += _outlier(group_name(r, i), g, base)
    if r.lock:
        out.append(f"<h2>Against <code>{e(r.lock)}</code></h2><ul>")
        for g in r.groups:
            if g.lock is not None:
                out.append(f"<li><code>{e(fold(g.members))}</code>: {e(summary_sentence(g.lock.diff))}")
                for f in g.lock.findings:
                    out.append(f"<br>{e(f.severity)} <code>{e(f.rule)}</code>: {e(f.message)}")
                out.append("</li>")
        out.append("</ul>")
    if r.unreachable:
        out.append(
            f"<h2>Not read ({len(r.unreachable)})</h2>"
            '<table id="unreachable"><tr><th>host</th><th>why</th></tr>'
        )
        out += [
            f'<tr class="unreachable"><td>{e(u.host)}</td><td>{e(u.why)}</td></tr>' for u in r.unreachable
        ]
        out.append("</table>")
    out.append("</body></html>")
    return "\n".join(out) + "\n"


def _hosts_by_packages(r: FleetReport) -> list[str]:
    """The hosts x packages table: each host's version of the packages that differ."""
    e = escape
    major = dict(r.groups[0].versions)
    out = ['<h2>Hosts × packages</h2><table id="hosts"><tr><th>host</th><th>group</th>']
    out += [f"<th><code>{e(p)}</code></th>" for p in r.packages]
    out.append("</tr>")
    for i, g in enumerate(r.groups):
        kind = _kind(g)
        cells = []
        for p, v in g.versions:
            cls = "differs" if not g.reference and v != major.get(p) else "same"
            cells.append(f'<td class="{cls}">{e(v)}</td>')
        row = "".join(cells)
        label = group_name(r, i)
        for h in g.members:
            out.append(f'<tr class="{kind}"><td class="host">{e(h)}</td><td>{e(label)}</td>{row}</tr>')
    out.append("</table>")
    return out


def _outlier(title: str, g, base: str) -> list[str]:
    """A group's section: its machine rows and its ranked diff against the reference group `base`."""
    e = escape
    anchor = title.replace(" ", "-")
    out = [f'<h2 id="{anchor}">{e(title.capitalize())}: <code>{e(fold(g.members))}</code></h2>']
    if g.machine_differs:
        out.append("<ul>")
        out += [f"<li>machine: <b>{e(lbl)}</b> {e(a)} → {e(b)}</li>" for lbl, a, b in g.machine_differs]
        out.append("</ul>")
    if g.diff is None:
        return [*out, f"<p>Same environment as {e(base)}.</p>"]
    out.append(f"<p>{e(summary_sentence(g.diff))}</p>")
    out.append(
        f"<table><tr><th>package</th><th>{e(base.removeprefix('the '))}</th><th>this group</th>"
        "<th>impact</th><th>why</th></tr>"
    )
    for c in g.diff.changes:
        a, b = change_states(c)
        cls = ' class="matter"' if c.group == "matter" else ""
        out.append(
            f"<tr><td{cls}><code>{e(c.name)}</code></td><td>{e(a)}</td><td>{e(b)}</td>"
            f"<td>{e(c.impact)}</td><td>{e(c.reason)}</td></tr>"
        )
    out.append("</table>")
    return out
