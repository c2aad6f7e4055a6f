"""`envkit diff` as text for a terminal: highlights, then "likely to matter", platform differences,
other changes by kind, channels, pip options, duplicates, spec checks, and a one-line summary.

Pure: returns a string.  Colour (ANSI) only when the caller says so (a TTY without NO_COLOR).
"""

from __future__ import annotations

from envkit._text import plural
from envkit.envdiff import KIND_TITLES, KINDS, NOT_RECORDED, Change, EnvDiff, PackageState
from envkit.render.diff_notes import differing_lists, note_sentences

_RESET = "\x1b[0m"
_STYLES = {
    "bold": "\x1b[1m",
    "dim": "\x1b[2m",
    "red": "\x1b[31m",
    "green": "\x1b[32m",
    "yellow": "\x1b[33m",
    "cyan": "\x1b[36m",
}
NONE = "—"
ARROW = "→"
MAX_NAME = 28
#: How many concrete packages the spec does not mention are named without --all.
UNMENTIONED_SHOWN = 30


class _Painter:
    def __init__(self, color: bool) -> None:
        self.color = color

    def __call__(self, text: str, *styles: str) -> str:
        if not self.color or not text:
            return text
        return "".join(_STYLES[s] for s in styles) + text + _RESET


def render_text(
    d: EnvDiff, *, color: bool = False, show_all: bool = False, width: int = 100, machines=None
) -> str:
    """The diff as aligned text (see the module docstring).  `show_all` adds unchanged packages;
    `machines` (profile A, profile B) adds the two machines side by side under the header."""
    p = _Painter(color)
    out: list[str] = []
    out += _header(d, p)
    if machines is not None:
        from envkit.render.machine import machine_rows

        out += _ab_rows(machine_rows(*machines), p)
    for note in note_sentences(d):
        out.append(p(f"note: {note}", "dim"))
    if d.highlights:
        out.append("")
        out += _highlights(d, p)
    matter = d.by_group("matter")
    if matter:
        out.append("")
        out.append(p(f"Likely to matter ({len(matter)})", "bold"))
        out += _change_lines(matter, p, reasons=True, width=width)
    platform = d.by_group("platform")
    if platform:
        out.append("")
        out += _platform_section(d, platform, p, width)
    other = d.by_group("other")
    if other:
        out.append("")
        out.append(p(f"Other changes ({len(other)})", "bold"))
        for kind in KINDS:
            items = [c for c in other if c.kind == kind]
            if not items:
                continue
            if kind in ("added", "removed"):
                out += _wrap(
                    f"  {KIND_TITLES[kind]} ({len(items)}): ", [_present_text(c) for c in items], width
                )
                continue
            out.append(f"  {KIND_TITLES[kind]} ({len(items)})")
            out += _change_lines(items, p, reasons=False, indent="    ")
    if d.spec_side:
        out.append("")
        out += _spec_section(d, p, width, show_all)
    out += _channel_section(d, p, show_all)
    out += _list_section("pip index options", d.pip_options, p, show_all)
    out += _list_section("Environment variables", d.variables, p, show_all)
    out += _duplicates_section(d, p)
    if show_all and d.unchanged:
        out.append("")
        out.append(p(f"Unchanged ({len(d.unchanged)})", "bold"))
        w = min(MAX_NAME, max(len(s.name) for s in d.unchanged))
        for s in d.unchanged:
            out.append(f"  {s.name:<{w}}  {_state_text(s, None, show_channel=False)}")
    out.append("")
    out.append(_summary_line(d, p))
    return "\n".join(out) + "\n"


def _header(d: EnvDiff, p: _Painter) -> list[str]:
    lines = []
    for letter, side in (("A", d.a), ("B", d.b)):
        bits = [side.kind]
        if side.platform:
            bits.append(side.platform)
        elif len(side.platforms) > 1:
            bits.append("platforms " + ", ".join(side.platforms))
        unit = "packages" if side.concrete else "entries"
        bits.append(f"{side.packages} {unit}")
        lines.append(f"{p(letter, 'bold')}  {side.source}  ({', '.join(bits)})")
    return lines


