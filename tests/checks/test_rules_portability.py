"""The portability rules through `envkit check`: each with a file that fails and one that passes.

platform-only, no-channels, short-exact-pin, pypi-only-in-conda, legacy-url,
missing-requirements-file, yaml-number."""

from __future__ import annotations

import textwrap

import pytest
from conftest import DATA


@pytest.fixture
def repo(tmp_path):
    (tmp_path / ".git").mkdir()  # the config search stops here
    return tmp_path


def check(repo, envkit_cli, rule, text, name="environment.yml"):
    (repo / name).write_text(textwrap.dedent(text).lstrip("\n"))
    r = envkit_cli("check", name, "--select", rule, cwd=repo)
    return r.exit_code, [line for line in r.stdout.splitlines() if f" {rule}: " in line]


NOWHERE = "a file that names no platform (no `platforms:` list)"


def test_platform_only_packages_and_wheels(repo, envkit_cli):
    code, lines = check(
        repo,
        envkit_cli,
        "platform-only",
        """
        channels: [conda-forge, nodefaults]
        dependencies:
          - python=3.11
          - pywin32
          - conda-forge/win-64::pywinpty
          - libgcc-ng
          - pip
          - pip:
            - https://example.org/w/foo-1.0-cp311-cp311-win_amd64.whl
            - tensorflow-macos==2.16.2
        """,
    )
    assert code == 0  # warnings only
    assert lines == [
        f"environment.yml:4: warning platform-only: pywin32 exists for Windows only, in {NOWHERE}: "
        f"conda fails elsewhere",
        f"environment.yml:5: warning platform-only: pywinpty is pinned to the win-64 subdir, for Windows "
        f"only, in {NOWHERE}",
        f"environment.yml:6: warning platform-only: libgcc-ng exists for Linux only, in {NOWHERE}: "
        f"conda fails elsewhere",
        f"environment.yml:9: warning platform-only: pip wheel foo is built for Windows only (win_amd64), "
        f"in {NOWHERE}: add a marker such as `; sys_platform == ...`",
        f"environment.yml:10: warning platform-only: pip package tensorflow-macos exists for macOS only, "
        f"in {NOWHERE}: add a marker such as `; sys_platform == ...`",
    ]


@pytest.mark.parametrize(
    "name, text",
    [
        (
            "environment.yml",
            """
        channels: [conda-forge, nodefaults]
        dependencies:
          - pip
          - pip:
            - pywin32==306; sys_platform == "win32"
            - https://example.org/w/foo-1.0-py3-none-any.whl
        """,
        ),
        (
            "environment.yml",
            """
        channels: [conda-forge, nodefaults]
        dependencies:
          - pywin32
        platforms: [win-64]
        """,
        ),
        (
            "environment-windows.yml",
            """
        channels: [conda-forge, nodefaults]
        dependencies:
          - pywin32
        """,
        ),
    ],
)
def test_platform_only_with_a_platform_restriction_passes(repo, envkit_cli, name, text):
    assert check(repo, envkit_cli, "platform-only", text, name) == (0, [])


def test_no_channels(repo, envkit_cli):
    msg = (
        "the channels come from each user's .condarc, so the environment differs from machine to "
        "machine; list them (channels: [conda-forge, nodefaults])"
    )
    assert check(
        repo,
        envkit_cli,
        "no-channels",
        """
        name: demo
        dependencies:
          - numpy
        """,
    ) == (0, [f"environment.yml:2: warning no-channels: no `channels:`: {msg}"])
    assert check(
        repo,
        envkit_cli,
        "no-channels",
        """
        channels: []
        dependencies:
          - numpy
        """,
    ) == (0, [f"environment.yml:1: warning no-channels: an empty `channels:` list: {msg}"])
    assert check(
        repo,
        envkit_cli,
        "no-channels",
        """
        channels: [conda-forge]
        dependencies:
          - numpy
        """,
    ) == (0, [])
    # a requirements file has no channels to list
    assert check(repo, envkit_cli, "no-channels", "numpy==1.26.4\n", "requirements.txt") == (0, [])


