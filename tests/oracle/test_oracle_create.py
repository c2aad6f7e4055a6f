"""envkit lock / create / diff vs a real conda: the same lock installed by envkit and by
`conda create --file`, their conda-meta records compared field by field, and conda's own verdict on
envkit's prefix (`conda install --dry-run`, `conda doctor`).  Skipped, saying why, without a real conda.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

ALREADY = "# All requested packages already installed."
#: Record fields that must be equal; `files` and `paths_data` compared as sets of paths below.
FIELDS = (
    "name",
    "version",
    "build",
    "build_number",
    "subdir",
    "fn",
    "url",
    "md5",
    "sha256",
    "size",
    "license",
    "timestamp",
    "noarch",
    "arch",
    "platform",
)


@pytest.fixture(scope="module")
def made(real_conda, tmp_path_factory, family):
    """conda-only locked by envkit, then created by envkit (rattler), by envkit --backend conda and
    by conda itself from the same conda-lock.yml."""
    from conftest import run_envkit

    root = tmp_path_factory.mktemp("oracle-create")
    conda = real_conda.isolated(root / "conda")
    lock = root / "conda-lock.yml"
    r = run_envkit("lock", "-p", str(family.prefixes["conda-only"]), "--no-env-lock", "-o", str(lock))
    assert r.exit_code == 0, r.stderr
    out = {"lock": lock, "conda": conda, "root": root}
    r = run_envkit("create", "--lock", str(lock), "-p", str(root / "envkit"))
    assert r.exit_code == 0, r.stderr
    out["envkit"] = root / "envkit"
    r = run_envkit(
        "create",
        "--lock",
        str(lock),
        "-p",
        str(root / "envkit-conda"),
        "--backend",
        "conda",
        env={**conda.environ, "CONDA_EXE": conda.exe},
    )
    assert r.exit_code == 0, r.stderr
    out["envkit-conda"] = root / "envkit-conda"
    out["by-conda"] = conda.create_from_file(root / "by-conda", lock)
    return out


def _records(prefix: Path) -> dict[str, dict]:
    return {
        json.loads(p.read_text())["name"]: json.loads(p.read_text())
        for p in (prefix / "conda-meta").glob("*.json")
    }


def _norm_deps(deps) -> list[str]:
    return sorted(" ".join(d.split()) for d in deps or ())


@pytest.mark.parametrize("which", ["envkit", "envkit-conda"])
def test_created_records_match_conda_create_file(made, which):
    ours, theirs = _records(made[which]), _records(made["by-conda"])
    assert sorted(ours) == sorted(theirs) and len(ours) == 14
    for name, c in theirs.items():
        e = ours[name]
        for f in FIELDS:
            assert e.get(f) == c.get(f), (name, f)
        assert _norm_deps(e.get("depends")) == _norm_deps(c.get("depends")), name
        assert sorted(e.get("constrains") or []) == sorted(c.get("constrains") or []), name
        # deliberate (py-rattler): the rattler backend does not compile a noarch: python package's
        # .pyc files, which conda does and records; python compiles them on first import
        # .pyc files, which conda does and records; python compiles them on first import.  And for
        # such a package conda's paths_data keeps the archive's paths (site-packages/...), rattler's
        # the linked ones (lib/python3.11/site-packages/...)
        noarch_py = which == "envkit" and c.get("noarch") == "python"
        pyc = {f for f in c["files"] if f.endswith(".pyc")}
        assert bool(pyc) == (c.get("noarch") == "python"), name
        assert sorted(e["files"]) == sorted(set(c["files"]) - pyc if noarch_py else c["files"]), name
        paths = [p["_path"] for p in c["paths_data"]["paths"]]
        if noarch_py:
            paths = ["lib/python3.11/" + p if p.startswith("site-packages/") else p for p in paths]
        assert sorted(p["_path"] for p in e["paths_data"]["paths"]) == sorted(
            set(paths) - pyc if noarch_py else paths
        ), name
        assert e["link"]["type"] == c["link"]["type"] == 1
    assert (ours["libblas"]["build_number"], ours["bn"]["build_number"]) == (22, 3)
    assert ours["bn"]["constrains"] == ["zlib >=1.3"]
    if which == "envkit":  # py-rattler's package cache is the session's (conftest), not ~/.cache/rattler
        assert ours["bn"]["link"]["source"].startswith(os.environ["RATTLER_CACHE_DIR"])


def _history_blocks(prefix: Path) -> list[list[str]]:
    blocks: list[list[str]] = []
    for line in (prefix / "conda-meta" / "history").read_text().splitlines():
        if line.startswith("==> "):
            blocks.append([])
        if line and blocks:
            blocks[-1].append(line)
    return blocks


def test_created_history_and_requested_specs(made):
    """conda create --file writes one history block, each package pinned in `# update specs`
    (`channel/subdir::name==version=build`) and recorded as requested; the rattler backend writes
    the same block (its `# cmd:` envkit's, an `# envkit version:` for conda's `# conda version:`)
    and no requested_spec in the records (conda reads the history); --backend conda is conda's own."""
    theirs = _records(made["by-conda"])
    assert theirs["numpy"]["requested_spec"].endswith("::numpy==1.26.4=py311h64a7726_0")
    conda_made = _records(made["envkit-conda"])  # conda's own create, from envkit's explicit file
    assert conda_made["numpy"]["requested_spec"].endswith("::numpy==1.26.4=py311h64a7726_0")
    assert not _records(made["envkit"])["numpy"].get("requested_spec")
    [conda_block], [ours] = _history_blocks(made["by-conda"]), _history_blocks(made["envkit"])
    assert conda_block[1].startswith("# cmd: ") and conda_block[2] == "# conda version: 26.7.1"
    assert ours[1] == f"# cmd: envkit create --lock {made['lock']} -p {made['envkit']}"
    assert ours[2].startswith("# envkit version: ")
    assert ours[3:] == conda_block[3:]  # the same + lines and `# update specs:`, in the same order
    assert len(ours[3:]) == 15 and ours[-1].startswith("# update specs: ['file://")


