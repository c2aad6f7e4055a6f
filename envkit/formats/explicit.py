"""Explicit spec files (`conda list --explicit`, conda-lock's rendered `.lock` files): read and write.

An explicit file is an install list for one platform: `@EXPLICIT`, then one package URL per line,
optionally with a `#<md5>`, `#sha256:<hex>` or `#sha256=<hex>` fragment.  conda-lock adds
`# input_hash: <hash>` and `# pip name @ url#sha256=<hex>` lines; both are read.  Order is install
order and is kept.
"""

from __future__ import annotations

import re
from typing import NamedTuple

from envkit.errors import ParseError, Where
from envkit.formats._digest import HEX32 as _HEX32
from envkit.formats._digest import HEX64 as _HEX64
from envkit.formats._util import comment_block, split_filename, url_parts
from envkit.model import Lock, LockedPackage

#: the `# platform:` header of an explicit file, `conda list --export` and conda's requirements format
PLATFORM_LINE = re.compile(r"^#\s*platform:\s*(?P<p>\S+)\s*$")
_INPUT_HASH = re.compile(r"^#\s*input_hash:\s*(?P<h>\S+)\s*$")
_PIP = re.compile(r"^#\s*pip\s+(?P<name>[A-Za-z0-9][A-Za-z0-9._-]*)\s*@\s*(?P<url>\S+)\s*$")

HEADER = (
    "This file may be used to create an environment using:\n$ conda create --name <env> --file <this file>"
)


class _Row(NamedTuple):
    """A package line of an explicit file: a conda package URL, or conda-lock's `# pip` line."""

    line: int
    url: str
    md5: str | None
    sha256: str | None
    pip_name: str | None  # set for a `# pip name @ url` line


#: the version in a wheel or sdist file name at the end of a URL (`/name-1.0-py3-none-any.whl`)
_PIP_FILE_VERSION = re.compile(r"/[A-Za-z0-9._]+-(?P<v>[^-/]+)(?:-[^/]*)?\.(?:whl|tar\.gz|zip)$")


def read_explicit(text: str, filename: str | None = None) -> Lock:
    """Parse an explicit file into Lock(kind="explicit").

    The platform is the `# platform:` header, else the one non-noarch subdir of the URLs.
    Raises ParseError when `@EXPLICIT` is missing or a line is not a package URL.
    """
    from envkit.formats.pipreq import _name_from_url
    from envkit.formats.requirements import refuse_nul
    from envkit.io import refuse_too_many_lines

    refuse_too_many_lines(text, filename, "an explicit file")
    refuse_nul(text, filename)
    platform, content_hash, rows = _scan(text, filename)
    parts = _conda_parts(rows, filename)
    if platform is None:
        subdirs = dict.fromkeys(p[1] for p in parts.values() if p[1] and p[1] != "noarch")
        if len(subdirs) == 1:
            platform = next(iter(subdirs))
    pkgs = []
    for i, row in enumerate(rows):
        if row.pip_name is not None:
            m = _PIP_FILE_VERSION.search(row.url)
            version = m.group("v") if m and _name_from_url(row.url) else ""
            pkgs.append(
                LockedPackage(
                    manager="pip",
                    name=row.pip_name,
                    version=version,
                    platform=platform,
                    url=row.url,
                    sha256=row.sha256,
                    line=row.line,
                )
            )
            continue
        chan, subdir, (name, version, build) = parts[i]
        pkgs.append(
            LockedPackage(
                manager="conda",
                name=name,
                version=version,
                build=build,
                channel=chan,
                platform=platform,
                subdir=subdir,
                url=row.url,
                md5=row.md5,
                sha256=row.sha256,
                line=row.line,
            )
        )
    _refuse_twice(pkgs, filename)
    return Lock(
        kind="explicit",
        platforms=(platform,) if platform else (),
        packages=tuple(pkgs),
        content_hash=((platform, content_hash),) if content_hash and platform else (),
        source=filename,
    )


