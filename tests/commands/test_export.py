"""`envkit export` on real prefixes built by tests/support/condafactory."""

from __future__ import annotations

import json

import pytest
from support.condafactory import (
    ChannelBuilder,
    build_wheel,
    copy_prefix,
    make_prefix,
    pip_install,
    pip_overwrite,
    put_token_in_zlib_record,
    python_pkg,
    solve,
    write_condarc,
    write_direct_url,
    write_state,
)

from envkit.formats.envyml import read_env

pytestmark = pytest.mark.slow


def export(envkit_cli, *args):
    r = envkit_cli("export", *args)
    assert r.exit_code == 0, r.stderr
    return r


def test_export_equals_the_installed_set(
    envkit_cli, tmp_path, isolated_conda, default_channel, default_prefix
):
    prefix = copy_prefix(default_prefix, tmp_path / "env")
    pip_install(prefix, build_wheel(tmp_path / "w", "tinyreq", "2.0"))
    r = export(envkit_cli, "-p", str(prefix))
    spec = read_env(r.stdout)
    solved = solve([default_channel], ["python=3.11", "numpy", "requests", "pip"])
    want = sorted(f"{default_channel.url}::{r.name.normalized}={r.version}={r.build}" for r in solved)
    assert [d.spec() for d in spec.conda] == want
    assert [p.text for p in spec.pip] == ["tinyreq==2.0"]
    assert [c.name for c in spec.channels] == [default_channel.url]
    assert spec.prefix is None and "prefix:" not in r.stdout
    assert r.stdout.startswith(
        "# Exported by envkit from a linux-64 environment; regenerate: envkit export -p "
        f"{prefix}\nname: env\n"
    )
    assert r.stderr == ""
    assert export(envkit_cli, "-p", str(prefix)).stdout == r.stdout  # deterministic


def test_channels_in_priority_order_each_package_keeps_its_channel(
    envkit_cli, tmp_path, isolated_conda, default_channel
):
    extra = ChannelBuilder(tmp_path / "extra", name="extra")
    extra.add(python_pkg("tqdm", "4.66.2", noarch=True), python_pkg("numpy", "1.26.0", build="py311h0_0"))
    prefix = make_prefix(tmp_path / "env", [extra, default_channel], ["python=3.11", "numpy", "tqdm"])
    write_condarc(isolated_conda / ".condarc", channels=["bioconda", "defaults"])
    spec = read_env(export(envkit_cli, "-p", str(prefix)).stdout)
    # the -c order of the command that created it, not package-name order; unused channels left out
    assert [c.name for c in spec.channels] == [extra.url, default_channel.url]
    by = {d.name: d.spec() for d in spec.conda}
    # strict priority: numpy comes from the higher-priority channel, even though the other has a newer one
    assert by["numpy"] == f"{extra.url}::numpy=1.26.0=py311h0_0"
    assert by["python"] == f"{default_channel.url}::python=3.11.8=hab00c5b_0_cpython"
    hist = read_env(export(envkit_cli, "-p", str(prefix), "--from-history").stdout)
    assert [c.name for c in hist.channels] == [extra.url, default_channel.url, "bioconda", "defaults"]


def test_from_history_keeps_pip_and_channels(envkit_cli, tmp_path, isolated_conda, default_prefix):
    prefix = copy_prefix(default_prefix, tmp_path / "env")
    pip_install(prefix, build_wheel(tmp_path / "w", "tinyreq", "2.0"))
    write_state(prefix, {"OMP_NUM_THREADS": "4"})
    r = export(envkit_cli, "-p", str(prefix), "--from-history")
    body = r.stdout.split("\n", 1)[1]
    assert body == (
        "name: env\n"
        "channels:\n"
        f"  - {read_env(r.stdout).channels[0].name}\n"
        "dependencies:\n"
        "  - python=3.11\n"
        "  - numpy\n"
        "  - requests\n"
        "  - pip\n"
        "  - pip:\n"
        "    - tinyreq==2.0\n"
        "variables:\n"
        '  OMP_NUM_THREADS: "4"\n'
    )
    assert read_env(r.stdout).channels[0].name.startswith("file:///")


