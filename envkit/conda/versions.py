"""The release numbers of a version text (CUDA, Python, torch, drivers): the one home of "major.minor"
and of the numeric sort key, for conda and pip versions alike.

Only `.` separates release numbers here: conda and PEP 440 agree on it, while `-`/`_` do not mean
the same to both (conda: a separator, `3_11` == 3.11; PEP 440: `12-4` is 12.post4)."""

from __future__ import annotations

import re


def version_key(text: str) -> tuple[int, ...]:
    """A sort key for dotted release numbers: `570.86.15` -> (570, 86, 15), `12.10` after `12.9`.
    The key ends at the first part that is not a plain number, after its leading digits
    (`12.4.1a` -> (12, 4, 1), `2.8.0rc1` -> (2, 8, 0), `12.x.1` -> (12,)): in conda's order a
    letter sorts below every number, so nothing after it can outrank a later release number."""
    out: list[int] = []
    for part in text.strip().split("."):
        m = re.match(r"\d+", part)
        if not m:
            break
        out.append(int(m.group()))
        if m.end() != len(part):
            break
    return tuple(out)
