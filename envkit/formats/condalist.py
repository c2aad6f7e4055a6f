"""`conda list --json` and `conda list --export` output: read into Lock(kind="conda-list"), write back.

`conda list --json` is a JSON list of records (`name`, `version`, `build_string`, `build_number`,
`channel`, `base_url`, `platform` = subdir, `dist_name`); PyPI packages have channel `pypi`.
`conda list --export` is text: a `# platform:` header, then `name=version=build` lines; packages pip
installed have build `pypi_0`.  Both describe one installed environment, so one platform.
"""
from __future__ import annotations

import json
import re

from envkit.errors import ParseError, Where
from envkit.model import Lock, LockedPackage

_EXPORT_LINE = re.compile(r"^(?:(?P<channel>[^\s:]+)::)?(?P<name>[^\s=]+)=(?P<version>[^\s=]+)=(?P<build>[^\s=]+)$")
_PLATFORM = re.compile(r"^#\s*platform:\s*(?P<p>\S+)\s*$")
_PIP_BUILDS = ("pypi_0",)

EXPORT_HEADER = ("This file may be used to create an environment using:\n"
                 "$ conda create --name <env> --file <this file>")


def _lock_platform(subdirs: list[str]) -> str | None:
    real = [s for s in dict.fromkeys(subdirs) if s and s not in ("noarch", "pypi")]
    return real[0] if len(real) == 1 else None


def read_conda_list_json(text: str, filename: str | None = None) -> Lock:
    """Parse `conda list --json` output into Lock(kind="conda-list").

    Raises ParseError for invalid JSON or a record without name/version."""
    from envkit.conda.channels import parse_channel

    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ParseError(f"invalid JSON: {exc.msg}", where=Where(file=filename, line=exc.lineno)) from None
    if not isinstance(data, list):
        raise ParseError("not `conda list --json` output: expected a JSON list", where=Where(file=filename))
    platform = _lock_platform([r.get("platform") for r in data if isinstance(r, dict)])
    pkgs = []
    for i, r in enumerate(data):
        if not isinstance(r, dict) or "name" not in r or "version" not in r:
            raise ParseError(f"record {i} has no name/version", where=Where(file=filename, key=f"[{i}]"))
        is_pip = r.get("channel") == "pypi" or r.get("platform") == "pypi"
        if is_pip:
            pkgs.append(LockedPackage(manager="pip", name=str(r["name"]), version=str(r["version"]),
                                      platform=platform))
            continue
        chan = None
        if r.get("base_url"):
            chan = parse_channel(str(r["base_url"])).name
        elif r.get("channel"):
            chan = parse_channel(str(r["channel"])).name
        bn = r.get("build_number")
        pkgs.append(LockedPackage(
            manager="conda", name=str(r["name"]), version=str(r["version"]),
            build=r.get("build_string") or r.get("build"), build_number=int(bn) if bn is not None else None,
            channel=chan, platform=platform, subdir=r.get("platform") or None))
    return Lock(kind="conda-list", platforms=(platform,) if platform else (), packages=tuple(pkgs),
                source=filename)


def write_conda_list_json(lock: Lock, platform: str | None = None) -> str:
    """`conda list --json`-shaped text for `lock` (one platform), in lock order."""
    from envkit.conda.channels import parse_channel

    pkgs = lock.for_platform(platform) if platform else lock.packages
    rows = []
    for p in pkgs:
        if p.manager == "pip":
            rows.append({"base_url": "https://pypi.org/", "build_number": 0, "build_string": "pypi_0",
                         "channel": "pypi", "dist_name": f"{p.name}-{p.version}-pypi_0", "name": p.name,
                         "platform": "pypi", "version": p.version})
            continue
        ch = parse_channel(p.channel) if p.channel else None
        rows.append({"base_url": ch.url if ch else "", "build_number": p.build_number or 0,
                     "build_string": p.build or "", "channel": p.channel or "",
                     "dist_name": f"{p.name}-{p.version}-{p.build or ''}", "name": p.name,
                     "platform": p.subdir or p.platform or "", "version": p.version})
    return json.dumps(rows, indent=2, sort_keys=True) + "\n"


def read_conda_list_export(text: str, filename: str | None = None) -> Lock:
    """Parse `conda list --export` text (`name=version=build` lines) into Lock(kind="conda-list").

    Raises ParseError (file, line, text) for a line that is not `name=version=build`."""
    platform = None
    pkgs = []
    for i, raw in enumerate(text.splitlines(), 1):
        s = raw.strip()
        if not s:
            continue
        if s.startswith("#"):
            m = _PLATFORM.match(s)
            if m:
                platform = m.group("p")
            continue
        m = _EXPORT_LINE.match(s)
        if m is None:
            raise ParseError("not a `name=version=build` line", where=Where(file=filename, line=i), text=s)
        build = m.group("build")
        if build in _PIP_BUILDS:
            pkgs.append(LockedPackage(manager="pip", name=m.group("name"), version=m.group("version"),
                                      line=i))
        else:
            chan = None
            if m.group("channel"):
                from envkit.conda.channels import parse_channel

                chan = parse_channel(m.group("channel")).name
            from envkit.formats._util import build_number_of

            pkgs.append(LockedPackage(manager="conda", name=m.group("name"), version=m.group("version"),
                                      build=build, channel=chan, line=i))
    if platform:
        from dataclasses import replace

        pkgs = [replace(p, platform=platform) for p in pkgs]
    return Lock(kind="conda-list", platforms=(platform,) if platform else (), packages=tuple(pkgs),
                source=filename)


def write_conda_list_export(lock: Lock, platform: str | None = None, *, header: str | None = None) -> str:
    """`conda list --export` text for `lock` (one platform), in lock order; pip packages get build
    `pypi_0` as conda writes them."""
    from envkit.formats._util import comment_block

    if platform is None and len(lock.platforms) == 1:
        platform = lock.platforms[0]
    pkgs = lock.for_platform(platform) if platform and lock.platforms else lock.packages
    out = comment_block(header if header is not None else EXPORT_HEADER)
    if platform:
        out += f"# platform: {platform}\n"
    for p in pkgs:
        head = f"{p.channel}::" if p.channel and p.manager == "conda" else ""
        build = "pypi_0" if p.manager == "pip" else (p.build or "0")
        out += f"{head}{p.name}={p.version}={build}\n"
    return out