def test_no_builds_pins_exactly(envkit_cli, tmp_path, isolated_conda, default_prefix):
    spec = read_env(export(envkit_cli, "-p", str(default_prefix), "--no-builds").stdout)
    numpy = spec.conda_by_name()["numpy"]
    assert (numpy.version, numpy.build) == ("==1.26.4", None)
    assert numpy.spec().endswith("::numpy==1.26.4")


def test_pip_url_vcs_editable_written_as_such_and_redacted(
    envkit_cli, tmp_path, isolated_conda, default_prefix
):
    prefix = copy_prefix(default_prefix, tmp_path / "env")
    w = tmp_path / "w"
    pip_install(prefix, build_wheel(w, "fromurl", "1.0"), direct=True)
    vcs = pip_install(prefix, build_wheel(w, "fromgit", "0.1"))
    write_direct_url(vcs, "https://ghp_secret123@github.com/o/fromgit.git", vcs="git", commit="c" * 40)
    ed = pip_install(prefix, build_wheel(w, "mine", "0.3"))
    write_direct_url(ed, "file:///home/me/src/mine", editable=True)
    out = export(envkit_cli, "-p", str(prefix)).stdout
    assert [p.text for p in read_env(out).pip] == [
        f"fromgit @ git+https://<TOKEN>@github.com/o/fromgit.git@{'c' * 40}",
        f"fromurl @ {(w / 'fromurl-1.0-py3-none-any.whl').resolve().as_uri()}",
        "-e /home/me/src/mine",
    ]
    assert "ghp_secret123" not in out


def test_channel_token_redacted(envkit_cli, tmp_path, isolated_conda, default_prefix):
    prefix = copy_prefix(default_prefix, tmp_path / "env")
    put_token_in_zlib_record(prefix)
    for fmt in ("yaml", "json", "explicit"):
        out = export(envkit_cli, "-p", str(prefix), "--format", fmt).stdout
        assert "abc-123" not in out
    assert "  - private::zlib=1.3.1=h4ab18f5_1\n" in export(envkit_cli, "-p", str(prefix)).stdout


def test_pip_overwrite_is_a_warning_not_a_crash(envkit_cli, tmp_path, isolated_conda, default_prefix):
    prefix = copy_prefix(default_prefix, tmp_path / "env")
    pip_overwrite(prefix, build_wheel(tmp_path / "w", "numpy", "2.0.0"))
    r = export(envkit_cli, "-p", str(prefix))
    assert r.stderr.splitlines() == [
        "warning: pip package 'numpy' 2.0.0 overwrote conda package 'numpy' 1.26.4: the conda record's files "
        "are gone (lib/python3.11/site-packages/numpy-1.26.4.dist-info); reinstall one of them so that conda "
        "and pip agree",
        "warning: 'numpy' is installed by both conda ('numpy') and pip; pip's copy shadows conda's and the "
        "solver cannot see it",
    ]
    assert [p.text for p in read_env(r.stdout).pip] == ["numpy==2.0.0"]


def test_corrupt_record_reported_with_its_path(envkit_cli, tmp_path, isolated_conda, default_prefix):
    prefix = copy_prefix(default_prefix, tmp_path / "env")
    bad = next((prefix / "conda-meta").glob("requests-*.json"))
    bad.write_text("{not json")
    r = envkit_cli("export", "-p", str(prefix))
    assert r.exit_code == 2
    assert r.stdout == ""
    assert r.stderr.startswith(f"error: {bad}: corrupt conda package record: invalid JSON: ")
    assert "hint: reinstall that package" in r.stderr


