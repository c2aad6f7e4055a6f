"""The sentences every diff renderer shares: what was not compared, and which side-level lists differ.

The core returns these as data (`EnvDiff.notes()`, the `changed` flags of its lists); the wording
lives here so that text, markdown and JSON say the same thing."""

from __future__ import annotations

from envkit._text import plural
from envkit.envdiff import DiffNote, EnvDiff
from envkit.envdiff.spec import a_file


def note_sentence(note: DiffNote) -> str:
    """One note as a sentence."""
    if note.kind == "pip-not-recorded":
        # `B is an explicit file, which cannot record pip packages: A's 144 pip packages are not compared.`
        me = (note.side or "").upper()
        other = "B" if note.side == "a" else "A"
        n = plural(note.count, "pip package")
        verb = "are" if note.count != 1 else "is"
        what = a_file(note.format or "")
        return f"{me} is {what}, which cannot record pip packages: {other}'s {n} {verb} not compared."
    if note.kind == "unused-channels":
        return (
            f"channels configured for {(note.side or '').upper()} that no installed package came from "
            f"(not compared): {', '.join(note.values)}."
        )
    if note.kind == "platforms":
        others = [v.rsplit("=", 1) for v in note.values]
        said = ", ".join(
            f"{p} (the same)"
            if n == "0"
            else f"{p} ({plural(int(n), 'package')} {'differs' if n == '1' else 'differ'}: "
            f"--platform {p} lists them)"
            for p, n in others
        )
        return (
            f"compared on every platform both lock: {note.format} (above)"
            + (f", {said}" if said else "")
            + "."
        )
    if note.kind == "secrets-unknown":
        return (
            f"{plural(len(note.values), 'credential value')} could not be compared (written as a "
            f"placeholder such as <TOKEN> on one side): {', '.join(note.values)}."
        )
    raise ValueError(f"unknown diff note kind {note.kind!r}")


def note_sentences(d: EnvDiff) -> list[str]:
    """Sentences about what was not compared (said once, never a difference)."""
    return [note_sentence(n) for n in d.notes()]


def differing_lists(d: EnvDiff) -> list[str]:
    """'channels differ', 'pip index options differ', 'environment variables differ': the
    side-level lists that differ, in that order (for summaries)."""
    out = []
    for changed, what in (
        (d.channels.changed, "channels"),
        (d.pip_options.changed, "pip index options"),
        (d.variables.changed, "environment variables"),
    ):
        if changed:
            out.append(f"{what} differ")
    for p, n in d.other_platforms:
        if n:
            out.append(f"{p}: {plural(n, 'package')} {'differs' if n == 1 else 'differ'}")
    for letter, only in (("A", d.platforms_only_a), ("B", d.platforms_only_b)):
        if only:
            out.append(f"only {letter} locks {', '.join(only)}")
    return out
