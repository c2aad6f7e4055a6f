"""`envkit lock`'s reports as JSON: what a spec lock made and moved, and `lock --check`'s verdict.
Records as data (kinds, names, versions); the text renderer's sentences only where a field is a
message (a problem's `message`, a note)."""

from __future__ import annotations

import json


def render_lock_json(result, *, spec_file: str, output: str, target: str) -> str:
    """`envkit lock -f --format json`: the lock written (format, platforms and package counts), the
    cutoff, each package that moved with its reason, and the warnings."""
    from envkit.render.lock_text import lock_warnings

    lk = result.lock
    doc = {
        "spec": spec_file,
        "lock": output,
        "format": target,
        "platforms": {p: len(lk.for_platform(p)) for p in lk.platforms},
        "exclude_newer": result.exclude_newer.describe() if result.exclude_newer else None,
        "relocked": result.relocked,
        "moves": [m.to_dict() for m in result.moves],
        "untimed": {p: n for p, n in result.untimed},
        "warnings": lock_warnings(result),
    }
    return json.dumps(doc, indent=2, ensure_ascii=False) + "\n"


def render_check_json(verdict, *, spec_file: str, lock_file: str) -> str:
    """`envkit lock --check --format json`."""
    doc = {
        "lock": lock_file,
        "spec": spec_file,
        "ok": verdict.ok,
        "platforms": list(verdict.lock.platforms),
        "stale_platforms": list(verdict.stale_platforms),
        "changes": None if verdict.changes is None else [c.to_dict() for c in verdict.changes],
        "problems": [
            {"kind": p.kind, "platform": p.platform, "name": p.name, "line": p.line, "message": p.message}
            for p in verdict.problems
        ],
        "exclude_newer": verdict.exclude_newer.describe() if verdict.exclude_newer else None,
        "notes": list(verdict.notes),
    }
    return json.dumps(doc, indent=2, ensure_ascii=False) + "\n"
