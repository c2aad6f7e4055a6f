"""Package digests (md5, sha256) as lock files record them: the one check every reader uses.

conda and conda-lock write lowercase hex; conda itself compares case-insensitively, so either case
is accepted.  Anything else (a truncated digest, a non-hex character) is a broken lock, not a
digest to verify against later.
"""
from __future__ import annotations

import re

HEX32 = re.compile(r"[0-9a-fA-F]{32}")
HEX64 = re.compile(r"[0-9a-fA-F]{64}")

#: digest kind -> (pattern, what a valid one looks like)
DIGESTS = {"md5": (HEX32, "32 hex digits", "an MD5"), "sha256": (HEX64, "64 hex digits", "a SHA-256")}


def is_digest(kind: str, value: str) -> bool:
    """True when `value` is a well-formed `kind` ("md5" or "sha256") hex digest."""
    return DIGESTS[kind][0].fullmatch(value) is not None


def digest_problem(kind: str, value) -> str | None:
    """Why `value` is not a `kind` digest (a sentence for a ParseError), or None when it is one."""
    if type(value) is str and is_digest(kind, value):
        return None
    shown = value if type(value) is str else repr(value)
    n = len(value) if type(value) is str else 0
    detail = f"{n} characters" if n and all(c in "0123456789abcdefABCDEF" for c in value) else "not hex"
    if type(value) is str and len(value) > 80:
        shown = value[:77] + "..."
    return f"{kind} {shown!r} is not {DIGESTS[kind][2]} digest ({DIGESTS[kind][1]} expected; {detail})"