def test_short_exact_pin(repo, envkit_cli):
    code, lines = check(
        repo,
        envkit_cli,
        "short-exact-pin",
        """
        channels: [conda-forge, nodefaults]
        dependencies:
          - python==3.6
          - numpy==1.26
        """,
    )
    assert lines == [
        "environment.yml:3: warning short-exact-pin: 'python==3.6' means python 3.6.0 only "
        "(conda's == is exact); write python=3.6 for any 3.6.x, or the full version"
    ]
    assert check(
        repo,
        envkit_cli,
        "short-exact-pin",
        """
        channels: [conda-forge, nodefaults]
        dependencies:
          - python 3.6
        """,
    )[1] == [
        "environment.yml:3: warning short-exact-pin: 'python 3.6' means python 3.6.0 only "
        "(conda's == is exact); write python=3.6 for any 3.6.x, or the full version"
    ]
    for ok in ("python=3.6", "python==3.6.15", "python=3.6.*", "python>=3.6"):
        assert check(
            repo, envkit_cli, "short-exact-pin", f"channels: [conda-forge]\ndependencies:\n  - {ok}\n"
        ) == (0, []), ok


def test_pypi_only_in_conda(repo, envkit_cli):
    code, lines = check(
        repo,
        envkit_cli,
        "pypi-only-in-conda",
        """
        channels: [conda-forge, nodefaults]
        dependencies:
          - tensorflow-macos
          - mediapipe=0.10.14
          - opencv-python
          - torch
          - nvidia-cudnn-cu12
        """,
    )
    assert code == 1
    assert lines == [
        "environment.yml:3: error pypi-only-in-conda: tensorflow-macos is not a conda package (PyPI "
        "only): move it to the pip section",
        "environment.yml:4: error pypi-only-in-conda: mediapipe is not a conda package (PyPI only): move "
        "it to the pip section",
        "environment.yml:5: error pypi-only-in-conda: opencv-python is not a conda package (PyPI only): "
        "conda-forge calls it opencv (or py-opencv)",
        "environment.yml:6: error pypi-only-in-conda: torch is not a conda package (PyPI only): conda "
        "calls it pytorch",
        "environment.yml:7: error pypi-only-in-conda: nvidia-cudnn-cu12 is not a conda package (PyPI "
        "only): it is NVIDIA's pip wheel; conda's CUDA packages are named cuda-*, cudnn, nccl",
    ]
    assert check(
        repo,
        envkit_cli,
        "pypi-only-in-conda",
        """
        channels: [conda-forge, nodefaults]
        dependencies:
          - py-opencv
          - pytorch
          - pip
          - pip:
            - mediapipe==0.10.14
            - opencv-python
        """,
    ) == (0, [])


def test_legacy_url_in_channels_and_explicit_files(repo, envkit_cli):
    url = "http://repo.continuum.io/pkgs/free"
    assert check(
        repo,
        envkit_cli,
        "legacy-url",
        f"""
        channels:
          - {url}
        dependencies:
          - python=3.6
        """,
    ) == (
        0,
        [
            f"environment.yml:2: warning legacy-url: {url} is on repo.continuum.io, the defaults "
            f"channels' old host: use the channel name (defaults, pkgs/main) or repo.anaconda.com"
        ],
    )
    md5 = "a81082d975ded475914bc5d07da23e78"
    first = "https://repo.continuum.io/pkgs/main/linux-64/python-3.6.0-0.tar.bz2"
    code, lines = check(
        repo,
        envkit_cli,
        "legacy-url",
        f"""
        @EXPLICIT
        {first}#{md5}
        https://repo.continuum.io/pkgs/main/linux-64/zlib-1.2.8-3.tar.bz2#{md5}
        """,
        "spec-file.txt",
    )
    assert lines == [
        f"spec-file.txt:2: warning legacy-url: {first} is on repo.continuum.io, the defaults "
        f"channels' old host: use the channel name (defaults, pkgs/main) or repo.anaconda.com "
        f"(2 lines use it, the first here)"
    ]
    assert check(
        repo,
        envkit_cli,
        "legacy-url",
        """
        channels:
          - defaults
          - https://repo.anaconda.com/pkgs/main
        dependencies:
          - python=3.6
        """,
    ) == (0, [])


