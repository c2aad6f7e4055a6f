"""`envkit check --fix`: the safe, mechanical repairs, applied to a file's text line by line.

Fixes edit only the lines findings point at and keep everything else byte for byte (comments,
quoting, line ends).  Fixable: leaked-prefix (the `prefix:` line is removed), leaked-secret (each
credential, in a URL or a secret variable's value, becomes a placeholder), pip-without-pip
(`- pip` is inserted before the `- pip:` item).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING

from envkit.checks.rules_secrets import PREFIX_LINE, VARIABLE_SECRET
from envkit.secrets import find_all_secrets, redact_variable_line, secret_variables

if TYPE_CHECKING:  # pragma: no cover
    from envkit.checks.core import Finding, Hit, Target

_PIP_ITEM = re.compile(r"^(?P<lead>\s*-\s+)pip\s*:")
#: the entry pip-without-pip's message says to add, when adding it is the whole fix
_ADD_PIP = re.compile(r"; add `- (pip(?:=[^`]+)?)`(?: \(|$)")


@dataclass(frozen=True, slots=True, kw_only=True)
class Fixed:
    """One applied fix: the rule, the file and line (before the change) and what was done."""

    rule: str
    file: str
    line: int | None
    description: str

    def as_dict(self) -> dict:
        return asdict(self)


def can_fix(rule: str, target: Target, hit: Hit) -> bool:
    """Whether `--fix` can repair this hit of a fixable rule mechanically."""
    if not hit.line or not target.text:
        return False
    text = target.line_text(hit.line)
    if rule == "leaked-prefix":
        return target.kind == "spec" and bool(PREFIX_LINE.match(text))
    if rule == "leaked-secret":
        if hit.message.startswith(VARIABLE_SECRET):
            return bool(secret_variables(text))
        return bool(find_all_secrets(text))
    if rule == "pip-without-pip":
        # not when the pip section's own pip entry would have to go too: a fix never adds a finding
        return bool(_PIP_ITEM.match(text)) and _ADD_PIP.search(hit.message) is not None
    return False


def fix_text(text: str, path: str, findings: Iterable[Finding]) -> tuple[str, list[Fixed]]:
    """Apply the fixes for `findings` (those of one file) to `text`; return the new text and what was
    done, in line order.  Findings that are not fixable are ignored."""
    lines = text.splitlines(keepends=True)
    drop: set[int] = set()
    insert: dict[int, str] = {}
    done: list[Fixed] = []
    fixable = {(f.line, f.rule): f for f in findings if f.fixable and f.line}
    for (line_no, _rule), f in sorted(fixable.items(), key=lambda item: item[0]):
        i = line_no - 1
        if i >= len(lines):
            continue
        body = lines[i]
        description = None
        if f.rule == "leaked-prefix":
            drop.add(i)
            description = f"removed `{body.strip()}`"
        elif f.rule == "leaked-secret":
            new = body
            for s in find_all_secrets(body.rstrip("\r\n")):
                new = new.replace(s.url, s.redacted)
            if f.message.startswith(VARIABLE_SECRET):
                content = new.rstrip("\r\n")
                new = redact_variable_line(content) + new[len(content) :]
            if new != body:
                lines[i] = new
                description = "replaced the credential with a placeholder"
        elif f.rule == "pip-without-pip":
            m = _PIP_ITEM.match(body)
            entry = _ADD_PIP.search(f.message)
            if m and entry:
                ending = body[len(body.rstrip("\r\n")) :] or "\n"
                insert[i] = f"{m.group('lead')}{entry.group(1)}{ending}"
                description = f"added `{entry.group(1)}` to the conda dependencies"
        if description is not None:
            done.append(Fixed(rule=f.rule, file=path, line=f.line, description=description))
    out: list[str] = []
    for i, line in enumerate(lines):
        if i in insert:
            out.append(insert[i])
        if i not in drop:
            out.append(line)
    return "".join(out), done


def apply_fixes(findings: list[Finding], texts: dict[str, str]) -> list[Fixed]:
    """Fix every file that has fixable findings; the files are rewritten atomically, all or none.

    `texts` maps each path to the text the findings were computed on.  A file that changed on
    disk since, or that another process changes before it is replaced, is not written, nor is any
    other (raises EnvkitError naming it): each file's identity is taken before it is read again
    and compared, and the write replaces only that file (`envkit.io.write_files`)."""
    from envkit.errors import EnvkitError, Where
    from envkit.io import file_identity, read_text, write_files

    by_file: dict[str, list] = {}
    for f in findings:
        if f.fixable and f.file in texts:
            by_file.setdefault(f.file, []).append(f)
    planned: list[tuple[str, str, list[Fixed]]] = []
    for path, fs in by_file.items():
        old = texts[path]
        new, fixed = fix_text(old, path, fs)
        if fixed and new != old:
            planned.append((path, new, fixed))
    # every file is checked before any is written: a refusal leaves all of them as they were, so
    # nothing is changed without being reported
    writes = []
    for path, new, _fixed in planned:
        since = file_identity(path)  # before the read: a change from here on is caught at the write
        if since is None or read_text(path) != texts[path]:
            raise EnvkitError(
                "file changed while it was being checked; nothing was fixed", where=Where(file=path)
            )
        writes.append((path, new, since))
    write_files(writes)
    return [x for _path, _new, fixed in planned for x in fixed]
