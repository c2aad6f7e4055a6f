"""`envkit lock -f --update NAME` benchmark: re-lock one package of a 3,000-package lock.

A local channel (repodata.json written directly: a solve reads nothing else) holds 3,000 packages
in a dependency chain, each in version 1.0 and, uploaded since, 1.1.  The previous lock has every
package at 1.0.  Measured: `envkit.ops.lock.lock_spec(spec, previous=LOCK, update=["pkg0000"])`
(2,999 pins, one package asked for at its newest version), in-process; against a fresh solve of the
same spec (`lock_spec(spec)`, what `--update-all` and conda-lock's `--update` do), which is the
floor: the re-lock must cost no more than solving afresh.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from run import Case

REPO = Path(__file__).resolve().parent.parent
N = 3000


def _channel(root: Path, versions: tuple[str, ...]) -> str:
    sub = root / "linux-64"
    sub.mkdir(parents=True, exist_ok=True)
    (root / "noarch").mkdir(exist_ok=True)
    packages = {}
    for i in range(N):
        for j, v in enumerate(versions):
            name = f"pkg{i:04d}"
            deps = [f"pkg{k:04d} >=1.0" for k in range(i + 1, min(i + 3, N))]
            packages[f"{name}-{v}-h0_0.tar.bz2"] = {
                "name": name,
                "version": v,
                "build": "h0_0",
                "build_number": 0,
                "depends": deps,
                "subdir": "linux-64",
                "md5": f"{i:016x}{j:016x}",
                "sha256": f"{i:032x}{j:032x}",
                "size": 1000,
                "timestamp": 1_700_000_000_000 + j * 86_400_000,
            }
    info = {"info": {"subdir": "linux-64"}, "packages": packages, "packages.conda": {}, "repodata_version": 1}
    (sub / "repodata.json").write_text(json.dumps(info))
    empty = {"info": {"subdir": "noarch"}, "packages": {}, "packages.conda": {}, "repodata_version": 1}
    (root / "noarch" / "repodata.json").write_text(json.dumps(empty))
    return root.resolve().as_uri()


def cases(work: Path) -> list[Case]:
    sys.path.insert(0, str(REPO))
    from envkit.formats.envyml import read_env
    from envkit.ops.lock import lock_spec
    from envkit.render.lock_text import move_text

    root = work / "relock-channel"
    url = _channel(root, ("1.0",))
    spec_path = work / "relock-environment.yml"
    spec_path.write_text(f"name: big\nchannels:\n  - {url}\ndependencies:\n  - pkg0000\n")
    spec = read_env(spec_path.read_text(), filename=str(spec_path))
    base = lock_spec(spec, platforms=["linux-64"], environ={}).lock
    assert len(base.packages) == N
    _channel(root, ("1.0", "1.1"))  # the channel moved on: every package has a newer version

    def relock():
        r = lock_spec(spec, platforms=["linux-64"], previous=base, update=["pkg0000"], environ={})
        assert [move_text(m) for m in r.moves] == ["pkg0000 1.0 → 1.1 (asked to update)"]

    def fresh():
        r = lock_spec(spec, platforms=["linux-64"], environ={})
        assert {p.version for p in r.lock.packages} == {"1.1"}

    return [
        Case(
            name="lock -f --update of one package in a 3,000-package lock (in-process)",
            measure=relock,
            floor=fresh,
            floor_label="a fresh solve of the same spec (--update-all)",
            floor_kind="alternative",
            target=1.0,
            repeat=9,
            notes="2,999 locked packages pinned, pkg0000 asked for at its newest; the channel's repodata "
            "is read by both (a local file:// channel, rattler's cache warm)",
            work=f"{N:,} packages",
        )
    ]