def test_output_file_and_formats(envkit_cli, tmp_path, isolated_conda, default_channel, default_prefix):
    out = tmp_path / "environment.yml"
    r = export(envkit_cli, "-p", str(default_prefix), "-o", str(out))
    assert r.stdout == "" and read_env(out.read_text()).conda_by_name()["zlib"].build == "h4ab18f5_1"
    explicit = export(envkit_cli, "-p", str(default_prefix), "--format", "explicit").stdout.splitlines()
    assert explicit[1:3] == ["# platform: linux-64", "@EXPLICIT"]
    assert f"{default_channel.url}/linux-64/numpy-1.26.4-py311h64a7726_0.tar.bz2#" in explicit[5]
    assert len([ln for ln in explicit if ln.startswith("file://")]) == 9
    doc = json.loads(export(envkit_cli, "-p", str(default_prefix), "--format", "json").stdout)
    assert doc["envkit_export"] == 1 and doc["platform"] == "linux-64"
    assert doc["requested"] == ["python=3.11", "numpy", "requests", "pip"]
    assert [p["name"] for p in doc["packages"]] == [
        "ca-certificates",
        "idna",
        "numpy",
        "openssl",
        "pip",
        "python",
        "requests",
        "urllib3",
        "zlib",
    ]
    numpy = doc["packages"][2]
    assert (numpy["build"], numpy["requested"], numpy["depends"]) == (
        "py311h64a7726_0",
        True,
        ["python >=3.11,<3.12.0a0", "zlib"],
    )


def test_conda_lock_format_is_readable_by_conda_lock(envkit_cli, tmp_path, isolated_conda, default_prefix):
    from conda_lock.lockfile import parse_conda_lock_file

    prefix = copy_prefix(default_prefix, tmp_path / "env")
    pip_install(prefix, build_wheel(tmp_path / "w", "tinyreq", "2.0"))
    pip_install(prefix, build_wheel(tmp_path / "w", "fromurl", "1.0"), direct=True)
    out = tmp_path / "conda-lock.yml"
    r = export(envkit_cli, "-p", str(prefix), "--format", "conda-lock", "-o", str(out))
    assert r.stderr.startswith(
        "warning: 1 pip package(s) left out of the conda-lock output: "
        "pip recorded no URL for them (tinyreq==2.0)"
    )
    lock = parse_conda_lock_file(out)
    assert sorted(p.name for p in lock.package) == [
        "ca-certificates",
        "fromurl",
        "idna",
        "numpy",
        "openssl",
        "pip",
        "python",
        "requests",
        "urllib3",
        "zlib",
    ]


def test_usage_errors(envkit_cli, default_prefix, isolated_conda):
    r = envkit_cli("export", "-p", str(default_prefix), "--from-history", "--format", "explicit")
    assert r.exit_code == 2 and "cannot be written as explicit" in r.stderr
    r = envkit_cli("export", "-n", "a", "-p", str(default_prefix))
    assert r.exit_code == 2 and r.stderr == (
        "error: an environment is named by a name or a prefix, not both\n"
        "hint: pass only -n NAME or -p PREFIX\n"
    )


def test_named_env(envkit_cli, tmp_path, isolated_conda, default_prefix):
    from support.condafactory import named_env

    named_env(isolated_conda / ".conda" / "envs", "ml", default_prefix)
    out = export(envkit_cli, "-n", "ml").stdout
    assert out.startswith(
        "# Exported by envkit from a linux-64 environment; regenerate: envkit export -n ml\nname: ml\n"
    )


def test_secret_variables_are_redacted_in_export_and_diff(
    envkit_cli, tmp_path, isolated_conda, default_prefix
):
    # `conda env config vars set HF_TOKEN=...` lands in conda-meta/state: it must not be published
    prefix = copy_prefix(default_prefix, tmp_path / "env")
    write_state(
        prefix,
        {
            "HF_TOKEN": "hf_aBcDeFgHiJkLmNoP",
            "WANDB_API_KEY": "0123456789abcdef",
            "TOKENIZERS_PARALLELISM": "false",
        },
    )
    for args in ((), ("--from-history",), ("--no-builds",)):
        out = export(envkit_cli, "-p", str(prefix), *args).stdout
        assert out.endswith(
            'variables:\n  HF_TOKEN: <TOKEN>\n  WANDB_API_KEY: <TOKEN>\n  TOKENIZERS_PARALLELISM: "false"\n'
        ), out
        assert "hf_aBc" not in out and "0123456789" not in out
    other = copy_prefix(default_prefix, tmp_path / "other")
    write_state(
        other,
        {
            "HF_TOKEN": "hf_zzzzzzzzzzzzzzzz",
            "WANDB_API_KEY": "0123456789abcdef",
            "TOKENIZERS_PARALLELISM": "false",
        },
    )
    r = envkit_cli("diff", str(prefix), str(other))
    assert r.exit_code == 1
    assert "hf_" not in r.stdout and "0123456789" not in r.stdout
    assert "  value changed (a credential, not shown): HF_TOKEN\n" in r.stdout


