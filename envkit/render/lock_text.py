"""`envkit lock`'s reports in words: what a spec lock made and moved (stderr), and `lock --check`'s
verdict (stdout).  The cores (`envkit.ops.lock`, `envkit.lock.relock`, `envkit.lock.spec_record`)
return records; the sentences are written here."""

from __future__ import annotations


def reason_text(reason) -> str:
    """Why a package moved (a `envkit.lock.relock.Reason`), in words."""
    kind = reason.kind
    if kind == "spec":
        return f"the spec asks for {reason.spec}" + (f" ({reason.where})" if reason.where else "")
    if kind in ("forced", "needed"):
        return f"{kind} by {reason.by}"
    return {
        "asked": "asked to update",
        "cutoff": "uploaded after the exclude-newer cutoff",
        "in-spec": "in the spec",
        "unneeded": "no longer needed",
        "solve": "moved by the solve",
        "newest": "already the newest that fits",
        "new": "new",
        "pip": "re-resolved by pip",
    }.get(kind, kind)


def move_text(m) -> str:
    """One Move: `a 1.0 → 2.0 (asked to update)`, `b 2.0 (new: needed by a 2.0)`."""
    why = reason_text(m.reason)
    if m.old is None or m.new is None:
        what = "new" if m.old is None else "removed"
        version = (m.new or m.old or "").split(" ")[0]
        # a pip package that is new says only that
        return f"{m.name} {version} ({what})" if why == what else f"{m.name} {version} ({what}: {why})"
    if m.old == m.new:
        change = f"{m.name} {m.new} (unchanged)"
    else:
        # versions alone when they differ (`1.0 → 2.0`), with builds when only the build moved
        old, new = m.old.split(" ")[0], m.new.split(" ")[0]
        if old == new:
            old, new = m.old, m.new
        change = f"{m.name} {old} → {new}"
    return f"{change} ({why})"


def lock_warnings(result) -> list[str]:
    """The warnings of a spec lock (`SpecLockResult`), in words: the solver's notes, then the
    records a cutoff could not judge."""
    return list(result.warnings) + [
        f"{p}: {n} record(s) have no upload time (no indexed_timestamp or timestamp); "
        "the exclude-newer cutoff cannot judge them, so they were kept"
        for p, n in result.untimed
    ]


def render_lock_text(result, *, spec_file: str, output: str) -> str:
    """What `envkit lock -f` says on stderr once the lock is written to `output`: a summary line,
    then each package that moved and why."""
    lk = result.lock
    counts = ", ".join(f"{p}: {len(lk.for_platform(p))}" for p in lk.platforms)
    where = "standard output" if output == "-" else output
    cut = f", exclude-newer {result.exclude_newer.describe()}" if result.exclude_newer else ""
    lines = [f"locked {spec_file} for {len(lk.platforms)} platform(s) ({counts} packages{cut}) -> {where}"]
    lines += [f"  {m.platform}: {'pip ' if m.manager == 'pip' else ''}{move_text(m)}" for m in result.moves]
    if result.relocked and not result.moves:
        lines.append("  no package moved")
    return "\n".join(lines) + "\n"


def spec_change_text(c) -> str:
    """One SpecChange: `changed c → c>=1.1`, `added pip rich`, `channels changed from A to B`."""
    what = "pip " if c.section == "pip" else ""
    if c.kind == "added":
        return f"added {what}{c.new}"
    if c.kind == "removed":
        return f"removed {what}{c.old}"
    if c.kind in ("channels", "options"):
        noun = "channels" if c.kind == "channels" else "pip options"
        return f"{noun} changed from {c.old or '(none)'} to {c.new or '(none)'}"
    return f"changed {what}{c.old} → {c.new}"


def render_check_text(verdict, *, spec_file: str, lock_file: str, advice: str) -> str:
    """`envkit lock --check`'s report (stdout): notes, problems (with the spec's file:line), the
    spec entries changed since the lock was made, and the verdict (`advice`: how to regenerate)."""
    out: list[str] = [f"{lock_file}: note: {note}" for note in verdict.notes]
    for p in verdict.problems:
        where = f"{spec_file}:{p.line}" if p.line else lock_file
        out.append(f"{where}: {p.kind}: {p}")
    if verdict.stale_platforms and verdict.changes:
        out.append(
            f"{lock_file}: the spec changed since it was locked ({', '.join(verdict.stale_platforms)}):"
        )
        out += [f"  {c.where or spec_file}: {spec_change_text(c)}" for c in verdict.changes]
    elif verdict.stale_platforms and verdict.changes is None:
        out.append(
            f"{lock_file}: the lock records no copy of its spec, so only the content hash says it changed"
        )
    if verdict.problems:
        out.append(f"{lock_file} does not fit {spec_file}: {len(verdict.problems)} problem(s); {advice}")
    else:
        how = "satisfies" if verdict.notes else "is up to date with"
        cut = f", exclude-newer {verdict.exclude_newer.describe()}" if verdict.exclude_newer else ""
        about = ", ".join(verdict.lock.platforms) + cut
        out.append(f"{lock_file} {how} {spec_file}" + (f" ({about.removeprefix(', ')})" if about else ""))
    return "\n".join(out) + "\n"
