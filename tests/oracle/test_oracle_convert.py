"""envkit's converted locks against a real conda (conda 26.7.1 with the conda-lockfiles plugin):
conda creates an environment from envkit's pixi.lock v6 and conda-lock.yml (`conda create --file`)
and it diffs Same against the source prefix; and conda's own `rattler-lock-v6` export of a prefix
reads as the same lock as envkit's pixi.lock of it.  Skipped, saying why, without a real conda.
"""

from __future__ import annotations

import pytest
import yaml

from envkit.formats import read_file


@pytest.fixture(scope="module")
def conda(real_conda, tmp_path_factory):
    return real_conda.isolated(tmp_path_factory.mktemp("conda-convert"))


def _same(envkit_cli, a, b, n: int):
    r = envkit_cli("diff", str(a), str(b))
    assert r.exit_code == 0, r.stdout + r.stderr
    assert r.stdout.endswith(f"Same: no differences ({n} packages compared).\n"), r.stdout


def _lock(envkit_cli, prefix, out):
    r = envkit_cli("lock", "-p", str(prefix), "--no-env-lock", "-o", str(out))
    assert r.exit_code == 0, r.stderr
    return out


@pytest.mark.parametrize("which,n", [("conda-only", 14), ("big", 320)])
def test_conda_creates_from_envkits_pixi_lock_v6(envkit_cli, conda, family, tmp_path, which, n):
    """prefix -> envkit lock -> envkit convert -> pixi.lock v6 -> conda create --file -> Same."""
    prefix = family.prefixes[which]
    src = _lock(envkit_cli, prefix, tmp_path / "conda-lock.yml")
    pixi = tmp_path / "pixi.lock"
    r = envkit_cli("convert", str(src), "-o", str(pixi), "--to", "pixi")
    assert (r.exit_code, r.stderr) == (0, ""), r.stderr
    assert pixi.read_text().startswith("version: 6\n")
    made = conda.create_from_file(tmp_path / "from-pixi", pixi)
    _same(envkit_cli, prefix, made, n)


@pytest.mark.parametrize("which,n", [("conda-only", 14)])
def test_conda_creates_from_envkits_converted_conda_lock(envkit_cli, conda, family, tmp_path, which, n):
    """prefix -> envkit pixi.lock -> envkit convert -> conda-lock.yml -> conda create --file -> Same
    (the conda-lock writer fed by the pixi reader, not by `envkit lock`)."""
    prefix = family.prefixes[which]
    src = _lock(envkit_cli, prefix, tmp_path / "conda-lock.yml")
    pixi = tmp_path / "pixi.lock"
    assert envkit_cli("convert", str(src), "-o", str(pixi)).exit_code == 0
    back = tmp_path / "back" / "conda-lock.yml"
    back.parent.mkdir()
    r = envkit_cli("convert", str(pixi), "-o", str(back), "--to", "conda-lock")
    assert (r.exit_code, r.stderr) == (0, ""), r.stderr
    made = conda.create_from_file(tmp_path / "from-lock", back)
    _same(envkit_cli, prefix, made, n)


def _records(lock, build_number: bool = True) -> dict:
    return {
        p.name: (
            p.version,
            p.build,
            p.build_number if build_number else None,
            p.subdir,
            p.url,
            p.sha256,
            p.md5,
            tuple(sorted(p.depends)),
            p.channel,
        )
        for p in lock.packages
    }