def _refuse_twice(pkgs: list, filename: str | None) -> None:
    """ParseError for a package listed twice: one environment holds a name once (and a lock written
    from it would be refused by the conda-lock reader)."""
    first: dict[tuple[str, str], int | None] = {}
    for p in pkgs:
        key = (p.manager, p.name.lower())
        if key in first:
            raise ParseError(
                f"{p.name} ({p.manager}) is listed twice; first at line {first[key]}",
                where=Where(file=filename, line=p.line),
            )
        first[key] = p.line


def _scan(text: str, filename: str | None) -> tuple[str | None, str | None, list[_Row]]:
    """(the `# platform:`, the `# input_hash:`, the package lines) of an explicit file; ParseError for
    a line that is neither, in file order."""
    platform = None
    content_hash = None
    seen_explicit = False
    rows: list[_Row] = []
    for i, raw in enumerate(text.splitlines(), 1):
        s = raw.strip()
        if not s:
            continue
        if s.startswith("#"):
            m = PLATFORM_LINE.match(s)
            if m:
                platform = known_platform(m.group("p"), Where(file=filename, line=i), s)
                continue
            m = _INPUT_HASH.match(s)
            if m:
                content_hash = m.group("h")
                continue
            m = _PIP.match(s)
            if m and seen_explicit:
                rows.append(_pip_row(m, s, filename, i))
            continue
        if s == "@EXPLICIT":
            seen_explicit = True
            continue
        if not seen_explicit:
            raise ParseError(
                "not an explicit file: a package line comes before `@EXPLICIT`",
                where=Where(file=filename, line=i),
                text=s,
            )
        rows.append(_conda_row(s, filename, i))
    if not seen_explicit:
        raise ParseError(
            "not an explicit file: no `@EXPLICIT` line",
            where=Where(file=filename),
            hint="an explicit file comes from `conda list --explicit`",
        )
    return platform, content_hash, rows


def known_platform(
    platform: str, where: Where, text: str | None, *, noarch: bool = False, hint: str | None = None
) -> str:
    """`platform` when it is a conda subdir (noarch only with `noarch`); else the ParseError the
    conda-lock reader gives for it (what a reader accepts, envkit must be able to write and read back)."""
    from envkit.conda.channels import is_platform
    from envkit.formats.condalockcheck import unknown_platform

    if not (is_platform(platform) or (noarch and platform == "noarch")):
        raise ParseError(unknown_platform(platform), where=where, text=text, hint=hint)
    return platform


def _pip_row(m: re.Match[str], s: str, filename: str | None, line: int) -> _Row:
    """A `# pip name @ url#sha256=<hex>` line (matched by `_PIP`)."""
    url, _, frag = m.group("url").partition("#")
    sha = frag.split("=", 1)[1] if frag.startswith("sha256=") else None
    if frag and (sha is None or not _HEX64.fullmatch(sha)):
        raise ParseError(
            "unknown hash fragment on a pip line (expected #sha256=<64 hex digits>)",
            where=Where(file=filename, line=line),
            text=s,
        )
    return _Row(line, url, None, sha, m.group("name"))


def _conda_row(s: str, filename: str | None, line: int) -> _Row:
    """A package URL line, with its `#<md5>`, `#sha256:<hex>` or `#sha256=<hex>` fragment."""
    url, _, frag = s.partition("#")
    md5 = sha256 = None
    if frag:
        if frag.startswith(("sha256:", "sha256=")) and _HEX64.fullmatch(frag[7:]):
            sha256 = frag[7:]
        elif _HEX32.fullmatch(frag):
            md5 = frag
        elif _HEX64.fullmatch(frag):
            sha256 = frag
        else:
            raise ParseError(
                "unknown hash fragment (expected #<md5>, #sha256:<hex>, hex digits of 32 or 64)",
                where=Where(file=filename, line=line),
                text=s,
            )
    return _Row(line, url, md5, sha256, None)


_Parts = tuple[str | None, str | None, tuple[str, str, str]]


