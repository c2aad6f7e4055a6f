"""`envkit normalize --check`'s output: the unified diff of a file against its normalized text,
and the notes for what such a diff cannot show."""

from __future__ import annotations

import re

from envkit._text import plural
from envkit.secrets import redact_document_line
from envkit.secrets import secret_lines as _candidate_lines

_KEY_VALUE = re.compile(r":[ \t]")


def unified_diff(raw: str, new: str, name: str) -> tuple[str, list[str]]:
    """The unified diff of `raw` against its normalized text `new`, and notes (without the file
    name) for what it does not show.  The `-` side is the file with its credentials already
    redacted: a diff must not print the secret it is about to remove."""
    from envkit.render._unified import unified_diff_text

    old_lines = raw.splitlines(keepends=True)
    plain = _plain_newlines(raw, old_lines)
    secret_lines = []
    for i in _maybe_secret(raw, old_lines, plain):
        red = redact_document_line(old_lines[i])
        if red != old_lines[i]:
            old_lines[i] = red
            secret_lines.append(i + 1)
    new_lines = new.splitlines(keepends=True)
    text = unified_diff_text(
        old_lines,
        new_lines,
        name,
        f"{name} (normalized)",
        plain_newlines=plain and _plain_newlines(new, new_lines),
    )
    notes = invisible_changes(raw)
    if secret_lines:
        shown = ", ".join(map(str, secret_lines[:10])) + (", ..." if len(secret_lines) > 10 else "")
        notes.append(
            f"the credentials on {plural(len(secret_lines), 'line')} ({shown}) are replaced by "
            f"placeholders (the diff shows them redacted on both sides)"
        )
    return text, notes


def _plain_newlines(text: str, lines: list[str]) -> bool:
    """Whether LF is the only line separator splitlines found in `text` (it also splits at CR,
    FF, U+2028, ...)."""
    return len(lines) == text.count("\n") + (not text.endswith("\n"))


def _maybe_secret(raw: str, lines: list[str], plain: bool) -> list[int]:
    """The 0-based indexes of the `lines` (of `raw`) that redact_document_line may change, found
    with one scan of the whole text: a line with a credential is a candidate line of
    envkit.secrets (what redact_text looks at), and a secret `KEY: value` pair needs a colon
    followed by a space or a tab.  Redacting all 35,000 lines of a large file one by one made
    `normalize --check` half as slow again as `normalize`."""
    if not plain:  # line numbers of the scan are not list indexes: look at every line
        return list(range(len(lines)))
    found = {n - 1 for n in _candidate_lines(raw)}
    line, last = 0, 0
    for m in _KEY_VALUE.finditer(raw):
        if m.start() < last:
            continue  # the line is in already
        line += raw.count("\n", last, m.start())
        found.add(line)
        last = raw.find("\n", m.start())
        if last < 0:
            break
    return sorted(found)


def invisible_changes(raw: str) -> list[str]:
    """What a unified diff of `raw` against its normalized text changes without showing it."""
    notes = []
    if raw.startswith("\ufeff"):
        notes.append("the byte-order mark is removed")
    if "\r\n" in raw:
        notes.append("CR LF line endings become LF")
    return notes
