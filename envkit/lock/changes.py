"""One reason a lock does or may not fit its manifest (pixi_fresh and uv_fresh make them,
manifest_check gathers them)."""

from __future__ import annotations

from dataclasses import asdict, dataclass


@dataclass(frozen=True, slots=True, kw_only=True)
class Change:
    """One reason the lock does (`stale`) or may (`note`) not fit the manifest.

    `what`: "added" (asked for, not locked), "removed" (locked as asked for, no longer asked for),
    "changed" (asked for differently than locked), "missing-environment", "missing-platform",
    "extra-environment", "extra-platform", "changed-platform", "channels", "requires-python",
    "options", "project", "not-judged"; pixi's walk of the locked records adds "dependency" (a
    requirement of a reached record no locked record meets), "source" (a source package locked as
    something else), "index" (a PyPI package locked from another index), "conda-for-pypi" and
    "wheel-tags".  `line` is the manifest line, `locked` what the lock holds."""

    severity: str
    what: str
    message: str
    environment: str | None = None
    platform: str | None = None
    name: str | None = None
    line: int | None = None
    key: str | None = None
    locked: str | None = None

    def to_dict(self) -> dict:
        return asdict(self)


def stale(*, what: str, message: str, **fields) -> Change:
    """A Change that makes the lock stale."""
    return Change(severity="stale", what=what, message=message, **fields)
