"""Solving as the channels were at a date: `exclude-newer` cutoffs, from each record's upload time.

A record's time is its CEP 47 `indexed_timestamp` (when the channel indexed it:
https://github.com/conda/ceps/blob/main/cep-0047.md) where the channel has one, else its build
`timestamp`; a record with neither is kept (it cannot be judged) and counted, so the solve can
warn.  A cutoff is a date (`2025-01-01`, UTC midnight), a time (`2025-01-01T12:00Z`) or a
duration before now (`30d`, `12h`, `2w`); per-package (`NAME=DATE`) and per-channel
(`CHANNEL::=DATE`) overrides beat the default, as pixi's `exclude-newer` has them
(https://pixi.sh/latest/reference/pixi_manifest/#exclude-newer).

What a cutoff cannot undo: channels rewrite old records' dependencies with repodata patches (the
solve sees today's patched `depends`, not the ones of the date) and remove packages (a removed
build is not there to pick, though it was on the date).  So a solve "as of" a date is the records
uploaded by then, as the channel describes them today.
"""

from __future__ import annotations

import datetime as dt
import json
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from envkit.errors import UsageError

#: The `custom_metadata` key of a lock solved with a cutoff: the cutoff as JSON
#: (`{"default": ISO, "packages": {NAME: ISO}, "channels": {CHANNEL: ISO}}`), so that a re-lock and
#: `envkit lock --check` use it again.
EXCLUDE_NEWER_KEY = "envkit.exclude_newer"

_DURATION = re.compile(r"^(?P<n>\d+)\s*(?P<unit>[smhdw])$")
_UNIT_SECONDS = {"s": 1, "m": 60, "h": 3600, "d": 86400, "w": 7 * 86400}


def iso(when: dt.datetime) -> str:
    """`when` as the ISO 8601 UTC text a lock records (`2025-01-01T00:00:00Z`), to the second."""
    return when.astimezone(dt.timezone.utc).replace(microsecond=0).strftime("%Y-%m-%dT%H:%M:%SZ")


def parse_when(text: str, *, now: dt.datetime | None = None, what: str = "exclude-newer") -> dt.datetime:
    """The UTC time `text` names: `YYYY-MM-DD` (midnight UTC), an ISO 8601 time (`Z` or an offset;
    none means UTC) or a duration before `now` (`30d`, `12h`, `2w`, `90m`, `45s`).

    Raises UsageError (naming `what`) for any other text."""
    raw = text.strip()
    m = _DURATION.match(raw.lower())
    if m:
        base = now or dt.datetime.now(dt.timezone.utc)
        return (base - dt.timedelta(seconds=int(m.group("n")) * _UNIT_SECONDS[m.group("unit")])).replace(
            microsecond=0
        )
    try:
        if re.fullmatch(r"\d{4}-\d{2}-\d{2}", raw):
            when = dt.datetime.fromisoformat(raw + "T00:00:00")
        else:
            when = dt.datetime.fromisoformat(raw.replace("z", "Z").replace("Z", "+00:00"))
    except ValueError:
        raise UsageError(
            f"{what} {text!r}: not a date, a time or a duration",
            hint="write a date (2025-01-01), a UTC time (2025-01-01T12:00Z) or a duration before now "
            "(30d, 12h, 2w)",
        ) from None
    if when.tzinfo is None:
        when = when.replace(tzinfo=dt.timezone.utc)
    return when.astimezone(dt.timezone.utc)