def _from_history(run, prefix: Path) -> list[str]:
    return [ln for ln in run(prefix).splitlines() if not ln.startswith(("#", "name:", "prefix:"))]


def test_from_history_of_envkits_and_condas_creation_is_the_same(envkit_cli, made):
    """conda and envkit each export the same --from-history for envkit's creation and conda's."""
    conda = made["conda"]
    by_conda = [
        _from_history(lambda p: conda.run("env", "export", "-p", p, "--from-history").stdout, made[w])
        for w in ("envkit", "by-conda")
    ]
    assert by_conda[0] == by_conda[1] and "  - numpy=1.26.4=py311h64a7726_0" in by_conda[0]
    by_envkit = []
    for w in ("envkit", "by-conda"):
        r = envkit_cli("export", "-p", str(made[w]), "--from-history")
        assert r.exit_code == 0 and "records no requested specs" not in r.stderr, r.stderr
        by_envkit.append(_from_history(lambda _p, out=r.stdout: out, made[w]))
    assert by_envkit[0] == by_envkit[1]
    assert any(ln.endswith("/linux-64::numpy=1.26.4=py311h64a7726_0") for ln in by_envkit[0]), by_envkit[0]


@pytest.mark.parametrize("which", ["envkit", "envkit-conda", "by-conda"])
@pytest.mark.parametrize("package", ["libblas", "bn", "numpy"])
def test_conda_sees_nothing_to_do(made, family, which, package):
    r = made["conda"].already_installed(made[which], family.channels, package)
    assert ALREADY in r.stdout, r.stdout + r.stderr


@pytest.mark.parametrize("which", ["envkit", "by-conda"])
def test_conda_doctor_is_clean(made, which):
    out = made["conda"].run("doctor", "-p", made[which], check=False).stdout
    for ok in (
        "There are no packages with altered files.",
        "The environment is consistent.",
        "There are no packages with missing files.",
    ):
        assert f"✅ {ok}" in out, out


@pytest.mark.parametrize("which", ["envkit", "envkit-conda", "by-conda"])
def test_envkit_diff_says_same(envkit_cli, made, family, which):
    r = envkit_cli("diff", str(family.prefixes["conda-only"]), str(made[which]))
    assert r.exit_code == 0, r.stdout
    assert r.stdout.endswith("Same: no differences (14 packages compared).\n")


def test_diff_reports_a_wrong_build_number(envkit_cli, made, tmp_path):
    """The defect conda saw and envkit did not: the same build with another build_number."""
    from support.condafactory import copy_prefix

    bad = copy_prefix(made["envkit"], tmp_path / "bad")
    rec = next((bad / "conda-meta").glob("libblas-*.json"))
    data = json.loads(rec.read_text())
    data["build_number"] = 0
    rec.write_text(json.dumps(data))
    r = made["conda"].already_installed(bad, [], "libblas")
    assert ALREADY not in r.stdout  # conda wants to change it
    d = envkit_cli("diff", str(made["envkit"]), str(bad))
    assert d.exit_code == 1
    assert (
        "rebuilt: same name, version and build, but the package records differ (build_number 22 → 0): "
        "conda sees another package and may replace it"
    ) in d.stdout


def test_lock_and_export_with_backend_conda(envkit_cli, made, family, tmp_path):
    conda = made["conda"]
    env = {**conda.environ, "CONDA_EXE": conda.exe}
    prefix = str(family.prefixes["conda-only"])
    lock = tmp_path / "conda-lock.yml"
    r = envkit_cli("lock", "-p", prefix, "--backend", "conda", "--no-env-lock", "-o", str(lock), env=env)
    assert r.exit_code == 0, r.stderr
    r = envkit_cli("diff", str(made["lock"]), str(lock))
    # the same 14 packages, URLs and hashes; only the channel order differs: conda's CLI does not
    # report the history's -c order, and `conda env export` lists channels by package count
    assert r.exit_code == 1 and r.stdout.endswith("Different: channels differ.\n"), r.stdout
    assert "the shared channels are in a different order (priority)" in r.stdout
    assert "packages differ" not in r.stdout
    native = envkit_cli("export", "-p", prefix, "--format", "explicit")
    via = envkit_cli("export", "-p", prefix, "--format", "explicit", "--backend", "conda", env=env)
    assert via.exit_code == 0, via.stderr
    assert via.stdout.splitlines()[1:] == native.stdout.splitlines()[1:]
