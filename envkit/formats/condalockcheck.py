"""conda-lock v1's rules for what its fields hold (CEP 37): each platform a conda subdir listed
under `metadata.platforms`, each md5 / sha256 a hex digest, each package once per (name, manager,
platform, category).  Two formats follow them: conda-lock.yml (envkit.formats.condalock) and
pixi.lock versions 1 to 3, which are conda-lock's format (envkit.formats.pixilegacy); each reader
checks its Lock here once it is read."""

from __future__ import annotations

from typing import TYPE_CHECKING

from envkit.errors import ParseError, Where
from envkit.model import Lock

if TYPE_CHECKING:
    from envkit.formats._util import Fields


def validate_packages(lock: Lock, text: str, filename: str | None) -> None:
    """Raise ParseError (file, line, key) for the first package that breaks conda-lock v1's rules
    (CEP 37): a platform that is not a conda subdir or not in `metadata.platforms`, an md5 or sha256
    that is not a hex digest, or a second entry with the same (name, manager, platform, category)."""
    from envkit.conda.channels import KNOWN_SUBDIRS, is_platform
    from envkit.conda.names import pep503
    from envkit.formats._digest import HEX32, HEX64

    allowed = frozenset(lock.platforms) & KNOWN_SUBDIRS - {"noarch"}
    hex32, hex64 = HEX32.fullmatch, HEX64.fullmatch
    seen: dict[tuple, int] = {}
    for i, p in enumerate(lock.packages):
        platform = p.platform or ""
        if platform not in allowed:
            why = (
                unknown_platform(platform)
                if not is_platform(platform)
                else f"platform {platform!r} is not one of `metadata.platforms` ({', '.join(lock.platforms)})"
            )
            raise _package_error(
                why,
                text,
                filename,
                p.line,
                i,
                ("platform",),
                hint="a package's platform must be a conda subdir listed under `metadata.platforms`",
            )
        md5, sha256 = p.md5, p.sha256
        if (md5 is not None and (type(md5) is not str or not hex32(md5))) or (
            sha256 is not None and (type(sha256) is not str or not hex64(sha256))
        ):
            _digest_error(p, i, text, filename)
        key = (p.name if p.manager == "conda" else pep503(p.name), p.manager, platform, p.category)
        if key in seen:
            first = seen[key]
            raise _package_error(
                f"{p.name} ({p.manager}, {platform}, category {p.category}) is listed twice"
                + (f"; first at line {first}" if first else ""),
                text,
                filename,
                p.line,
                i,
                ("name",),
                hint="a conda-lock file holds each package once per platform and category",
            )
        seen[key] = p.line or 0


def _digest_error(p, i: int, text: str, filename: str | None) -> None:
    """Raise the ParseError for the first of package `i`'s md5 / sha256 that is not a hex digest."""
    from envkit.formats._digest import is_digest, package_digest_error

    for kind, value in (("md5", p.md5), ("sha256", p.sha256)):
        if value is not None and not is_digest(kind, value):
            where = _package_error("", text, filename, p.line, i, ("hash", kind), hint="").where
            raise package_digest_error(p, kind, where=where)


def unknown_platform(platform: str) -> str:
    """The message for a platform that is not a conda subdir."""
    return f"unknown platform {platform!r} (not a conda subdir such as linux-64, osx-arm64, win-64)"


def _package_error(
    message: str,
    text: str,
    filename: str | None,
    line: int | None,
    index: int,
    keys: tuple[str, ...],
    hint: str,
) -> ParseError:
    """ParseError at `package[index].<keys>`, on the line of the last key inside the entry that
    starts at `line` (found on the error path only: reading never pays for it)."""
    where_line = line
    if line:
        lines = text.splitlines()
        n, todo = line - 1, list(keys)
        while todo and n < len(lines):
            s = lines[n]
            if n > line - 1 and s.startswith("-"):
                break  # the next entry
            if s.lstrip(" -").startswith(todo[0] + ":"):
                where_line = n + 1
                todo.pop(0)
            n += 1
    return ParseError(
        message,
        where=Where(file=filename, line=where_line, key=f"package[{index}]." + ".".join(keys)),
        hint=hint,
    )


def check_platforms(meta: Fields, platforms: tuple[str, ...]) -> None:
    """ParseError naming the `metadata.platforms` item that is not a conda subdir (CEP 37)."""
    from envkit.conda.channels import is_platform

    for i, platform in enumerate(platforms):
        if not is_platform(platform):
            _i, _v, where = meta.items("platforms")[i]
            raise ParseError(
                unknown_platform(platform),
                where=where,
                hint="list the conda subdirs the lock is for, e.g. linux-64, osx-arm64, win-64",
            )