def _highlights(d: EnvDiff, p: _Painter) -> list[str]:
    both = d.a.concrete and d.b.concrete  # a spec's range is not "different" from a version
    rows = [(label, a or NONE, b or NONE) for label, a, b in d.highlights]
    return _ab_rows([(lb, a, b, a != b and both and NOT_RECORDED not in (a, b)) for lb, a, b in rows], p)


def _ab_rows(rows: list[tuple[str, str, str, bool]], p: _Painter) -> list[str]:
    """(label, A, B, differs) rows aligned under an `A  B` head, a `*` after each that differs."""
    wl = max(len(r[0]) for r in rows)
    wa = max(max(len(r[1]) for r in rows), 1)
    head_a = p(f"{'A':<{wa}}", "bold")
    out = [f"  {'':<{wl}}  {head_a}  {p('B', 'bold')}"]
    for label, a, b, differs in rows:
        mark = p(" *", "yellow") if differs else ""
        out.append(f"  {label:<{wl}}  {a:<{wa}}  {b}{mark}".rstrip())
    return out


def _state_text(s: PackageState | None, other: PackageState | None, *, show_channel: bool) -> str:
    if s is None:
        return NONE
    common = set(other.labels) if other is not None else set()
    text = s.version or "(any)"
    if s.build:
        text += f" {s.build}"
    shown = [x for x in s.labels if x not in common]
    text += f" ({', '.join(shown)})" if shown else ""
    if s.manager == "pip":
        text += " [pip]" if s.name == (other.name if other else s.name) else f" [pip: {s.name}]"
    elif show_channel and s.channel:
        text += f" [{s.channel}]"
    elif other is not None and other.manager == "pip":
        text += " [conda]"
    return text


def present_state(c: Change) -> PackageState:
    """The side of `c` that has the package: B when both do."""
    state = c.b or c.a
    if state is None:  # the envdiff core never makes a change without a side
        raise ValueError(f"change {c.name!r} has neither side")
    return state


def _present_text(c: Change) -> str:
    """`name version` of a one-sided change, `[pip]` after a pip package."""
    s = present_state(c)
    return f"{c.name} {s.version}".rstrip() + (" [pip]" if s.manager == "pip" else "")


def change_states(c: Change) -> tuple[str, str]:
    """The two sides of a change as text: 'version build (labels) [manager/channel]' or '—'."""
    show_channel = "channel" in c.tags
    return (
        _state_text(c.a, c.b, show_channel=show_channel),
        _state_text(c.b, c.a, show_channel=show_channel),
    )


#: Runs of at least this many one-sided changes with the same reason are shown as one line.
FOLD = 4


def fold_runs(changes: list[Change]) -> list[list[Change]]:
    """`changes` (ranked) cut into runs: consecutive one-sided changes of one kind, category and
    reason form one run (14 CUDA libraries only on B); every other change is a run of its own.  Runs
    of at least FOLD changes are shown as one line."""
    runs: list[list[Change]] = []
    for c in changes:
        if (
            runs
            and c.kind in ("added", "removed")
            and runs[-1][0].kind == c.kind
            and runs[-1][0].reason == c.reason
            and runs[-1][0].category == c.category
        ):
            runs[-1].append(c)
        else:
            runs.append([c])
    return runs


def _change_lines(
    changes: list[Change], p: _Painter, *, reasons: bool, indent: str = "  ", width: int = 100
) -> list[str]:
    runs = fold_runs(changes) if reasons else [[c] for c in changes]
    singles = [c for r in runs if len(r) < FOLD for c in r] or changes
    w = min(MAX_NAME, max(len(c.name) for c in singles))
    out: list[str] = []
    for run in runs:
        if len(run) < FOLD:
            for c in run:
                out += _one(c, p, reasons, indent, w)
            continue
        c0 = run[0]
        side = "B" if c0.kind == "added" else "A"
        head = f"{indent}{len(run)} {KIND_TITLES[c0.kind]}, only on {side}: "
        out += _wrap(head, [_present_text(c) for c in run], width)
        out.append(p(f"{indent}{' ' * w}  {c0.reason}", "dim"))
    return out


