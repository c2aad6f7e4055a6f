"""The release numbers of a version text (CUDA, Python, torch, drivers): the one home of "major.minor"
and of the numeric sort key, for conda and pip versions alike.

Only `.` separates release numbers here: conda and PEP 440 agree on it, while `-`/`_` do not mean
the same to both (conda: a separator, `3_11` == 3.11; PEP 440: `12-4` is 12.post4)."""

from __future__ import annotations

import re

_MM = re.compile(r"^\s*v?(\d+)\.(\d+)")


def major_minor(version: str | None) -> tuple[int, int] | None:
    """`3.11.4` -> (3, 11), `2.7.1+cu126` -> (2, 7), `v2.7` -> (2, 7), `3.011` -> (3, 11) (both
    conda and PEP 440 compare numbers, not digits); None without a minor (`12`: CUDA 12 says no
    minor, and conda reads it as 12.0)."""
    m = _MM.match(version or "")
    return (int(m.group(1)), int(m.group(2))) if m else None


def mm_text(mm: tuple[int, int]) -> str:
    return f"{mm[0]}.{mm[1]}"


def minor_text(version: str | None) -> str | None:
    """`12.6.3` -> "12.6"; None where `major_minor` is None."""
    mm = major_minor(version)
    return mm_text(mm) if mm else None


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
