"""`envkit audit`'s configuration: `[tool.envkit.audit]` in pyproject.toml, `[audit]` in .envkit.toml.

    [tool.envkit.audit]
    db = "/srv/osv/PyPI/all.zip"            # default for --db (after $ENVKIT_AUDIT_DB)
    fail-on = "high"                        # default for --fail-on
    license-allow = ["MIT", "BSD-3-Clause", "Apache-2.0"]
    license-deny = ["AGPL-3.0-only"]
    ignore = [
      {id = "PYSEC-2023-74", reason = "we never follow redirects", until = 2027-03-31},
    ]

An ignore names an advisory by its id or any alias (CVE, GHSA) and must give a reason; after its
`until` date it lapses and the advisory is a finding again.  The file is the one envkit.config
finds (searched upwards from the working directory); errors name the file, line and key.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

from envkit.errors import Where, clip

#: --fail-on levels, weakest first: `unknown` also fails on what cannot be known
FAIL_ON = ("unknown", "any", "low", "medium", "high", "critical", "never")
_KEYS = ("db", "fail-on", "license-allow", "license-deny", "ignore")


@dataclass(frozen=True, slots=True, kw_only=True)
class Ignore:
    """An accepted advisory: `id` (or an alias), why, and until when (None: no expiry)."""

    id: str
    reason: str
    until: dt.date | None = None

    def active(self, today: dt.date) -> bool:
        return self.until is None or today <= self.until


@dataclass(frozen=True, slots=True, kw_only=True)
class AuditConfig:
    db: str | None = None
    fail_on: str | None = None
    license_allow: tuple[str, ...] = ()
    license_deny: tuple[str, ...] = ()
    ignore: tuple[Ignore, ...] = ()
    source: str | None = None


def load_audit_config(path: str | None) -> AuditConfig:
    """The audit table of the config file at `path` (envkit.config.find_config finds it); an empty
    AuditConfig when there is none.  Raises ConfigError naming file, line and key."""
    from envkit.errors import ConfigError
    from envkit.formats._toml import load_toml
    from envkit.formats._tomltable import table_at
    from envkit.io import read_text

    if path is None:
        return AuditConfig()

    text = read_text(path)
    data = load_toml(text, path, "envkit configuration", error=ConfigError)
    keys = ("tool", "envkit", "audit") if path.endswith("pyproject.toml") else ("audit",)
    table = table_at(data, keys, file=path, text=text)
    return parse_audit_config(table, source=path, prefix=".".join(keys), text=text)


def parse_audit_config(
    table: dict, *, source: str | None = None, prefix: str = "audit", text: str | None = None
) -> AuditConfig:
    """Validate an audit table (parsed TOML, a table: load_audit_config's table_at selects it;
    `text` its file's text) into an AuditConfig; ConfigError for a bad key or value, naming the file,
    the key and (given `text`) its line."""
    from envkit.errors import ConfigError
    from envkit.formats._tomltable import KeyPlaces

    where = KeyPlaces(table, source=source, prefix=prefix, text=text)
    norm = {k.replace("_", "-"): v for k, v in table.items()}
    for k in norm:
        if k not in _KEYS:
            raise ConfigError(
                f"unknown configuration key {k!r}", where=where(k), hint="known keys: " + ", ".join(_KEYS)
            )
    db = norm.get("db")
    if db is not None and not (isinstance(db, str) and db):
        raise ConfigError("db must be the path of an OSV database", where=where("db"))
    fail_on = norm.get("fail-on")
    if fail_on is not None and fail_on not in FAIL_ON:
        raise ConfigError(
            f"fail-on must be one of {', '.join(FAIL_ON)}, not {clip(repr(fail_on))}", where=where("fail-on")
        )
    lists = {}
    for key in ("license-allow", "license-deny"):
        value = norm.get(key, [])
        if not isinstance(value, list) or not all(isinstance(x, str) and x for x in value):
            raise ConfigError(f"{key} must be a list of SPDX licence ids", where=where(key))
        lists[key] = tuple(value)
    items = norm.get("ignore", [])
    if not isinstance(items, list):
        raise ConfigError(
            "ignore must be a list of tables {id, reason, until}",
            where=where("ignore"),
            hint='ignore = [{id = "PYSEC-2023-74", reason = "why it does not apply"}]',
        )
    return AuditConfig(
        db=db,
        fail_on=fail_on,
        license_allow=lists["license-allow"],
        license_deny=lists["license-deny"],
        ignore=tuple(_ignore(item, where("ignore", i)) for i, item in enumerate(items)),
        source=source,
    )


def _ignore(item: object, where: Where) -> Ignore:
    from envkit.errors import ConfigError

    if not isinstance(item, dict):
        raise ConfigError("an ignore must be a table {id, reason, until}", where=where)
    unknown = set(item) - {"id", "reason", "until"}
    if unknown:
        raise ConfigError(f"unknown key {sorted(unknown)[0]!r} in an ignore (id, reason, until)", where=where)
    ident, reason = item.get("id"), item.get("reason")
    if not isinstance(ident, str) or not ident:
        raise ConfigError("an ignore needs `id`: the advisory id or an alias (CVE, GHSA)", where=where)
    if not isinstance(reason, str) or not reason.strip():
        raise ConfigError(f"the ignore of {ident} needs a `reason`", where=where)
    return Ignore(id=ident, reason=reason.strip(), until=_date(item.get("until"), ident, where))


def _date(value: object, ident: str, where: Where) -> dt.date | None:
    from envkit.errors import ConfigError

    if value is None:
        return None
    if isinstance(value, dt.datetime):
        return value.date()
    if isinstance(value, dt.date):
        return value
    if isinstance(value, str):
        try:
            return dt.date.fromisoformat(value)
        except ValueError:
            pass
    raise ConfigError(
        f"`until` of the ignore of {ident} must be a date (YYYY-MM-DD), not {value!r}", where=where
    )
