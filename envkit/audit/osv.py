"""One OSV record (https://ossf.github.io/osv-schema/) -> the Advisory entries an index keeps.

Only what a PyPI version match needs is kept: the `ECOSYSTEM` ranges of each `affected` entry of
ecosystem PyPI (GIT ranges name commits, not releases), the listed `versions` that no range covers
already (most records list every release a range covers: keeping those would multiply the index by
the size of PyPI's release history), the fixed versions, and the severity.  Withdrawn records are
skipped.  Versions compare as PEP 440 versions (packaging), as OSV's PyPI ecosystem specifies.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from functools import cache
from typing import Any, NoReturn

from packaging.version import InvalidVersion, Version

from envkit.audit.cvss import TYPES, base_score, rating, version
from envkit.errors import ParseError, Where, clip
from envkit.model import pep503

#: the ecosystem of PyPI in OSV records
ECOSYSTEM = "PyPI"
#: order of events at one version: a range that ends where the next starts is affected there
_EVENT_ORDER = {"fixed": 0, "limit": 0, "introduced": 1, "last_affected": 2}
#: GitHub's `database_specific.severity` words -> the CVSS ratings
_GHSA_LEVELS = {
    "LOW": "low",
    "MODERATE": "medium",
    "MEDIUM": "medium",
    "HIGH": "high",
    "CRITICAL": "critical",
}

Range = tuple[tuple[str, str], ...]


@cache
def parse_version(text: str) -> Version | None:
    """`text` as a PEP 440 version, or None when it is not one."""
    try:
        return Version(text)
    except InvalidVersion:
        return None


@dataclass(frozen=True, slots=True)
class Advisory:
    """What one OSV record says about one PyPI project.

    `ranges`: each range's (event, version) pairs in version order; `versions`: the listed affected
    versions that no range covers; `fixed`: the versions that fix it; `severity`: low, medium,
    high, critical or unknown; `score`/`vector`: the CVSS base score and vector when recorded."""

    id: str
    aliases: tuple[str, ...]
    summary: str
    severity: str
    score: float | None
    vector: str | None
    ranges: tuple[Range, ...]
    versions: tuple[str, ...]
    fixed: tuple[str, ...]

    def to_json(self) -> list:
        """A compact list for the index file (read back by `from_json`)."""
        ranges = [[list(e) for e in r] for r in self.ranges]
        head = [self.id, list(self.aliases), self.summary, self.severity, self.score, self.vector]
        return head + [ranges, list(self.versions), list(self.fixed)]

    @classmethod
    def from_json(cls, item: list) -> Advisory:
        i, aliases, summary, severity, score, vector, ranges, versions, fixed = item
        return cls(
            i,
            tuple(aliases),
            summary,
            severity,
            score,
            vector,
            tuple(tuple((k, v) for k, v in r) for r in ranges),
            tuple(versions),
            tuple(fixed),
        )

    def affects(self, version: str) -> bool | None:
        """Whether `version` is affected; None when it is not a PEP 440 version and only a range
        could say."""
        if version in self.versions:
            return True
        v = parse_version(version)
        if v is None:
            return None if self.ranges else False
        if any(parse_version(x) == v for x in self.versions):
            return True
        if not self.ranges and not self.versions:
            return True  # a record that bounds nothing affects every release
        return any(in_range(v, r) for r in self.ranges)


def in_range(v: Version, events: Range) -> bool:
    """Whether `v` lies in one OSV range, its events in version order."""
    affected = False
    for kind, text in events:
        if kind == "introduced":
            if text == "0":
                affected = True
                continue
        at = parse_version(text)
        if at is None:
            continue
        if kind == "introduced":
            affected = affected or v >= at
        elif kind in ("fixed", "limit"):
            if v >= at:
                affected = False
        elif kind == "last_affected" and v > at:
            affected = False
    return affected


def _event_key(event: tuple[str, str]) -> tuple:
    kind, text = event
    v = parse_version(text)
    return (text != "0", v or Version("0"), _EVENT_ORDER.get(kind, 1))


def _ranges(affected: Mapping[str, Any]) -> tuple[Range, ...]:
    out = []
    for r in affected.get("ranges") or ():
        if not isinstance(r, dict) or r.get("type") != "ECOSYSTEM":
            continue
        events = []
        for e in r.get("events") or ():
            for kind, text in (e or {}).items():
                if kind in _EVENT_ORDER and text is not None:
                    events.append((kind, str(text)))
        if events:
            out.append(tuple(sorted(events, key=_event_key)))
    return tuple(out)


def _severity(record: Mapping[str, Any], affected: Mapping[str, Any]) -> tuple[str, float | None, str | None]:
    """(rating, CVSS score, vector) of a record: its newest CVSS vector that scores (4.0, else 3.x,
    else 2.0), else GitHub's word."""
    vector = None
    items = [
        i
        for i in list(affected.get("severity") or ()) + list(record.get("severity") or ())
        if isinstance(i, dict)
    ]
    items.sort(key=lambda i: TYPES.index(i.get("type")) if i.get("type") in TYPES else len(TYPES))
    for item in items:
        text = str(item.get("score") or "")
        score = base_score(text) if item.get("type") in TYPES else None
        if score is not None:
            return rating(score, version(text)), score, text
        vector = vector or text or None
    words = [
        (d or {}).get("severity")
        for d in (affected.get("database_specific"), record.get("database_specific"))
        if isinstance(d, dict)
    ]
    for w in words:
        if isinstance(w, str) and w.upper() in _GHSA_LEVELS:
            return _GHSA_LEVELS[w.upper()], None, vector
    return "unknown", None, vector


