"""A solve that fails names the spec entry it cannot satisfy (`FILE:LINE`), and a cutoff that left
out every candidate says so."""

from __future__ import annotations

from support.condafactory import ChannelBuilder, Pkg


def _spec(tmp_path, channel, deps):
    path = tmp_path / "environment.yml"
    path.write_text(f"channels:\n  - {channel}\ndependencies:\n" + "".join(f"  - {d}\n" for d in deps))
    return path


def _lock(envkit_cli, tmp_path, spec, *extra):
    return envkit_cli(
        "lock", "-f", str(spec), "--platform", "linux-64", "-o", str(tmp_path / "o.yml"), *extra
    )


def test_the_entry_with_no_candidates_is_named_at_its_line(envkit_cli, tmp_path, default_channel):
    spec = _spec(tmp_path, default_channel.url, ["python=3.11", "requests", "numpy=9"])
    r = _lock(envkit_cli, tmp_path, spec)
    assert r.exit_code == 2
    assert r.stderr.splitlines() == [
        f"error: {spec}:6: linux-64: cannot solve numpy=9: 'Cannot solve the request because of: "
        "No candidates were found for numpy 9.*.'"
    ]


def test_a_cutoff_that_left_out_every_candidate_is_named(tmp_path):
    import datetime as dt

    import pytest

    from envkit.errors import SolveError
    from envkit.formats.envyml import read_env
    from envkit.lock.cutoff import ExcludeNewer
    from envkit.lock.solve import relock_spec

    chan = ChannelBuilder(tmp_path / "ch").add(
        Pkg(name="tool", version="1.0", build="h0_0"),
        Pkg(name="tool", version="1.1", build="h0_0"),
        Pkg(name="other", version="1.0", build="h0_0"),
    )
    chan.index()
    path = _spec(tmp_path, chan.url, ["other", "tool >=1"])
    spec = read_env(path.read_text(), str(path))
    # a per-package cutoff (pixi's `exclude-newer` table) before the channel indexed any `tool`
    when = dt.datetime(2020, 1, 1, tzinfo=dt.timezone.utc)
    with pytest.raises(SolveError) as err:
        relock_spec(spec, ["linux-64"], cutoffs=ExcludeNewer(packages=(("tool", when),)))
    assert (err.value.where.file, err.value.where.line) == (str(path), 5)
    assert err.value.message == "linux-64: cannot solve tool >=1"
    assert (
        err.value.hint
        == "tool >=1: 2 records, all indexed after the exclude-newer cutoff 2020-01-01T00:00:00Z"
    )
    # without the cutoff the same spec solves
    assert [p.name for p in relock_spec(spec, ["linux-64"]).lock.packages] == ["other", "tool"]
