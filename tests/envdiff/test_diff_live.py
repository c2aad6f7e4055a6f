"""`envkit diff` on real prefixes (built with py-rattler, pip packages installed by a real pip):
pip provenance (VCS commit, editable flag) and a live environment against its own export."""

from __future__ import annotations

import json

import pytest
from support.condafactory import (
    build_wheel,
    copy_prefix,
    pip_install,
    write_condarc,
    write_direct_url,
    write_state,
)

C1 = "3f1c0a9d0e7b6f2a1c4d5e6f7a8b9c0d1e2f3a4b"
C2 = "bbbbbbbccccccccccccccccccccccccccccccccc"
REPO_URL = "https://github.com/me/mylib.git"


@pytest.fixture(scope="module")
def pip_pair(tmp_path_factory, default_prefix, default_channel):
    """Two prefixes: A with mylib from git (commit C1) and tool installed editable, a .condarc that
    names channels nothing came from (one with a token) and a credential among its variables; B a
    copy of A where mylib is at commit C2 and tool is a regular install."""
    root = tmp_path_factory.mktemp("pipsrc")
    a = copy_prefix(default_prefix, root / "a")
    write_condarc(
        a / ".condarc",
        channels=["https://conda.anaconda.org/t/tk-SECRET123abc/private", default_channel.url, "bioconda"],
        channel_priority="flexible",
    )
    write_state(a, {"OMP_NUM_THREADS": "4", "API_KEY": "sekret-value"})
    mylib = pip_install(a, build_wheel(root / "wheels", "mylib", "0.3"), direct=True)
    write_direct_url(mylib, REPO_URL, vcs="git", commit=C1)
    tool = pip_install(a, build_wheel(root / "wheels", "tool", "0.1"), direct=True)
    write_direct_url(tool, "file:///home/me/src/tool", editable=True)
    b = copy_prefix(a, root / "b")
    site = mylib.parent.relative_to(a)
    write_direct_url(b / site / mylib.name, REPO_URL, vcs="git", commit=C2)
    write_direct_url(b / site / tool.name, "file:///home/me/src/tool")
    return a, b


@pytest.mark.slow
def test_vcs_commit_and_editable_flag_changes_between_two_prefixes(envkit_cli, pip_pair):
    a, b = pip_pair
    r = envkit_cli("diff", str(a), str(b), "--format", "json")
    assert r.exit_code == 1, r.stdout + r.stderr
    ch = {c["name"]: c for c in json.loads(r.stdout)["changes"]}
    assert set(ch) == {"mylib", "tool"}
    assert (ch["mylib"]["kind"], ch["mylib"]["impact"]) == ("rebuilt", "medium")
    assert "another git commit (3f1c0a9 → bbbbbbb)" in ch["mylib"]["reason"]
    assert (ch["tool"]["kind"], ch["tool"]["a"]["editable"], ch["tool"]["b"]["editable"]) == (
        "source",
        True,
        False,
    )
    text = envkit_cli("diff", str(a), str(b)).stdout
    assert "mylib  0.3 (git 3f1c0a9) [pip] → 0.3 (git bbbbbbb) [pip]" in text
    assert "tool   0.1 (editable) [pip] → 0.1 [pip]" in text
    assert envkit_cli("diff", str(a), str(a)).exit_code == 0


@pytest.mark.slow
@pytest.mark.parametrize("fmt", ["yaml", "json"])
def test_a_prefix_against_its_own_export_is_the_same(envkit_cli, pip_pair, tmp_path, fmt):
    a, _ = pip_pair
    exported = envkit_cli("export", "-p", str(a), "--format", fmt)
    assert exported.exit_code == 0, exported.stderr
    assert "-e /home/me/src/tool" in exported.stdout and "<TOKEN>" in exported.stdout
    path = tmp_path / f"e.{fmt}"
    path.write_text(exported.stdout)
    r = envkit_cli("diff", str(a), str(path))
    assert r.exit_code == 0, r.stdout
    assert r.stdout.endswith(" packages compared).\n") and "Same: no differences" in r.stdout
    assert "sekret" not in r.stdout and "tk-SECRET" not in r.stdout
    assert (
        "note: 1 credential value could not be compared (written as a placeholder such as <TOKEN> "
        "on one side): API_KEY."
    ) in r.stdout
    assert (
        "note: channels configured for A that no installed package came from (not compared): private, "
        "bioconda." in r.stdout
    )
    assert "channel_priority" not in r.stdout
    # and against the other prefix the export shows the same two changes as the prefix itself
    _, b = pip_pair
    kinds = {
        c["name"]: c["kind"]
        for c in json.loads(envkit_cli("diff", str(path), str(b), "--format", "json").stdout)["changes"]
    }
    assert kinds == {"mylib": "rebuilt", "tool": "source"}
