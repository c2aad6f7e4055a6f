"""CVSS 3.x base scores from a vector string (FIRST's CVSS v3.1 specification, section 7).

OSV records carry the vector (`severity: [{type: CVSS_V3, score: "CVSS:3.1/AV:N/..."}]`), not the
number; the number and its rating (low, medium, high, critical) are what `--fail-on` compares.
"""

from __future__ import annotations

import math

_WEIGHTS = {
    "AV": {"N": 0.85, "A": 0.62, "L": 0.55, "P": 0.2},
    "AC": {"L": 0.77, "H": 0.44},
    "UI": {"N": 0.85, "R": 0.62},
    "C": {"H": 0.56, "L": 0.22, "N": 0.0},
    "I": {"H": 0.56, "L": 0.22, "N": 0.0},
    "A": {"H": 0.56, "L": 0.22, "N": 0.0},
}
#: privileges required, by scope (unchanged, changed)
_PR = {"N": (0.85, 0.85), "L": (0.62, 0.68), "H": (0.27, 0.5)}


def _roundup(value: float) -> float:
    """The specification's Roundup: the smallest one-decimal number >= value, free of float error."""
    n = round(value * 100000)
    if n % 10000 == 0:
        return n / 100000.0
    return (math.floor(n / 10000) + 1) / 10.0


def base_score(vector: str) -> float | None:
    """The CVSS 3.0/3.1 base score of `vector`, or None when it is not a complete 3.x vector."""
    parts = vector.strip().split("/")
    if not parts or not parts[0].startswith("CVSS:3"):
        return None
    metrics = dict(p.split(":", 1) for p in parts[1:] if ":" in p)
    try:
        changed = metrics["S"] == "C"
        w = {k: _WEIGHTS[k][metrics[k]] for k in _WEIGHTS}
        pr = _PR[metrics["PR"]][1 if changed else 0]
    except KeyError:
        return None
    if metrics["S"] not in ("U", "C"):
        return None
    iss = 1 - (1 - w["C"]) * (1 - w["I"]) * (1 - w["A"])
    if changed:
        impact = 7.52 * (iss - 0.029) - 3.25 * (iss - 0.02) ** 15
    else:
        impact = 6.42 * iss
    exploitability = 8.22 * w["AV"] * w["AC"] * pr * w["UI"]
    if impact <= 0:
        return 0.0
    total = (1.08 if changed else 1.0) * (impact + exploitability)
    return _roundup(min(total, 10.0))


def rating(score: float) -> str:
    """The qualitative rating of a score: none, low, medium, high or critical."""
    if score == 0:
        return "none"
    if score < 4.0:
        return "low"
    if score < 7.0:
        return "medium"
    if score < 9.0:
        return "high"
    return "critical"
