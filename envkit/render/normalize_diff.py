"""`envkit normalize --check`'s output: the unified diff of a file against its normalized text,
and the notes for what such a diff cannot show."""

from __future__ import annotations

from envkit._text import plural
from envkit.secrets import redact_document_line
from envkit.secrets import secret_lines as _candidate_lines


def unified_diff(raw: str, new: str, name: str) -> tuple[str, list[str]]:
    """The unified diff of `raw` against its normalized text `new`, and notes (without the file
    name) for what it does not show.  The `-` side is the file with its credentials already
    redacted: a diff must not print the secret it is about to remove."""
    import difflib

    old_lines = raw.splitlines(keepends=True)
    secret_lines = []
    for i in _maybe_secret(raw, old_lines):
        red = redact_document_line(old_lines[i])
        if red != old_lines[i]:
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


def _maybe_secret(raw: str, lines: list[str]) -> list[int]:
    """The 0-based indexes of the `lines` (of `raw`) that redact_document_line may change, found
    with one scan of the whole text: a line with a credential is a candidate line of
    envkit.secrets (what redact_text looks at), and a secret `KEY: value` pair needs a colon
    followed by a space or a tab.  Redacting all 35,000 lines of a large file one by one made
    `normalize --check` half as slow again as `normalize`."""
    if len(lines) != raw.count("\n") + (not raw.endswith("\n")):
        # line separators other than \n (splitlines splits at \r, \f, U+2028, ...): look at
        # every line
        return list(range(len(lines)))
    found = {n - 1 for n in _candidate_lines(raw)}
    if ": " in raw or ":\t" in raw:
        found.update(i for i, line in enumerate(lines) if ": " in line or ":\t" in line)
    return sorted(found)


def invisible_changes(raw: str) -> list[str]:
    """What a unified diff of `raw` against its normalized text changes without showing it."""
    notes = []
    if raw.startswith("\ufeff"):
        notes.append("the byte-order mark is removed")
    if "\r\n" in raw:
        notes.append("CR LF line endings become LF")
    return notes
