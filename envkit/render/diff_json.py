"""`envkit diff --format json`: a documented, stable schema (`envkit-diff/1`, written out in
docs/commands/diff.md).  Keys are only ever added within a schema version; `changes` are in
ranked order."""

from __future__ import annotations

import json

from envkit.envdiff import EnvDiff
from envkit.render.diff_notes import note_sentences

SCHEMA = "envkit-diff/1"


def render_json(d: EnvDiff, *, show_all: bool = False, machines=None) -> str:
    """The diff as pretty-printed JSON text (UTF-8, a trailing newline; docs/commands/diff.md).
    `machines` is (profile A, profile B) from envkit.machine.sides.diff_machines, or None (no
    `machines` key)."""
    spec = None
    if d.spec_side:
        spec = {
            "side": d.spec_side,
            "entries": [c.as_dict() for c in d.spec_checks],
            "unmentioned": [s.as_dict() for s in d.unmentioned],
        }
    out = {
        "schema": SCHEMA,
        "same": d.same,
        "a": d.a.as_dict(),
        "b": d.b.as_dict(),
        "cross_platform": d.cross_platform,
        "highlights": [{"label": label, "a": a, "b": b} for label, a, b in d.highlights],
        "changes": [c.as_dict() for c in d.changes],
        "channels": d.channels.as_dict(),
        "pip_options": d.pip_options.as_dict(),
        "variables": d.variables.as_dict(),
        "duplicates": {
            "a": [x.as_dict() for x in d.duplicates_a],
            "b": [x.as_dict() for x in d.duplicates_b],
        },
        "spec": spec,
        "pip_not_recorded": d.pip_not_recorded.as_dict() if d.pip_not_recorded else None,
        "notes": note_sentences(d),
    }
    if show_all:
        out["unchanged"] = [s.as_dict() for s in d.unchanged]
    if machines is not None:
        out["machines"] = machines_dict(machines)
    out["summary"] = d.summary()
    return json.dumps(out, indent=2, ensure_ascii=False) + "\n"


def machines_dict(machines) -> dict:
    """The `machines` object: each side's profile (or null) and the header rows."""
    from envkit.render.machine import machine_rows

    a, b = machines
    return {
        "a": a.to_dict() if a is not None else None,
        "b": b.to_dict() if b is not None else None,
        "rows": [
            {"label": label, "a": va, "b": vb, "differs": differs}
            for label, va, vb, differs in machine_rows(a, b)
        ],
    }
