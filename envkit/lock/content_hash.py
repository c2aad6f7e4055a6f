"""envkit's content hash of a spec for one platform (what `envkit lock --check` compares)."""

from __future__ import annotations

import json

from envkit.model import EnvSpec

#: Identifies the definition of `spec_content_hash`; part of the hashed text, so that a change of
#: definition changes every hash instead of silently comparing unlike things.
CONTENT_HASH_VERSION = "envkit-content-hash/1"


def spec_content_hash(spec: EnvSpec, platform: str) -> str:
    """The content hash of `spec` for `platform`: 64 hex digits of SHA-256.

    Definition (`envkit-content-hash/1`): the SHA-256 of the compact, key-sorted JSON of

        {"version": "envkit-content-hash/1", "platform": <platform>,
         "channels": [<canonical channel names, in priority order>],
         "conda": [<canonical match spec of each conda dependency, sorted, duplicates removed>],
         "pip": {"options": [<pip option lines, in file order>],
                 "requirements": [<canonical pip entries, sorted, duplicates removed>]}}

    So the hash depends only on what the solve depends on: comments, formatting, quoting, key order,
    `name:`, `variables:` and the order of dependencies do not change it (`numpy >=1.2` and
    `numpy>=1.2` are one canonical spec); channel order does (it is priority), and so does the order
    of pip options (`--index-url` before `--extra-index-url` matters to pip).  Solver settings
    (virtual packages, channel priority) are not part of it: `envkit lock --check` needs only the
    spec and the lock.
    """
    channels = [c.name for c in spec.channels]
    conda = sorted({d.spec() for d in spec.conda})
    options = [p.text for p in spec.pip if p.kind == "option"]
    reqs = sorted({("-e " if p.editable else "") + p.text for p in spec.pip if p.kind != "option"})
    doc = {
        "version": CONTENT_HASH_VERSION,
        "platform": platform,
        "channels": channels,
        "conda": conda,
        "pip": {"options": options, "requirements": reqs},
    }
    import hashlib

    text = json.dumps(doc, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()