@pytest.mark.parametrize("which", ["conda-only", "big"])
def test_conda_rattler_lock_v6_export_equals_envkits_pixi_lock(envkit_cli, conda, family, tmp_path, which):
    prefix = family.prefixes[which]
    theirs_file = tmp_path / "theirs" / "pixi.lock"
    theirs_file.parent.mkdir()
    conda.run("export", "-p", prefix, "--format", "rattler-lock-v6", "-f", theirs_file)
    src = _lock(envkit_cli, prefix, tmp_path / "conda-lock.yml")
    ours_file = tmp_path / "pixi.lock"
    assert envkit_cli("convert", str(src), "-o", str(ours_file)).exit_code == 0
    theirs, ours = read_file(theirs_file), read_file(ours_file)
    # deliberate difference: conda-lock.yml (what `envkit lock -p` writes) has no build_number, so a
    # pixi.lock converted from it has none; conda writes the records' numbers
    bn = {p.name: p.build_number for p in theirs.packages}
    assert {p.name: p.build_number for p in ours.packages} == dict.fromkeys(bn, 0)
    if which == "conda-only":
        assert (bn["libblas"], bn["bn"]) == (22, 3)
    assert _records(ours, build_number=False) == _records(theirs, build_number=False)
    assert ours.platforms == theirs.platforms == ("linux-64",)
    # deliberate difference: envkit keeps the channels in priority order (the history's -c order);
    # conda lists them by package count
    if which == "conda-only":
        assert [c.url.rstrip("/") for c in ours.channels] == [u.rstrip("/") for u in family.channels]
        assert [c.url.rstrip("/") for c in theirs.channels] == [
            family.main.url.rstrip("/"),
            family.extra.url.rstrip("/"),
        ]
    else:
        assert [c.url for c in ours.channels] == [c.url for c in theirs.channels]
    # `envkit diff` reports those build numbers as rebuilt packages (0 is what pixi.lock means by none)
    r = envkit_cli("diff", str(theirs_file), str(ours_file))
    assert r.exit_code == 1, r.stdout
    rebuilt = sorted(n for n, b in bn.items() if b)
    assert f"Different: {len(rebuilt)} packages differ ({len(rebuilt)} likely to matter)" in r.stdout
    for name in rebuilt:
        assert f"(build_number {bn[name]} → 0)" in r.stdout
    assert ("channels differ" in r.stdout) == (which == "conda-only")
    # the two files' raw structure: same environments and top-level keys
    t, o = yaml.safe_load(theirs_file.read_text()), yaml.safe_load(ours_file.read_text())
    assert (t["version"], o["version"]) == (6, 6)
    assert set(t["environments"]) == set(o["environments"]) == {"default"}
    assert len(t["packages"]) == len(o["packages"])


@pytest.mark.parametrize("which,n", [("conda-only", 14)])
def test_envkits_pixi_lock_of_condas_export_keeps_build_numbers(
    envkit_cli, conda, family, tmp_path, which, n
):
    """conda's rattler-lock-v6 export -> envkit convert -> pixi.lock v6: the same records, build numbers
    included, and conda creates from envkit's file an environment that diffs Same."""
    prefix = family.prefixes[which]
    theirs_file = tmp_path / "theirs" / "pixi.lock"
    theirs_file.parent.mkdir()
    conda.run("export", "-p", prefix, "--format", "rattler-lock-v6", "-f", theirs_file)
    ours_file = tmp_path / "pixi.lock"
    r = envkit_cli("convert", str(theirs_file), "-o", str(ours_file), "--to", "pixi")
    assert (r.exit_code, r.stderr) == (0, ""), r.stderr
    assert _records(read_file(ours_file)) == _records(read_file(theirs_file))
    assert {p.name: p.build_number for p in read_file(ours_file).packages}["libblas"] == 22
    r = envkit_cli("diff", str(theirs_file), str(ours_file))
    assert r.exit_code == 0 and r.stdout.endswith(f"Same: no differences ({n} packages compared).\n"), (
        r.stdout
    )
    made = conda.create_from_file(tmp_path / "from-pixi", ours_file)
    _same(envkit_cli, prefix, made, n)


def test_write_text_pixi_of_a_live_prefix_matches_condas_export(envkit_cli, conda, family, tmp_path):
    """envkit.write_text(envkit.lock_live(prefix).lock, "pixi") against conda's rattler-lock-v6 export of the
    same prefix, entry by entry (build numbers and constrains included); conda creates from it."""
    import envkit

    prefix = family.prefixes["conda-only"]
    theirs_file = tmp_path / "theirs.lock"
    conda.run("export", "-p", prefix, "--format", "rattler-lock-v6", "-f", theirs_file)
    ours_file = tmp_path / "pixi.lock"
    ours_file.write_text(envkit.write_text(envkit.lock_live(envkit.open_env(prefix=prefix)).lock, "pixi"))
    entries = {}
    for side, f in (("theirs", theirs_file), ("ours", ours_file)):
        for e in yaml.safe_load(f.read_text())["packages"]:
            entries.setdefault(e["conda"], {})[side] = e
    assert len(entries) == 14 and all(len(v) == 2 for v in entries.values())
    for url, both in entries.items():
        # deliberate: the Lock holds no license, size or timestamp (conda's export has them)
        theirs = {k: v for k, v in both["theirs"].items() if k not in ("license", "size", "timestamp")}
        theirs.setdefault("build_number", 0)
        ours = dict(both["ours"], build_number=both["ours"].get("build_number", 0))
        # deliberate: envkit writes the subdir of a file:// artifact (py-rattler derives it from an
        # http(s) URL only, and reads the entry as "missing field subdir" without it)
        assert ours.pop("subdir") == url.rsplit("/", 2)[-2], url
        assert ours == theirs, url
    assert any(b["ours"].get("constrains") == ["zlib >=1.3"] for b in entries.values())
    made = conda.create_from_file(tmp_path / "from-api", ours_file)
    _same(envkit_cli, prefix, made, 14)
