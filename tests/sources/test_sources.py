"""SOURCE strings: ssh URL parsing, the ssh command line, and live prefixes built with py-rattler."""

from __future__ import annotations

import json

import pytest
from support.condafactory import build_wheel, copy_prefix, make_prefix, pip_install

from envkit.errors import UsageError
from envkit.sources.ssh import SshTarget, parse_ssh, remote_program, remote_shell_command, ssh_command


@pytest.mark.parametrize(
    "url, expected",
    [
        ("ssh://gpu-server/env:research", SshTarget(host="gpu-server", env_name="research")),
        (
            "ssh://alice@gpu-server:2222/env:research",
            SshTarget(host="gpu-server", user="alice", port=2222, env_name="research"),
        ),
        ("ssh://gpu/opt/conda/envs/x", SshTarget(host="gpu", path="/opt/conda/envs/x")),
        ("ssh://gpu/~/miniforge3/envs/x", SshTarget(host="gpu", path="~/miniforge3/envs/x")),
        ("ssh://127.0.0.1:2022/tmp/my%20env", SshTarget(host="127.0.0.1", port=2022, path="/tmp/my env")),
    ],
)
def test_parse_ssh(url, expected):
    assert parse_ssh(url) == expected


@pytest.mark.parametrize(
    "url, message",
    [
        ("ssh:///env:x", "no host"),
        ("ssh://host", "no environment"),
        ("ssh://host/env:", "no environment name"),
        ("ssh://host:port/env:x", "bad port"),
    ],
)
def test_parse_ssh_errors(url, message):
    with pytest.raises(UsageError, match=message):
        parse_ssh(url)


@pytest.mark.parametrize(
    "url, kwargs, expected",
    [
        # a fleet host without an environment reads the one given (a name, or a path)
        ("ssh://gpu", {"default_env": "base"}, SshTarget(host="gpu", env_name="base")),
        ("ssh://gpu/", {"default_env": "/opt/x"}, SshTarget(host="gpu", path="/opt/x")),
        ("ssh://gpu:22", {"default_env": "~/envs/x"}, SshTarget(host="gpu", port=22, path="~/envs/x")),
        ("ssh://gpu/env:a", {"default_env": "base"}, SshTarget(host="gpu", env_name="a")),
        # a machine: the path is ignored, the user unquoted as for a SOURCE
        ("ssh://al%40x@gpu:2222/whatever", {"host_only": True}, SshTarget("gpu", "al@x", 2222, "/")),
        ("ssh://[::1]", {"host_only": True}, SshTarget(host="::1", path="/")),
    ],
)
def test_parse_ssh_fleet_hosts_and_machines(url, kwargs, expected):
    assert parse_ssh(url, **kwargs) == expected


def test_ssh_command_honours_envkit_ssh_and_stays_non_interactive():
    t = SshTarget(host="gpu", user="alice", port=2222, env_name="x")
    argv = ssh_command(t, {"ENVKIT_SSH": "ssh -F /tmp/cfg -i '/tmp/my key'"})
    assert argv == [
        "ssh",
        "-F",
        "/tmp/cfg",
        "-i",
        "/tmp/my key",
        "-o",
        "BatchMode=yes",
        "-o",
        "ConnectTimeout=20",
        "-p",
        "2222",
        "-l",
        "alice",
        "--",
        "gpu",
    ]
    assert ssh_command(SshTarget(host="h", path="/p"), {})[:1] == ["ssh"]


def test_remote_command_finds_a_python_and_reads_the_program_from_stdin():
    cmd = remote_shell_command(SshTarget(host="h", path="/opt/env"), {})
    assert cmd.startswith("sh -c ") and "python3" in cmd and "/opt/env/bin/python" in cmd
    import subprocess
    import sys

    given = remote_shell_command(SshTarget(host="h", path="/p"), {"ENVKIT_REMOTE_PYTHON": sys.executable})
    assert given.endswith(f"; run {sys.executable} -'")
    # what the remote login shell does with it: the program on stdin, the exit code passed on
    ran = subprocess.run(
        given, shell=True, input="import sys; print('read'); sys.exit(3)", capture_output=True, text=True
    )
    assert (ran.returncode, ran.stdout, ran.stderr) == (3, "read\n", "")
    killed = subprocess.run(
        given, shell=True, input="import os; os.kill(os.getpid(), 9)", capture_output=True, text=True
    )
    assert killed.returncode == 137 and killed.stderr.endswith("\n--envkit-signal-- 9 KILL\n")


