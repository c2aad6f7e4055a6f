"""`conda-meta/history`: replaying it into the requested specs, and the block of a create, as conda
26.7.1 writes it for `conda create --file`.

    ==> 2026-12-01 23:16:26 <==
    # cmd: envkit create --lock conda-lock.yml -p /envs/x
    # envkit version: 0.1.0
    +conda-forge/linux-64::numpy-1.26.4-py311h64a7726_0
    # update specs: ['conda-forge/linux-64::numpy==1.26.4=py311h64a7726_0']

conda's `History.get_user_requests` keeps a block only with a `# cmd:` line, and replays its
`# update specs:` into the requested specs that `--from-history` exports.  A lock records no
requested specs (no conda-lock.yml, pixi.lock or explicit field holds them), so the specs are each
package pinned, `channel/subdir::name==version=build`, in lock order: what conda writes for a create
from the same lock.  No `# conda version:` line: envkit is not conda, and conda only reads that
line to warn that a newer conda touched the prefix.
"""

from __future__ import annotations

import ast
import os
import re
import shlex
import time
from collections.abc import Sequence
from typing import Any

from envkit.model import LockedPackage

# `[channel[/subdir]::]name...`: the channel may be a URL (`file:///srv/chan::zlib`,
# `https://conda.anaconda.org/t/<token>/private::zlib`, `https://[::1]:8080/c::six`), so it runs to
# the first `::` that follows it; it holds no whitespace, and `[` only as an IPv6 host.  A bracket
# part after the name (`zlib[build=x::y]`) is never taken for a channel.
_SPEC_NAME = re.compile(r"^\s*(?:(?:[^\s\[:]|:(?!:)|\[[0-9A-Fa-f:.]*\])*::)?([A-Za-z0-9_.\-]+)")
_OLD_VERSION_PART = r"^(=|==|!=|<=|>=|<|>)(?![=<>!~])(\S+)$"
_CMD = re.compile(r"#\s*cmd:\s*(.+)")
_SPECS = re.compile(r"#\s*(\w+)\s*specs:\s*(.+)?")


def spec_name(spec: str) -> str:
    """The package name of a conda match spec (`conda-forge::numpy>=1` -> `numpy`)."""
    m = _SPEC_NAME.match(spec)
    return m.group(1).lower() if m else spec.strip().lower()


def parse_history(text: str) -> dict[str, Any]:
    """Replay conda-meta/history like conda's History.get_requested_specs_map.

    As conda does: only blocks with a `# cmd:` line are user requests; within one block the
    remove specs are applied first, then the update specs, then the neutered specs (whatever
    order their lines are in); a later line of the same kind in a block replaces an earlier one.

    Returns {"requested": [spec, ...] (in conda's order), "channels": [-c channels of the
    commands, first use first], "override_channels": bool, "commands": number of blocks}.
    """
    spec_map: dict[str, str] = {}
    channels: list[str] = []
    override = False
    commands = 0
    block: dict[str, Any] | None = None
    for line in text.splitlines():
        line = line.strip()
        if line.startswith("==>"):
            _apply_block(block, spec_map)
            block = {}
            commands += 1
            continue
        if not line.startswith("#"):
            continue
        if block is None:  # comment lines before the first header
            block = {}
        m = _CMD.match(line)
        if m:
            block["cmd"] = True
            override = _command_channels(m.group(1).split(), channels) or override
            continue
        m = _SPECS.match(line)
        if not m:
            continue
        specs = _history_specs((m.group(2) or "").strip())
        key = {"install": "update", "create": "update", "uninstall": "remove"}.get(m.group(1), m.group(1))
        if specs and key in ("update", "remove", "neutered"):
            block[key] = specs
    _apply_block(block, spec_map)
    return {
        "requested": list(spec_map.values()),
        "channels": list(dict.fromkeys(channels)),
        "override_channels": override,
        "commands": commands,
    }


def _apply_block(block: dict[str, Any] | None, spec_map: dict[str, str]) -> None:
    """Apply one history block (a user request: it has a `# cmd:` line) to `spec_map`."""
    if block is None or "cmd" not in block:
        return
    for s in block.get("remove", ()):
        spec_map.pop(spec_name(s), None)
    for key in ("update", "neutered"):
        for s in block.get(key, ()):
            spec_map[spec_name(s)] = s


def _command_channels(argv: list[str], channels: list[str]) -> bool:
    """Add the `-c` channels of a `# cmd:` line's argv to `channels`; True for `--override-channels`."""
    override = False
    i = 0
    while i < len(argv):
        a = argv[i]
        if a in ("-c", "--channel") and i + 1 < len(argv):
            channels.append(argv[i + 1])
            i += 1
        elif a.startswith("--channel="):
            channels.append(a.split("=", 1)[1])
        elif a.startswith("-c") and len(a) > 2 and not a.startswith("--"):
            channels.append(a[2:])
        elif a == "--override-channels":
            override = True
        i += 1
    return override


def _history_specs(text: str) -> list[str]:
    """The specs of a `# ACTION specs:` line: a Python list (conda 4.4+), or the old
    comma-separated form whose version parts (`numpy,>=1.9`) rejoin their spec; [] when unreadable."""
    specs: Any
    if text.startswith("["):
        try:
            specs = ast.literal_eval(text)
        except (ValueError, SyntaxError):
            return []
    elif "[" not in text:
        specs = []
        for part in text.split(","):
            if re.match(_OLD_VERSION_PART, part) and specs:
                specs[-1] = specs[-1] + "," + part
            else:
                specs.append(part)
    else:
        return []
    return [str(s).strip() for s in specs if s and not str(s).endswith("@")]


def _channel_subdir(p: LockedPackage) -> tuple[str, str]:
    """conda's canonical channel name (`conda-forge`, `pkgs/main`, a file:// or other URL without
    credentials) and the subdir, from the package URL, else from the recorded channel."""
    from envkit.conda.channels import channel_of_url, parse_channel

    if p.url:
        channel, subdir = channel_of_url(p.url)
        if subdir:
            return channel.name, subdir
    return (parse_channel(p.channel).name if p.channel else "<unknown>"), p.subdir or p.platform or "noarch"


def history_block(packages: Sequence[LockedPackage], cmd: Sequence[str], *, when: float | None = None) -> str:
    """The history block of a create that installed `packages` (conda ones) by running `cmd`."""
    from envkit import __version__
    from envkit.secrets import redact_text

    dists, specs = [], []
    for p in packages:
        chan, subdir = _channel_subdir(p)
        dists.append(f"{chan}/{subdir}::{p.name}-{p.version}-{p.build}")
        specs.append(f"{chan}/{subdir}::{p.name}=={p.version}={p.build}")
    lines = [
        f"==> {time.strftime('%Y-%m-%d %H:%M:%S', time.localtime(when))} <==",  # local time, as conda
        "# cmd: " + " ".join(shlex.quote(a) for a in cmd),
        f"# envkit version: {__version__}",
    ]
    lines += [f"+{d}" for d in sorted(dists)]
    if specs:
        lines.append(f"# update specs: {specs!r}")
    return redact_text("\n".join(lines) + "\n")


def append_history(prefix: str, packages: Sequence[LockedPackage], cmd: Sequence[str]) -> str:
    """Append the block for `packages` to `prefix`'s conda-meta/history (created if missing);
    returns the history path."""
    path = os.path.join(prefix, "conda-meta", "history")
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "a", encoding="utf-8") as fh:
        fh.write(history_block(packages, cmd))
    return path