def _conda_parts(rows: list[_Row], filename: str | None) -> dict[int, _Parts]:
    """(channel, subdir, (name, version, build)) of each conda row, by its index in `rows`;
    ParseError for a URL that is not a conda package file."""
    parts: dict[int, _Parts] = {}
    for i, row in enumerate(rows):
        if row.pip_name is not None:
            continue
        chan, subdir, nvb = url_parts(row.url)
        if nvb is None:
            raise ParseError(
                "not a conda package URL (.conda or .tar.bz2)",
                where=Where(file=filename, line=row.line),
                text=row.url,
            )
        parts[i] = (chan, subdir, nvb)
    return parts


def write_explicit(lock: Lock, platform: str | None = None, *, header: str | None = None) -> str:
    """The explicit file of `lock` for `platform` (default: the lock's only platform), in lock order.

    Each URL carries its md5 (or `sha256:` when only that is known); pip packages become conda-lock's
    `# pip name @ url#sha256=...` lines, which conda ignores.  Raises ParseError when the platform is
    ambiguous, or a package cannot be written so that it reads back (no URL, not a conda package file
    name, whitespace in the URL, a hash that is not hex digits).
    """
    if platform is None:
        if len(lock.platforms) > 1:
            raise ParseError(
                f"the lock has {len(lock.platforms)} platforms ({', '.join(lock.platforms)}); "
                "an explicit file holds one",
                hint="pass the platform to write",
            )
        platform = lock.platforms[0] if lock.platforms else None
    pkgs = lock.for_platform(platform) if platform else lock.packages
    out = comment_block(header if header is not None else HEADER)
    if platform:
        _check_token(platform, "platform", platform)
        out += f"# platform: {platform}\n"
    h = lock.hash_for(platform) if platform else None
    if h:
        out += f"# input_hash: {h}\n"
    out += "@EXPLICIT\n"
    pip_lines = []
    for p in pkgs:
        if p.manager == "pip":
            if p.url:
                if not _PIP_NAME.fullmatch(p.name):
                    raise ParseError(f"pip package name {p.name!r} cannot be written in an explicit file")
                _check_token(p.url, "URL", p.name, "#")
                if p.sha256:
                    _check_hash(p.sha256, _HEX64, "sha256", p.name)
                frag = f"#sha256={p.sha256}" if p.sha256 else ""
                pip_lines.append(f"# pip {p.name} @ {p.url}{frag}\n")
            continue
        if not p.url:
            raise ParseError(f"package {p.name} {p.version} has no URL; an explicit file needs one")
        _check_token(p.url, "URL", p.name, "#")
        if split_filename(p.url.rstrip("/").rpartition("/")[2]) is None:
            raise ParseError(
                f"package {p.name} {p.version}: {p.url!r} is not a conda package URL "
                "(.conda or .tar.bz2); an explicit file needs one"
            )
        if p.md5:
            _check_hash(p.md5, _HEX32, "md5", p.name)
        elif p.sha256:
            _check_hash(p.sha256, _HEX64, "sha256", p.name)
        frag = f"#{p.md5}" if p.md5 else (f"#sha256:{p.sha256}" if p.sha256 else "")
        out += f"{p.url}{frag}\n"
    return out + "".join(pip_lines)


_PIP_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*")


def _check_token(text: str, what: str, package: str, forbidden: str = "") -> None:
    """Raise ParseError unless `text` can be written as one token of an explicit file's line."""
    if not text or any(c.isspace() for c in text) or any(c in text for c in forbidden):
        raise ParseError(
            f"{package}: {what} {text!r} cannot be written in an explicit file "
            "(it must be one word, without whitespace" + (f" or {forbidden!r}" if forbidden else "") + ")"
        )


def _check_hash(value: str, pattern: re.Pattern, what: str, package: str) -> None:
    if not pattern.fullmatch(value):
        raise ParseError(f"{package}: {what} {value!r} is not a hex digest; an explicit file cannot carry it")
