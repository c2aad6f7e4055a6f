"""`envkit normalize --check`'s output: the unified diff of a file against its normalized text,
and the notes for what such a diff cannot show."""

from __future__ import annotations

from envkit._text import plural


def unified_diff(raw: str, new: str, name: str) -> tuple[str, list[str]]:
    """The unified diff of `raw` against its normalized text `new`, and notes (without the file
    name) for what it does not show.  The `-` side is the file with its credentials already
    redacted: a diff must not print the secret it is about to remove."""
    import difflib

    from envkit.secrets import redact_document_line

    old_lines = raw.splitlines(keepends=True)
    secret_lines = []
    for i, line in enumerate(old_lines):
        red = redact_document_line(line)
        if red != line:
            old_lines[i] = red
            secret_lines.append(i + 1)
    diff = difflib.unified_diff(
        old_lines, new.splitlines(keepends=True), fromfile=name, tofile=f"{name} (normalized)"
    )
    text = "".join(
        line if line.endswith("\n") else line + "\n\\ No newline at end of file\n" for line in diff
    )
    notes = invisible_changes(raw)
    if secret_lines:
        shown = ", ".join(map(str, secret_lines[:10])) + (", ..." if len(secret_lines) > 10 else "")
        notes.append(
            f"the credentials on {plural(len(secret_lines), 'line')} ({shown}) are replaced by "
            f"placeholders (the diff shows them redacted on both sides)"
        )
    return text, notes


def invisible_changes(raw: str) -> list[str]:
    """What a unified diff of `raw` against its normalized text changes without showing it."""
    notes = []
    if raw.startswith("\ufeff"):
        notes.append("the byte-order mark is removed")
    if "\r\n" in raw:
        notes.append("CR LF line endings become LF")
    return notes