def test_remote_program_runs_locally_like_prefix_scan(tmp_path, default_prefix):
    """The streamed program is plain stdlib Python: run it here with `python3 -`."""
    import subprocess
    import sys

    prog = remote_program(SshTarget(host="h", path=str(default_prefix)))
    out = subprocess.run(
        [sys.executable, "-I", "-"], input=prog, capture_output=True, text=True, check=True
    ).stdout
    head, _, body = out.partition("--envkit-scan--\n")
    data = json.loads(body)
    assert data["is_prefix"] and {r["name"] for r in data["records"]} >= {"python", "numpy", "pip"}
    missing = subprocess.run(
        [sys.executable, "-I", "-"],
        input=remote_program(SshTarget(host="h", env_name="nope")),
        capture_output=True,
        text=True,
        env={"HOME": str(tmp_path), "PATH": "/nonexistent"},
    )
    assert missing.returncode == 3 and "no environment named 'nope' on this machine" in missing.stderr


@pytest.mark.slow
def test_diff_of_two_live_prefixes(envkit_cli, tmp_path, default_channel, default_prefix):
    other = make_prefix(
        tmp_path / "gpu",
        [default_channel],
        ["python=3.11", "numpy=1.26.3", "requests", "pip", "pytorch", "pyyaml"],
        virtual={"__cuda": "12.4"},
        cache_dir=tmp_path / "pkgs",
    )
    pip_install(other, build_wheel(tmp_path / "wheels", "PyYAML", "6.0.2"))
    pip_install(other, build_wheel(tmp_path / "wheels", "tinyreq", "2.0"))
    r = envkit_cli("diff", str(default_prefix), str(other), "--format", "json")
    assert r.exit_code == 1, r.stderr
    data = json.loads(r.stdout)
    assert data["a"]["kind"] == "live" and data["b"]["platform"] == "linux-64"
    ch = {c["name"]: c for c in data["changes"]}
    assert ch["numpy"]["kind"] == "downgraded"
    assert (ch["numpy"]["a"]["version"], ch["numpy"]["b"]["version"]) == ("1.26.4", "1.26.3")
    assert ch["pytorch"]["kind"] == "added" and ch["pytorch"]["b"]["labels"] == ["CUDA 12.0", "py3.11"]
    assert ch["pytorch"]["impact"] == "high"
    assert ch["PyYAML"]["kind"] == "duplicate" and ch["PyYAML"]["b"]["manager"] == "pip"
    assert ch["tinyreq"]["kind"] == "added"
    assert data["duplicates"]["b"] == [{"conda": "pyyaml", "pip": "PyYAML", "project": "pyyaml"}]
    assert "'PyYAML' is installed by both conda ('pyyaml') and pip" in r.stderr
    # a copy of a prefix is the same environment
    same = copy_prefix(default_prefix, tmp_path / "copy")
    r = envkit_cli("diff", str(default_prefix), str(same))
    assert r.exit_code == 0 and "Same: no differences" in r.stdout


@pytest.mark.slow
def test_named_env_source(envkit_cli, tmp_path, default_prefix, monkeypatch):
    envs = tmp_path / "envs"
    copy_prefix(default_prefix, envs / "research")
    monkeypatch.setenv("CONDA_ENVS_PATH", str(envs))
    r = envkit_cli("diff", "env:research", str(default_prefix), env={"CONDA_ENVS_PATH": str(envs)})
    assert r.exit_code == 0, r.stderr
    r = envkit_cli("diff", "env:nosuch", str(default_prefix), env={"CONDA_ENVS_PATH": str(envs)})
    assert r.exit_code == 2 and "nosuch" in r.stderr


def test_stdin_source_reads_bounded_utf8_text():
    import io

    from envkit.errors import ParseError
    from envkit.sources import resolve
    from envkit.stdin import read_stdin

    assert read_stdin(io.BytesIO("\ufeffname: x\n".encode())) == "name: x\n"
    with pytest.raises(ParseError, match="larger than"):
        read_stdin(io.BytesIO(b"x" * 11), max_bytes=10)
    with pytest.raises(ParseError, match="not UTF-8") as exc:
        read_stdin(io.BytesIO(b"a\n\xff\n"))
    assert (exc.value.where.file, exc.value.where.line) == ("<stdin>", 2)
    src = resolve("-", stdin="dependencies: [python=3.11]\n")
    assert (src.label, src.origin, [d.name for d in src.model.conda]) == ("<stdin>", "stdin", ["python"])


# ---------------------------------------------------------------------------------------------
# envkit's own JSON export as a SOURCE


