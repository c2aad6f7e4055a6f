"""A pylock.toml beside a pyproject.toml, judged by its content: a PEP 751 lock (`pip lock`, `uv
export --format pylock.toml`, `pdm export -f pylock`) records no input to compare, so it is fresh when
every requirement the pyproject asks for -- `[project] dependencies` and the groups installed by
default -- is locked at a version the requirement accepts.  A requirement with a marker that is not
locked is a note (the lock may be for an environment the marker excludes); a path, git or url
requirement needs a package of its name.
"""

from __future__ import annotations

from envkit.conda.names import pep503
from envkit.lock.changes import Change, stale

#: a lock's `created-by` -> the command that writes it again
RELOCK = {
    "pip": "pip lock",
    "uv": "uv export --format pylock.toml",
    "pdm": "pdm export -f pylock",
}


def pylock_changes(
    manifest_text: str, manifest_path: str, lock_text: str, lock_path: str
) -> tuple[list[str], list[Change], str]:
    """(the groups judged, the Changes, the command that relocks) of a pyproject and its pylock."""
    import json

    from envkit.formats.pylock import META_CREATED_BY, read_pylock
    from envkit.formats.pyproject import default_groups, group_entries, load, pdm_groups, project_entries

    data, lines = load(manifest_text, manifest_path)
    groups = group_entries(data, lines, manifest_path)
    pdm = {k: v for k, v in pdm_groups(data, lines, manifest_path).items() if k not in groups}
    groups.update(pdm)
    judged = list(dict.fromkeys([*default_groups(data, groups), *pdm]))
    requests = [("project", e) for e in project_entries(data, lines, "dependencies", filename=manifest_path)]
    requests += [(g, e) for g in judged for e in groups.get(g, [])]
    lock = read_pylock(lock_text, lock_path)
    locked: dict[str, list] = {}
    for p in lock.packages:
        locked.setdefault(pep503(p.name), []).append(p)
    out = [c for env, e in requests if (c := _judge(env, e, locked.get(pep503(e.name), []))) is not None]
    created = str(json.loads(dict(lock.metadata).get(META_CREATED_BY, '""'))).split()[:1]
    relock = RELOCK.get(created[0] if created else "", "pip lock")
    return ["project", *judged], out, relock


def _judge(env: str, e, pkgs: list) -> Change | None:
    """The Change for one requirement against the locked packages of its name (None: satisfied)."""
    from packaging.specifiers import InvalidSpecifier, SpecifierSet

    from envkit.formats.pipreq import pip_version_satisfies

    if not pkgs:
        severity = "note" if e.marker else "stale"
        why = "not locked" + ("; its marker may exclude the lock's environment" if e.marker else "")
        return Change(
            severity=severity,
            what="added",
            environment=env,
            name=e.name,
            line=e.line,
            key=e.key,
            message=f"{e.spec}: {why}",
        )
    if e.source is not None or not e.version or e.version == "*":
        return None
    try:
        spec = SpecifierSet(e.version)
    except InvalidSpecifier:
        return None
    if any(pip_version_satisfies(spec, p.version) for p in pkgs):
        return None
    versions = ", ".join(sorted({p.version for p in pkgs}))
    return stale(
        what="changed",
        environment=env,
        name=e.name,
        line=e.line,
        key=e.key,
        message=f"{e.spec}: locked {e.name} {versions}",
        locked=versions,
    )
