"""Re-locking from real pixi.lock files (corpus, with their sources): a local channel mirrors the
records each locks for linux-64 (name, version, build, depends), plus a newer release of two of
them; `envkit lock -f --lock pixi.lock` keeps every locked package, `--update NAME` moves NAME alone.

Sources:
https://github.com/1235467/SaltMPRIS/blob/db5f6fe0739d88d76ee73f67d924f30540123526/pixi.lock (version 6)
https://github.com/43ravens/NEMO_Nowcast/blob/cbbd1fbf56401f4ba9bb753766cdc4297129685d/pixi.lock (version 7)
"""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import CORPUS
from support.condafactory import ChannelBuilder, Pkg

pytestmark = pytest.mark.slow

CASES = {
    "57_1235467__SaltMPRIS__pixi.lock": ("requests", "ca-certificates"),
    "59_43ravens__NEMO_Nowcast__pixi.lock": ("tzdata", "ca-certificates"),
}


def _mirror(root: Path, packages, newer: dict[str, str]) -> ChannelBuilder:
    chan = ChannelBuilder(root, name="mirror")
    for p in packages:
        deps = [f"{n} {s}".strip() for n, s in p.depends]
        noarch = "generic" if p.subdir == "noarch" else None
        chan.add(
            Pkg(
                name=p.name,
                version=p.version,
                build=p.build,
                build_number=p.build_number,
                depends=deps,
                noarch=noarch,
            )
        )
        if p.name in newer:
            chan.add(Pkg(name=p.name, version=newer[p.name], build=p.build, depends=deps, noarch=noarch))
    return chan.index()


@pytest.mark.parametrize("name", sorted(CASES))
def test_relock_from_a_real_pixi_lock_moves_only_the_updated_package(envkit_cli, tmp_path, name):
    from envkit.formats.condalock import read_conda_lock
    from envkit.lock.read import read_lock_file

    source = CORPUS / name
    _text, previous = read_lock_file(str(source), None, None)
    conda = [p for p in previous.for_platform("linux-64") if p.manager == "conda"]
    update, other = CASES[name]
    chan = _mirror(tmp_path / "chan", conda, {update: "9999.1", other: "9999.1"})
    # the environment's top-level packages: those no other package depends on
    needed = {d for p in conda for d, _ in p.depends}
    top = sorted(p.name for p in conda if p.name not in needed)
    spec = tmp_path / "environment.yml"
    spec.write_text(f"channels:\n  - {chan.url}\ndependencies:\n" + "".join(f"  - {n}\n" for n in top))
    pixi = tmp_path / "pixi.lock"
    pixi.write_text(source.read_text())
    out = tmp_path / "conda-lock.yml"
    base = [
        "lock",
        "-f",
        str(spec),
        "--platform",
        "linux-64",
        "--lock",
        str(pixi),
        "-o",
        str(out),
        "--no-pip",
    ]

    def locked():
        return {p.name: (p.version, p.build) for p in read_conda_lock(out.read_text()).packages}

    before = {p.name: (p.version, p.build) for p in conda}
    r = envkit_cli(*base)
    assert r.exit_code == 0, r.stderr
    assert locked() == before and r.stderr.splitlines()[-1] == "  no package moved"
    r = envkit_cli(*base, "--update", update)
    assert r.exit_code == 0, r.stderr
    assert locked() == {**before, update: ("9999.1", before[update][1])}
    assert r.stderr.splitlines()[-1] == f"  linux-64: {update} {before[update][0]} → 9999.1 (asked to update)"