@dataclass(frozen=True, slots=True, kw_only=True)
class ExcludeNewer:
    """A solve's cutoffs: `default` for every record, `packages` (name -> time) and `channels`
    (channel name or URL -> time) beating it.  A package override beats a channel one."""

    default: dt.datetime | None = None
    packages: tuple[tuple[str, dt.datetime], ...] = ()
    channels: tuple[tuple[str, dt.datetime], ...] = ()

    def __bool__(self) -> bool:
        return bool(self.default or self.packages or self.channels)

    def cutoff(self, name: str, channel: str | None) -> dt.datetime | None:
        """The cutoff that applies to a record of package `name` from `channel` (None: none)."""
        for n, when in self.packages:
            if n == name:
                return when
        if channel:
            from envkit.conda.channels import parse_channel

            got = parse_channel(channel).name
            for c, when in self.channels:
                if parse_channel(c).name == got:
                    return when
        return self.default

    def to_json(self) -> str:
        """The text recorded under EXCLUDE_NEWER_KEY (keys in a fixed order, overrides in name order)."""
        doc: dict[str, object] = {}
        if self.default:
            doc["default"] = iso(self.default)
        if self.packages:
            doc["packages"] = {n: iso(w) for n, w in sorted(self.packages)}
        if self.channels:
            doc["channels"] = {c: iso(w) for c, w in sorted(self.channels)}
        return json.dumps(doc, separators=(",", ":"))

    def describe(self) -> str:
        """One line for reports: `2025-01-01T00:00:00Z (numpy: 2024-06-01T00:00:00Z)`."""
        head = iso(self.default) if self.default else "none"
        more = [f"{n}: {iso(w)}" for n, w in sorted(self.packages)]
        more += [f"{c}:: {iso(w)}" for c, w in sorted(self.channels)]
        return head + (f" ({', '.join(more)})" if more else "")

    def args(self) -> list[str]:
        """The command-line words that reproduce this cutoff (absolute times: a duration would not)."""
        out = ["--exclude-newer", iso(self.default)] if self.default else []
        for n, w in sorted(self.packages):
            out += ["--exclude-newer-package", f"{n}={iso(w)}"]
        for c, w in sorted(self.channels):
            out += ["--exclude-newer-package", f"{c}::={iso(w)}"]
        return out


def parse_exclude_newer(default: str | None, overrides: Iterable[str] = ()) -> ExcludeNewer:
    """The cutoffs of `--exclude-newer DEFAULT` and `--exclude-newer-package` OVERRIDES
    (`NAME=DATE` for a package, `CHANNEL::=DATE` for every package of a channel).

    Raises UsageError for a malformed value."""
    packages: dict[str, dt.datetime] = {}
    channels: dict[str, dt.datetime] = {}
    for text in overrides:
        key, sep, value = text.partition("=")
        key = key.strip()
        if not sep or not key or not value.strip():
            raise UsageError(
                f"exclude-newer override {text!r}: expected NAME=DATE or CHANNEL::=DATE",
                hint="e.g. numpy=2024-06-01 or conda-forge::=2024-06-01",
            )
        when = parse_when(value, what=f"exclude-newer override {text!r}:")
        if key.endswith("::"):
            channels[key[:-2]] = when
        elif "::" in key:
            raise UsageError(
                f"exclude-newer override {text!r}: a channel override is CHANNEL::=DATE (no package name)",
                hint="use NAME=DATE for one package",
            )
        else:
            packages[key.lower()] = when
    return ExcludeNewer(
        default=parse_when(default) if default else None,
        packages=tuple(sorted(packages.items())),
        channels=tuple(channels.items()),
    )


def read_exclude_newer(custom: Mapping[str, object]) -> ExcludeNewer | None:
    """The cutoff a lock recorded (its custom_metadata mapping), or None when it records none."""
    from envkit.lock.metadata import recorded_json

    doc = recorded_json(custom, EXCLUDE_NEWER_KEY)
    if doc is None:
        return None
    try:
        default = doc.get("default")
        return ExcludeNewer(
            default=parse_when(default) if default else None,
            packages=tuple((n, parse_when(w)) for n, w in sorted((doc.get("packages") or {}).items())),
            channels=tuple((c, parse_when(w)) for c, w in (doc.get("channels") or {}).items()),
        )
    except (ValueError, AttributeError, UsageError):
        return None


def keep_record(record, cutoffs: ExcludeNewer) -> bool | None:
    """Whether `record` is at or before its cutoff (True), after it (False), or has no time to
    judge by (None: kept, and counted by the caller).  Its time is `indexed_timestamp` (CEP 47),
    else `timestamp`."""
    limit = cutoffs.cutoff(record.name.normalized, str(record.channel) if record.channel else None)
    if limit is None:
        return True
    when = getattr(record, "indexed_timestamp", None) or getattr(record, "timestamp", None)
    if when is None:
        return None
    return (when if when.tzinfo else when.replace(tzinfo=dt.timezone.utc)) <= limit
