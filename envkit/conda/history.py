"""The `conda-meta/history` block of a create, as conda 26.7.1 writes it for `conda create --file`.

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

import os
import shlex
import time
from collections.abc import Sequence

from envkit.model import LockedPackage


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
