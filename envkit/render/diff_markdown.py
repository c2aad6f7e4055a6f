"""`envkit diff --format markdown`: a pull-request comment.

A heading and one summary sentence, the highlights table, the "likely to matter" table (package, change,
A, B, why), and the rest folded in `<details>` blocks so that the comment stays short.  Pure: returns
a string (GitHub-flavoured Markdown).
"""

from __future__ import annotations

from envkit.envdiff import KIND_TITLES, KINDS, NOT_RECORDED, Change, EnvDiff
from envkit.render.diff_notes import note_sentences
from envkit.render.diff_text import FOLD, change_states, fold_runs, present_state, summary_sentence

_IMPACT = {"high": "**high**", "medium": "medium", "low": "low"}


def _cell(text: str | None) -> str:
    if text is None or text == "":
        return "—"
    # `<` would open an HTML tag on GitHub (`HF_TOKEN=<TOKEN>` would lose its placeholder)
    return text.replace("\\", "\\\\").replace("|", "\\|").replace("\n", " ").replace("<", "&lt;")


def _cells(items) -> str:
    """One table cell listing `items`, one per line."""
    return "<br>".join(_cell(x) for x in items) if items else "—"


def _code(text: str) -> str:
    return f"`{text}`" if "`" not in text else text


def _table(changes: list[Change], *, why: bool) -> list[str]:
    """A table of `changes`; with `why` (the "likely to matter" table) a run of FOLD or more
    one-sided changes with one reason (14 CUDA libraries only on B) is one row, as in the text."""
    head = "| package | change | A | B |" + (" impact | why |" if why else "")
    sep = "|---|---|---|---|" + ("---|---|" if why else "")
    rows = [head, sep]
    runs = fold_runs(changes) if why else [[c] for c in changes]
    # a short run is shown change by change
    runs = [r for run in runs for r in ([run] if len(run) >= FOLD else [[c] for c in run])]
    for run in runs:
        c = run[0]
        if len(run) >= FOLD:
            items = ", ".join(_cell(f"{x.name} {present_state(x).version}".rstrip()) for x in run)
            a, b = ("—", items) if c.kind == "added" else (items, "—")
            row = f"| {len(run)} packages | {KIND_TITLES[c.kind]} | {a} | {b} |"
        else:
            a, b = change_states(c)
            row = f"| {_code(c.name)} | {KIND_TITLES[c.kind]} | {_cell(a)} | {_cell(b)} |"
        if why:
            row += f" {_IMPACT[c.impact]} | {_cell(c.reason)} |"
        rows.append(row)
    return rows


def _platform_lines(d: EnvDiff, changes: list[Change]) -> list[str]:
    """The platform differences as three lines (only on A, only on B, rebuilt per platform), by
    name, as in the text report: dozens of rebuilt hashes say nothing a reviewer needs."""
    changes = sorted(changes, key=lambda c: (c.name.lower(), c.name))
    only_a = [f"{_code(c.name)} {present_state(c).version}" for c in changes if c.b is None]
    only_b = [f"{_code(c.name)} {present_state(c).version}" for c in changes if c.a is None]
    rebuilt = [_code(c.name) for c in changes if c.a is not None and c.b is not None]
    titles = (
        f"only on A ({d.a.platform})",
        f"only on B ({d.b.platform})",
        "same version, built per platform",
    )
    return [
        f"- **{title}** ({len(items)}): " + ", ".join(items)
        for title, items in zip(titles, (only_a, only_b, rebuilt), strict=True)
        if items
    ]


def render_markdown(d: EnvDiff, *, show_all: bool = False, machines=None) -> str:
    """The diff as a Markdown pull-request comment; `machines` (profile A, profile B) adds a
    table of the two machines."""
    out = _head(d, machines)
    matter = d.by_group("matter")
    if matter:
        out += ["", f"#### Likely to matter ({len(matter)})", ""]
        out += _table(matter, why=True)
    out += _spec_section(d)
    platform = d.by_group("platform")
    if platform:
        out += [
            "",
            f"<details><summary>Platform differences: {d.a.platform} → {d.b.platform} "
            f"({len(platform)})</summary>",
            "",
        ]
        out += _platform_lines(d, platform)
        out += ["", "</details>"]
    other = d.by_group("other")
    if other:
        out += ["", f"<details><summary>Other changes ({len(other)})</summary>", ""]
        out += _table(sorted(other, key=lambda c: KINDS.index(c.kind)), why=False)  # ranked in each kind
        out += ["", "</details>"]
    out += _channels_section(d, show_all)
    out += _list_sections(d, show_all)
    out += _duplicates_section(d)
    if show_all and d.unchanged:
        out += [
            "",
            f"<details><summary>Unchanged ({len(d.unchanged)})</summary>",
            "",
            "| package | version | build |",
            "|---|---|---|",
        ]
        out += [f"| {_code(s.name)} | {_cell(s.version)} | {_cell(s.build)} |" for s in d.unchanged]
        out += ["", "</details>"]
    return "\n".join(out) + "\n"