def test_secret_variables_are_redacted_in_the_env_lock_of_lock_p(
    envkit_cli, tmp_path, isolated_conda, default_prefix
):
    prefix = copy_prefix(default_prefix, tmp_path / "env")
    write_state(prefix, {"HF_TOKEN": "hf_aBcDeFgHiJkLmNoP", "TOKENIZERS_PARALLELISM": "false"})
    r = envkit_cli("lock", "-p", str(prefix), "-o", str(tmp_path / "conda-lock.yml"))
    assert r.exit_code == 0, r.stderr
    env_lock = (tmp_path / "environment.lock.yml").read_text()
    assert env_lock.endswith('variables:\n  HF_TOKEN: <TOKEN>\n  TOKENIZERS_PARALLELISM: "false"\n'), env_lock
    assert "hf_aBc" not in env_lock + (tmp_path / "conda-lock.yml").read_text()


SECRETS = ("sekret-value", "hf_aBcDeFgHiJkLmNoP", "abc-123", "ghp_secret123", "tk-SECRET123abc", "qtok-999")


def test_every_format_redacts_secret_variables_and_url_tokens(
    envkit_cli, tmp_path, isolated_conda, default_prefix
):
    # a real prefix: secret variables in conda-meta/state, a token channel record, a VCS install whose
    # URL carries a token, a .condarc channel with one; no format may print any of them in clear
    prefix = copy_prefix(default_prefix, tmp_path / "env")
    write_state(
        prefix, {"OMP_NUM_THREADS": "4", "API_KEY": "sekret-value", "HF_TOKEN": "hf_aBcDeFgHiJkLmNoP"}
    )
    put_token_in_zlib_record(prefix)
    d = pip_install(prefix, build_wheel(tmp_path / "w", "fromgit", "0.1"), direct=True)
    write_direct_url(d, "https://ghp_secret123@github.com/o/fromgit.git", vcs="git", commit="c" * 40)
    write_condarc(prefix / ".condarc", channels=["https://conda.anaconda.org/t/tk-SECRET123abc/private"])
    for args in (
        ("--format", "yaml"),
        ("--format", "json"),
        ("--format", "explicit"),
        ("--format", "conda-lock"),
        ("--from-history", "--format", "json"),
        ("--no-builds", "--format", "json"),
    ):
        r = export(envkit_cli, "-p", str(prefix), *args)
        for secret in SECRETS:
            assert secret not in r.stdout + r.stderr, (args, secret)
    doc = json.loads(export(envkit_cli, "-p", str(prefix), "--format", "json").stdout)
    assert doc["variables"] == {"OMP_NUM_THREADS": "4", "API_KEY": "<TOKEN>", "HF_TOKEN": "<TOKEN>"}
    fromgit = next(p for p in doc["packages"] if p["name"] == "fromgit")
    assert fromgit["url"] == "https://<TOKEN>@github.com/o/fromgit.git"
    zlib = next(p for p in doc["packages"] if p["name"] == "zlib")
    assert zlib["url"] == "https://conda.anaconda.org/t/<TOKEN>/private/linux-64/zlib-1.3.1-h4ab18f5_1.conda"


