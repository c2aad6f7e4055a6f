"""The family of prefixes the differential tests compare envkit and a real conda on.

Built once per session with py-rattler (tests/support/condafactory.py), read-only afterwards:

- `conda-only`: python 3.11, numpy, requests (noarch: python), libblas `22_linux64_openblas`
  (build number 22, not the build string's trailing digits), `bn 1.0 h0_7` (build number 3) with a
  `constrains`, and `six`/`tool` from a second channel `extra` listed first (priority); a history
  of a create with `-c` channels, an install, a remove and an update.
- `pip`: the same plus pip packages installed from an index, a URL, a VCS and an editable checkout.
- `no-history`: the same conda packages, without conda-meta/history or requested specs in records.
- `token`: `conda-only` with one record rewritten as installed through a `/t/TOKEN/` channel URL.
- `big`: 320 packages.
"""

from __future__ import annotations

import json
import shutil
from dataclasses import dataclass
from pathlib import Path

import pytest

from support.condafactory import (
    ChannelBuilder,
    Pkg,
    build_wheel,
    copy_prefix,
    default_packages,
    history_dists,
    install,
    pip_install,
    python_pkg,
    solve,
    write_direct_url,
    write_history,
)

BIG = 320
SPECS = ["python=3.11", "numpy", "pip", "requests", "libblas 3.9.0.* *openblas", "bn", "six", "tool"]


@dataclass
class Family:
    root: Path
    main: ChannelBuilder
    extra: ChannelBuilder
    big_channel: ChannelBuilder
    prefixes: dict[str, Path]

    @property
    def channels(self) -> list[str]:
        """The channel URLs in priority order."""
        return [self.extra.url, self.main.url]


def _main_packages() -> list[Pkg]:
    return default_packages() + [
        Pkg(
            name="libblas",
            version="3.9.0",
            build="22_linux64_openblas",
            build_number=22,
            depends=["libopenblas"],
        ),
        Pkg(name="libblas", version="3.9.0", build="22_linux64_mkl", build_number=22, depends=["mkl"]),
        Pkg(
            name="libopenblas",
            version="0.3.27",
            build="h0_0",
            files={"lib/libopenblas.so": b"\x7fELF openblas"},
        ),
        Pkg(name="mkl", version="2024.0", build="h0_0"),
        Pkg(
            name="bn",
            version="1.0",
            build="h0_7",
            build_number=3,
            constrains=["zlib >=1.3"],
            files={"share/bn/README": "bn\n"},
        ),
    ]


def _extra_packages() -> list[Pkg]:
    return [
        python_pkg("six", "1.16.0", build="pyh6c4a22f_0", noarch=True, depends=["python"]),
        python_pkg("tool", "0.5", noarch=True, depends=["python >=3.8", "six"]),
    ]


def _big_packages() -> list[Pkg]:
    pkgs = [
        Pkg(
            name=f"big{i:03d}",
            version=f"1.{i % 7}",
            build=f"h{i:03x}_{i % 3}",
            build_number=i % 3,
            depends=[f"big{i - 1:03d}"] if i % 10 else [],
            files={f"share/big/{i:03d}": f"{i}\n"},
        )
        for i in range(BIG)
    ]
    return pkgs


def _history(prefix: Path, records, family_channels: list[str]) -> None:
    """create -c extra -c main, install, remove, update: what conda writes for them."""
    dists = history_dists(records)
    first = [d for d in dists if any(f"::{n}-" in d for n in ("python", "numpy", "pip", "zlib", "openssl"))]
    rest = [d for d in dists if d not in first]
    chans = " ".join(f"-c {c}" for c in family_channels)
    write_history(
        prefix,
        [
            {
                "cmd": f"conda create -p {prefix} {chans} python=3.11 numpy pip",
                "add": first,
                "update_specs": ["python=3.11", "numpy", "pip"],
            },
            {
                "cmd": f"conda install -p {prefix} -c {family_channels[0]} requests idna "
                "'libblas=3.9.0=*openblas' bn six tool",
                "add": rest,
                "update_specs": ["requests", "idna", "libblas=3.9.0[build=*openblas]", "bn", "six", "tool"],
            },
            {"cmd": f"conda remove -p {prefix} idna", "remove_specs": ["idna"]},
            {"cmd": f"conda update -p {prefix} numpy", "update_specs": ["numpy"]},
        ],
    )