def _one(c: Change, p: _Painter, reasons: bool, indent: str, w: int) -> list[str]:
    a, b = change_states(c)
    colour = {"added": "green", "removed": "red", "duplicate": "red"}.get(c.kind)
    name = f"{c.name:<{w}}"
    if c.impact == "high":
        name = p(name, "bold")
    if colour:
        name = p(name, colour)
    out = [f"{indent}{name}  {a} {ARROW} {b}"]
    if reasons and c.reason:
        out.append(p(f"{indent}{'':<{w}}  {KIND_TITLES[c.kind]}: {c.reason}", "dim"))
    return out


def _wrap(prefix: str, items: list[str], width: int) -> list[str]:
    """`prefix` then comma-separated `items`, wrapped with a hanging indent."""
    lines: list[str] = []
    cur = prefix
    pad = " " * len(prefix)
    for i, item in enumerate(items):
        piece = item + ("," if i < len(items) - 1 else "")
        if cur.strip() and len(cur) + 1 + len(piece) > width and cur != prefix:
            lines.append(cur.rstrip())
            cur = pad + piece
        else:
            cur = cur + ("" if cur == prefix else " ") + piece
    lines.append(cur.rstrip())
    return lines


def _platform_section(d: EnvDiff, changes: list[Change], p: _Painter, width: int) -> list[str]:
    out = [p(f"Platform differences: {d.a.platform} {ARROW} {d.b.platform} ({len(changes)})", "bold")]
    changes = sorted(changes, key=lambda c: (c.name.lower(), c.name))
    only_a = [c for c in changes if c.b is None]
    only_b = [c for c in changes if c.a is None]
    rebuilt = [c for c in changes if c.a is not None and c.b is not None]
    la, lb = f"  only on A ({d.a.platform}): ", f"  only on B ({d.b.platform}): "
    wp = max(len(la), len(lb))
    if only_a:
        out += _wrap(la.ljust(wp), [f"{c.name} {present_state(c).version}".rstrip() for c in only_a], width)
    if only_b:
        out += _wrap(lb.ljust(wp), [f"{c.name} {present_state(c).version}".rstrip() for c in only_b], width)
    if rebuilt:
        out += _wrap(
            f"  same version, built per platform ({len(rebuilt)}): ", [c.name for c in rebuilt], width
        )
    return out


def _spec_section(d: EnvDiff, p: _Painter, width: int, show_all: bool) -> list[str]:
    spec, conc = (d.a, d.b) if d.spec_side == "a" else (d.b, d.a)
    sl, cl = ("A", "B") if d.spec_side == "a" else ("B", "A")
    out = [p(f"Spec {sl} against {cl} ({len(d.spec_checks)} entries)", "bold")]
    words = {"satisfied": "ok", "not-satisfied": "NOT SATISFIED", "missing": "MISSING", "skipped": "skipped"}
    colours = {"satisfied": "green", "not-satisfied": "red", "missing": "red", "skipped": "dim"}
    checks = list(d.spec_checks)
    if checks:
        ws = max(len(words[c.status]) for c in checks)
        wspec = min(40, max(len(c.spec) for c in checks))
        for c in checks:
            found = (found_text(c) or "") + (" [pip]" if c.found and c.found.manager == "pip" else "")
            note = f"  ({c.note})" if c.note else ""
            status = p(f"{words[c.status]:<{ws}}", colours[c.status])
            out.append(f"  {status}  {c.spec:<{wspec}}  {found}{note}".rstrip())
    if d.unmentioned:
        names = [s.name for s in d.unmentioned]
        if not show_all and len(names) > UNMENTIONED_SHOWN:
            names = names[:UNMENTIONED_SHOWN] + [
                f"... and {len(names) - UNMENTIONED_SHOWN} more (--all lists them)"
            ]
        out += _wrap(f"  in {cl}, not in the spec ({len(d.unmentioned)}): ", names, width)
    return out


def found_text(check) -> str | None:
    """The version and build a spec entry found (envkit.envdiff's SpecCheck), None for none."""
    return None if check.found is None else f"{check.found.version} {check.found.build or ''}".rstrip()


