"""The conda CLI backend, tested at the process boundary with fake executables that print recorded
`--json` output (no conda exists on the test machines)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from support.condafactory import answering_exe

from envkit.backends import open_env
from envkit.backends.condacli import CondaCli, find_executable
from envkit.errors import BackendError

PREFIX = "/opt/conda/envs/ml"

# Recorded from conda 24.x (`conda list -p ... --json`, `conda env export ... --json`, `conda info --json`).
LIST = [
    {
        "base_url": "https://conda.anaconda.org/conda-forge",
        "build_number": 0,
        "build_string": "py311h64a7726_0",
        "channel": "conda-forge",
        "dist_name": "numpy-1.26.4-py311h64a7726_0",
        "name": "numpy",
        "platform": "linux-64",
        "version": "1.26.4",
    },
    {
        "base_url": "https://conda.anaconda.org/pytorch",
        "build_number": 0,
        "build_string": "py3.11_cuda12.1_cudnn8.9.2_0",
        "channel": "pytorch",
        "dist_name": "pytorch-2.2.1-py3.11_cuda12.1_cudnn8.9.2_0",
        "name": "pytorch",
        "platform": "linux-64",
        "version": "2.2.1",
    },
    {
        "base_url": "https://conda.anaconda.org/conda-forge",
        "build_number": 0,
        "build_string": "hab00c5b_0_cpython",
        "channel": "conda-forge",
        "dist_name": "python-3.11.8-hab00c5b_0_cpython",
        "name": "python",
        "platform": "linux-64",
        "version": "3.11.8",
    },
    # conda lists pip's packages as records of the channel "pypi" (Channel("pypi").base_url), subdir "pypi"
    {
        "base_url": "https://conda.anaconda.org/pypi",
        "build_number": 0,
        "build_string": "pypi_0",
        "channel": "pypi",
        "dist_name": "tinyreq-2.0-pypi_0",
        "name": "tinyreq",
        "platform": "pypi",
        "version": "2.0",
    },
]
EXPORT = {
    "name": "ml",
    "channels": ["conda-forge", "pytorch", "defaults"],
    "dependencies": [
        "numpy=1.26.4=py311h64a7726_0",
        "python=3.11.8=hab00c5b_0_cpython",
        "pytorch=2.2.1=py3.11_cuda12.1_cudnn8.9.2_0",
        {"pip": ["tinyreq==2.0"]},
    ],
    "variables": {"OMP_NUM_THREADS": "4"},
    "prefix": PREFIX,
}
HISTORY = {
    "name": "ml",
    "channels": ["conda-forge", "defaults"],
    "dependencies": ["python=3.11", "pytorch::pytorch", "numpy"],
    "prefix": PREFIX,
}
INFO = {
    "platform": "linux-64",
    "root_prefix": "/opt/conda",
    "envs": ["/opt/conda", PREFIX],
    "envs_dirs": ["/opt/conda/envs"],
    "channels": [
        "https://conda.anaconda.org/pytorch/linux-64",
        "https://conda.anaconda.org/pytorch/noarch",
        "https://conda.anaconda.org/conda-forge/linux-64",
        "https://conda.anaconda.org/conda-forge/noarch",
    ],
}


def explicit_answer(key: str) -> str:
    """`conda list --explicit --md5|--sha256` for LIST, as conda 26.7.1 prints it."""
    lines = [
        "# This file may be used to create an environment using:",
        "# $ conda create --name <env> --file <this file>",
        "# platform: linux-64",
        "# created-by: conda 26.7.1",
        "@EXPLICIT",
    ]
    for e in LIST:
        if e["channel"] != "pypi":
            digest = f"{len(e['name']):032x}" if key == "md5" else f"{len(e['name']):064x}"
            lines.append(f"{e['base_url']}/{e['platform']}/{e['dist_name']}.conda#{digest}")
    return "\n".join(lines)


def fake_conda(
    directory: Path, name: str = "conda", answers: dict | None = None, fail: str | None = None
) -> Path:
    """Write an executable `name` that prints the recorded answer for its argv (JSON; a str as is)."""
    answers = (
        answers
        if answers is not None
        else {
            **{
                f"list {t} --explicit --{k}": explicit_answer(k)
                for t in (f"-p {PREFIX}", "-n ml")
                for k in ("md5", "sha256")
            },
            f"list -p {PREFIX} --json": LIST,
            "list -n ml --json": LIST,
            f"env export -p {PREFIX} --json": EXPORT,
            "env export -n ml --json": EXPORT,
            f"env export -p {PREFIX} --json --from-history": HISTORY,
            "env export -n ml --json --from-history": HISTORY,
            "info --json": INFO,
            "env list --json": {"envs": INFO["envs"]},
        }
    )
    return answering_exe(directory, name, answers, fail=fail)


def test_read_env_maps_to_live_env(tmp_path, isolated_conda):
    exe = fake_conda(tmp_path)
    env = CondaCli(str(exe)).read_env(prefix=PREFIX)
    assert env.backend == "conda"
    assert env.prefix == PREFIX and env.platform == "linux-64" and env.python_version == "3.11.8"
    assert [p.conda_form() for p in env.packages] == [
        "conda-forge::numpy=1.26.4=py311h64a7726_0",
        "conda-forge::python=3.11.8=hab00c5b_0_cpython",
        "pytorch::pytorch=2.2.1=py3.11_cuda12.1_cudnn8.9.2_0",
        "tinyreq==2.0",
    ]
    assert [d.spec() for d in env.requested] == ["python=3.11", "pytorch::pytorch", "numpy"]
    # info's order (priority), then the export's channels it did not list
    assert [c.name for c in env.channels] == ["pytorch", "conda-forge", "defaults"]
    assert env.variables == (("OMP_NUM_THREADS", "4"),)
    assert [d.name for d in env.pip_dists] == ["tinyreq"]
    # `list --json` has no URLs: `list --explicit --md5` and `--sha256` supply them
    numpy = env.packages[0]
    assert numpy.url == "https://conda.anaconda.org/conda-forge/linux-64/numpy-1.26.4-py311h64a7726_0.conda"
    assert (numpy.md5, numpy.sha256) == (f"{5:032x}", f"{5:064x}")


def test_discovery_flag_env_path(tmp_path, isolated_conda, monkeypatch):
    a, b, c = (tmp_path / d for d in "abc")
    for d in (a, b, c):
        d.mkdir()
    ca, mb, mm = fake_conda(a), fake_conda(b, "micromamba"), fake_conda(c, "mamba")
    monkeypatch.setenv("PATH", f"{c}{os.pathsep}/usr/bin:/bin")
    assert find_executable("mamba") == str(mm)
    assert find_executable(None) == str(mm)  # PATH: conda, mamba, micromamba
    monkeypatch.setenv("MAMBA_EXE", str(mb))
    assert find_executable("micromamba") == str(mb)
    assert find_executable("mamba") == str(mm)  # MAMBA_EXE is micromamba: not a mamba
    monkeypatch.setenv("CONDA_EXE", str(ca))
    assert find_executable("conda") == str(ca)
    assert find_executable(None) == str(ca)
    assert find_executable("conda", exe=str(mb)) == str(mb)
    monkeypatch.delenv("CONDA_EXE")
    with pytest.raises(BackendError, match="conda: executable not found"):
        find_executable("conda")


def test_failure_shows_stderr(tmp_path, isolated_conda):
    exe = fake_conda(tmp_path, fail="list")
    with pytest.raises(BackendError) as exc:
        CondaCli(str(exe)).read_env(name="ml")
    assert exc.value.message.startswith("conda list failed with exit code 1")
    assert exc.value.text == "CondaValueError: could not find environment: ml"


def test_not_json_is_an_error(tmp_path, isolated_conda):
    exe = tmp_path / "conda"
    exe.write_text("#!/bin/sh\necho 'Traceback: boom'\n")
    exe.chmod(0o755)
    with pytest.raises(BackendError, match="did not print JSON") as exc:
        CondaCli(str(exe)).info()
    assert exc.value.text == "Traceback: boom"


def test_timeout(tmp_path, isolated_conda):
    exe = tmp_path / "conda"
    exe.write_text("#!/bin/sh\nsleep 5\n")
    exe.chmod(0o755)
    with pytest.raises(BackendError, match="did not finish within 0.3 s"):
        CondaCli(str(exe), timeout=0.3).info()


def test_env_list(tmp_path, isolated_conda):
    assert CondaCli(str(fake_conda(tmp_path))).env_list() == ["/opt/conda", PREFIX]


def test_open_env_with_micromamba_by_name(tmp_path, isolated_conda, monkeypatch):
    exe = fake_conda(tmp_path, "micromamba")
    monkeypatch.setenv("MAMBA_EXE", str(exe))
    env = open_env(name="ml", backend="micromamba")
    assert env.backend == "micromamba" and env.name == "ml" and env.prefix == PREFIX


def test_export_cli_with_conda_backend(envkit_cli, tmp_path, isolated_conda, monkeypatch):
    monkeypatch.setenv("CONDA_EXE", str(fake_conda(tmp_path)))
    r = envkit_cli("export", "-n", "ml", "--backend", "conda")
    assert r.exit_code == 0, r.stderr
    assert r.stdout == (
        "# Exported by envkit from a linux-64 environment; regenerate: envkit export -n ml --backend conda\n"
        "name: ml\n"
        "channels:\n"
        "  - pytorch\n"
        "  - conda-forge\n"
        "dependencies:\n"
        "  - conda-forge::numpy=1.26.4=py311h64a7726_0\n"
        "  - conda-forge::python=3.11.8=hab00c5b_0_cpython\n"
        "  - pytorch::pytorch=2.2.1=py3.11_cuda12.1_cudnn8.9.2_0\n"
        "  - pip:\n"
        "    - tinyreq==2.0\n"
        "variables:\n"
        '  OMP_NUM_THREADS: "4"\n'
    )


def test_export_cli_missing_backend(envkit_cli, tmp_path, isolated_conda, monkeypatch):
    monkeypatch.setenv("PATH", str(tmp_path))
    r = envkit_cli("export", "-p", PREFIX, "--backend", "mamba")
    assert r.exit_code == 2
    assert r.stderr.startswith(
        "error: mamba: executable not found (looked at CONDA_EXE, MAMBA_EXE and PATH)\n"
    )


# --- micromamba and mamba 2.x answer differently (libmamba: list.cpp, info.cpp, micromamba/src/env.cpp) ---

MM_PREFIX = "/home/u/micromamba/envs/ml"
MM_INFO = {  # micromamba info --json: display names as keys, no "envs" list, channels expanded per subdir
    "base environment": "/home/u/micromamba",
    "channels": [
        "https://conda.anaconda.org/conda-forge/linux-64",
        "https://conda.anaconda.org/conda-forge/noarch",
    ],
    "env location": "-",
    "environment": "None (not found)",
    "envs_dirs": ["/home/u/micromamba/envs"],
    "libmamba version": "1.5.8",
    "micromamba version": "1.5.8",
    "pkgs_dirs": ["/home/u/micromamba/pkgs"],
    "platform": "linux-64",
    "populated config files": ["/home/u/.condarc"],
    "user config files": ["/home/u/.mambarc"],
    "virtual packages": ["__unix=0=0", "__linux=6.5.0=0"],
}
MM_ENVS = {"envs": ["/home/u/micromamba", MM_PREFIX]}
# micromamba 1.x: list --json with conda's keys, no pip packages
MM15_LIST = [
    {
        "base_url": "https://conda.anaconda.org/conda-forge",
        "build_number": 0,
        "build_string": "py311h64a7726_0",
        "channel": "conda-forge",
        "dist_name": "numpy-1.26.4-py311h64a7726_0",
        "name": "numpy",
        "platform": "linux-64",
        "version": "1.26.4",
    },
    {
        "base_url": "https://conda.anaconda.org/conda-forge",
        "build_number": 0,
        "build_string": "hab00c5b_0_cpython",
        "channel": "conda-forge",
        "dist_name": "python-3.11.8-hab00c5b_0_cpython",
        "name": "python",
        "platform": "linux-64",
        "version": "3.11.8",
    },
]
# micromamba 1.x and 2.0.0-2.0.2 ignore --json in `env export` and print YAML (mamba#3492), no prefix
MM15_EXPORT = (
    "name: ml\nchannels:\n- conda-forge\ndependencies:\n- numpy=1.26.4=py311h64a7726_0\n"
    "- python=3.11.8=hab00c5b_0_cpython\n\n"
)
MM15_HISTORY = "name: ml\nchannels:\n- conda-forge\ndependencies:\n- numpy\n- python=3.11\n\n"


def _mm_answers(listing, export, history, target=("-n", "ml")):
    t = " ".join(target)
    return {
        f"list {t} --json": listing,
        f"env export {t} --json": export,
        f"env export {t} --json --from-history": history,
        "info --json": MM_INFO,
        "env list --json": MM_ENVS,
    }


def test_micromamba_1_yaml_export_and_prefix_from_env_list(tmp_path, isolated_conda, monkeypatch):
    exe = fake_conda(tmp_path, "micromamba", _mm_answers(MM15_LIST, MM15_EXPORT, MM15_HISTORY))
    monkeypatch.setenv("MAMBA_EXE", str(exe))
    env = open_env(name="ml", backend="micromamba")
    assert env.backend == "micromamba" and env.prefix == MM_PREFIX and env.name == "ml"
    assert [p.conda_form() for p in env.packages] == [
        "conda-forge::numpy=1.26.4=py311h64a7726_0",
        "conda-forge::python=3.11.8=hab00c5b_0_cpython",
    ]
    assert [d.spec() for d in env.requested] == ["numpy", "python=3.11"]
    assert [p.requested for p in env.packages] == [True, True]
    assert [c.name for c in env.channels] == ["conda-forge"]
    assert env.packages[0].md5 is None and env.packages[0].url is None  # 1.x does not say


def test_micromamba_2_0_0_mangled_channel_is_cut_back(tmp_path, isolated_conda):
    """micromamba 2.0.0 wrote the package URL into base_url and channel (mamba#3480)."""
    listing = [
        {
            "base_url": "https://conda.anaconda.org/conda-forge/linux-64/zstd-1.5.6-ha6fb4c9_0.conda",
            "build_number": 0,
            "build_string": "ha6fb4c9_0",
            "channel": "conda-forge/linux-64/zstd-1.5.6-ha6fb4c9_0.conda",
            "dist_name": "zstd-1.5.6-ha6fb4c9_0",
            "name": "zstd",
            "platform": "linux-64",
            "version": "1.5.6",
        }
    ]
    exe = fake_conda(
        tmp_path,
        "micromamba",
        _mm_answers(
            listing,
            MM15_EXPORT.replace("numpy", "zstd"),
            "name: ml\nchannels:\n- conda-forge\ndependencies:\n- zstd\n\n",
            target=("-p", MM_PREFIX),
        ),
    )
    env = CondaCli(str(exe)).read_env(prefix=MM_PREFIX)
    (p,) = env.packages
    assert (p.channel, p.subdir, p.conda_form()) == (
        "conda-forge",
        "linux-64",
        "conda-forge::zstd=1.5.6=ha6fb4c9_0",
    )
    assert p.url == "https://conda.anaconda.org/conda-forge/linux-64/zstd-1.5.6-ha6fb4c9_0.conda"
    assert env.prefix == MM_PREFIX


MD5 = "0baad99a59d471b1e8ed988e2098b011"
SHA = "438225b241c5f9bddae6f0178a97f5870a89ecf927dfca54753e689907331442"
# micromamba/mamba 2.x: list --json adds url, md5, sha256; pip packages come from `pip inspect`
MM2_LIST = [
    {
        "base_url": "https://conda.anaconda.org/conda-forge",
        "build_number": 0,
        "build_string": "py311h64a7726_0",
        "channel": "conda-forge",
        "dist_name": "numpy-1.26.4-py311h64a7726_0",
        "md5": MD5,
        "name": "numpy",
        "platform": "linux-64",
        "sha256": SHA,
        "url": "https://conda.anaconda.org/conda-forge/linux-64/numpy-1.26.4-py311h64a7726_0.conda",
        "version": "1.26.4",
    },
    {
        "base_url": "https://pypi.org/",
        "build_number": 0,
        "build_string": "pypi_0",
        "channel": "pypi",
        "dist_name": "tinyreq-2.0-pypi_0",
        "md5": "",
        "name": "tinyreq",
        "platform": "linux-x86_64",
        "sha256": "",
        "url": "",
        "version": "2.0",
    },
]
MM2_EXPORT = {
    "channels": ["conda-forge"],
    "dependencies": ["numpy=1.26.4=py311h64a7726_0", {"pip": ["tinyreq==2.0"]}],
    "name": "ml",
}  # 2.0: no prefix (mamba#3561)
# 2.0.3 with --from-history: a trailing comma, not JSON (mamba#3582)
MM2_HISTORY = (
    '{\n  "channels": [\n    "conda-forge"\n  ],\n  "dependencies": [\n    "numpy>=1.26",\n  ],\n'
    '  "name": "ml"\n}\n'
)


def test_mamba_2_hashes_urls_pip_and_broken_from_history_json(tmp_path, isolated_conda, monkeypatch):
    fake_conda(tmp_path, "mamba", _mm_answers(MM2_LIST, MM2_EXPORT, MM2_HISTORY))
    monkeypatch.setenv("PATH", f"{tmp_path}{os.pathsep}/usr/bin:/bin")
    env = open_env(name="ml", backend="mamba")
    assert env.backend == "mamba" and env.prefix == MM_PREFIX
    numpy, tinyreq = env.packages
    assert (numpy.url, numpy.md5, numpy.sha256) == (MM2_LIST[0]["url"], MD5, SHA)
    assert (tinyreq.manager, tinyreq.conda_form(), tinyreq.md5) == ("pip", "tinyreq==2.0", None)
    assert [d.name for d in env.pip_dists] == ["tinyreq"]
    assert [d.spec() for d in env.requested] == ["numpy>=1.26"]


def test_lock_through_mamba_2_carries_its_hashes(envkit_cli, tmp_path, isolated_conda, monkeypatch):
    monkeypatch.setenv(
        "MAMBA_EXE", str(fake_conda(tmp_path, "mamba", _mm_answers(MM2_LIST, MM2_EXPORT, MM2_HISTORY)))
    )
    out = tmp_path / "conda-lock.yml"
    r = envkit_cli(
        "lock", "-n", "ml", "--backend", "mamba", "--no-env-lock", "--allow-unhashed-pip", "-o", str(out)
    )  # its pip package is on no index here
    assert r.exit_code == 0, r.stderr
    from envkit.formats import read_text

    lock = read_text(out.read_text(), filename=str(out))
    numpy = next(p for p in lock.packages if p.name == "numpy")
    assert (numpy.md5, numpy.sha256, numpy.channel) == (MD5, SHA, "conda-forge")


def test_export_that_is_neither_json_nor_an_environment_is_an_error(tmp_path, isolated_conda):
    exe = fake_conda(
        tmp_path,
        "micromamba",
        _mm_answers(MM15_LIST, "error: something: else\n", MM15_HISTORY, target=("-p", MM_PREFIX)),
    )
    with pytest.raises(
        BackendError, match=r"micromamba env export did not print JSON \(nor an environment YAML\)"
    ):
        CondaCli(str(exe)).read_env(prefix=MM_PREFIX)


def test_conda_defaults_expanded_by_info_is_one_defaults_channel(tmp_path, isolated_conda):
    info = dict(
        INFO,
        channels=[
            "https://repo.anaconda.com/pkgs/main/linux-64",
            "https://repo.anaconda.com/pkgs/main/noarch",
            "https://repo.anaconda.com/pkgs/r/linux-64",
            "https://repo.anaconda.com/pkgs/r/noarch",
        ],
    )
    listing = [
        dict(
            LIST[2],
            base_url="https://repo.anaconda.com/pkgs/main",
            channel="pkgs/main",
            build_string="h955ad1f_0",
            dist_name="python-3.11.8-h955ad1f_0",
        )
    ]
    export = dict(EXPORT, channels=["defaults"], dependencies=["python=3.11.8=h955ad1f_0"])
    history = dict(HISTORY, channels=["defaults"], dependencies=["python=3.11"])
    answers = {
        f"list -p {PREFIX} --json": listing,
        f"env export -p {PREFIX} --json": export,
        f"env export -p {PREFIX} --json --from-history": history,
        "info --json": info,
    }
    url = "https://repo.anaconda.com/pkgs/main/linux-64/python-3.11.8-h955ad1f_0.conda"
    answers.update(
        {
            f"list -p {PREFIX} --explicit --md5": f"@EXPLICIT\n{url}#{'a' * 32}",
            f"list -p {PREFIX} --explicit --sha256": f"@EXPLICIT\n{url}#{'b' * 64}",
        }
    )
    env = CondaCli(str(fake_conda(tmp_path, answers=answers))).read_env(prefix=PREFIX)
    assert [c.name for c in env.channels] == ["defaults"]
    assert env.packages[0].conda_form() == "pkgs/main::python=3.11.8=h955ad1f_0"


def test_export_exe_without_a_cli_backend_is_an_error(envkit_cli, tmp_path, isolated_conda):
    exe = fake_conda(tmp_path)
    r = envkit_cli("export", "-n", "ml", "--exe", str(exe))
    assert (r.exit_code, r.stdout) == (2, "")
    assert r.stderr == (
        "error: --exe names the executable of --backend conda, mamba or micromamba; the native "
        "backend (the default) runs none\nhint: add --backend conda (or mamba, micromamba)\n"
    )
    r = envkit_cli("export", "-n", "ml", "--exe", str(exe), "--backend", "conda")
    assert r.exit_code == 0, r.stderr
    assert r.stdout.startswith(
        "# Exported by envkit from a linux-64 environment; regenerate: envkit export -n ml --backend conda\n"
    )
