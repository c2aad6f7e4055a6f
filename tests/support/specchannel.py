"""Local conda channels that satisfy a given set of match specs, for locking real spec files offline.

`channels_for_spec(root, spec)` builds, for an environment file read by envkit, one `file://` channel
per channel the file names (its `channels:` and its `chan::pkg` prefixes), holding for every package
name one package whose version and build satisfy every spec of that name (checked with py-rattler's
MatchSpec, conda's semantics).  `localize(text, mapping)` rewrites the file's channel names to those
URLs, leaving every dependency line as written, so the command under test reads the user's spec forms.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from support.condafactory import PLATFORM, ChannelBuilder, Pkg

_NUM = re.compile(r"\d+(?:\.\d+)*")


@dataclass
class Satisfied:
    """What `channels_for_spec` built: channel name -> builder, package name -> (version, build),
    and the names no single package could satisfy (with the specs that conflict)."""

    channels: dict[str, ChannelBuilder]
    packages: dict[str, tuple[str, str]]
    unsatisfiable: dict[str, list[str]]


def _version_candidates(specs: Sequence[str]) -> list[str]:
    out: list[str] = [s[2:] for s in specs if s.startswith("==")]  # an exact pin, as written
    for s in specs:
        for lit in _NUM.findall(s):
            parts = lit.split(".")
            out += [lit, lit + ".0", lit + ".1", lit + ".5"]
            for i in range(len(parts)):
                n = int(parts[i])
                for d in (1, -1):
                    if n + d >= 0:
                        out.append(".".join(parts[:i] + [str(n + d)] + ["0"] * (len(parts) - i - 1)))
    out += ["1.0.0", "0.1", "100.0"]
    return list(dict.fromkeys(out))


def _build_candidates(specs: Sequence[str], builds: Sequence[str | None]) -> list[str]:
    out: list[str] = []
    for b in builds:
        if b:
            out += [b.replace("*", ""), b.replace("*", "0"), b.replace("*", "_0_")]
    return list(dict.fromkeys(out + ["h0_0", "0"]))


def satisfying(name: str, deps: Sequence) -> tuple[str, str, int] | None:
    """A (version, build, build_number) that satisfies every CondaDep in `deps` (all named `name`)."""
    from rattler import MatchSpec, PackageRecord
    from rattler.package.build_string import BuildString

    specs = [d.spec() for d in deps]
    # the channel prefix is checked by the solve (the package lives in that channel), not here
    plain = [MatchSpec(s.split("::", 1)[-1], strict=False) for s in specs]
    bn = next((int(v) for d in deps for k, v in d.extra if k == "build_number" and v.isdigit()), 0)
    for version in _version_candidates([d.version or "" for d in deps]):
        for build in _build_candidates(specs, [d.build for d in deps]):
            try:
                rec = PackageRecord(
                    name=name, version=version, build=BuildString(build), build_number=bn, subdir=PLATFORM
                )
            except Exception:  # not a valid version or build text: try the next candidate
                continue
            if all(m.matches(rec) for m in plain):
                return version, build, bn
    return None


def channels_for_spec(
    root: str | Path,
    spec,
    *,
    platform: str = PLATFORM,
    overrides: Mapping[str, Callable[[str, str], Pkg]] | None = None,
) -> Satisfied:
    """Build and index the channels (under `root`) that satisfy `spec`'s conda dependencies; see
    the module docstring.  Virtual packages (`__cuda`) are left to the solve's virtual packages.
    `overrides` builds the package of a name from (version, build), e.g. a python with a shim."""
    root = Path(root)
    names = [c.name for c in spec.channels if c.name != "nodefaults"]
    names += [d.channel for d in spec.conda if d.channel and d.channel not in names]
    home = names[0] if names else "conda-forge"
    chans = {n: ChannelBuilder(root / re.sub(r"[^A-Za-z0-9_.-]", "_", n), name=n) for n in names or [home]}
    by_name: dict[str, list] = {}
    for d in spec.conda:
        if not d.name.startswith("__"):
            by_name.setdefault(d.name, []).append(d)
    packages: dict[str, tuple[str, str]] = {}
    bad: dict[str, list[str]] = {}
    for name, deps in by_name.items():
        got = satisfying(name, deps)
        if got is None:
            bad[name] = [d.raw or d.spec() for d in deps]
            continue
        version, build, bn = got
        where = next((d.channel for d in deps if d.channel), home)
        make = (overrides or {}).get(name)
        pkg = (
            make(version, build)
            if make
            else Pkg(name=name, version=version, build=build, build_number=bn, subdir=platform)
        )
        chans[where].add(pkg)
        packages[name] = (version, build)
    for ch in chans.values():
        ch.index()
    return Satisfied(channels=chans, packages=packages, unsatisfiable=bad)


def localize(text: str, channels: Mapping[str, ChannelBuilder]) -> str:
    """`text` (an environment file) with each channel name in `channels` replaced by its local
    `file://` URL: in `channels:` list items and in `chan::pkg` prefixes.  Nothing else changes."""
    out: list[str] = []
    in_channels = False
    for line in text.splitlines(keepends=True):
        stripped = line.strip()
        if re.match(r"^[A-Za-z_]+\s*:", line):
            in_channels = line.split(":", 1)[0].strip() == "channels"
        if in_channels:
            m = re.match(r"^(\s*-\s*)(['\"]?)([^\s'\"#]+)\2(\s*(?:#.*)?\n?)$", line)
            if m and _name(m.group(3)) in channels:
                line = f"{m.group(1)}{channels[_name(m.group(3))].url}{m.group(4)}"
            elif stripped.startswith("channels:") and "[" in stripped:
                line = re.sub(
                    r"[^\[\],\s]+",
                    lambda mm: channels[mm.group(0)].url if mm.group(0) in channels else mm.group(0),
                    line.split(":", 1)[1],
                )
                line = "channels:" + line
        else:
            for name in sorted(channels, key=len, reverse=True):
                line = re.sub(rf"(?<![\w/:.-]){re.escape(name)}::", channels[name].url + "::", line)
        out.append(line)
    return "".join(out)


def _name(text: str) -> str:
    from envkit.conda.channels import parse_channel

    return parse_channel(text).name


def spec_forms(deps: Iterable) -> list[str]:
    """The shape of each dependency as written: `name`, `name=V`, `name==V`, `name=V=B`, `name=*=B`,
    `name OP V`, `name V B`, `name[...]`, each with `chan::` when it has a channel prefix."""
    out = []
    for d in deps:
        raw = (d.raw or d.spec()).strip()
        head = "chan::" if "::" in raw else ""
        body = raw.split("::", 1)[-1]
        rest = body[len(d.name) :] if body.lower().startswith(d.name) else body
        rest = rest.strip()
        if not rest:
            form = "name"
        elif rest.startswith("["):
            form = "name[...]"
        elif re.fullmatch(r"==[^=\s]+", rest):
            form = "name==V"
        elif re.fullmatch(r"=[^=\s]+=[^=\s]+", rest):
            form = "name=*=B" if rest.startswith("=*=") else ("name=V.*=B" if ".*=" in rest else "name=V=B")
        elif re.fullmatch(r"=[^=\s]+", rest):
            form = "name=V"
        elif rest[0] in "<>!~":
            form = "name OP V" + (" (several)" if re.search(r"[,|]", rest) else "")
        elif " " in rest:
            form = "name V B"
        else:
            form = "name " + rest[:1] + "..."
        out.append(head + form)
    return out
