"""requirements.txt (the pip side): read into EnvSpec(kind="requirements"), write back.

Follows pip's line rules: `#` starts a comment at the start of a line or after whitespace, a
trailing backslash joins the next line, blank lines are ignored.  Every entry (requirement, URL,
path, `-e`, option line) is kept in order as a PipDep.
"""
from __future__ import annotations

import re

from envkit.errors import Where
from envkit.model import EnvSpec

_COMMENT = re.compile(r"(^|\s+)#.*$")


def logical_lines(text: str) -> list[tuple[int, str, str | None]]:
    """(first line number, content without comment, the comment or None) for each logical line
    (continuations joined); lines with only a comment have empty content."""
    out: list[tuple[int, str, str | None]] = []
    buf: list[str] = []
    start = 0
    for i, physical in enumerate(text.splitlines(), 1):
        line = physical.rstrip("\r")
        if not buf:
            start = i
        m = _COMMENT.search(line)
        comment = None
        if m:
            comment = m.group(0).strip()
            line = line[: m.start()]
        if line.endswith("\\") and comment is None:
            # pip strips every trailing backslash of a continued line (`x\\` is `x` continued)
            buf.append(line.rstrip("\\"))
            continue
        buf.append(line)
        out.append((start, " ".join(b.strip() for b in buf).strip(), comment))
        buf = []
    if buf:
        out.append((start, " ".join(b.strip() for b in buf).strip(), None))
    return out


def refuse_nul(text: str, filename: str | None) -> None:
    """Raise ParseError at the first NUL character: a text file never holds one (pip would stop
    at it), and writing it back would hand the next tool a binary file."""
    i = text.find("\x00")
    if i >= 0:
        from envkit.errors import ParseError

        raise ParseError("a NUL character (U+0000) is not text", where=Where(file=filename, line=text.count("\n", 0, i) + 1),
                         hint="the file is binary or corrupt: save it again as UTF-8 text")


def read_requirements(text: str, filename: str | None = None) -> EnvSpec:
    """Parse a requirements file into EnvSpec(kind="requirements") with every entry in `pip`.

    Raises InvalidSpecError with file and line for a malformed requirement."""
    from envkit.formats.pipreq import parse_pip_entry
    from envkit.io import refuse_too_many_lines

    refuse_too_many_lines(text, filename, "a requirements file")
    refuse_nul(text, filename)
    pip = []
    for line, content, _comment in logical_lines(text):
        if content:
            pip.append(parse_pip_entry(content, Where(file=filename, line=line)))
    return EnvSpec(kind="requirements", pip=tuple(pip), has_pip_section=True, source=filename)


def write_requirements(spec: EnvSpec, *, header: str | None = None, comments=None) -> str:
    """The requirements.txt text of `spec.pip`, one entry per line in model order.

    `comments` (an envyml.CommentMap keyed by source line) puts the user's comments back."""
    from envkit.formats.envyml import CommentMap

    cm = comments or CommentMap()
    out: list[str] = []
    if header:
        from envkit.formats._util import comment_block

        out += comment_block(header).splitlines()
    out += cm.header
    for p in spec.pip:
        lead, inl, trail = cm.take(p.line)
        out += lead
        out.append(p.text + (f"  {inl}" if inl else ""))
        out += trail
    out += cm.leftover() + cm.footer
    return "\n".join(out) + "\n" if out else ""
