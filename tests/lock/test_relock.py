"""Re-locking with the smallest change, solving as of a date, and why a lock is stale: `envkit lock
-f` through the CLI, on a local channel with several versions and upload times (built and indexed
here, offline)."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

import pytest
from relock_channel import lock, make_channel, spec_file
from support.condafactory import ChannelBuilder, Pkg

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def channel(tmp_path_factory) -> ChannelBuilder:
    return make_channel(tmp_path_factory.mktemp("relockchan") / "chan")


def versions(lock: Path) -> dict[str, str]:
    from envkit.formats.condalock import read_conda_lock

    return {p.name: p.version for p in read_conda_lock(lock.read_text()).packages}


def moves(r) -> list[str]:
    return [ln.strip() for ln in r.stderr.splitlines() if ln.startswith("  ")]


def test_exclude_newer_picks_the_old_set_and_is_recorded(envkit_cli, tmp_path, channel):
    spec = spec_file(tmp_path, channel, ("a", "c", "d"))
    out = tmp_path / "conda-lock.yml"
    r = lock(envkit_cli, spec, out, "--exclude-newer", "2024-02-01")
    assert versions(out) == {"a": "1.0", "b": "1.0", "c": "1.0", "d": "1.0"}
    # d has no upload time: kept, and said
    assert (
        "warning: linux-64: 1 record(s) have no upload time (no indexed_timestamp or timestamp); the "
        "exclude-newer cutoff cannot judge them, so they were kept" in r.stderr
    )
    text = out.read_text()
    assert f"envkit lock -f {spec} --platform linux-64 --exclude-newer 2024-02-01T00:00:00Z -o {out}" in text
    assert 'envkit.exclude_newer: "{\\"default\\":\\"2024-02-01T00:00:00Z\\"}"' in text
    # a per-package override beats the default: a as of July, the rest as of February
    r = lock(
        envkit_cli,
        spec,
        tmp_path / "o2.yml",
        "--exclude-newer",
        "2024-02-01",
        "--exclude-newer-package",
        "a=2024-07-01",
    )
    assert versions(tmp_path / "o2.yml") == {"a": "1.1", "b": "1.0", "c": "1.0", "d": "1.0"}
    # a channel override (CHANNEL::=DATE) covers its packages
    lock(
        envkit_cli,
        spec,
        tmp_path / "o3.yml",
        "--exclude-newer",
        "2024-02-01",
        "--exclude-newer-package",
        f"{channel.url}::=2024-12-01",
    )
    assert versions(tmp_path / "o3.yml") == {"a": "2.0", "b": "2.0", "c": "1.1", "d": "1.0"}


def test_update_one_package_moves_it_alone(envkit_cli, tmp_path, channel):
    spec = spec_file(tmp_path, channel)
    out = tmp_path / "conda-lock.yml"
    lock(envkit_cli, spec, out, "--exclude-newer", "2024-02-01")
    assert versions(out) == {"a": "1.0", "b": "1.0", "c": "1.0"}
    # as of mid-April a fresh solve would move a and c; --update a moves a alone
    r = lock(envkit_cli, spec, out, "--update", "a", "--exclude-newer", "2024-04-15")
    assert versions(out) == {"a": "1.1", "b": "1.0", "c": "1.0"}
    assert moves(r) == ["linux-64: a 1.0 → 1.1 (asked to update)"]


def test_update_that_forces_another_package_moves_both_and_says_why(envkit_cli, tmp_path, channel):
    spec = spec_file(tmp_path, channel)
    out = tmp_path / "conda-lock.yml"
    lock(envkit_cli, spec, out, "--exclude-newer", "2024-02-01")
    r = lock(envkit_cli, spec, out, "--update", "a", "--exclude-newer", "2024-12-01")
    assert versions(out) == {"a": "2.0", "b": "2.0", "c": "1.0"}
    assert moves(r) == [
        "linux-64: a 1.0 → 2.0 (asked to update)",
        "linux-64: b 1.0 → 2.0 (forced by a 2.0)",
    ]


def test_relock_without_change_is_byte_identical_and_keeps_versions(envkit_cli, tmp_path, channel):
    spec = spec_file(tmp_path, channel)
    out = tmp_path / "conda-lock.yml"
    lock(envkit_cli, spec, out, "--exclude-newer", "2024-02-01")
    first = out.read_bytes()
    r = lock(envkit_cli, spec, out)  # the recorded cutoff is used again
    assert out.read_bytes() == first and moves(r) == ["no package moved"]
    # newer records do not move anything that was not asked to move
    r = lock(envkit_cli, spec, tmp_path / "later.yml", "--lock", str(out), "--exclude-newer", "2024-12-01")
    assert versions(tmp_path / "later.yml") == {"a": "1.0", "b": "1.0", "c": "1.0"}
    # a spec change moves only what it must, and says which line asked
    spec.write_text(spec.read_text().replace("  - c\n", "  - c >=1.1\n"))
    r = lock(envkit_cli, spec, out, "--exclude-newer", "2024-12-01")
    assert versions(out) == {"a": "1.0", "b": "1.0", "c": "1.1"}
    assert moves(r) == [f"linux-64: c 1.0 → 1.1 (the spec asks for c>=1.1 ({spec.name}:6))"]
    # --update-all solves afresh
    r = lock(envkit_cli, spec, out, "--update-all")
    assert versions(out) == {"a": "2.0", "b": "2.0", "c": "1.1"}
    assert moves(r) == [
        "linux-64: a 1.0 → 2.0 (moved by the solve)",
        "linux-64: b 1.0 → 2.0 (forced by a 2.0)",
    ]


def test_update_of_a_name_nobody_has_is_refused(envkit_cli, tmp_path, channel):
    spec = spec_file(tmp_path, channel)
    out = tmp_path / "conda-lock.yml"
    r = envkit_cli("lock", "-f", str(spec), "--platform", "linux-64", "-o", str(out), "--update", "a")
    assert r.exit_code == 2
    assert r.stderr.splitlines()[0] == "error: nothing to update a from: there is no previous lock"
    lock(envkit_cli, spec, out)
    r = envkit_cli("lock", "-f", str(spec), "--platform", "linux-64", "-o", str(out), "--update", "zzz")
    assert r.exit_code == 2
    assert r.stderr.splitlines()[0] == (
        f"error: {out}: cannot update zzz: neither the previous lock nor the spec has it"
    )


def test_a_previous_lock_version_conda_cannot_read_is_named_at_its_lock_line(envkit_cli, tmp_path, channel):
    # the fault is the lock's (c's entry), not environment.yml's
    spec = spec_file(tmp_path, channel)
    out = tmp_path / "conda-lock.yml"
    lock(envkit_cli, spec, out, "--exclude-newer", "2024-02-01")
    lines = out.read_text().splitlines()
    at = lines.index("- name: c") + 1  # the entry's line
    assert lines[at] == '  version: "1.0"'
    lines[at] = '  version: "1..0"'
    out.write_text("\n".join(lines) + "\n")
    r = envkit_cli("lock", "-f", str(spec), "--platform", "linux-64", "-o", str(out), "--update", "a")
    assert r.exit_code == 2
    assert len(r.stderr.splitlines()) == 2, r.stderr  # the error and its hint, nothing left running
    assert r.stderr.splitlines()[0] == (
        f"error: {out}:{at}: linux-64: the locked c '1..0' is not a conda version: malformed version "
        "string '1..0': encountered more characters but expected none"
    )


@pytest.mark.parametrize("target", ["pixi", "pixi-v7"])
def test_a_pixi_lock_is_read_as_the_previous_lock(envkit_cli, tmp_path, channel, target):
    spec = spec_file(tmp_path, channel)
    first = tmp_path / "conda-lock.yml"
    lock(envkit_cli, spec, first, "--exclude-newer", "2024-02-01")
    pixi = tmp_path / "pixi.lock"
    r = envkit_cli("convert", str(first), "--to", target, "-o", str(pixi))
    assert r.exit_code == 0, r.stderr
    assert pixi.read_text().startswith(f"version: {7 if target == 'pixi-v7' else 6}\n")
    out = tmp_path / "new.conda-lock.yml"
    r = lock(envkit_cli, spec, out, "--lock", str(pixi), "--update", "a", "--exclude-newer", "2024-04-15")
    assert versions(out) == {"a": "1.1", "b": "1.0", "c": "1.0"}
    assert moves(r) == ["linux-64: a 1.0 → 1.1 (asked to update)"]


def test_check_names_the_changed_entries_in_text_and_json(envkit_cli, tmp_path, channel):
    spec = spec_file(tmp_path, channel, ("a", "c", "d"))
    out = tmp_path / "conda-lock.yml"
    lock(envkit_cli, spec, out, "--exclude-newer", "2024-02-01")
    ok = envkit_cli("lock", "--check", "-f", str(spec), "--lock", str(out))
    assert ok.stdout == f"{out} is up to date with {spec} (linux-64, exclude-newer 2024-02-01T00:00:00Z)\n"
    # the cutoff it records is the one asked for; another one makes it stale
    other = envkit_cli(
        "lock", "--check", "-f", str(spec), "--lock", str(out), "--exclude-newer", "2024-03-01"
    )
    assert other.exit_code == 1
    assert (
        f"{out}: stale: solved with exclude-newer 2024-02-01T00:00:00Z, not 2024-03-01T00:00:00Z"
        in other.stdout.splitlines()
    )
    spec.write_text(spec.read_text().replace("  - c\n", "  - c >=1.1\n").replace("  - d\n", "  - b <3\n"))
    r = envkit_cli("lock", "--check", "-f", str(spec), "--lock", str(out))
    assert r.exit_code == 1
    lines = r.stdout.splitlines()
    start = lines.index(f"{out}: the spec changed since it was locked (linux-64):")
    assert lines[start + 1 : start + 4] == [
        f"  {spec}:6: changed c → c>=1.1",
        f"  {spec}:7: added b<3",
        f"  {spec}: removed d",
    ]
    j = envkit_cli("lock", "--check", "-f", str(spec), "--lock", str(out), "--format", "json")
    assert j.exit_code == 1
    doc = json.loads(j.stdout)
    assert doc["ok"] is False and doc["stale_platforms"] == ["linux-64"]
    assert doc["exclude_newer"] == "2024-02-01T00:00:00Z"
    assert doc["changes"] == [
        {
            "kind": "changed",
            "section": "conda",
            "name": "c",
            "old": "c",
            "new": "c>=1.1",
            "file": str(spec),
            "line": 6,
        },
        {
            "kind": "added",
            "section": "conda",
            "name": "b",
            "old": None,
            "new": "b<3",
            "file": str(spec),
            "line": 7,
        },
        {
            "kind": "removed",
            "section": "conda",
            "name": "d",
            "old": "d",
            "new": None,
            "file": str(spec),
            "line": None,
        },
    ]
    assert [p["kind"] for p in doc["problems"]] == ["stale", "unsatisfied"]


def test_conda_override_cuda_is_honoured_and_named_when_missing(envkit_cli, tmp_path):
    chan = ChannelBuilder(tmp_path / "gpuchan", name="gpuchan")
    chan.add(Pkg(name="gpu", version="1.0", build="cuda_1", build_number=1, depends=["__cuda >=12"]))
    chan.add(Pkg(name="gpu", version="1.0", build="cpu_0", build_number=0))
    chan.add(Pkg(name="cudaonly", version="1.0", build="h0_0", depends=["__cuda >=12"]))
    chan.add(Pkg(name="newglibc", version="1.0", build="h0_0", depends=["__glibc >=2.34"]))
    chan.index()
    spec = spec_file(tmp_path, chan, ("gpu",))
    out = tmp_path / "conda-lock.yml"
    r = envkit_cli(
        "lock", "-f", str(spec), "--platform", "linux-64", "-o", str(out), env={"CONDA_OVERRIDE_CUDA": "12.4"}
    )
    assert r.exit_code == 0, r.stderr
    from envkit.formats.condalock import read_conda_lock

    assert [p.build for p in read_conda_lock(out.read_text()).packages] == ["cuda_1"]
    # the regenerate command says what the variable set
    assert "--virtual-package linux-64:__cuda=12.4" in out.read_text()
    r = envkit_cli("lock", "-f", str(spec), "--platform", "linux-64", "-o", str(out), "--update-all")
    assert r.exit_code == 0, r.stderr
    assert [p.build for p in read_conda_lock(out.read_text()).packages] == ["cpu_0"]
    # a package that needs a driver the solve was not told of: both ways to tell it
    spec = spec_file(tmp_path, chan, ("cudaonly",))
    r = envkit_cli("lock", "-f", str(spec), "--platform", "linux-64", "-o", str(tmp_path / "x.yml"))
    assert r.exit_code == 2
    assert (
        "hint: pass --virtual-package linux-64:__cuda=12.4, or set CONDA_OVERRIDE_CUDA=12.4 as for conda"
        in r.stderr
    )

    # CONDA_OVERRIDE_GLIBC raises the glibc the solve assumes (2.28 by default)
    spec = spec_file(tmp_path, chan, ("newglibc",))
    r = envkit_cli("lock", "-f", str(spec), "--platform", "linux-64", "-o", str(tmp_path / "g.yml"))
    assert r.exit_code == 2 and "CONDA_OVERRIDE_GLIBC=2.34 as for conda" in r.stderr
    r = envkit_cli(
        "lock",
        "-f",
        str(spec),
        "--platform",
        "linux-64",
        "-o",
        str(tmp_path / "g.yml"),
        env={"CONDA_OVERRIDE_GLIBC": "2.35"},
    )
    assert r.exit_code == 0, r.stderr
    assert "--virtual-package linux-64:__glibc=2.35" in (tmp_path / "g.yml").read_text()


def test_an_earlier_cutoff_moves_back_what_was_uploaded_after_it(envkit_cli, tmp_path, channel):
    spec = spec_file(tmp_path, channel)
    out = tmp_path / "conda-lock.yml"
    lock(envkit_cli, spec, out, "--exclude-newer", "2024-04-15")
    assert versions(out) == {"a": "1.1", "b": "1.0", "c": "1.1"}
    r = lock(envkit_cli, spec, out, "--exclude-newer", "2024-03-15")
    assert versions(out) == {"a": "1.1", "b": "1.0", "c": "1.0"}
    assert moves(r) == ["linux-64: c 1.1 → 1.0 (uploaded after the exclude-newer cutoff)"]


@pytest.mark.parametrize(
    "args, error, hint",
    [
        (
            ("--exclude-newer", "yesterday"),
            "error: exclude-newer 'yesterday': not a date, a time or a duration",
            "hint: write a date (2025-01-01), a UTC time (2025-01-01T12:00Z) or a duration before now "
            "(30d, 12h, 2w)",
        ),
        (
            ("--exclude-newer-package", "numpy"),
            "error: exclude-newer override 'numpy': expected NAME=DATE or CHANNEL::=DATE",
            "hint: e.g. numpy=2024-06-01 or conda-forge::=2024-06-01",
        ),
        (
            ("--exclude-newer-package", "conda-forge::numpy=2024-01-01"),
            "error: exclude-newer override 'conda-forge::numpy=2024-01-01': a channel override is "
            "CHANNEL::=DATE (no package name)",
            "hint: use NAME=DATE for one package",
        ),
    ],
)
def test_bad_cutoffs_are_clear_errors(envkit_cli, tmp_path, channel, args, error, hint):
    spec = spec_file(tmp_path, channel)
    r = envkit_cli("lock", "-f", str(spec), "--platform", "linux-64", "-o", str(tmp_path / "o.yml"), *args)
    assert (r.exit_code, r.stderr.splitlines()) == (2, [error, hint])


def test_cutoff_forms():
    from envkit.lock.cutoff import iso, parse_exclude_newer, parse_when

    now = dt.datetime(2025, 3, 31, 8, 30, 15, 999, tzinfo=dt.timezone.utc)
    assert iso(parse_when("2025-01-01")) == "2025-01-01T00:00:00Z"
    assert iso(parse_when("2025-01-01T12:00Z")) == "2025-01-01T12:00:00Z"
    assert iso(parse_when("2025-01-01T12:00+02:00")) == "2025-01-01T10:00:00Z"
    assert iso(parse_when("30d", now=now)) == "2025-03-01T08:30:15Z"
    assert iso(parse_when("2w", now=now)) == "2025-03-17T08:30:15Z"
    assert iso(parse_when("12h", now=now)) == "2025-03-30T20:30:15Z"
    cut = parse_exclude_newer("2025-01-01", ["NumPy=2024-06-01", "conda-forge::=2024-09-01"])
    assert cut.args() == [
        "--exclude-newer",
        "2025-01-01T00:00:00Z",
        "--exclude-newer-package",
        "numpy=2024-06-01T00:00:00Z",
        "--exclude-newer-package",
        "conda-forge::=2024-09-01T00:00:00Z",
    ]
    assert iso(cut.cutoff("numpy", "https://conda.anaconda.org/conda-forge/")) == "2024-06-01T00:00:00Z"
    assert iso(cut.cutoff("scipy", "https://conda.anaconda.org/conda-forge/")) == "2024-09-01T00:00:00Z"
    assert iso(cut.cutoff("scipy", "bioconda")) == "2025-01-01T00:00:00Z"


def test_a_new_entry_that_needs_a_newer_locked_package_moves_it(envkit_cli, tmp_path, channel):
    spec = spec_file(tmp_path, channel)
    out = tmp_path / "conda-lock.yml"
    lock(envkit_cli, spec, out, "--exclude-newer", "2024-02-01")
    # e needs b >=2: the pin on b cannot hold, and the solver moves what it must (a stays)
    spec.write_text(spec.read_text() + "  - e\n")
    r = lock(envkit_cli, spec, out, "--exclude-newer", "2024-12-01")
    assert versions(out) == {"a": "1.0", "b": "2.0", "c": "1.0", "e": "1.0"}
    assert moves(r) == ["linux-64: b 1.0 → 2.0 (forced by e 1.0)", "linux-64: e 1.0 (new: in the spec)"]


def test_an_update_that_a_locked_package_forbids_moves_that_package(envkit_cli, tmp_path, channel):
    spec = spec_file(tmp_path, channel, ("a", "f"))
    out = tmp_path / "conda-lock.yml"
    lock(envkit_cli, spec, out, "--exclude-newer", "2024-02-01")
    assert versions(out) == {"a": "1.0", "b": "1.0", "f": "1.0"}
    # f 1.0 needs a <2: updating a to 2.0 moves f too, and b, which a 2.0 needs newer
    r = lock(envkit_cli, spec, out, "--update", "a", "--exclude-newer", "2024-12-01")
    assert versions(out) == {"a": "2.0", "b": "2.0", "f": "2.0"}
    assert moves(r) == [
        "linux-64: a 1.0 → 2.0 (asked to update)",
        "linux-64: b 1.0 → 2.0 (forced by a 2.0)",
        "linux-64: f 1.0 → 2.0 (forced by a 2.0)",
    ]


def test_an_unreadable_output_file_is_solved_afresh_but_a_named_lock_must_read(envkit_cli, tmp_path, channel):
    spec = spec_file(tmp_path, channel)
    out = tmp_path / "conda-lock.yml"
    out.write_text("version: 1\nmetadata: [\n")  # a conda-lock file cut short
    r = lock(envkit_cli, spec, out, "--exclude-newer", "2024-02-01")
    assert r.stderr.startswith(f"warning: {out} is not a lock envkit can read (")
    assert r.stderr.splitlines()[0].endswith("); solving afresh")
    assert versions(out) == {"a": "1.0", "b": "1.0", "c": "1.0"}
    bad = tmp_path / "old.yml"
    bad.write_text("version: 1\nmetadata: [\n")
    r = envkit_cli("lock", "-f", str(spec), "--lock", str(bad), "-o", str(out), "--update", "a")
    assert r.exit_code == 2 and r.stderr.startswith(f"error: {bad}")


def test_format_json_reports_what_moved_as_data(envkit_cli, tmp_path, channel):
    """`lock -f --format json`: the report on stdout (the lock still goes to -o), each move with its
    reason as data, for a bot to word; the text report's sentences are not in it."""
    spec = spec_file(tmp_path, channel, ("a", "c", "d"))
    out = tmp_path / "conda-lock.yml"
    lock(envkit_cli, spec, out, "--exclude-newer", "2024-02-01")
    r = lock(envkit_cli, spec, out, "--update", "a", "--exclude-newer", "2024-12-01", "--format", "json")
    assert r.stderr == ""
    doc = json.loads(r.stdout)
    assert doc == {
        "spec": str(spec),
        "lock": str(out),
        "format": "conda-lock",
        "platforms": {"linux-64": 4},
        "exclude_newer": "2024-12-01T00:00:00Z",
        "relocked": True,
        "moves": [
            {
                "platform": "linux-64",
                "manager": "conda",
                "name": "a",
                "old": "1.0 h0_0",
                "new": "2.0 h0_0",
                "reason": {"kind": "asked"},
            },
            {
                "platform": "linux-64",
                "manager": "conda",
                "name": "b",
                "old": "1.0 h0_0",
                "new": "2.0 h0_0",
                "reason": {"kind": "forced", "by": "a 2.0"},
            },
        ],
        "untimed": {"linux-64": 1},
        "warnings": [
            "linux-64: 1 record(s) have no upload time (no indexed_timestamp or timestamp); the "
            "exclude-newer cutoff cannot judge them, so they were kept"
        ],
    }
    assert versions(out) == {"a": "2.0", "b": "2.0", "c": "1.0", "d": "1.0"}
    spec_file(tmp_path, channel, ("a", "c >=1.1", "d"))
    r = lock(envkit_cli, spec, out, "--format", "json")
    assert json.loads(r.stdout)["moves"] == [
        {
            "platform": "linux-64",
            "manager": "conda",
            "name": "c",
            "old": "1.0 h0_0",
            "new": "1.1 h0_0",
            "reason": {"kind": "spec", "spec": "c>=1.1", "where": "environment.yml:6"},
        }
    ]
