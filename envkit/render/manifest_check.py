"""A manifest's lock verdict (`envkit.lock.manifest_check.ManifestCheck`) in words and as JSON:
`lock --check -f MANIFEST` and `check MANIFEST LOCK` both show it."""

from __future__ import annotations

import json


def change_text(c, manifest: str, lock: str) -> str:
    """One Change: `pixi.toml:10: default/linux-64: changed: geos >=3.13: locked geos 3.12.2 ...`."""
    where = f"{manifest}:{c.line}" if c.line else (lock if c.what.startswith("extra") else manifest)
    scope = "/".join(x for x in (c.environment, c.platform) if x)
    return f"{where}: {scope + ': ' if scope else ''}{c.what}: {c.message}"


def render_manifest_text(verdict) -> str:
    """Each stale reason, then the notes, then the verdict and the command that relocks."""
    stale = [c for c in verdict.changes if c.severity == "stale"]
    notes = [c for c in verdict.changes if c.severity != "stale"]
    out = [change_text(c, verdict.manifest, verdict.lock) for c in stale]
    out += [f"note: {change_text(c, verdict.manifest, verdict.lock)}" for c in notes]
    judged = ", ".join(verdict.environments)
    if stale:
        out.append(
            f"{verdict.lock} is stale for {verdict.manifest} ({verdict.tool}'s rules; {judged}): "
            f"{len(stale)} change(s); run `{verdict.relock}`"
        )
    else:
        out.append(f"{verdict.lock} is up to date with {verdict.manifest} ({verdict.tool}'s rules; {judged})")
    return "\n".join(out) + "\n"


def render_manifest_json(verdict) -> str:
    doc = {
        "manifest": verdict.manifest,
        "lock": verdict.lock,
        "tool": verdict.tool,
        "ok": verdict.ok,
        "environments": list(verdict.environments),
        "changes": [c.to_dict() for c in verdict.changes],
        "relock": None if verdict.ok else verdict.relock,
    }
    return json.dumps(doc, indent=2, ensure_ascii=False) + "\n"
