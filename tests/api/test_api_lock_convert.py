"""`envkit.lock_spec` and `envkit.convert_model`: the operations `envkit lock -f` and `envkit
convert` run, called through `import envkit` on real inputs (a local channel with several versions
and upload times, built and indexed here, offline; corpus files), giving what the CLI gives."""

from __future__ import annotations

import datetime as dt
import importlib.util
import json
import os

import pytest
from conftest import CORPUS, REPO

import envkit

# a real conda-lock.yml with 4 platforms, and a real uv.lock
CONDA_LOCK = str(CORPUS / "51_Cecca__repro-course-ci__conda-lock.yml")
UV_LOCK = str(CORPUS / "80_0b01001001__spectree__uv.lock")


def _relock_channel_module():
    # tests/lock's channel (a 1.0/1.1/2.0, b, c 1.0/1.1 with upload times), loaded by path: tests/api
    # is not on that folder's import path
    spec = importlib.util.spec_from_file_location("relock_channel", REPO / "tests/lock/relock_channel.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


@pytest.fixture(scope="module")
def channel(tmp_path_factory):
    return _relock_channel_module().make_channel(tmp_path_factory.mktemp("apichan") / "chan")


@pytest.fixture
def spec_path(tmp_path, channel):
    path = tmp_path / "environment.yml"
    path.write_text(f"name: demo\nchannels:\n  - {channel.url}\ndependencies:\n  - a\n  - c\n")
    return path


def _pins(lock) -> list[tuple[str, str, str | None]]:
    return [(p.name, p.version, p.platform) for p in lock.packages]


# --- lock_spec --------------------------------------------------------------------------------------


def test_lock_spec_solves_a_spec_file_as_of_a_date_as_the_cli_does(envkit_cli, spec_path, tmp_path):
    result = envkit.lock_spec(spec_path, platforms=["linux-64"], exclude_newer="2024-02-01")
    assert isinstance(result, envkit.SpecLockResult)
    assert _pins(result.lock) == [
        ("a", "1.0", "linux-64"),
        ("b", "1.0", "linux-64"),
        ("c", "1.0", "linux-64"),
    ]
    assert result.exclude_newer == envkit.ExcludeNewer(
        default=dt.datetime(2024, 2, 1, tzinfo=dt.timezone.utc)
    )
    assert (result.moves, result.relocked, result.warnings) == ((), False, ())
    # `envkit lock -f` runs the same operation: the same artifacts
    out = tmp_path / "cli-lock.yml"
    r = envkit_cli(
        "lock",
        "-f",
        str(spec_path),
        "--platform",
        "linux-64",
        "--exclude-newer",
        "2024-02-01",
        "-o",
        str(out),
    )
    assert r.exit_code == 0, r.stderr
    cli = envkit.read_file(out)
    assert [(p.name, p.version, p.build, p.url, p.sha256) for p in cli.packages] == [
        (p.name, p.version, p.build, p.url, p.sha256) for p in result.lock.packages
    ]


def test_lock_spec_over_a_previous_lock_moves_only_what_it_is_asked_to(spec_path, tmp_path):
    first = envkit.lock_spec(spec_path, platforms=["linux-64"], exclude_newer="2024-02-01")
    previous = tmp_path / "conda-lock.yml"
    previous.write_text(envkit.write_text(first.lock, "conda-lock"))
    # the previous lock records its cutoff: re-locked under it, c has nothing newer to move to
    kept = envkit.lock_spec(spec_path, previous=previous, update=["c"])
    assert _pins(kept.lock) == _pins(first.lock)
    assert [(m.platform, m.name, m.old, m.new, m.reason.kind) for m in kept.moves] == [
        ("linux-64", "c", "1.0 h0_0", "1.0 h0_0", "newest")
    ]
    assert kept.relocked and kept.exclude_newer == first.exclude_newer
    # a later cutoff lets c move; a, which may go to 1.1 too, stays as the previous lock chose it
    moved = envkit.lock_spec(spec_path, previous=first.lock, update=["c"], exclude_newer="2024-12-01")
    assert _pins(moved.lock) == [("a", "1.0", "linux-64"), ("b", "1.0", "linux-64"), ("c", "1.1", "linux-64")]
    assert [(m.name, m.old, m.new, m.reason.kind) for m in moved.moves] == [
        ("c", "1.0 h0_0", "1.1 h0_0", "asked")
    ]
    assert moved.exclude_newer.describe() == "2024-12-01T00:00:00Z"


@pytest.mark.parametrize(
    "kwargs, error, message",
    [
        (
            dict(platforms="linux-64"),
            TypeError,
            "lock_spec() argument 'platforms' must be a list of platform names, not str "
            "(one goes in a list: ['linux-64'])",
        ),
        (
            dict(update="c"),
            TypeError,
            "lock_spec() argument 'update' must be a list of package names, not str "
            "(one goes in a list: ['c'])",
        ),
        (
            dict(exclude_newer="soon"),
            envkit.UsageError,
            "exclude-newer 'soon': not a date, a time or a duration",
        ),
        (
            dict(update=["c"]),
            envkit.UsageError,
            "nothing to update c from: there is no previous lock",
        ),
    ],
)
def test_lock_spec_misuse(spec_path, kwargs, error, message):
    with pytest.raises(error) as exc:
        envkit.lock_spec(spec_path, **kwargs)
    assert str(exc.value) == message


def test_lock_spec_given_the_wrong_model_names_the_function_that_makes_the_right_one(spec_path):
    spec = envkit.read_file(spec_path)
    lock = envkit.read_file(CONDA_LOCK)
    with pytest.raises(TypeError) as exc:
        envkit.lock_spec(lock)
    assert str(exc.value) == (
        "lock_spec() argument 'spec' must be EnvSpec or a path, not Lock (a Lock is already solved)"
    )
    with pytest.raises(TypeError) as exc:
        envkit.lock_spec(spec, previous=spec)
    assert str(exc.value) == (
        "lock_spec() argument 'previous' must be Lock or a path, not EnvSpec "
        "(an EnvSpec is solved into a Lock by envkit.solve_spec)"
    )
    with pytest.raises(envkit.ParseError) as perr:
        envkit.lock_spec(spec, previous=spec_path)
    assert (
        str(perr.value)
        == f"{spec_path}: not a lock file (it reads as an environment spec, which needs solving)"
    )


# --- convert_model ----------------------------------------------------------------------------------


def test_convert_model_of_a_conda_lock_to_pixi_is_lossless_and_reads_back(envkit_cli, tmp_path):
    result = envkit.convert_model(CONDA_LOCK, "pixi")
    assert isinstance(result, envkit.ConvertResult)
    assert (result.verified, result.lossless, result.losses, result.notes) == (True, True, (), ())
    source = envkit.read_file(CONDA_LOCK)
    back = envkit.read_text(result.text, format="pixi")
    assert back.platforms == source.platforms == ("linux-64", "osx-64", "osx-arm64", "win-64")
    key = sorted((p.platform, p.name, p.version, p.build) for p in source.packages)
    assert sorted((p.platform, p.name, p.version, p.build) for p in back.packages) == key
    # `envkit convert` writes the same text
    out = tmp_path / "pixi.lock"
    r = envkit_cli("convert", CONDA_LOCK, "-o", str(out))
    assert (r.exit_code, out.read_text()) == (0, result.text)


def test_convert_model_to_a_one_platform_target_reports_what_it_cannot_hold(envkit_cli, tmp_path):
    result = envkit.convert_model(CONDA_LOCK, "explicit", platform="linux-64")
    assert (result.verified, result.changes_what_is_installed, result.losses) == (True, False, ())
    assert [n.feature for n in result.notes] == ["depends", "channels"]
    assert result.conversion.left_out_platforms == ("osx-64", "osx-arm64", "win-64")
    lines = result.text.splitlines()
    assert lines[:2] + lines[3:4] == ["# generated by envkit convert", "# platform: linux-64", "@EXPLICIT"]
    linux = envkit.read_file(CONDA_LOCK).for_platform("linux-64")
    # every conda package of linux-64 as its URL, the pip ones as the comments conda skips
    assert [ln.rsplit("#", 1)[0] for ln in lines[4:] if not ln.startswith("#")] == [
        p.url for p in linux if p.manager == "conda"
    ]
    assert [ln for ln in lines if ln.startswith("# pip ")] == [
        f"# pip {p.name} @ {p.url}#sha256={p.sha256}" for p in linux if p.manager == "pip"
    ]
    # the CLI's JSON report is this result
    out = tmp_path / "linux-64.txt"
    r = envkit_cli(
        "convert",
        CONDA_LOCK,
        "--to",
        "explicit",
        "--platform",
        "linux-64",
        "-o",
        str(out),
        "--format",
        "json",
    )
    assert r.exit_code == 0, r.stderr
    doc = json.loads(r.stdout)
    assert doc["notes"] == [n.as_dict() for n in result.notes]
    assert (doc["losses"], doc["changes_install"], doc["left_out_platforms"]) == (
        [],
        [],
        ["osx-64", "osx-arm64", "win-64"],
    )
    assert out.read_text() == result.text


def test_convert_model_of_a_model_needs_the_format_it_was_read_from():
    model = envkit.read_file(UV_LOCK)
    from_path = envkit.convert_model(UV_LOCK, "pylock")
    from_model = envkit.convert_model(model, "pylock", source_format="uv-lock")
    assert (from_model.text, from_model.lossless, from_model.verified) == (from_path.text, True, True)
    with pytest.raises(envkit.UsageError) as exc:
        envkit.convert_model(model, "pylock")
    assert str(exc.value) == (
        "convert_model(): a model needs the format it was read from (what that format carries)"
    )
    assert exc.value.hint == "pass source_format=FORMAT"
    assert exc.value.remedies == (envkit.Remedy(option="source_format", metavar="FORMAT"),)


def test_convert_model_misuse():
    with pytest.raises(TypeError) as exc:
        envkit.convert_model(3, "env")
    assert str(exc.value) == "convert_model() argument 'model' must be EnvSpec, Lock or a path, not int"
    with pytest.raises(envkit.UsageError) as uerr:
        envkit.convert_model(CONDA_LOCK, "explicit")
    assert str(uerr.value).startswith("the lock has 4 platforms")
    with pytest.raises(envkit.UsageError, match=r"^unknown target format 'yaml'; choose one of: "):
        envkit.convert_model(CONDA_LOCK, "yaml")
    with pytest.raises(envkit.UsageError, match=r"^unknown format 'lock'"):
        envkit.convert_model(CONDA_LOCK, "pixi", source_format="lock")


# --- a live environment where a lock belongs ----------------------------------------------------------


def test_a_live_environment_where_a_lock_belongs_names_lock_live(default_prefix, spec_path):
    live = envkit.open_env(prefix=default_prefix)
    hint = "(a LiveEnv becomes a Lock with envkit.lock_live)"
    calls = {
        "convert_model": lambda: envkit.convert_model(live, "env"),
        "check_lock": lambda: envkit.check_lock(spec_path, live),
        "create_from_lock": lambda: envkit.create_from_lock(live, spec_path.parent / "env"),
    }
    for name, call in calls.items():
        with pytest.raises(TypeError) as exc:
            call()
        assert str(exc.value).startswith(f"{name}() argument ") and str(exc.value).endswith(
            f"not LiveEnv {hint}"
        )
    with pytest.raises(TypeError) as wexc:
        envkit.write_text(live, "env")
    assert str(wexc.value) == (
        "write_text() argument 'model' must be EnvSpec or Lock, not LiveEnv "
        "(lock a LiveEnv first: envkit.lock_live)"
    )
    # where a LiveEnv is taken, it is one: diff reads it as the environment it is
    assert envkit.diff(live, live).same


# --- lock_live: the warnings `envkit lock -p` prints are in the library's result ---------------------


@pytest.mark.slow
def test_lock_live_returns_the_warnings_the_command_prints(envkit_cli, default_prefix, tmp_path, monkeypatch):
    from support.condafactory import build_wheel, copy_prefix, pip_install

    prefix = copy_prefix(default_prefix, tmp_path / "env")
    wheels = tmp_path / "wheels"
    pip_install(prefix, build_wheel(tmp_path / "other-wheels", "gone", "0.3"))  # the index lost it
    pip_install(prefix, build_wheel(wheels, "helper", "1.0"))
    pip = {
        "PIP_CONFIG_FILE": os.devnull,
        "PIP_NO_INDEX": "1",
        "PIP_FIND_LINKS": str(wheels),
        "PIP_RETRIES": "0",
    }
    for key, value in pip.items():
        monkeypatch.setenv(key, value)
    unresolved = (
        "pip could not resolve the artifact of gone==0.3 (installed from an index): no such release on the "
        "configured index; locked without URL or hash (marked #envkit-unresolved): `envkit create` installs "
        "it by pin from the index pip is configured with"
    )

    result = envkit.lock_live(envkit.open_env(prefix=prefix), allow_unhashed_pip=True)

    assert isinstance(result, envkit.LiveLockResult)
    assert result.warnings == (unresolved,)
    gone = next(p for p in result.lock.packages if p.name == "gone")
    assert (gone.url, gone.sha256) == ("https://pypi.org/project/gone/0.3/#envkit-unresolved", None)
    # the command prints the same result's warnings
    out = tmp_path / "conda-lock.yml"
    r = envkit_cli(
        "lock", "-p", str(prefix), "--no-env-lock", "--allow-unhashed-pip", "-o", str(out), env=pip
    )
    assert r.exit_code == 0, r.stderr
    assert [ln for ln in r.stderr.splitlines() if ln.startswith("warning: ")] == [f"warning: {unresolved}"]