def _channel_section(d: EnvDiff, p: _Painter, show_all: bool) -> list[str]:
    ch = d.channels
    if not ch.changed and not show_all:
        return []
    out = ["", p("Channels" + (" (differ)" if ch.changed else ""), "bold")]
    out.append(f"  A: {', '.join(ch.a) if ch.a else '(not recorded)'}")
    out.append(f"  B: {', '.join(ch.b) if ch.b else '(not recorded)'}")
    bits = []
    if ch.added:
        bits.append("only on B: " + ", ".join(ch.added))
    if ch.removed:
        bits.append("only on A: " + ", ".join(ch.removed))
    if ch.order_changed:
        bits.append("the shared channels are in a different order (priority)")
    if bits:
        out.append("  " + "; ".join(bits))
    out += _priority_lines(ch, show_all)
    if ch.note:
        out.append(p(f"  note: {ch.note}", "dim"))
    return out


def _priority_lines(ch, show_all: bool) -> list[str]:
    """`channel_priority: strict → flexible` only when both sides record it and the values differ;
    with --all, the value both share (or what each records) is listed too."""
    if ch.priority_changed:
        return [f"  channel_priority: {ch.priority_a} {ARROW} {ch.priority_b}"]
    if not show_all or not (ch.priority_a or ch.priority_b):
        return []
    if ch.priority_a == ch.priority_b:
        return [f"  channel_priority: {ch.priority_a} (both)"]
    return [
        f"  channel_priority: {ch.priority_a or 'not recorded'} on A, "
        f"{ch.priority_b or 'not recorded'} on B (not compared)"
    ]


def _list_section(title: str, ld, p: _Painter, show_all: bool) -> list[str]:
    if not ld.changed and not (show_all and (ld.a or ld.b)):
        return []
    out = ["", p(title + (" (differ)" if ld.changed else ""), "bold")]
    for letter, items in (("A", ld.a), ("B", ld.b)):
        if items is None:
            out.append(f"  {letter}: (not recorded)")
        elif not items:
            out.append(f"  {letter}: (none)")
        else:
            out.append(f"  {letter}: {items[0]}")
            out += [f"     {x}" for x in items[1:]]
    if ld.secrets_changed:
        out.append(f"  value changed (a credential, not shown): {', '.join(ld.secrets_changed)}")
    return out


def _duplicates_section(d: EnvDiff, p: _Painter) -> list[str]:
    if not d.duplicates_a and not d.duplicates_b:
        return []
    out = ["", p("Installed by both conda and pip", "bold")]
    for letter, dups in (("A", d.duplicates_a), ("B", d.duplicates_b)):
        if dups:
            out.append(f"  {letter}: " + ", ".join(f"{x.conda} (conda) + {x.pip} (pip)" for x in dups))
    return out


def _summary_line(d: EnvDiff, p: _Painter) -> str:
    text = summary_sentence(d)
    return p(text, "green") if d.same else p(text, "bold")


def summary_sentence(d: EnvDiff) -> str:
    """`Same: no differences (96 packages compared).` or `Different: 77 packages differ (29 likely
    to matter, 43 platform, 5 other); channels differ.`: the last line of the text report."""
    if d.same:
        if d.spec_side:
            return "Same: every spec entry is satisfied."
        n = len(d.unchanged)
        return f"Same: no differences ({n} packages compared)."
    parts = []
    n = len(d.changes)
    if n:
        groups = []
        for g, label in (("matter", "likely to matter"), ("platform", "platform"), ("other", "other")):
            k = len(d.by_group(g))
            if k:
                groups.append(f"{k} {label}")
        parts.append(f"{plural(n, 'package')} {'differs' if n == 1 else 'differ'} ({', '.join(groups)})")
    bad = [c for c in d.spec_checks if c.status in ("not-satisfied", "missing")]
    if bad:
        ns = sum(1 for c in bad if c.status == "not-satisfied")
        nm = len(bad) - ns
        parts.append(f"{plural(ns, 'spec entry', 'spec entries')} not satisfied, {nm} missing")
    parts += differing_lists(d)
    return "Different: " + "; ".join(parts) + "."