def test_render_export_redacts_what_a_cli_backend_reports_in_clear():
    # the conda/mamba backends build the LiveEnv from the executables' JSON: render_export must not
    # rely on the reader having redacted anything
    from envkit.model import LiveEnv, LockedPackage, PipDist
    from envkit.render.export import render_export

    url = "https://conda.anaconda.org/t/qtok-999/private/linux-64/zlib-1.3.1-h0_0.conda"
    pip_url = "https://user:hf_aBcDeFgHiJkLmNoP@pypi.example.org/p/x-1.0-py3-none-any.whl"
    env = LiveEnv(
        prefix="/p",
        name="p",
        platform="linux-64",
        backend="conda",
        packages=(
            LockedPackage(
                manager="conda",
                name="zlib",
                version="1.3.1",
                build="h0_0",
                channel="private",
                platform="linux-64",
                url=url,
                md5="0" * 32,
            ),
            LockedPackage(manager="pip", name="x", version="1.0", platform="linux-64", url=pip_url),
        ),
        pip_dists=(PipDist(name="x", version="1.0", installer="pip", url=pip_url),),
        variables=(("API_KEY", "sekret-value"), ("PIP_INDEX_URL", "https://u:tk-SECRET123abc@host/simple")),
        warnings=(f"something about {url}",),
    )
    for fmt in ("yaml", "json", "explicit", "conda-lock"):
        out = render_export(env, fmt=fmt)
        for secret in SECRETS:
            assert secret not in out, (fmt, secret)
    doc = json.loads(render_export(env, fmt="json"))
    assert doc["variables"] == {
        "API_KEY": "<TOKEN>",
        "PIP_INDEX_URL": "https://<USER>:<PASSWORD>@host/simple",
    }
    assert doc["warnings"] == [
        "something about https://conda.anaconda.org/t/<TOKEN>/private/linux-64/zlib-1.3.1-h0_0.conda"
    ]
    assert (
        "https://conda.anaconda.org/t/<TOKEN>/private/linux-64/zlib-1.3.1-h0_0.conda#" + "0" * 32
        in render_export(env, fmt="explicit")
    )


def test_from_history_keeps_url_channel_specs(
    envkit_cli, tmp_path, isolated_conda, default_channel, default_prefix
):
    # specs on URL channels (file://, a token https:// one) in conda-meta/history: each is keyed by
    # its package name, also by remove and neutered specs; the token never reaches the output
    from support.condafactory import write_history

    prefix = copy_prefix(default_prefix, tmp_path / "env")
    put_token_in_zlib_record(prefix)
    chan = default_channel.url
    private = "https://conda.anaconda.org/t/tk-SECRET123abc/private"
    write_history(
        prefix,
        [
            {"cmd": f"conda install -c {private} {private}::zlib", "update_specs": [f"{private}::zlib"]},
            {"cmd": f"conda install {chan}::openssl>=3", "update_specs": [f"{chan}::openssl>=3"]},
            {"cmd": f"conda remove {chan}::requests", "remove_specs": [f"{chan}::requests"]},
            {
                "cmd": "conda update numpy",
                "update_specs": ["numpy"],
                "neutered_specs": [f"{chan}::numpy=1.26"],
            },
        ],
    )
    r = export(envkit_cli, "-p", str(prefix), "--from-history")
    spec = read_env(r.stdout)
    assert [d.spec() for d in spec.conda] == [
        "python=3.11",
        f"{chan}::numpy=1.26",
        "pip",
        "private::zlib",
        f"{chan}::openssl>=3",
    ]
    assert [c.name for c in spec.channels][:2] == [chan, "private"]
    assert "  - https://conda.anaconda.org/t/<TOKEN>/private\n" in r.stdout
    doc = json.loads(export(envkit_cli, "-p", str(prefix), "--from-history", "--format", "json").stdout)
    assert doc["requested"] == [
        "python=3.11",
        f"{chan}::numpy=1.26",
        "pip",
        "private::zlib",
        f"{chan}::openssl>=3",
    ]
    for out in (r.stdout, json.dumps(doc)):
        assert "tk-SECRET123abc" not in out
