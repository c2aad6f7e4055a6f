"""pixi.lock versions 1 to 3: conda-lock's format (`metadata:` and a `package:` list, one entry per
platform, `dependencies:` a list or a mapping, `manager: conda`/`pypi`), with one environment,
"default" (rattler_lock reads them with crates/rattler_lock/src/parse/v3.rs).  conda-lock.yml's
reader hands such a document here (envkit.formats.condalock), and pixi.lock's reader does too
(envkit.formats.pixilock); both follow conda-lock's rules for the fields
(envkit.formats.condalockcheck).
"""

from __future__ import annotations

import re
from typing import cast

from envkit.errors import ParseError
from envkit.formats._util import Fields, read_channels, url_parts
from envkit.formats.pixientry import checked_hash, is_path, required, split_req
from envkit.model import Lock, LockedPackage, split_depend

DEFAULT_ENVIRONMENT = "default"

#: `version: 2` / `version: 3` at the start of a line (conda-lock only ever wrote version 1); `^version`
#: written `version(?<=^version)`: searched for as a literal, not tried at every character
_PIXI_SHAPED_VERSION = re.compile(r"version(?<=^version):[ \t]*[23][ \t]*(?:#.*)?\r?$", re.MULTILINE)
#: keys rattler writes in each `package:` entry of a conda-lock shaped pixi.lock and conda-lock
#: never does (conda-lock's LockedDependency has no arch, subdir or timestamp)
_PIXI_ENTRY_KEYS = ("\n  arch: ", "\n  subdir: ", "\n  timestamp: ")


def conda_lock_shaped(text: str) -> bool:
    """Whether `text`, a document shaped like conda-lock.yml (`metadata:`, `package:`, no
    `environments:`), is a pixi.lock version 1 to 3: its version says 2 or 3, or its entries carry
    the keys only rattler writes (version 1 is conda-lock's own number, and pixi's first locks
    used it)."""
    return _PIXI_SHAPED_VERSION.search(text) is not None or any(k in text for k in _PIXI_ENTRY_KEYS)


def read_conda_lock_shaped(data, text: str, filename: str | None) -> Lock:
    """The one environment of a pixi.lock version 1 to 3 (conda-lock shaped; see the module doc) as
    Lock(kind="pixi"), checked by conda-lock's rules (digests, platforms, no entry twice)."""
    from envkit.formats.condalockcheck import validate_packages

    top = Fields(data, filename, "")
    meta = top.mapping("metadata")
    channels = read_channels(meta, filename)
    platforms = list(meta.texts("platforms"))
    out: list[LockedPackage] = []
    for _i, raw, where in top.items("package"):
        entry = Fields(raw, filename, where.key or "", line=where.line, what="a package entry")
        pkg = _package(entry, where.line)
        if pkg.platform not in platforms:
            platforms.append(cast(str, pkg.platform))  # _package requires it
        out.append(pkg)
    lock = Lock(
        kind="pixi",
        platforms=tuple(platforms),
        packages=tuple(out),
        channels=tuple(channels),
        environment=DEFAULT_ENVIRONMENT,
        metadata=(("version", str(data.get("version"))),),
        source=filename,
    )
    validate_packages(lock, text, filename)
    return lock


def _package(p: Fields, line: int | None) -> LockedPackage:
    """The record of one `package:` entry (on `line`); a conda package's build, channel and subdir
    come from its URL where the entry does not say them."""
    manager = required(p, "manager", "a package entry")
    if manager not in ("conda", "pip", "pypi"):
        raise ParseError(f"unknown manager {manager!r} (expected conda or pypi)", where=p.where("manager"))
    name = required(p, "name", "a package entry")
    version = required(p, "version", "a package entry")
    platform = required(p, "platform", "a package entry")
    url = required(p, "url", "a package entry")
    h = p.mapping("hash")
    depends = _legacy_depends(p, manager)
    build = channel = subdir = None
    build_number = None
    if manager == "conda":
        channel, url_subdir, nvb = url_parts(url)
        build = p.text("build") or (nvb[2] if nvb else None)
        build_number = p.integer("build_number") or 0
        subdir = p.text("subdir") or url_subdir
    return LockedPackage(
        manager="conda" if manager == "conda" else "pip",
        name=name,
        version=version,
        build=build,
        build_number=build_number,
        channel=channel,
        platform=platform,
        subdir=subdir,
        url=url,
        md5=checked_hash(h, "md5"),
        sha256=checked_hash(h, "sha256"),
        depends=depends,
        category=p.text("category") or "main",
        editable=manager != "conda" and is_path(url),
        line=line,
    )


def _legacy_depends(p, manager: str) -> tuple[tuple[str, str], ...]:
    """`dependencies:` of a version 1-3 entry: a list of specs or a name -> constraint mapping (both
    are written, as rattler reads both); pypi entries may say `requires_dist:` instead."""
    key = "dependencies" if "dependencies" in p or manager == "conda" else "requires_dist"
    value = p.get(key)
    if isinstance(value, dict):
        deps = p.mapping(key)
        return tuple((str(k), deps.text(k) or "") for k in deps.data)
    split = split_depend if manager == "conda" else split_req
    return tuple(split(d) for d in p.texts(key))
