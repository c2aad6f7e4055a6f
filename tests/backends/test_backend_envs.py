"""`-n NAME` resolution: envs_dirs from every .condarc location, environments.txt, conda info."""

from __future__ import annotations

import json
import os
import stat

import pytest
from support.condafactory import answering_exe, named_env, write_condarc

from envkit.backends.envs import envs_dirs, known_envs, resolve_name
from envkit.errors import EnvironmentNotFound

pytestmark = pytest.mark.slow


def test_envs_dirs_order(tmp_path, isolated_conda, monkeypatch):
    write_condarc(isolated_conda / ".condarc", envs_dirs=[str(tmp_path / "a")])
    rc = write_condarc(tmp_path / "rc", envs_dirs=[str(tmp_path / "b")])
    monkeypatch.setenv("CONDARC", str(rc))
    monkeypatch.setenv("CONDA_ROOT", str(tmp_path / "root"))
    assert envs_dirs() == [
        str(tmp_path / "b"),
        str(tmp_path / "a"),
        str(tmp_path / "root" / "envs"),
        str(isolated_conda / ".conda" / "envs"),
    ]


def test_name_from_condarc_envs_dirs(tmp_path, isolated_conda, default_prefix):
    root = tmp_path / "myenvs"
    env = named_env(root, "ml", default_prefix)
    write_condarc(isolated_conda / ".condarc", envs_dirs=[str(root)])
    assert resolve_name("ml") == str(env)


def test_name_from_condarc_env_var(tmp_path, isolated_conda, default_prefix, monkeypatch):
    env = named_env(tmp_path / "other", "proj", default_prefix)
    monkeypatch.setenv("CONDARC", str(write_condarc(tmp_path / "c.yml", envs_dirs=[str(tmp_path / "other")])))
    assert resolve_name("proj") == str(env)


def test_name_from_environments_txt_and_base(tmp_path, isolated_conda, default_prefix, monkeypatch):
    env = named_env(
        tmp_path / "elsewhere",
        "ana",
        default_prefix,
        environments_txt=isolated_conda / ".conda" / "environments.txt",
    )
    assert resolve_name("ana") == str(env)
    monkeypatch.setenv("CONDA_ROOT", str(default_prefix))
    assert resolve_name("base") == str(default_prefix)
    assert [k.name for k in known_envs()] == ["base", "ana"]


def test_unknown_name_lists_the_nearest(tmp_path, isolated_conda, default_prefix):
    root = isolated_conda / ".conda" / "envs"
    for n in ("torch-cuda", "torch-cpu", "docs"):
        named_env(root, n, default_prefix)
    with pytest.raises(EnvironmentNotFound) as exc:
        resolve_name("torch-cud")
    assert exc.value.message == "no conda environment named 'torch-cud'"
    assert exc.value.hint == "did you mean 'torch-cuda' or 'torch-cpu'?"
    with pytest.raises(EnvironmentNotFound) as exc:
        resolve_name("zzzzzz")
    assert exc.value.hint == "known environments: docs, torch-cpu, torch-cuda"


def test_name_from_conda_info(tmp_path, isolated_conda, default_prefix, monkeypatch):
    """When only conda knows the env, `conda info --json` is asked (a fake conda prints it)."""
    env = named_env(tmp_path / "hidden", "secret", default_prefix)
    exe = tmp_path / "bin" / "conda"
    exe.parent.mkdir()
    exe.write_text(f"#!/bin/sh\necho '{json.dumps({'envs': [str(env)], 'root_prefix': '/nowhere'})}'\n")
    exe.chmod(exe.stat().st_mode | stat.S_IEXEC)
    monkeypatch.setenv("PATH", f"{exe.parent}{os.pathsep}{os.environ['PATH']}")
    assert resolve_name("secret") == str(env)


def test_cli_unknown_name(envkit_cli, tmp_path, isolated_conda, default_prefix):
    named_env(isolated_conda / ".conda" / "envs", "research", default_prefix)
    r = envkit_cli("export", "-n", "reserch")
    assert r.exit_code == 2
    assert r.stderr == "error: no conda environment named 'reserch'\nhint: did you mean 'research'?\n"


def test_name_from_conda_info_envs_dirs(tmp_path, isolated_conda, default_prefix, monkeypatch):
    """An env in an envs dir only conda's configuration names (not in `envs`, e.g. never registered)."""
    env = named_env(tmp_path / "site-envs", "team", default_prefix)
    exe = answering_exe(
        tmp_path / "bin",
        "conda",
        {"info --json": {"envs": [], "envs_dirs": [str(tmp_path / "site-envs")], "root_prefix": "/nowhere"}},
    )
    monkeypatch.setenv("PATH", f"{exe.parent}{os.pathsep}{os.environ['PATH']}")
    assert resolve_name("team") == str(env)


def test_name_from_micromamba_env_list(tmp_path, isolated_conda, default_prefix, monkeypatch):
    """micromamba's info --json has no `envs`: its `env list --json` is asked."""
    env = named_env(tmp_path / "hidden", "mm", default_prefix)
    exe = answering_exe(
        tmp_path / "bin",
        "micromamba",
        {
            "info --json": {
                "base environment": "/nowhere",
                "envs_dirs": ["/nowhere/envs"],
                "platform": "linux-64",
            },
            "env list --json": {"envs": ["/nowhere", str(env)]},
        },
    )
    monkeypatch.setenv("PATH", f"{exe.parent}{os.pathsep}/usr/bin:/bin")
    assert resolve_name("mm") == str(env)
    with pytest.raises(EnvironmentNotFound) as exc:
        resolve_name("mn")
    assert exc.value.hint == "did you mean 'mm'?"
