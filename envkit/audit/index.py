"""An OSV database on disk -> an index of PyPI advisories by project, built once and cached.

The database is OSV's per-ecosystem dump (`PyPI/all.zip`: one JSON record per member) or a
directory of OSV records in JSON or YAML (a checkout of github.com/pypa/advisory-database).  The
index is a JSON file keyed by the sha256 of the database's content: beside a zip
(`all.zip.envkit-index.json`) or inside a directory (`.envkit-index.json`); where that cannot be
written, in `$XDG_CACHE_HOME/envkit/audit/` (`~/.cache/...`).  A changed database has another key,
so its index is built again; nothing here touches the network.
"""

from __future__ import annotations

import hashlib
import json
import os
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from envkit.audit.osv import Advisory, advisories
from envkit.errors import EnvkitError, ParseError, Remedy, Where

#: the index file's format; another value is rebuilt, not read
INDEX_FORMAT = 2
ENV_DB = "ENVKIT_AUDIT_DB"
_RECORD_SUFFIXES = (".json", ".yaml", ".yml")


class AuditDbError(EnvkitError):
    """No advisory database, or one that cannot be read."""


def no_db_error(
    message: str = "no advisory database: envkit audits offline against an OSV database on disk",
) -> AuditDbError:
    """The error for an audit run with no usable database: the hint names both ways to get one."""
    return AuditDbError(
        message,
        hint=f"name one with {{}} or ${ENV_DB} (OSV's PyPI all.zip, or a checkout of "
        "github.com/pypa/advisory-database), or download OSV's PyPI dump once with {}",
        remedy=(Remedy(option="db", metavar="PATH"), Remedy(option="fetch_db", metavar="DIR")),
    )


@dataclass(slots=True)
class Index:
    """PyPI advisories by PEP 503 project name.  `key`: the database's content hash; `path`: the
    index file (None when it could not be written anywhere); `built`: made by this run."""

    key: str
    records: int
    packages: dict[str, list[Any]]
    path: str | None = None
    built: bool = False
    _seen: dict[str, tuple[Advisory, ...]] = field(default_factory=dict, repr=False)

    def lookup(self, name: str) -> tuple[Advisory, ...]:
        """The advisories of project `name` (PEP 503 normalized), decoded on first use."""
        found = self._seen.get(name)
        if found is None:
            found = tuple(Advisory.from_json(a) for a in self.packages.get(name, ()))
            self._seen[name] = found
        return found


def content_key(db: str) -> str:
    """sha256 over the database's content: the zip's bytes, or each record file's path and bytes."""
    h = hashlib.sha256()
    if os.path.isfile(db):
        with open(db, "rb") as f:
            for chunk in iter(lambda: f.read(1 << 20), b""):
                h.update(chunk)
        return h.hexdigest()
    for rel in _record_files(db):
        h.update(rel.encode() + b"\0")
        with open(os.path.join(db, rel), "rb") as f:
            h.update(hashlib.sha256(f.read()).digest())
    return h.hexdigest()


def _record_files(db: str) -> list[str]:
    out = []
    for root, dirs, files in os.walk(db):
        dirs[:] = sorted(d for d in dirs if not d.startswith("."))
        for name in files:
            if name.endswith(_RECORD_SUFFIXES) and not name.startswith("."):
                out.append(os.path.relpath(os.path.join(root, name), db))
    return sorted(out)


def iter_records(db: str) -> Iterator[tuple[str, Any]]:
    """(file name, parsed record) for every record of the database.  Raises ParseError naming the
    record that is not JSON/YAML, AuditDbError for a zip that cannot be read."""
    if os.path.isfile(db):
        try:
            with zipfile.ZipFile(db) as z:
                for name in sorted(z.namelist()):
                    if name.endswith(".json"):
                        yield f"{db}:{name}", _load(z.read(name), f"{db}:{name}", yaml=False)
        except zipfile.BadZipFile as exc:
            raise AuditDbError(f"{db}: not a zip of OSV records ({exc})") from None
        return
    for rel in _record_files(db):
        path = os.path.join(db, rel)
        with open(path, "rb") as f:
            yield path, _load(f.read(), path, yaml=not rel.endswith(".json"))


def _load(data: bytes, name: str, *, yaml: bool) -> Any:
    if not yaml:  # a JSON dump never needs PyYAML
        from envkit.formats._json import load_json

        try:
            return load_json(data.decode("utf-8"), name)
        except UnicodeDecodeError as exc:
            raise ParseError(f"not an OSV record: {exc}", where=Where(file=name)) from None
    import yaml as pyyaml

    try:
        return pyyaml.load(data, Loader=getattr(pyyaml, "CSafeLoader", pyyaml.SafeLoader))  # noqa: S506 (safe)
    except (ValueError, pyyaml.YAMLError) as exc:
        raise ParseError(f"not an OSV record: {exc}", where=Where(file=name)) from None


def build(db: str, key: str) -> Index:
    """The index of every record of `db` (not cached: see `open_index`)."""
    packages: dict[str, list[Any]] = {}
    n = 0
    for name, record in iter_records(db):
        n += 1
        for project, adv in advisories(record, name):
            packages.setdefault(project, []).append(adv.to_json())
    for items in packages.values():
        items.sort(key=lambda a: a[0])
    return Index(key=key, records=n, packages=packages)


def _candidates(db: str, environ: dict[str, str] | os._Environ[str]) -> list[str]:
    """Where the index of `db` may be kept, first choice first."""
    base = os.path.abspath(db)
    beside = os.path.join(base, ".envkit-index.json") if os.path.isdir(db) else base + ".envkit-index.json"
    cache = environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    digest = hashlib.sha256(base.encode()).hexdigest()[:16]
    return [beside, os.path.join(cache, "envkit", "audit", f"{digest}.json")]


def _read_cached(path: str, key: str) -> Index | None:
    try:
        with open(path, encoding="utf-8") as f:
            doc = json.load(f)
    except (OSError, ValueError, RecursionError):  # not an index envkit wrote: it is built again
        return None
    if not isinstance(doc, dict) or doc.get("format") != INDEX_FORMAT or doc.get("key") != key:
        return None
    return Index(key=key, records=int(doc.get("records") or 0), packages=doc["packages"], path=path)


def _write(index: Index, path: str) -> bool:
    doc = {"format": INDEX_FORMAT, "key": index.key, "records": index.records, "packages": index.packages}
    from envkit.io import atomic_write

    try:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        atomic_write(path, json.dumps(doc, separators=(",", ":")), redact=False)
    except (OSError, EnvkitError):
        return False
    return True


def open_index(db: str | None, environ: dict[str, str] | os._Environ[str] | None = None) -> Index:
    """The index of database `db` (None: $ENVKIT_AUDIT_DB), read from its cache when the
    database's content is unchanged, else built and cached.  Raises AuditDbError when there is no
    database or it does not exist, ParseError for a record that cannot be read."""
    env = os.environ if environ is None else environ
    db = db or env.get(ENV_DB) or None
    if db is None:
        raise no_db_error()
    if not os.path.exists(db):
        raise no_db_error(f"{db}: no such advisory database (file or directory)")
    key = content_key(db)
    places = _candidates(db, env)
    for path in places:
        found = _read_cached(path, key)
        if found is not None:
            return found
    index = build(db, key)
    index.built = True
    for path in places:
        if _write(index, path):
            index.path = path
            break
    return index
