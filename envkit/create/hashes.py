"""The hashes a lock records: well-formed, and matched by the local archives before anything is
linked (py-rattler checks the sha256 of what it downloads, not of `file://` packages)."""

from __future__ import annotations

import hashlib
import os
from collections.abc import Sequence
from urllib.parse import unquote, urlparse

from envkit.errors import IntegrityError, UsageError, Where
from envkit.model import LockedPackage


def local_path(url: str) -> str | None:
    """The file a `file://` URL (or an absolute path) names; None for a remote URL."""
    parsed = urlparse(url)
    if parsed.scheme == "file":
        return unquote(parsed.path)
    if not parsed.scheme and os.path.isabs(url):
        return url
    return None


def file_name(url: str) -> str:
    """The archive file name a package URL ends in (`%` escapes decoded)."""
    return unquote(urlparse(url).path.rsplit("/", 1)[-1])


def file_hashes(path: str) -> tuple[str, str]:
    """(md5, sha256) hex digests of the file at `path`."""
    md5, sha = hashlib.md5(), hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            md5.update(block)
            sha.update(block)
    return md5.hexdigest(), sha.hexdigest()


def validate_hashes(packages: Sequence[LockedPackage], *, source: str | None = None) -> None:
    """Check that every recorded hash of `packages` (md5, sha256; conda and pip) is a string of hex
    digits of the right length (32, 64).  An absent hash (None) is not checked here.

    A hash YAML read as something else, above all an unquoted all-digit hash (`sha256: 000...0` is
    the integer 0), would otherwise look absent or fail later with a traceback, and the package
    would go unverified.  Raises ParseError naming the file, the package's line, the package and the
    key.
    """
    from envkit.formats._digest import package_digest_error

    for p in packages:
        for key in ("md5", "sha256"):
            if getattr(p, key) is None:
                continue
            err = package_digest_error(p, key, where=Where(file=source, line=p.line, key=key))
            if err is not None:
                raise err


def verify_local_archives(packages: Sequence[LockedPackage], *, source: str | None = None) -> None:
    """Check md5/sha256 of every conda package whose URL is a local file (the hashes were
    validated first: `validate_hashes`).

    Raises IntegrityError for a mismatch or a missing file, and UsageError for a conda package that
    records no hash at all (a lock without hashes cannot be installed safely).
    """
    for p in packages:
        if p.md5 is None and p.sha256 is None:
            raise UsageError(
                f"{p.name}={p.version}: the lock records no md5 or sha256 for this conda package",
                where=Where(file=source, line=p.line),
            )
        path = local_path(p.url or "")
        if path is None:
            continue  # downloaded first (envkit.create.fetch), and checked then
        check_archive_hashes(p, path, source=source)


def check_archive_hashes(p: LockedPackage, path: str, *, source: str | None = None) -> None:
    """Check md5/sha256 of the archive at `path` (the file `p`'s URL names, or its download)
    against what the lock records for `p`.  Raises IntegrityError for a mismatch or a missing
    file, naming `p`'s URL and the lock's line."""
    if not os.path.isfile(path):
        raise IntegrityError(
            f"{p.name}={p.version}: package file not found: {path}", where=Where(file=source, line=p.line)
        )
    md5, sha = file_hashes(path)
    # the file's own digest is not shown: the URL may name any local file (`file:///etc/passwd`),
    # and its digest would tell about its content; the lock's value is the lock's own text
    for key, got in (("sha256", sha), ("md5", md5)):
        want = getattr(p, key)
        if want is not None and got != want.lower():
            raise IntegrityError(
                f"{p.name}={p.version}: {p.url} does not match the {key} the lock records ({want})",
                where=Where(file=source, line=p.line),
                hint="the package changed after it was locked; relock, or fix the channel",
            )