def _summary(record: Mapping[str, Any]) -> str:
    text = str(record.get("summary") or record.get("details") or "").strip()
    first = " ".join(text.split())
    return first if len(first) <= 160 else first[:157].rstrip() + "..."


def advisories(record: Mapping[str, Any], source: str | None = None) -> Iterator[tuple[str, Advisory]]:
    """(PEP 503 project name, Advisory) for each PyPI package the record affects; nothing for a
    withdrawn record or one that is not an OSV record.  Raises ParseError naming `source` (the
    record's file) and the key path where a field this reads breaks OSV's schema."""
    if not isinstance(record, dict) or record.get("withdrawn") or not record.get("id"):
        return
    _Schema(source).record(record)
    aliases = tuple(str(a) for a in record.get("aliases") or ())
    summary = _summary(record)
    for affected in record.get("affected") or ():
        package = (affected or {}).get("package") or {}
        if package.get("ecosystem") != ECOSYSTEM or not package.get("name"):
            continue
        ranges = _ranges(affected)
        listed = [str(v) for v in affected.get("versions") or ()]
        extra = tuple(v for v in listed if not _covered(v, ranges))
        fixed = tuple(dict.fromkeys(t for r in ranges for k, t in r if k == "fixed"))
        severity, score, vector = _severity(record, affected)
        adv = Advisory(str(record["id"]), aliases, summary, severity, score, vector, ranges, extra, fixed)
        yield pep503(str(package["name"])), adv


def _covered(version: str, ranges: tuple[Range, ...]) -> bool:
    v = parse_version(version)
    return v is not None and any(in_range(v, r) for r in ranges)


#: what a version may be: YAML reads an unquoted one (`fixed: 2.0`) as a number
_VERSION = (str, int, float)
_WHAT = {str: "a string", dict: "an object", list: "an array", _VERSION: "a version string"}


class _Schema:
    """OSV's schema (https://ossf.github.io/osv-schema/) for the fields `advisories` reads: the
    one check of a record's shape, so that what reads it may trust it.  A null reads as absent,
    as the readers above take it."""

    def __init__(self, source: str | None) -> None:
        self.source = source

    def record(self, record: dict) -> None:
        for key in ("id", "summary", "details"):
            self.field(record, "", key, str)
        self.items(record, "", "aliases", str)
        self.common(record, "")
        for i, affected in self.items(record, "", "affected", dict):
            at = f"affected[{i}]"
            package = self.field(affected, at, "package", dict) or {}
            for key in ("ecosystem", "name"):
                self.field(package, f"{at}.package", key, str)
            self.items(affected, at, "versions", _VERSION)
            self.common(affected, at)
            for j, rng in self.items(affected, at, "ranges", dict):
                self.field(rng, f"{at}.ranges[{j}]", "type", str)
                for k, event in self.items(rng, f"{at}.ranges[{j}]", "events", dict):
                    for kind in _EVENT_ORDER:
                        self.field(event, f"{at}.ranges[{j}].events[{k}]", kind, _VERSION)

    def common(self, table: dict, at: str) -> None:
        """`severity` and `database_specific`: a record's and each `affected` entry's."""
        self.field(table, at, "database_specific", dict)
        for i, item in self.items(table, at, "severity", dict):
            for key in ("type", "score"):
                self.field(item, f"{self.join(at, 'severity')}[{i}]", key, str)

    def field(self, table: dict, at: str, key: str, kind: type | tuple[type, ...]) -> Any:
        value = table.get(key)
        if value is not None and (not isinstance(value, kind) or isinstance(value, bool)):
            self.fail(self.join(at, key), kind, value)
        return value

    def items(self, table: dict, at: str, key: str, kind: type | tuple[type, ...]) -> list[tuple[int, Any]]:
        """(index, item) of the array `table[key]`, each item checked to be of `kind`."""
        values = self.field(table, at, key, list) or []
        for i, value in enumerate(values):
            if not isinstance(value, kind) or isinstance(value, bool):
                self.fail(f"{self.join(at, key)}[{i}]", kind, value)
        return list(enumerate(values))

    @staticmethod
    def join(at: str, key: str) -> str:
        return f"{at}.{key}" if at else key

    def fail(self, path: str, kind: type | tuple[type, ...], value: object) -> NoReturn:
        raise ParseError(
            f"not an OSV record: {path.rpartition('.')[2]} must be {_WHAT[kind]}, not {clip(repr(value))}",
            where=Where(file=self.source, key=path),
            hint="OSV's schema: https://ossf.github.io/osv-schema/ (correct the record, or remove it)",
        )