def _strip_requested(prefix: Path) -> None:
    for rec in (prefix / "conda-meta").glob("*.json"):
        data = json.loads(rec.read_text())
        data.pop("requested_spec", None)
        data.pop("requested_specs", None)
        rec.write_text(json.dumps(data, indent=2))


def build_family(root: Path) -> Family:
    main = ChannelBuilder(root / "main", name="main").add(*_main_packages()).index()
    extra = ChannelBuilder(root / "extra", name="extra").add(*_extra_packages()).index()
    big = ChannelBuilder(root / "bigchan", name="bigchan").add(*_big_packages()).index()
    cache = root / "pkgs"
    prefixes: dict[str, Path] = {}
    records = solve([extra, main], SPECS)
    only = install(records, root / "conda-only", cache_dir=cache)
    (only / "conda-meta" / "history").unlink(missing_ok=True)
    _strip_requested(only)  # what conda records is the history; requested_spec(s) come from rattler
    _history(only, records, [extra.url, main.url])
    prefixes["conda-only"] = only

    pip = copy_prefix(only, root / "pip")
    wheels = root / "wheels"
    pip_install(pip, build_wheel(wheels / "index", "tinyreq", "2.0"))
    pip_install(pip, build_wheel(wheels / "url", "urlpkg", "1.1"), direct=True)
    vcs = pip_install(pip, build_wheel(wheels / "vcs", "vcspkg", "0.3"))
    write_direct_url(vcs, "https://github.com/example/vcspkg.git", vcs="git", commit="a" * 40)
    editable = pip_install(pip, build_wheel(wheels / "editable", "edpkg", "0.1"))
    (root / "src" / "edpkg").mkdir(parents=True)
    write_direct_url(editable, (root / "src" / "edpkg").as_uri(), editable=True)
    prefixes["pip"] = pip

    nohist = copy_prefix(only, root / "no-history")
    (nohist / "conda-meta" / "history").unlink()
    prefixes["no-history"] = nohist

    token = copy_prefix(only, root / "token")
    rec_path = next((token / "conda-meta").glob("six-*.json"))
    rec = json.loads(rec_path.read_text())
    rec["channel"] = "https://conda.anaconda.org/t/abc-123/private"
    rec["url"] = f"https://conda.anaconda.org/t/abc-123/private/noarch/{rec['fn']}"
    rec_path.write_text(json.dumps(rec, indent=2))
    prefixes["token"] = token

    big_records = solve([big], [f"big{i:03d}" for i in range(9, BIG, 10)])
    bigp = install(big_records, root / "big", cache_dir=cache)
    (bigp / "conda-meta" / "history").unlink(missing_ok=True)
    _strip_requested(bigp)
    write_history(
        bigp,
        [
            {
                "cmd": f"conda create -p {bigp} -c {big.url} "
                + " ".join(f"big{i:03d}" for i in range(9, BIG, 10)),
                "add": history_dists(big_records),
                "update_specs": [f"big{i:03d}" for i in range(9, BIG, 10)],
            }
        ],
    )
    prefixes["big"] = bigp
    shutil.rmtree(wheels / "editable", ignore_errors=True)
    return Family(root=root, main=main, extra=extra, big_channel=big, prefixes=prefixes)


@pytest.fixture(scope="session")
def family(tmp_path_factory) -> Family:
    """The prefix family (read-only: copy a prefix before changing it)."""
    return build_family(tmp_path_factory.mktemp("oracle-family"))
