"""CVSS base scores from the vectors OSV records carry: versions 2.0, 3.0/3.1 and 4.0.

OSV records carry the vector (`severity: [{type: CVSS_V4, score: "CVSS:4.0/AV:N/..."}]`), not the
number; the number and its rating (low, medium, high, critical) are what `--fail-on` compares.
The scoring is the `cvss` library's (Red Hat's implementation of FIRST's specifications, with
CVSS 4.0's macro-vector tables), not a copy of those tables here.
"""

from __future__ import annotations

from functools import lru_cache

#: OSV severity types by preference: the newest scoring system that scores the record wins
TYPES = ("CVSS_V4", "CVSS_V3", "CVSS_V2")


@lru_cache(maxsize=4096)
def base_score(vector: str) -> float | None:
    """The base score of a CVSS 2.0 (`AV:N/AC:L/Au:N/...`), 3.x (`CVSS:3.1/...`) or 4.0
    (`CVSS:4.0/...`) vector, or None when it is not a complete vector of one of them."""
    from cvss import CVSS2, CVSS3, CVSS4
    from cvss.exceptions import CVSSError

    text = vector.strip()
    cls = {2: CVSS2, 3: CVSS3, 4: CVSS4}[version(text)]
    if cls is CVSS2 and text.startswith("CVSS:"):
        return None  # another version's prefix (CVSS 2.0 vectors have none)
    try:
        score = cls(text).base_score
    except (CVSSError, ValueError, KeyError):
        return None
    return float(score)


def version(vector: str) -> int:
    """The major CVSS version of a vector: 2, 3 or 4."""
    text = vector.strip()
    return 4 if text.startswith("CVSS:4") else 3 if text.startswith("CVSS:3") else 2


def rating(score: float, major: int = 3) -> str:
    """The qualitative rating of a score: none, low, medium, high or critical (CVSS 3 and 4).
    CVSS 2 has no `critical` and no `none`: NVD's bands, low below 4.0, high from 7.0."""
    if major == 2:
        return "low" if score < 4.0 else "medium" if score < 7.0 else "high"
    if score == 0:
        return "none"
    return "low" if score < 4.0 else "medium" if score < 7.0 else "high" if score < 9.0 else "critical"
