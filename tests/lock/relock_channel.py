"""A local conda channel with several versions of a few packages and their upload times, for the
re-lock tests (built and indexed here, offline)."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

from support.condafactory import ChannelBuilder, Pkg


def ms(day: str) -> int:
    """Milliseconds since the epoch of a UTC date (a repodata timestamp)."""
    return int(dt.datetime.fromisoformat(day + "T00:00:00+00:00").timestamp() * 1000)


#: name, version, depends, upload date (None: the record has neither timestamp)
PACKAGES = (
    ("a", "1.0", ["b >=1"], "2024-01-01"),
    ("a", "1.1", ["b >=1"], "2024-03-01"),
    ("a", "2.0", ["b >=2"], "2024-06-01"),
    ("b", "1.0", [], "2024-01-01"),
    ("b", "2.0", [], "2024-05-01"),
    ("c", "1.0", [], "2024-01-01"),
    ("c", "1.1", [], "2024-04-01"),
    ("d", "1.0", [], None),
    ("e", "1.0", ["b >=2"], "2024-05-15"),
    ("f", "1.0", ["a <2"], "2024-01-01"),
    ("f", "2.0", [], "2024-07-01"),
)


def make_channel(root: Path) -> ChannelBuilder:
    """The channel in `root`, its repodata carrying CEP 47 `indexed_timestamp`s as an uploading
    channel has them (rattler's indexer stamps the time it ran: replaced by each upload date)."""
    chan = ChannelBuilder(root, name="chan")
    for name, version, depends, day in PACKAGES:
        chan.add(
            Pkg(name=name, version=version, build="h0_0", depends=depends, timestamp=ms(day or "2020-01-01"))
        )
    chan.index()
    path = chan.root / "linux-64" / "repodata.json"
    data = json.loads(path.read_text())
    for name, version, _d, day in PACKAGES:
        rec = data["packages"][f"{name}-{version}-h0_0.tar.bz2"]
        if day is None:
            rec.pop("timestamp", None)
            rec.pop("indexed_timestamp", None)
        else:
            rec["indexed_timestamp"] = ms(day)
    path.write_text(json.dumps(data, indent=1))
    return chan


def spec_file(folder: Path, channel: ChannelBuilder, deps=("a", "c")) -> Path:
    """folder/environment.yml on `channel`, asking for `deps` (with the defaults, `c` is on line 6)."""
    path = folder / "environment.yml"
    path.write_text(
        f"name: demo\nchannels:\n  - {channel.url}\ndependencies:\n" + "".join(f"  - {d}\n" for d in deps)
    )
    return path


def lock(envkit_cli, spec: Path, out: Path, *args: str):
    """`envkit lock -f SPEC --platform linux-64 -o OUT ARGS`, which must succeed."""
    r = envkit_cli("lock", "-f", str(spec), "--platform", "linux-64", "-o", str(out), *args)
    assert r.exit_code == 0, r.stderr
    return r
