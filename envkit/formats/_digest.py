"""Package digests (md5, sha256) as lock files record them: the one check every reader and
`create` use.

conda and conda-lock write lowercase hex; conda itself compares case-insensitively, so either case
is accepted.  Anything else (a truncated digest, a non-hex character, an unquoted all-digit digest
that YAML read as a number) is a broken lock, not a digest to verify against later.
"""

from __future__ import annotations

import re

HEX32 = re.compile(r"[0-9a-fA-F]{32}")
HEX64 = re.compile(r"[0-9a-fA-F]{64}")

#: digest kind -> (pattern, length); sha384 and sha512 for pip's `--hash` (its STRONG_HASHES)
DIGESTS = {
    "md5": (HEX32, 32),
    "sha256": (HEX64, 64),
    "sha384": (re.compile(r"[0-9a-fA-F]{96}"), 96),
    "sha512": (re.compile(r"[0-9a-fA-F]{128}"), 128),
}
#: the algorithms pip's hash-checking mode takes in `--hash=ALGO:HEX`
PIP_HASHES = ("sha256", "sha384", "sha512")


def is_digest(kind: str, value) -> bool:
    """True when `value` is a well-formed `kind` ("md5" or "sha256") hex digest."""
    return type(value) is str and DIGESTS[kind][0].fullmatch(value) is not None


def digest_problem(kind: str, value) -> str | None:
    """Why `value` is not a `kind` digest (a clause for an error message), or None when it is one."""
    if is_digest(kind, value):
        return None
    number = isinstance(value, (int, float)) and not isinstance(value, bool)
    if number or (isinstance(value, str) and value.isdigit()):
        # the reader may have turned the number back into text: either way, say why
        got = f"{value} (YAML reads an unquoted all-digit hash as a number, losing its leading zeros)"
    elif isinstance(value, str):
        shown = value if len(value) <= 80 else value[:77] + "..."
        got = f"{shown!r} ({len(value)} characters)" if value else "an empty string"
    else:
        got = f"a {type(value).__name__}"
    return f"`{kind}:` is not a {kind} hash of {DIGESTS[kind][1]} hex digits: the lock has {got}"


def package_digest_error(p, kind: str, *, where):
    """The ParseError for package `p` whose `kind` digest is malformed (None when it is fine)."""
    from envkit.errors import ParseError

    problem = digest_problem(kind, getattr(p, kind))
    if problem is None:
        return None
    return ParseError(
        f"{p.name}={p.version} ({p.manager}): {problem}; the package cannot be verified",
        where=where,
        hint=f"quote the hash in the lock ({kind}: '...'), or relock",
    )


def pip_hash_problem(value: str) -> str | None:
    """Why `value`, the argument of a requirement's `--hash` (`sha256:HEX`), is not a hash pip can
    verify (a clause for an error message), or None.  The rule `create` applies to a lock's
    digests: an unknown algorithm (pip refuses it too) or a digest of the wrong length or alphabet."""
    algo, sep, digest = value.partition(":")
    if not sep or algo.lower() not in PIP_HASHES:
        return f"--hash={value!r} is not ALGO:HEX with ALGO one of {', '.join(PIP_HASHES)}"
    algo = algo.lower()
    if is_digest(algo, digest):
        return None
    shown = digest if len(digest) <= 80 else digest[:77] + "..."
    size = DIGESTS[algo][1]
    return f"--hash={algo}:{shown} is not a {algo} hash of {size} hex digits ({len(digest)} characters)"
