"""A solved spec written as a pixi.lock, and what envkit records in it read back.

The packages, channels and indexes are written by the pixi.lock writer of the format registry
(`envkit.formats.write_text`, "pixi" for version 6, "pixi-v7").  A pixi.lock has no custom
metadata, so what a re-lock and `envkit lock --check` need goes where pixi's own readers tolerate
it (py-rattler and conda's conda-lockfiles plugin read such a file; tested):

* the default exclude-newer cutoff in the environment's `options: exclude-newer:`, pixi's own
  home for it (https://github.com/conda/rattler/blob/main/crates/rattler_lock/src/options.rs);
* a generated-by header comment (who wrote it, the command that regenerates it);
* a top-level `envkit:` mapping, last in the file: the content hash per platform and envkit's
  custom metadata (the spec record, the full cutoff with its per-package overrides, pip indexes).
  rattler ignores keys it does not know, and drops them when pixi rewrites the file: after
  `pixi lock` the file is pixi's, with no envkit record (a re-lock then starts from its packages
  and `--check` can only say whether they satisfy the spec).
"""

from __future__ import annotations

import json
import os
import re

from envkit.model import Lock

#: The top-level key of envkit's record in a pixi.lock.
RECORD_KEY = "envkit"
#: --to names of the pixi.lock versions envkit writes, and the version each writes.
PIXI_TARGETS = {"pixi": 6, "pixi-v7": 7}

_RECORD_START = re.compile(rf"^{RECORD_KEY}:[ \t]*$", re.M)
_ENV_PACKAGES = re.compile(r"^    packages:", re.M)


def write_pixi(lock: Lock, target: str = "pixi", *, header: str | None = None) -> str:
    """The pixi.lock text (`target` "pixi": version 6, "pixi-v7": version 7) of the solved `lock`:
    the registry writer's text with the header comment, `options: exclude-newer` and the `envkit:`
    record added.  Deterministic: the same lock, the same bytes.

    Raises UsageError when a package cannot be held by a pixi.lock (see envkit.formats.write_text)."""
    from envkit.errors import UsageError
    from envkit.formats import write_text
    from envkit.formats._util import comment_block, yscalar
    from envkit.formats.condalock import custom_metadata
    from envkit.lock.cutoff import iso, read_exclude_newer

    try:
        body = write_text(lock, target)
    except UsageError as exc:
        raise UsageError(exc.message, hint="write a conda-lock file instead (--to conda-lock)") from exc
    custom = custom_metadata(lock)
    cut = read_exclude_newer(custom)
    if cut is not None and cut.default:
        # pixi's place for the cutoff: the environment's options, before its packages
        m = _ENV_PACKAGES.search(body)
        if m is not None:
            when = iso(cut.default)
            body = f'{body[: m.start()]}    options:\n      exclude-newer: "{when}"\n{body[m.start() :]}'
    record = [f"{RECORD_KEY}:"]
    if lock.content_hash:
        record.append("  content_hash:")
        record += [f"    {yscalar(p)}: {yscalar(h)}" for p, h in lock.content_hash]
    if custom:
        record.append("  custom_metadata:")
        for k, v in custom.items():
            record.append(f"    {yscalar(k)}: {yscalar(v if isinstance(v, str) else json.dumps(v))}")
    text = (comment_block(header) if header else "") + body
    return text + "\n".join(record) + "\n" if len(record) > 1 else text


def pixi_version(text: str) -> int | None:
    """The `version:` of a pixi.lock's text (None when it has none on a line of its own)."""
    m = re.search(r"^version:[ \t]*(\d+)[ \t]*$", text, re.M)
    return int(m.group(1)) if m else None


def apply_pixi_record(lock: Lock, text: str) -> Lock:
    """`lock` (read from the pixi.lock `text`) with envkit's record put back: the content hashes
    and the custom metadata.  A pixi.lock without one (written by pixi) keeps pixi's own
    `options: exclude-newer` as the recorded cutoff.  The same lock when there is nothing."""
    from dataclasses import replace

    from envkit.errors import ParseError, UsageError
    from envkit.formats._fastyaml import load_yaml
    from envkit.lock.cutoff import EXCLUDE_NEWER_KEY, iso, parse_when

    hashes: tuple[tuple[str, str], ...] = ()
    custom: dict[str, str] = {}
    starts = list(_RECORD_START.finditer(text))
    m = starts[-1] if starts else None  # the last one: envkit writes it at the end
    if m is not None:
        try:
            doc = load_yaml(text[m.start() :])
        except (ParseError, RecursionError, ValueError):
            doc = None
        rec = doc.get(RECORD_KEY) if isinstance(doc, dict) else None
        if isinstance(rec, dict):
            ch = rec.get("content_hash")
            if isinstance(ch, dict):
                hashes = tuple((str(p), str(h)) for p, h in ch.items() if str(p) in lock.platforms)
            cm = rec.get("custom_metadata")
            if isinstance(cm, dict):
                custom = {str(k): str(v) for k, v in cm.items()}
    if EXCLUDE_NEWER_KEY not in custom:
        options = dict(lock.metadata).get("options")
        try:
            when = json.loads(options).get("exclude-newer") if options else None
            if when:
                custom[EXCLUDE_NEWER_KEY] = json.dumps(
                    {"default": iso(parse_when(str(when)))}, separators=(",", ":")
                )
        except (ValueError, AttributeError, UsageError):
            pass  # an options entry envkit cannot read: no cutoff
    if not hashes and not custom:
        return lock
    meta = tuple((k, v) for k, v in lock.metadata if k != "custom_metadata")
    if custom:
        meta += (("custom_metadata", json.dumps(custom, ensure_ascii=False, separators=(",", ":"))),)
    return replace(lock, content_hash=hashes or lock.content_hash, metadata=meta)


#: the pixi manifests that make a pixi.lock beside them pixi's (https://pixi.sh/latest/reference/pixi_manifest/)
PIXI_MANIFESTS = ("pixi.toml", "pyproject.toml")


def pixi_manifest_beside(path: str) -> str | None:
    """The pixi manifest in the directory of `path` (pixi.toml, or a pyproject.toml with a
    `[tool.pixi...]` table), or None: a pixi.lock there is the one pixi locks and installs."""
    from envkit.io import file_text

    folder = os.path.dirname(os.path.abspath(path))
    for name in PIXI_MANIFESTS:
        candidate = os.path.join(folder, name)
        if not os.path.isfile(candidate):
            continue
        if name == "pixi.toml" or "[tool.pixi" in (file_text(candidate) or ""):
            return candidate
    return None
