"""Licences of packages -> SPDX expressions (the license-expression library) -> a verdict.

Where a licence is read: a conda record's `license` where the source keeps it (a live prefix), and
for a live environment's pip packages their wheel METADATA (PEP 639 `License-Expression`, else a
`License:` that is an SPDX expression, else a licence classifier that names one licence exactly).
A licence that is missing or not SPDX is *unknown*: listed, never taken as allowed.  Verdicts: an
`OR` is as good as its best choice, an `AND` as bad as its worst; with an allow list, a licence
outside it is not allowed.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from envkit.model import LockedPackage, PipDist, pep503

#: licence classifiers that name exactly one SPDX licence (most others name a family: BSD, GPL)
CLASSIFIERS = {
    "License :: OSI Approved :: MIT License": "MIT",
    "License :: OSI Approved :: ISC License (ISCL)": "ISC",
    "License :: OSI Approved :: Mozilla Public License 2.0 (MPL 2.0)": "MPL-2.0",
    "License :: OSI Approved :: The Unlicense (Unlicense)": "Unlicense",
    "License :: OSI Approved :: Zero-Clause BSD (0BSD)": "0BSD",
    "License :: OSI Approved :: Python Software Foundation License": "PSF-2.0",
    "License :: CC0 1.0 Universal (CC0 1.0) Public Domain Dedication": "CC0-1.0",
}
#: verdicts, best first
_RANK = {"allowed": 0, "not-allowed": 1, "denied": 2}


@dataclass(frozen=True, slots=True, kw_only=True)
class Licence:
    """One package's licence: `raw` as recorded (None: none recorded), `spdx` its SPDX expression
    (None: unknown), `status` allowed / not-allowed / denied / unknown, `where` what it was read from."""

    source: str
    manager: str
    package: str
    version: str
    raw: str | None
    spdx: str | None
    status: str
    where: str


@lru_cache(maxsize=1)
def _licensing() -> Any:
    from license_expression import get_spdx_licensing

    return get_spdx_licensing()


@lru_cache(maxsize=4096)
def to_spdx(text: str) -> str | None:
    """`text` as a normalized SPDX expression, or None when it is not one (an unknown key, free
    text).  `LicenseRef-*` ids are SPDX's own way to name other licences and are kept."""
    lic = _licensing()
    info = lic.validate(text, strict=False)
    if not info.errors:
        return str(info.normalized_expression)
    if info.invalid_symbols and all(str(s).startswith("LicenseRef-") for s in info.invalid_symbols):
        try:
            return str(lic.parse(text, validate=False))
        except Exception:  # license-expression raises its own ExpressionError family
            return None
    return None


def verdict(spdx: str, allow: Sequence[str], deny: Sequence[str]) -> str:
    """allowed / not-allowed / denied for the SPDX expression `spdx`."""
    lic = _licensing()
    allow_keys = {a.lower() for a in allow}
    deny_keys = {d.lower() for d in deny}

    def judge(node: Any) -> str:
        if isinstance(node, (lic.AND, lic.OR)):
            ranks = [_RANK[judge(a)] for a in node.args]
            best = min(ranks) if isinstance(node, lic.OR) else max(ranks)
            return next(k for k, v in _RANK.items() if v == best)
        symbol = getattr(node, "license_symbol", node)  # `X WITH exception` is judged as X
        key = str(getattr(symbol, "key", symbol)).lower()
        if key in deny_keys:
            return "denied"
        return "allowed" if not allow_keys or key in allow_keys else "not-allowed"

    return judge(lic.parse(spdx, validate=False))


def wheel_licence(dist_info: str) -> tuple[str | None, str | None, str]:
    """(recorded text, SPDX, field read) of the METADATA in the `.dist-info` directory `dist_info`."""
    from email.parser import BytesHeaderParser

    try:
        with open(os.path.join(dist_info, "METADATA"), "rb") as f:
            meta = BytesHeaderParser().parse(f)
    except OSError:
        return None, None, "METADATA"
    expression = meta.get("License-Expression")
    if expression:
        return str(expression), to_spdx(str(expression)), "License-Expression"
    text = str(meta.get("License") or "").strip()
    if text and "\n" not in text and len(text) < 100 and to_spdx(text):
        return text, to_spdx(text), "License"
    classifiers = [str(c) for c in meta.get_all("Classifier") or () if str(c).startswith("License ::")]
    exact = sorted({CLASSIFIERS[c] for c in classifiers if c in CLASSIFIERS})
    if len(exact) == 1 and len(classifiers) == 1:
        return classifiers[0], exact[0], "Classifier"
    recorded = text or "; ".join(classifiers) or None
    return recorded, None, "METADATA"


def licences(
    label: str,
    packages: Sequence[LockedPackage],
    pip_dists: Sequence[PipDist] = (),
    *,
    prefix: str = "",
    allow: Sequence[str] = (),
    deny: Sequence[str] = (),
) -> list[Licence]:
    """The licence of each package of one source (each (manager, name, version) once); `pip_dists`
    and the live `prefix` their `.dist-info` paths are relative to, for a live environment."""
    dist_paths = {pep503(d.name): os.path.join(prefix, d.path) for d in pip_dists if d.path}
    out: list[Licence] = []
    seen: set[tuple[str, str, str]] = set()
    for p in packages:
        key = (p.manager, p.name, p.version)
        if key in seen:
            continue
        seen.add(key)
        if p.manager == "conda":
            raw, where = p.license or None, "conda record"
            spdx = to_spdx(raw) if raw else None
        elif pep503(p.name) in dist_paths:
            raw, spdx, where = wheel_licence(dist_paths[pep503(p.name)])
        else:
            raw, spdx, where = None, None, "nothing recorded"
        status = verdict(spdx, allow, deny) if spdx else "unknown"
        out.append(
            Licence(
                source=label,
                manager=p.manager,
                package=p.name,
                version=p.version,
                raw=raw,
                spdx=spdx,
                status=status,
                where=where,
            )
        )
    return out