def _head(d: EnvDiff, machines) -> list[str]:
    """The heading, the two sources, the machines table, the notes, the verdict and highlights."""
    out = ["### envkit diff", ""]
    pa = f" ({d.a.platform})" if d.a.platform else ""
    pb = f" ({d.b.platform})" if d.b.platform else ""
    out.append(f"**A** {_code(d.a.source)}{pa} → **B** {_code(d.b.source)}{pb}")
    out.append("")
    if machines is not None:
        out += _machine_table(machines)
    for note in note_sentences(d):
        out += [f"_{_cell(note)}_", ""]
    verdict, _, rest = summary_sentence(d).partition(": ")
    out.append(f"**{verdict}**: {rest}")
    if d.highlights:
        out += ["", "| | A | B |", "|---|---|---|"]
        for label, a, b in d.highlights:
            mark = " ⚠" if a != b and d.a.concrete and d.b.concrete and NOT_RECORDED not in (a, b) else ""
            out.append(f"| {label}{mark} | {_cell(a)} | {_cell(b)} |")
    return out


def _machine_table(machines) -> list[str]:
    from envkit.render.machine import machine_rows

    out = ["| machine | A | B |", "|---|---|---|"]
    for label, a, b, differs in machine_rows(*machines):
        mark = " ⚠" if differs else ""
        out.append(f"| {label}{mark} | {_cell(a)} | {_cell(b)} |")
    return [*out, ""]


_SPEC_STATUS = {
    "satisfied": "ok",
    "not-satisfied": "**not satisfied**",
    "missing": "**missing**",
    "skipped": "skipped",
}


def _spec_section(d: EnvDiff) -> list[str]:
    """The spec side checked against the concrete side, and what the spec does not mention."""
    if not d.spec_side:
        return []
    from envkit.render.diff_text import found_text

    sl, cl = ("A", "B") if d.spec_side == "a" else ("B", "A")
    out = [
        "",
        f"#### Spec {sl} against {cl}",
        "",
        "| status | spec | found | note |",
        "|---|---|---|---|",
    ]
    for c in d.spec_checks:
        out.append(
            f"| {_SPEC_STATUS[c.status]} | {_code(c.spec)} | {_cell(found_text(c))} | {_cell(c.note)} |"
        )
    if d.unmentioned:
        out += [
            "",
            f"<details><summary>In {cl}, not in the spec ({len(d.unmentioned)})</summary>",
            "",
            ", ".join(_code(s.name) for s in d.unmentioned),
            "",
            "</details>",
        ]
    return out


def _channels_section(d: EnvDiff, show_all: bool) -> list[str]:
    ch = d.channels
    if not (ch.changed or (show_all and (ch.a or ch.b))):
        return []
    out = [
        "",
        "#### Channels",
        "",
        "| | A | B |",
        "|---|---|---|",
        f"| channels (priority order) | {_cell(', '.join(ch.a or ()))} | {_cell(', '.join(ch.b or ()))} |",
    ]
    if ch.priority_changed or (show_all and (ch.priority_a or ch.priority_b)):
        out.append(f"| channel_priority | {_cell(ch.priority_a)} | {_cell(ch.priority_b)} |")
    if ch.note:
        out += ["", f"_{ch.note}_"]
    return out


def _list_sections(d: EnvDiff, show_all: bool) -> list[str]:
    """The pip index options and the environment variables, each a two-column table."""
    out: list[str] = []
    for title, ld in (("pip index options", d.pip_options), ("Environment variables", d.variables)):
        if ld.changed or (show_all and (ld.a or ld.b)):
            out += ["", f"#### {title}", "", "| A | B |", "|---|---|", f"| {_cells(ld.a)} | {_cells(ld.b)} |"]
            if ld.secrets_changed:
                out += [
                    "",
                    "Value changed (a credential, not shown): "
                    + ", ".join(_code(x) for x in ld.secrets_changed),
                ]
    return out


def _duplicates_section(d: EnvDiff) -> list[str]:
    if not (d.duplicates_a or d.duplicates_b):
        return []
    out = ["", "#### Installed by both conda and pip", ""]
    for letter, dups in (("A", d.duplicates_a), ("B", d.duplicates_b)):
        for x in dups:
            out.append(
                f"- {letter}: {_code(x.conda)} (conda) and {_code(x.pip)} (pip): pip's copy shadows conda's"
            )
    return out
