"""`envkit fleet --format json`: schema `envkit-fleet/1`, written out in docs/commands/fleet.md."""

from __future__ import annotations

import json

from envkit.fleet import FleetReport, Group

SCHEMA = "envkit-fleet/1"
_KEYS = {
    "Platform": "platform",
    "Driver": "driver",
    "GPUs": "gpus",
    "libc/OS": "libc",
    "CPU level": "cpu_level",
}


def render_fleet_json(r: FleetReport) -> str:
    """The FleetReport as JSON text (a trailing newline)."""
    doc = {
        "schema": SCHEMA,
        "same": r.same,
        "hosts": r.hosts,
        "read": r.hosts - len(r.unreachable),
        "lock": r.lock,
        "groups": [_group(g) for g in r.groups],
        "unreachable": [u.as_dict() for u in r.unreachable],
        "duplicates": [{"host": h, "sources": list(s)} for h, s in r.duplicates],
        "packages": list(r.packages),
        "warnings": list(r.warnings),
    }
    return json.dumps(doc, indent=2) + "\n"


def _group(g: Group) -> dict:
    from envkit.render.diff_text import summary_sentence

    differs = None
    if not g.reference:
        differs = {
            "summary": summary_sentence(g.diff) if g.diff is not None else "Same environment.",
            "changes": [c.as_dict() for c in g.diff.changes] if g.diff is not None else [],
            "channels": g.diff.channels.as_dict() if g.diff is not None else None,
            "machine": [{"label": lbl, "majority": a, "group": b} for lbl, a, b in g.machine_differs],
            "counts": g.diff.summary() if g.diff is not None else None,
        }
    lock = None
    if g.lock is not None:
        lock = {
            "same": g.lock.diff.same,
            "summary": summary_sentence(g.lock.diff),
            "changes": [c.as_dict() for c in g.lock.diff.changes],
            "spec": [c.as_dict() for c in g.lock.diff.spec_checks],
            "findings": [
                {"rule": f.rule, "severity": f.severity, "message": f.message} for f in g.lock.findings
            ],
        }
    env = g.env
    return {
        "members": list(g.members),
        "fingerprint": g.fingerprint,
        "majority": g.majority,
        "reference": g.reference,
        "env": {
            "digest": env.digest,
            "packages": env.packages,
            "concrete": env.concrete,
            "platform": env.platform,
            "python": env.python,
            "pytorch": env.torch,
            "summary": env.summary(),
        },
        "machine": None
        if g.machine is None
        else {
            "digest": g.machine.digest,
            **{_KEYS[k]: v for k, v in g.machine.rows()},
            "summary": g.machine.summary(),
        },
        "differs": differs,
        "versions": dict(g.versions),
        "lock": lock,
    }
