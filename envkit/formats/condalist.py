"""`conda list --json` and `conda list --export` output: read into Lock(kind="conda-list"), write back.

`conda list --json` is a JSON list of records (`name`, `version`, `build_string`, `build_number`,
`channel`, `base_url`, `platform` = subdir, `dist_name`); PyPI packages have channel `pypi`.
`conda list --export` is text: a `# platform:` header, then `name=version=build` lines; packages pip
installed have build `pypi_0`.  Both describe one installed environment, so one platform.
"""

from __future__ import annotations

import json
import re
from dataclasses import replace

from envkit.conda.channels import parse_channel
from envkit.errors import ParseError, Where
from envkit.formats._util import Fields, comment_block
from envkit.formats.explicit import HEADER, PLATFORM_LINE, known_platform
from envkit.model import Lock, LockedPackage

#: `[channel::]name=version=build`; the channel may be a URL (prefix.dev, Artifactory, Nexus, a
#: file:// channel): conda's MatchSpec splits the channel off at the last `::`
#: (conda/models/match_spec.py, `spec_str.rsplit(":", 2)`)
_EXPORT_LINE = re.compile(
    r"^(?:(?P<channel>\S+?)::)?(?P<name>[^\s=:]+)=(?P<version>[^\s=]+)=(?P<build>[^\s=]+)$"
)
_SUBDIR_HINT = "a conda subdir, e.g. linux-64"


def read_conda_list_json(text: str, filename: str | None = None) -> Lock:
    """Parse `conda list --json` output into Lock(kind="conda-list").

    Raises ParseError for invalid JSON or a record without name/version."""
    from envkit.formats._json import load_json

    data = load_json(text, filename)
    if not isinstance(data, list):
        raise ParseError("not `conda list --json` output: expected a JSON list", where=Where(file=filename))
    lines = _record_lines(text)
    records = []
    for i, r in enumerate(data):
        rec = Fields(r, filename, f"[{i}]", line=lines[i] if i < len(lines) else None, what=f"record {i}")
        name = rec.text("name", required=True, what=f"record {i}")
        version = rec.text("version", required=True, what=f"record {i}")
        records.append((rec, name, version))
    for rec, _n, _v in records:
        sub = rec.text("platform")
        if sub and sub != "pypi":
            known_platform(sub, rec.where("platform"), None, noarch=True, hint=_SUBDIR_HINT)
    subdirs = {rec.text("platform") for rec, _n, _v in records} - {None, "", "noarch", "pypi"}
    platform = next(iter(subdirs)) if len(subdirs) == 1 else None
    pkgs = []
    for rec, name, version in records:
        channel, sub = rec.text("channel"), rec.text("platform")
        if channel == "pypi" or sub == "pypi":
            pkgs.append(LockedPackage(manager="pip", name=name, version=version, platform=platform))
            continue
        src = rec.text("base_url") or channel
        chan = parse_channel(src).name if src else None
        pkgs.append(
            LockedPackage(
                manager="conda",
                name=name,
                version=version,
                build=rec.text("build_string") or rec.text("build"),
                build_number=rec.integer("build_number"),
                channel=chan,
                platform=platform,
                subdir=sub or None,
            )
        )
    return Lock(
        kind="conda-list", platforms=(platform,) if platform else (), packages=tuple(pkgs), source=filename
    )


def _record_lines(text: str) -> list[int]:
    """The line each element of a (valid) JSON array starts on, for error messages."""
    decoder = json.JSONDecoder()
    out: list[int] = []
    pos = text.index("[") + 1
    line = 1 + text.count("\n", 0, pos)
    n = len(text)
    while pos < n:
        c = text[pos]
        if c in " \t\r\n,":
            line += c == "\n"
            pos += 1
            continue
        if c == "]":
            break
        out.append(line)
        _obj, end = decoder.raw_decode(text, pos)
        line += text.count("\n", pos, end)
        pos = end
    return out


def write_conda_list_json(lock: Lock, platform: str | None = None) -> str:
    """`conda list --json`-shaped text for `lock` (one platform), in lock order."""
    pkgs = lock.for_platform(platform) if platform else lock.packages
    rows = []
    for p in pkgs:
        if p.manager == "pip":
            base_url, channel, subdir, build, number = "https://pypi.org/", "pypi", "pypi", "pypi_0", 0
        else:
            base_url = parse_channel(p.channel).url if p.channel else ""
            channel, subdir, build = p.channel or "", p.subdir or p.platform or "", p.build or ""
            number = p.build_number or 0
        rows.append(
            {
                "base_url": base_url,
                "build_number": number,
                "build_string": build,
                "channel": channel,
                "dist_name": f"{p.name}-{p.version}-{build}",
                "name": p.name,
                "platform": subdir,
                "version": p.version,
            }
        )
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
            m = PLATFORM_LINE.match(s)
            if m:
                platform = known_platform(m.group("p"), Where(file=filename, line=i), s, hint=_SUBDIR_HINT)
            continue
        m = _EXPORT_LINE.match(s)
        if m is None:
            raise ParseError("not a `name=version=build` line", where=Where(file=filename, line=i), text=s)
        build = m.group("build")
        if build == "pypi_0":
            pkgs.append(
                LockedPackage(manager="pip", name=m.group("name"), version=m.group("version"), line=i)
            )
        else:
            chan = parse_channel(m.group("channel")).name if m.group("channel") else None
            pkgs.append(
                LockedPackage(
                    manager="conda",
                    name=m.group("name"),
                    version=m.group("version"),
                    build=build,
                    channel=chan,
                    line=i,
                )
            )
    if platform:
        pkgs = [replace(p, platform=platform) for p in pkgs]
    return Lock(
        kind="conda-list", platforms=(platform,) if platform else (), packages=tuple(pkgs), source=filename
    )


def write_conda_list_export(lock: Lock, platform: str | None = None, *, header: str | None = None) -> str:
    """`conda list --export` text for `lock` (one platform), in lock order; pip packages get build
    `pypi_0` as conda writes them."""
    if platform is None and len(lock.platforms) == 1:
        platform = lock.platforms[0]
    pkgs = lock.for_platform(platform) if platform and lock.platforms else lock.packages
    out = comment_block(header if header is not None else HEADER)
    if platform:
        if not PLATFORM_LINE.match(f"# platform: {platform}"):
            raise ParseError(f"platform {platform!r} cannot be written in a `# platform:` line")
        out += f"# platform: {platform}\n"
    for p in pkgs:
        head = f"{p.channel}::" if p.channel and p.manager == "conda" else ""
        build = "pypi_0" if p.manager == "pip" else (p.build or "0")
        line = f"{head}{p.name}={p.version}={build}"
        m = _EXPORT_LINE.match(line)
        parts = (p.channel if head else None, p.name, p.version, build)
        if m is None or (m.group("channel"), m.group("name"), m.group("version"), m.group("build")) != parts:
            bad = [
                f"{what} {v!r}"
                for what, v, ok in (
                    ("channel", p.channel, not head or re.fullmatch(r"\S+", p.channel or "")),
                    ("name", p.name, re.fullmatch(r"[^\s=:]+", p.name)),
                    ("version", p.version, re.fullmatch(r"[^\s=]+", p.version)),
                    ("build", build, re.fullmatch(r"[^\s=]+", build)),
                )
                if not ok
            ]
            raise ParseError(
                f"package {p.name!r} cannot be written as a `channel::name=version=build` line: "
                + (", ".join(bad) or repr(line))
                + " (each part one word, without `=` or whitespace; no `:` in the name)"
            )
        out += line + "\n"
    return out