def test_missing_requirements_file(repo, envkit_cli):
    text = """
        channels: [conda-forge, nodefaults]
        dependencies:
          - pip
          - pip:
            - -r requirements.txt
            - --requirement=sub/dev.txt
            - -r ${HOME}/not-checked.txt
        """
    code, lines = check(repo, envkit_cli, "missing-requirements-file", text)
    where = "relative to the folder of environment.yml, where conda runs pip, so pip fails"
    assert code == 1
    assert lines == [
        f"environment.yml:5: error missing-requirements-file: `-r requirements.txt`: there is no file "
        f"requirements.txt {where}",
        f"environment.yml:6: error missing-requirements-file: `--requirement=sub/dev.txt`: there is no "
        f"file sub/dev.txt {where}",
    ]
    (repo / "requirements.txt").write_text("requests==2.32.3\n")
    (repo / "sub").mkdir()
    (repo / "sub" / "dev.txt").write_text("pytest\n")
    assert check(repo, envkit_cli, "missing-requirements-file", text) == (0, [])


def test_missing_requirements_file_is_relative_to_the_env_file_not_the_cwd(repo, envkit_cli):
    (repo / "envs").mkdir()
    (repo / "envs" / "environment.yml").write_text(
        "channels: [conda-forge]\ndependencies:\n  - pip\n  - pip:\n    - -r requirements.txt\n"
    )
    (repo / "requirements.txt").write_text("requests\n")  # beside the cwd, not the file
    r = envkit_cli("check", "envs/environment.yml", "--select", "missing-requirements-file", cwd=repo)
    assert r.exit_code == 1 and "envs/environment.yml:5: error missing-requirements-file:" in r.stdout
    (repo / "envs" / "requirements.txt").write_text("requests\n")
    r = envkit_cli("check", "envs/environment.yml", "--select", "missing-requirements-file", cwd=repo)
    assert r.exit_code == 0


def test_yaml_number_in_an_env_file(repo, envkit_cli):
    code, lines = check(
        repo,
        envkit_cli,
        "yaml-number",
        """
        name: 3.10
        channels: [conda-forge, nodefaults]
        dependencies:
          - python=3.10
        variables:
          PYTHON_VERSION: 3.10
          QUOTED: '3.10'
          PLAIN: 3.1
        """,
    )
    assert code == 1
    assert lines == [
        "environment.yml:1: error yaml-number: `name: 3.10` is read by YAML as the number 3.1, so it "
        "becomes '3.1', not '3.10'; quote it: '3.10'",
        "environment.yml:6: error yaml-number: `PYTHON_VERSION: 3.10` is read by YAML as the number 3.1, "
        "so it becomes '3.1', not '3.10'; quote it: '3.10'",
    ]


def test_yaml_number_in_a_conda_lock_python_version(repo, envkit_cli):
    lock = (DATA / "lock" / "conda-lock.yml").read_text()
    assert "  version: 3.11.9\n" in lock
    bad = lock.replace("  version: 3.11.9\n", "  version: 3.10\n")
    (repo / "conda-lock.yml").write_text(bad)
    r = envkit_cli("check", "conda-lock.yml", "--select", "yaml-number", cwd=repo)
    line = bad.splitlines().index("  version: 3.10") + 1
    assert (r.exit_code, r.stdout.splitlines()[0]) == (
        1,
        (
            f"conda-lock.yml:{line}: error yaml-number: `version: 3.10` is read by YAML as the number 3.1, "
            f"so it becomes '3.1', not '3.10'; quote it: '3.10'"
        ),
    )
    (repo / "conda-lock.yml").write_text(lock)
    r = envkit_cli("check", "conda-lock.yml", "--select", "yaml-number", cwd=repo)
    assert r.exit_code == 0