def _live_env():
    from envkit.model import Channel, CondaDep, LiveEnv, LockedPackage, PipDist

    conda = (
        LockedPackage(
            manager="conda",
            name="numpy",
            version="1.26.4",
            build="py311h64a7726_0",
            build_number=0,
            channel="conda-forge",
            platform="linux-64",
            subdir="linux-64",
            url="https://conda.anaconda.org/conda-forge/linux-64/numpy-1.26.4-py311h64a7726_0.conda",
            md5="a" * 32,
            depends=(("python", ">=3.11,<3.12.0a0"),),
            requested=True,
        ),
        LockedPackage(
            manager="conda",
            name="python",
            version="3.11.8",
            build="hab00c5b_0_cpython",
            build_number=0,
            channel="conda-forge",
            platform="linux-64",
            subdir="linux-64",
        ),
    )
    dists = (
        PipDist(
            name="mylib",
            version="0.3",
            installer="pip",
            url="https://github.com/me/mylib.git",
            vcs="git",
            commit="3f1c0a9d0e7b6f2a1c4d5e6f7a8b9c0d1e2f3a4b",
        ),
        PipDist(name="tool", version="0.1", installer="pip", url="file:///home/me/src/tool", editable=True),
    )
    pip = tuple(
        LockedPackage(
            manager="pip", name=d.name, version=d.version, platform="linux-64", url=d.url, editable=d.editable
        )
        for d in dists
    )
    return LiveEnv(
        prefix="/envs/ml",
        name="ml",
        platform="linux-64",
        packages=conda + pip,
        pip_dists=dists,
        requested=(CondaDep(name="numpy"),),
        channels=(Channel(name="conda-forge"),),
        channel_priority="strict",
        variables=(("OMP_NUM_THREADS", "4"),),
        python_version="3.11.8",
    )


def test_envkit_export_json_reads_back_as_the_live_env(tmp_path):
    from envkit.envdiff import EXPORT_JSON_BACKEND, diff
    from envkit.model import LiveEnv
    from envkit.render.export import export_json
    from envkit.sources import resolve

    env = _live_env()
    path = tmp_path / "ml.json"
    path.write_text(export_json(env))
    src = resolve(str(path))
    m = src.model
    assert isinstance(m, LiveEnv) and src.origin == "file"
    assert m.packages == env.packages and m.pip_dists == tuple(PipDist_with(d) for d in env.pip_dists)
    assert (m.name, m.platform, m.channel_priority, m.variables, m.python_version, m.backend) == (
        "ml",
        "linux-64",
        "strict",
        (("OMP_NUM_THREADS", "4"),),
        "3.11.8",
        EXPORT_JSON_BACKEND,
    )
    assert [d.name for d in m.requested] == ["numpy"] and [str(c) for c in m.channels] == ["conda-forge"]
    d = diff(env, m, label_b=str(path))
    assert d.same and d.b.kind == "envkit-export" and len(d.unchanged) == 4
    # the same from standard input
    assert resolve("-", stdin=path.read_text()).model.packages == env.packages


def PipDist_with(d):
    """The PipDist as the JSON carries it (the .dist-info path is not exported)."""
    from dataclasses import replace

    return replace(d, path="")


def test_envkit_export_json_from_history_is_a_spec_and_errors_name_the_file(tmp_path):
    from envkit.errors import ParseError
    from envkit.model import EnvSpec
    from envkit.render.export import export_json
    from envkit.sources import resolve

    path = tmp_path / "h.json"
    path.write_text(export_json(_live_env(), from_history=True))
    m = resolve(str(path)).model
    assert isinstance(m, EnvSpec) and [d.spec() for d in m.conda] == ["numpy"]
    assert [p.text for p in m.pip] == [
        "mylib @ git+https://github.com/me/mylib.git@3f1c0a9d0e7b6f2a1c4d5e6f7a8b9c0d1e2f3a4b",
        "-e /home/me/src/tool",
    ]
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"envkit_export": 7, "packages": []}))
    with pytest.raises(ParseError, match="envkit export JSON version 7 is not supported") as exc:
        resolve(str(bad))
    assert exc.value.where.file == str(bad)
    bad.write_text(json.dumps({"envkit_export": 1, "packages": [{"manager": "conda", "name": "x"}]}))
    with pytest.raises(ParseError, match=r"`packages\[0\]` needs a name and a version"):
        resolve(str(bad))
    # a JSON list is still `conda list --json` output
    listed = tmp_path / "list.json"
    listed.write_text(
        json.dumps(
            [
                {
                    "name": "zlib",
                    "version": "1.3.1",
                    "build_string": "h0_0",
                    "channel": "conda-forge",
                    "platform": "linux-64",
                }
            ]
        )
    )
    assert [p.name for p in resolve(str(listed)).model.packages] == ["zlib"]
