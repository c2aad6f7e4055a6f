"""Index fidelity: a pip section that names the PyTorch wheel index gets torch from it, or the lock
fails naming it; never PyPI's torch in its place.  The lock records each pip artifact's index."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
from pathlib import Path

from support.condafactory import build_wheel

TORCH_INDEX = "https://download.pytorch.org/whl/cu126"


def simple_index(root: Path, wheels: list[Path]) -> str:
    """A PEP 503 simple index (file://) serving `wheels`, as PyPI would; returns its URL."""
    for whl in wheels:
        (root / "files").mkdir(parents=True, exist_ok=True)
        whl = Path(shutil.copy(whl, root / "files" / whl.name))  # served beside the index, as PyPI's are
        project = whl.name.split("-")[0].lower().replace("_", "-")
        d = root / "simple" / project
        d.mkdir(parents=True, exist_ok=True)
        sha = hashlib.sha256(whl.read_bytes()).hexdigest()
        (d / "index.html").write_text(
            f'<html><body><a href="{whl.as_uri()}#sha256={sha}">{whl.name}</a></body></html>\n'
        )
    return (root / "simple").as_uri()


def pip_env(**more) -> dict[str, str]:
    # a proxy that refuses connections: download.pytorch.org is unreachable, as offline; file:// is
    # not proxied
    env = {
        "PIP_CONFIG_FILE": os.devnull,
        "PIP_RETRIES": "0",
        "PIP_TIMEOUT": "2",
        "PIP_FIND_LINKS": "",
        "PIP_NO_INDEX": "",
        "PIP_PROXY": "http://127.0.0.1:9",
        "HTTPS_PROXY": "http://127.0.0.1:9",
    }
    env.update(more)
    return env


def write_spec(path: Path, channel: str, pip: list[str]) -> Path:
    path.write_text(
        "channels:\n  - "
        + channel
        + "\ndependencies:\n  - python=3.11\n  - pip\n  - pip:\n"
        + "".join(f"    - {p}\n" for p in pip)
    )
    return path


def test_unreachable_pytorch_index_is_an_error_not_pypis_torch(envkit_cli, tmp_path, default_channel):
    pypi = simple_index(tmp_path / "pypi", [build_wheel(tmp_path / "w", "torch", "2.7.1")])
    spec = write_spec(
        tmp_path / "environment.yml",
        default_channel.url,
        [f"--index-url {TORCH_INDEX}", f"--extra-index-url {pypi}", "torch==2.7.*"],
    )
    out = tmp_path / "conda-lock.yml"
    r = envkit_cli("lock", "-f", str(spec), "--platform", "linux-64", "-o", str(out), env=pip_env())
    assert r.exit_code == 2, r.stderr
    assert r.stderr.splitlines()[0] == (
        f"error: {spec}:3: linux-64: pip locked torch==2.7.1 from {pypi}, not from the index the pip section "
        f"names for it, {TORCH_INDEX}: that index was unreachable or lacks the release, and pip fell back "
        "to another index"
    )
    assert not out.exists()


def test_the_lock_records_each_pip_artifacts_index(envkit_cli, tmp_path, default_channel):
    from envkit.formats.condalock import custom_metadata, read_conda_lock

    pypi = simple_index(tmp_path / "pypi", [build_wheel(tmp_path / "w", "six", "1.16.0")])
    spec = write_spec(
        tmp_path / "environment.yml", default_channel.url, [f"--index-url {pypi}", "six==1.16.0"]
    )
    out = tmp_path / "conda-lock.yml"
    r = envkit_cli("lock", "-f", str(spec), "--platform", "linux-64", "-o", str(out), env=pip_env())
    assert r.exit_code == 0, r.stderr
    lock = read_conda_lock(out.read_text(), str(out))
    assert json.loads(custom_metadata(lock)["envkit.pip_index"]) == {"six": pypi}


def test_check_flags_a_cuda_wheel_asked_for_from_another_variants_index(envkit_cli, tmp_path):
    spec = tmp_path / "environment.yml"
    spec.write_text(
        "channels:\n  - conda-forge\n  - nodefaults\ndependencies:\n  - python=3.12\n  - pip\n  - pip:\n"
        "    - --index-url https://download.pytorch.org/whl/cu118\n"
        "    - --extra-index-url https://pypi.org/simple\n"
        "    - torch==2.7.1+cu126\n    - torchvision==0.22.1+cu118\n"
    )
    r = envkit_cli("check", str(spec), "--select", "wheel-index")
    assert r.exit_code == 1
    assert r.stdout.splitlines() == [
        f"{spec}:10: error wheel-index: torch==2.7.1+cu126 is published only on "
        "https://download.pytorch.org/whl/cu126, which the pip section does not name (pip searches "
        "https://download.pytorch.org/whl/cu118, https://pypi.org/simple)",
        "1 finding (1 error) in 1 file checked",
    ]


def test_check_flags_a_locked_cuda_wheel_from_pypi_or_another_variant(envkit_cli, tmp_path):
    from envkit.formats.condalock import write_conda_lock
    from envkit.model import Lock, LockedPackage

    def torch(version, url):
        return LockedPackage(
            manager="pip", name="torch", version=version, platform="linux-64", url=url, sha256="a" * 64
        )

    lock = Lock(
        kind="conda-lock",
        platforms=("linux-64",),
        packages=(
            torch(
                "2.7.1+cu126",
                "https://download.pytorch.org/whl/cu118/torch-2.7.1%2Bcu126-cp312-cp312-linux_x86_64.whl",
            ),
        ),
        content_hash=(("linux-64", "0" * 64),),
    )
    path = tmp_path / "conda-lock.yml"
    path.write_text(write_conda_lock(lock))
    r = envkit_cli("check", str(path), "--select", "wheel-index")
    assert r.exit_code == 1
    assert (
        "error wheel-index: torch 2.7.1+cu126 (linux-64) was locked from the cu118 index, not from "
        "https://download.pytorch.org/whl/cu126, the only index with that build" in r.stdout
    )
    good = replace_url(
        lock, "https://download.pytorch.org/whl/cu126/torch-2.7.1%2Bcu126-cp312-cp312-linux_x86_64.whl"
    )
    path.write_text(write_conda_lock(good))
    r = envkit_cli("check", str(path), "--select", "wheel-index")
    assert (r.exit_code, r.stdout) == (0, "no findings (1 file checked)\n")


def replace_url(lock, url):
    from dataclasses import replace

    return replace(lock, packages=tuple(replace(p, url=url) for p in lock.packages))
