"""`envkit audit` as text: one line per vulnerability and per licence not allowed, the unknowns
listed by reason, the ignored advisories with their reasons, then a summary."""

from __future__ import annotations

from collections import Counter

from envkit._text import plural


def _where(source: str, line: int | None) -> str:
    return f"{source}:{line}" if line else source


def vulnerability_line(v) -> str:
    """`file:line: PYSEC-... (CVE-..., GHSA-...) high 7.5: aiohttp 3.8.5 (pip): summary; fix: ...`"""
    return f"{_where(v.source, v.line)}: {v.describe()}"


def _unknown_licences(licences) -> list[str]:
    """The unknown licences by source; a source that records no licence at all is one count."""
    by_source: dict[str, list] = {}
    for lic in licences:
        if lic.status == "unknown":
            by_source.setdefault(lic.source, []).append(lic)
    out = []
    for source, items in by_source.items():
        n = plural(len(items), "package")
        if all(lic.raw is None for lic in items) and len(items) == sum(
            1 for x in licences if x.source == source
        ):
            out.append(f"{source}: licence unknown: {n} (it records no licences)")
            continue
        names = ", ".join(f"{lic.package} ({lic.raw})" if lic.raw else lic.package for lic in items)
        out.append(f"{source}: licence unknown: {n}: {names}")
    return out


def render_audit_text(result) -> str:
    """The text report (ends with a newline)."""
    out = [vulnerability_line(v) for v in result.vulnerabilities]
    for lic in result.licences:
        if lic.status in ("denied", "not-allowed"):
            out.append(
                f"{lic.source}: licence {lic.status}: {lic.package} {lic.version} ({lic.manager}): {lic.spdx}"
            )
    unknown: dict[tuple[str, str], list[str]] = {}  # by source and reason
    for u in result.unknown:
        unknown.setdefault((u.source, u.reason), []).append(f"{u.package} {u.version}".strip())
    out += [
        f"{source}: unknown, {reason}: {plural(len(names), 'package')}: {', '.join(names)}"
        for (source, reason), names in unknown.items()
    ]
    out += _unknown_licences(result.licences)
    for v in result.ignored:
        out.append(f"{_where(v.source, v.line)}: {v.advisory.id} on {v.package} {v.version} {v.ignored}")
    out.append(summary_line(result))
    return "\n".join(out) + "\n"


def summary_line(result) -> str:
    """`3 vulnerabilities in 2 of 120 packages (1 source); 80 clean, 38 unknown; licences: ...`"""
    counts = Counter(lic.status for lic in result.licences)
    lic_text = ", ".join(
        f"{counts[s]} {s}" for s in ("allowed", "not-allowed", "denied", "unknown") if counts.get(s)
    )
    ignored = f", {len(result.ignored)} ignored" if result.ignored else ""
    sources = plural(len(result.sources), "source")
    return (
        f"{plural(len(result.vulnerabilities), 'vulnerability', 'vulnerabilities')}{ignored} in "
        f"{result.vulnerable} of {plural(result.audited, 'package')} ({sources}); "
        f"{result.clean} clean, {len(result.unknown)} unknown; licences: {lic_text or 'none'}"
    )
