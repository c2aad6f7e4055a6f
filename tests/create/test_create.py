"""`envkit create` from a lock: real installs from local channels and wheels, offline."""

from __future__ import annotations

import functools
import http.server
import os
import stat
import sys
import threading
from dataclasses import replace
from pathlib import Path

import pytest
from support.condafactory import build_wheel, copy_prefix, pip_install

from envkit.model import Lock, LockedPackage

pytestmark = pytest.mark.slow


def package_set(env) -> tuple[list, list]:
    conda = sorted((p.name, p.version, p.build, p.channel) for p in env.packages if p.manager == "conda")
    pip = sorted((p.name.lower(), p.version) for p in env.packages if p.manager == "pip")
    return conda, pip


@pytest.fixture(scope="module")
def source_env(tmp_path_factory, default_prefix):
    """A copy of the default prefix plus two pip packages: one index install, one URL install."""
    root = tmp_path_factory.mktemp("source")
    prefix = copy_prefix(default_prefix, root / "env")
    wheels = root / "wheels"
    pip_install(prefix, build_wheel(wheels, "tinyreq", "2.0", requires=["helper"]), direct=True)
    pip_install(prefix, build_wheel(wheels, "helper", "1.1"), direct=True)
    return prefix


def read_lock(path: Path) -> Lock:
    from envkit.formats.condalock import read_conda_lock

    return read_conda_lock(path.read_text(), filename=str(path))


def write_lock(path: Path, lock: Lock) -> Path:
    from envkit.formats.condalock import write_conda_lock

    path.write_text(write_conda_lock(lock))
    return path


def test_lock_create_export_round_trip(envkit_cli, tmp_path, source_env):
    from envkit.backends import open_env

    lock = tmp_path / "conda-lock.yml"
    assert envkit_cli("lock", "-p", str(source_env), "--no-env-lock", "-o", str(lock)).exit_code == 0
    target = tmp_path / "rebuilt"
    r = envkit_cli("create", "--lock", str(lock), "-p", str(target), "--platform", "linux-64")
    assert r.exit_code == 0, r.stderr
    assert r.stdout == (
        f"created {target} (linux-64, rattler): 9 conda packages and 2 pip packages, pip hashes required\n"
    )
    before, after = open_env(prefix=str(source_env)), open_env(prefix=str(target))
    assert package_set(after) == package_set(before)
    assert package_set(after)[1] == [("helper", "1.1"), ("tinyreq", "2.0")]
    # the pip packages went into the new prefix's own site-packages, nowhere else
    site = target / "lib" / "python3.11" / "site-packages"
    assert (site / "tinyreq" / "__init__.py").read_text() == '__version__ = "2.0"\n'
    # `envkit export` of both says the same thing (but for the name, the prefix's directory name)
    exports = []
    for prefix in (source_env, target):
        r = envkit_cli("export", "-p", str(prefix))
        assert r.exit_code == 0, r.stderr
        exports.append([ln for ln in r.stdout.splitlines() if not ln.startswith(("name:", "#"))])
    assert exports[0] == exports[1]
    assert any("::numpy=1.26.4=py311h64a7726_0" in ln for ln in exports[1])
    # and locking the rebuilt environment gives the same lock, package for package
    again = tmp_path / "again.yml"
    assert envkit_cli("lock", "-p", str(target), "--no-env-lock", "-o", str(again)).exit_code == 0
    assert read_lock(again).packages == read_lock(lock).packages


PIP_LOCAL = {"PIP_CONFIG_FILE": os.devnull, "PIP_NO_INDEX": "1", "PIP_RETRIES": "0"}


def test_pip_index_installs_are_locked_with_their_artifact_and_installed_with_hashes(
    envkit_cli, tmp_path, default_prefix
):
    """An index install records no URL; `envkit lock` asks pip, and create installs that artifact."""
    from envkit.backends import open_env

    wheels = tmp_path / "wheels"
    src = copy_prefix(default_prefix, tmp_path / "src")
    whl = build_wheel(wheels, "helper", "1.0")
    pip_install(src, whl)  # no direct_url.json
    lock = tmp_path / "conda-lock.yml"
    env = dict(PIP_LOCAL, PIP_FIND_LINKS=str(wheels))
    assert envkit_cli("lock", "-p", str(src), "--no-env-lock", "-o", str(lock), env=env).exit_code == 0
    [helper] = [p for p in read_lock(lock).packages if p.manager == "pip"]
    assert helper.url == whl.as_uri() and helper.sha256
    target = tmp_path / "new"
    r = envkit_cli("create", "--lock", str(lock), "-p", str(target), env=dict(PIP_LOCAL, PIP_FIND_LINKS=""))
    assert (r.exit_code, r.stderr) == (0, ""), r.stderr
    assert r.stdout.endswith("9 conda packages and 1 pip package, pip hashes required\n")
    assert package_set(open_env(prefix=str(target)))[1] == [("helper", "1.0")]


def test_pip_index_installs_pip_could_not_resolve_are_installed_by_pin(envkit_cli, tmp_path, default_prefix):
    """Locked offline: the #envkit-unresolved marker; create installs name==version from the index."""
    from envkit.backends import open_env

    wheels = tmp_path / "wheels"
    src = copy_prefix(default_prefix, tmp_path / "src")
    pip_install(src, build_wheel(wheels, "helper", "1.0"))  # no direct_url.json
    lock = tmp_path / "conda-lock.yml"
    r = envkit_cli(
        "lock",
        "-p",
        str(src),
        "--no-env-lock",
        "--allow-unhashed-pip",
        "-o",
        str(lock),
        env=dict(PIP_LOCAL, PIP_FIND_LINKS=str(tmp_path / "nowhere")),
    )
    assert r.exit_code == 0 and "helper==1.0 (installed from an index): no such release" in r.stderr
    [helper] = [p for p in read_lock(lock).packages if p.manager == "pip"]
    assert (helper.url, helper.sha256) == ("https://pypi.org/project/helper/1.0/#envkit-unresolved", None)
    target = tmp_path / "new"
    r = envkit_cli(
        "create", "--lock", str(lock), "-p", str(target), env=dict(PIP_LOCAL, PIP_FIND_LINKS=str(wheels))
    )
    assert r.exit_code == 0, r.stderr
    assert r.stdout.endswith("9 conda packages and 1 pip package\n")  # no hash recorded: no --require-hashes
    assert r.stderr == (
        "warning: 1 pip package(s) had no artifact in the lock (#envkit-unresolved) and were "
        "installed by pin from the configured index, without hash checking: helper==1.0\n"
    )
    assert package_set(open_env(prefix=str(target)))[1] == [("helper", "1.0")]


def test_hash_mismatch_aborts_and_leaves_no_prefix(envkit_cli, tmp_path, source_env):
    lock_path = tmp_path / "conda-lock.yml"
    assert envkit_cli("lock", "-p", str(source_env), "--no-env-lock", "-o", str(lock_path)).exit_code == 0
    lock = read_lock(lock_path)
    bad = tuple(replace(p, sha256="0" * 64) if p.name == "numpy" else p for p in lock.packages)
    write_lock(tmp_path / "bad.yml", replace(lock, packages=bad))
    target = tmp_path / "env"
    r = envkit_cli("create", "--lock", str(tmp_path / "bad.yml"), "-p", str(target))
    assert r.exit_code == 2
    assert r.stderr.startswith(f"error: {tmp_path / 'bad.yml'}:")  # the line of the package in the lock
    assert ": numpy=1.26.4: file://" in r.stderr
    assert "does not match the sha256 the lock records (" + "0" * 64 + ")" in r.stderr
    assert "hint: the package changed after it was locked" in r.stderr
    assert not target.exists()


def _edit_hash(text: str, name: str, key: str, value: str) -> str:
    """The lock text with `key:` of package `name` (its first entry) written as `value`, verbatim."""
    lines = text.splitlines(keepends=True)
    start = next(i for i, ln in enumerate(lines) if ln.strip() == f"- name: {name}")
    i = next(i for i in range(start, len(lines)) if lines[i].strip().startswith(f"{key}:"))
    indent = lines[i][: len(lines[i]) - len(lines[i].lstrip())]
    lines[i] = f"{indent}{key}: {value}\n"
    return "".join(lines)


@pytest.mark.parametrize(
    "key, value, got",
    [
        # YAML reads 64 unquoted zeros as the integer 0: a falsy hash must not skip the check and
        # leave the package verified only by its (matching) md5
        (
            "sha256",
            "0" * 64,
            "0 (YAML reads an unquoted all-digit hash as a number, losing its leading zeros)",
        ),
        ("md5", "0" * 32, "0 (YAML reads an unquoted all-digit hash as a number"),
        ("sha256", "'abc'", "'abc' (3 characters)"),
        ("sha256", "'" + "g" * 64 + "'", "'" + "g" * 64 + "' (64 characters)"),
    ],
)
def test_malformed_hash_is_an_error_not_skipped(envkit_cli, tmp_path, source_env, key, value, got):
    lock_path = tmp_path / "conda-lock.yml"
    assert envkit_cli("lock", "-p", str(source_env), "--no-env-lock", "-o", str(lock_path)).exit_code == 0
    bad = tmp_path / "bad.yml"
    bad.write_text(_edit_hash(lock_path.read_text(), "numpy", key, value))
    target = tmp_path / "env"
    r = envkit_cli("create", "--lock", str(bad), "-p", str(target))
    assert r.exit_code == 2, r.stdout
    length = 64 if key == "sha256" else 32
    first = r.stderr.splitlines()[0]
    # reading the lock refuses it (conda-lock's rules), naming the key path in the file
    assert (
        first.startswith(f"error: {bad}:")
        and f".hash.{key}): numpy=1.26.4 (conda): `{key}:` is not a {key} "
        f"hash of {length} hex digits: the lock has {got}"
        in first
    )
    assert f"hint: quote the hash in the lock ({key}: '...'), or relock" in r.stderr
    assert not target.exists()
    # `lock --check` refuses the same lock (CI catches it before `create` does)
    spec = tmp_path / "environment.lock.yml"
    assert (
        envkit_cli(
            "lock", "-p", str(source_env), "--env-lock", str(spec), "-o", str(tmp_path / "l2.yml")
        ).exit_code
        == 0
    )
    r = envkit_cli("lock", "--check", "-f", str(spec), "--lock", str(bad))
    assert r.exit_code == 2 and f"numpy=1.26.4 (conda): `{key}:` is not a {key} hash" in r.stderr


def test_malformed_pip_hash_does_not_turn_hash_checking_off(tmp_path):
    """A pip package's sha256 read as the number 0 made `all(p.sha256 ...)` false: pip ran without
    --require-hashes.  Now it is an error before anything is made."""
    from envkit.create import create_from_lock
    from envkit.errors import ParseError

    good = LockedPackage(
        manager="pip",
        name="a",
        version="1",
        platform="linux-64",
        url="file:///w/a-1-py3-none-any.whl",
        sha256="ab" * 32,
    )
    bad = replace(good, name="b", sha256=0, line=12)
    lock = Lock(kind="conda-lock", platforms=("linux-64",), packages=(good, bad), source="x/conda-lock.yml")
    with pytest.raises(ParseError) as info:
        create_from_lock(lock, tmp_path / "env", platform="linux-64")
    assert str(info.value.where) == "x/conda-lock.yml:12 (sha256)"
    assert (
        "b=1 (pip): `sha256:` is not a sha256 hash of 64 hex digits: the lock has 0 (YAML reads"
        in info.value.message
    )
    assert not (tmp_path / "env").exists()


def test_create_keeps_an_existing_prefix_untouched(envkit_cli, tmp_path, source_env):
    lock = tmp_path / "conda-lock.yml"
    assert envkit_cli("lock", "-p", str(source_env), "--no-env-lock", "-o", str(lock)).exit_code == 0
    target = tmp_path / "busy"
    target.mkdir()
    (target / "keep.txt").write_text("mine")
    r = envkit_cli("create", "--lock", str(lock), "-p", str(target))
    assert r.exit_code == 2
    assert f"error: prefix already exists and is not empty: {target}" in r.stderr
    assert sorted(os.listdir(target)) == ["keep.txt"]


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


def test_downloaded_package_with_wrong_hash_removes_the_half_made_prefix(
    tmp_path, default_channel, source_env
):
    """A downloaded archive is checked against the lock before anything is linked; nothing is left."""
    from envkit.backends import open_env
    from envkit.create import create_from_lock
    from envkit.errors import IntegrityError
    from envkit.lock import lock_live

    lock = lock_live(open_env(prefix=str(source_env)))
    handler = functools.partial(_QuietHandler, directory=str(default_channel.root))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        base = f"http://127.0.0.1:{server.server_address[1]}"
        pkgs = []
        for p in lock.packages:
            if p.manager == "conda":
                p = replace(p, url=p.url.replace(default_channel.url, base))
                if p.name == "zlib":
                    p = replace(p, sha256="1" * 64)
            pkgs.append(p)
        pkgs = [p for p in pkgs if p.manager == "conda"]
        target = tmp_path / "env"
        with pytest.raises(IntegrityError) as info:
            create_from_lock(replace(lock, packages=tuple(pkgs)), target, cache_dir=tmp_path / "cache")
        assert info.value.message == (
            f"zlib=1.3.1: {base}/linux-64/zlib-1.3.1-h4ab18f5_1.tar.bz2 does not match the sha256 the lock "
            "records (1111111111111111111111111111111111111111111111111111111111111111)"
        )
        assert not target.exists()
    finally:
        server.shutdown()
        server.server_close()


def test_missing_local_package_file(tmp_path):
    from envkit.create import create_from_lock
    from envkit.errors import IntegrityError

    pkg = LockedPackage(
        manager="conda",
        name="zlib",
        version="1.3.1",
        build="h0_0",
        platform="linux-64",
        url=(tmp_path / "linux-64" / "zlib-1.3.1-h0_0.tar.bz2").as_uri(),
        md5="0" * 32,
    )
    lock = Lock(kind="conda-lock", platforms=("linux-64",), packages=(pkg,))
    with pytest.raises(IntegrityError, match="package file not found"):
        create_from_lock(lock, tmp_path / "env", platform="linux-64")
    assert not (tmp_path / "env").exists()


def test_platform_not_in_lock(envkit_cli, tmp_path, source_env):
    lock = tmp_path / "conda-lock.yml"
    assert envkit_cli("lock", "-p", str(source_env), "--no-env-lock", "-o", str(lock)).exit_code == 0
    r = envkit_cli("create", "--lock", str(lock), "-p", str(tmp_path / "x"), "--platform", "osx-arm64")
    assert r.exit_code == 2
    assert r.stderr == f"error: {lock}: the lock has no packages for osx-arm64 (locked: linux-64)\n"


def test_create_by_name_uses_the_first_envs_dir(envkit_cli, tmp_path, source_env):
    lock = tmp_path / "conda-lock.yml"
    assert envkit_cli("lock", "-p", str(source_env), "--no-env-lock", "-o", str(lock)).exit_code == 0
    envs = tmp_path / "envs"
    r = envkit_cli(
        "create",
        "--lock",
        str(lock),
        "-n",
        "fresh",
        env={"CONDA_ENVS_PATH": str(envs), "HOME": str(tmp_path), "CONDA_EXE": ""},
    )
    assert r.exit_code == 0, r.stderr
    assert (envs / "fresh" / "conda-meta" / "history").exists()
    assert sorted(os.listdir(envs / "fresh" / "conda-meta"))[0] == "ca-certificates-2024.2.2-hbcca054_0.json"


FAKE_CONDA = r'''#!{python}
"""A stand-in conda: records its argv and the explicit file, then makes a prefix with py-rattler."""
import asyncio, json, sys
argv = sys.argv[1:]
prefix = argv[argv.index("--prefix") + 1]
explicit = open(argv[argv.index("--file") + 1]).read()
open({log!r}, "w").write(json.dumps({{"argv": argv, "explicit": explicit}}))
import os
os.makedirs(os.path.join(prefix, "conda-meta"))
if "FAIL" in os.environ.get("FAKE_CONDA_MODE", ""):
    sys.stderr.write("CondaHTTPError: something broke\n")
    sys.exit(1)
'''


def _fake_conda(tmp_path: Path) -> tuple[Path, Path]:
    log = tmp_path / "conda-call.json"
    exe = tmp_path / "bin" / "conda"
    exe.parent.mkdir()
    exe.write_text(FAKE_CONDA.format(python=sys.executable, log=str(log)))
    exe.chmod(exe.stat().st_mode | stat.S_IEXEC)
    return exe, log


def test_backend_conda_uses_an_explicit_file(envkit_cli, tmp_path, default_channel, source_env):
    import json

    from envkit.backends import open_env
    from envkit.lock import lock_live

    lock = lock_live(open_env(prefix=str(source_env)))
    conda_only = replace(lock, packages=tuple(p for p in lock.packages if p.manager == "conda"))
    lock_path = write_lock(tmp_path / "conda-lock.yml", conda_only)
    exe, log = _fake_conda(tmp_path)
    target = tmp_path / "env"
    r = envkit_cli(
        "create",
        "--lock",
        str(lock_path),
        "-p",
        str(target),
        "--backend",
        "conda",
        env={"CONDA_EXE": str(exe)},
    )
    assert r.exit_code == 0, r.stderr
    assert r.stdout == f"created {target} (linux-64, conda): 9 conda packages and 0 pip packages\n"
    call = json.loads(log.read_text())
    assert call["argv"][:4] == ["create", "--yes", "--prefix", str(target)]
    lines = call["explicit"].splitlines()
    assert "@EXPLICIT" in lines and "# platform: linux-64" in lines
    numpy = next(p for p in conda_only.packages if p.name == "numpy")
    assert f"{numpy.url}#{numpy.md5}" in lines


def test_backend_conda_failure_removes_the_prefix(envkit_cli, tmp_path, source_env):
    from envkit.backends import open_env
    from envkit.lock import lock_live

    lock = lock_live(open_env(prefix=str(source_env)))
    lock_path = write_lock(tmp_path / "conda-lock.yml", lock)
    exe, _log = _fake_conda(tmp_path)
    target = tmp_path / "env"
    r = envkit_cli(
        "create",
        "--lock",
        str(lock_path),
        "-p",
        str(target),
        "--backend",
        "conda",
        env={"CONDA_EXE": str(exe), "FAKE_CONDA_MODE": "FAIL"},
    )
    assert r.exit_code == 2
    assert (
        "error: conda failed with exit code 1" in r.stderr and "CondaHTTPError: something broke" in r.stderr
    )
    assert not target.exists()


def test_backend_without_executable(envkit_cli, tmp_path, source_env):
    lock = tmp_path / "conda-lock.yml"
    assert envkit_cli("lock", "-p", str(source_env), "--no-env-lock", "-o", str(lock)).exit_code == 0
    r = envkit_cli(
        "create",
        "--lock",
        str(lock),
        "-p",
        str(tmp_path / "e"),
        "--backend",
        "micromamba",
        env={"MAMBA_EXE": "", "PATH": str(tmp_path)},
    )
    assert r.exit_code == 2
    assert "error: --backend micromamba: no micromamba executable found (MAMBA_EXE or PATH)" in r.stderr
    assert not (tmp_path / "e").exists()


def test_pip_requirement_lines():
    from envkit.create import pip_requirement_lines

    a = LockedPackage(
        manager="pip", name="a", version="1", url="file:///w/a-1-py3-none-any.whl", sha256="ab" * 32
    )
    b = LockedPackage(
        manager="pip", name="b", version="2", url="https://pypi.org/project/b/2/#envkit-unresolved"
    )
    old_marker = LockedPackage(manager="pip", name="c", version="3", url="https://pypi.org/project/c/3/")
    lines, hashed = pip_requirement_lines([a])
    assert (lines, hashed) == ([f"a @ file:///w/a-1-py3-none-any.whl --hash=sha256:{'ab' * 32}"], True)
    lines, hashed = pip_requirement_lines([a, b, old_marker])
    assert (lines, hashed) == (["a @ file:///w/a-1-py3-none-any.whl", "b==2", "c==3"], False)


def _with_entry_points(archive: Path, entry_points: list[str]) -> None:
    """Rewrite a factory-built noarch: python archive's info/link.json with console entry points
    (conda-build writes them there; the factory writes none)."""
    import bz2
    import io
    import json
    import tarfile

    src = tarfile.open(fileobj=io.BytesIO(bz2.decompress(archive.read_bytes())))
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w", format=tarfile.PAX_FORMAT) as out:
        for member in src.getmembers():
            data = src.extractfile(member).read()
            if member.name == "info/link.json":
                data = json.dumps(
                    {
                        "noarch": {"type": "python", "entry_points": entry_points},
                        "package_metadata_version": 1,
                    }
                ).encode()
                member.size = len(data)
            out.addfile(member, io.BytesIO(data))
    archive.write_bytes(bz2.compress(buf.getvalue(), 6))


def test_noarch_python_package_lands_in_site_packages_with_its_entry_point(envkit_cli, tmp_path):
    """A `noarch: python` package ships `site-packages/...`; created from a lock it goes to
    lib/python3.11/site-packages, gets its bin/ entry point, and its conda-meta record says
    `noarch: python` (and the rest of its index.json), as a direct install's does."""
    import json
    import subprocess

    from support.condafactory import ChannelBuilder, Pkg, make_prefix, python_interpreter_pkg, python_pkg

    chan = ChannelBuilder(tmp_path / "chan", name="local")
    chan.add(
        Pkg(name="zlib", version="1.3.1", build="h0_0"),
        Pkg(name="openssl", version="3.2.1", build="h0_0"),
        python_interpreter_pkg("3.11.8", build="h0_0_cpython"),
    )
    tool = python_pkg(
        "tooly",
        "0.5",
        noarch=True,
        depends=["python >=3.8"],
        constrains=["zlib >=1.2"],
        extra_files={"site-packages/tooly/cli.py": "def main():\n    print('tooly says hi')\n"},
    )
    chan.add(tool)
    _with_entry_points(chan.root / "noarch" / tool.filename, ["tooly = tooly.cli:main"])
    chan.index(force=True)
    src = make_prefix(tmp_path / "src", [chan], ["python=3.11", "tooly"], cache_dir=tmp_path / "pkgs")
    lock = tmp_path / "conda-lock.yml"
    assert envkit_cli("lock", "-p", str(src), "--no-env-lock", "-o", str(lock)).exit_code == 0
    [locked] = [p for p in read_lock(lock).packages if p.name == "tooly"]
    assert locked.subdir == "noarch"
    target = tmp_path / "new"
    r = envkit_cli("create", "--lock", str(lock), "-p", str(target))
    assert r.exit_code == 0, r.stderr
    site = target / "lib" / "python3.11" / "site-packages"
    assert (site / "tooly" / "cli.py").is_file() and (site / "tooly-0.5.dist-info" / "METADATA").is_file()
    assert not (target / "site-packages").exists()
    script = target / "bin" / "tooly"
    assert script.read_text().splitlines()[0] == f"#!{target}/bin/python3.11"
    run = subprocess.run(
        [sys.executable, str(script)],
        capture_output=True,
        text=True,
        env=dict(os.environ, PYTHONPATH=str(site)),
    )
    assert run.stdout == "tooly says hi\n", run.stderr

    def record(prefix):
        data = json.loads(next((prefix / "conda-meta").glob("tooly-*.json")).read_text())
        return {
            k: v
            for k, v in data.items()
            if k
            not in (
                "extracted_package_dir",
                "package_tarball_full_path",
                "link",
                "requested_spec",
                "requested_specs",
                "indexed_timestamp",
            )
        }

    created, direct = record(target), record(src)
    assert (
        created["noarch"] == "python"
        and created["constrains"] == ["zlib >=1.2"]
        and created["license"] == "MIT"
    )
    # the record of the created package is the direct install's (but for the prefix-dependent paths)
    assert {k: v for k, v in created.items() if k not in ("files", "paths_data")} == {
        k: v for k, v in direct.items() if k not in ("files", "paths_data")
    }
    assert created["files"] == direct["files"]


def _pixi_lock(path: Path, envs: dict[str, list[LockedPackage]], channel: str) -> Path:
    """A pixi.lock (version 6) with these environments (name -> linux-64 conda packages; an empty
    list is an environment with `packages: {}`, as `pixi lock` writes one with no dependencies)."""
    lines = ["version: 6", "environments:"]
    for name, pkgs in envs.items():
        lines += [f"  {name}:", "    channels:", f"    - url: {channel}/"]
        if not pkgs:
            lines.append("    packages: {}")
            continue
        lines += ["    packages:", "      linux-64:"] + [f"      - conda: {p.url}" for p in pkgs]
    lines.append("packages:")
    every = {p.url: p for pkgs in envs.values() for p in pkgs}
    for url, p in sorted(every.items()):
        lines += [
            f"- conda: {url}",
            f"  sha256: {p.sha256}",
            f"  md5: {p.md5}",
            f"  build_number: {p.build_number or 0}",
        ]
        if p.depends:
            lines.append("  depends:")
            lines += [f"  - {n} {s}".rstrip() for n, s in p.depends]
    path.write_text("\n".join(lines) + "\n")
    return path


def test_create_from_a_pixi_lock_environment(envkit_cli, tmp_path, default_channel, source_env):
    """corpus 58: a pixi.lock whose `default` environment is empty and whose `format` environment has
    linux-64; create said 'no packages for this machine's platform linux-64 (locked: none) / hint:
    pass --platform'.  --env picks the environment; the error lists the others."""
    from envkit.backends import open_env
    from envkit.lock import lock_live

    conda = [p for p in lock_live(open_env(prefix=str(source_env))).packages if p.manager == "conda"]
    lock = _pixi_lock(
        tmp_path / "pixi.lock", {"default": [], "format": conda, "mini": conda[:2]}, default_channel.url
    )
    target = tmp_path / "env"
    r = envkit_cli("create", "--lock", str(lock), "-p", str(target))
    assert r.exit_code == 2
    assert r.stderr == (
        f"error: {lock}: pixi.lock environment 'default' has no packages; its other environments: "
        "format (linux-64), mini (linux-64)\n"
        "hint: pass --env NAME: format, mini have linux-64\n"
    )
    r = envkit_cli("create", "--lock", str(lock), "-p", str(target), "--env", "nope")
    assert r.exit_code == 2
    assert (
        "pixi.lock has no environment 'nope' (it has: default, format, mini)\nhint: choose one with --env "
        "NAME\n" in r.stderr
    )
    assert not target.exists()

    r = envkit_cli("create", "--lock", str(lock), "-p", str(target), "--env", "format")
    assert r.exit_code == 0, r.stderr
    assert r.stdout == f"created {target} (linux-64, rattler): 9 conda packages and 0 pip packages\n"
    assert package_set(open_env(prefix=str(target)))[0] == package_set(open_env(prefix=str(source_env)))[0]

    # a lock of another kind holds one environment: --env is a mistake there
    conda_lock = tmp_path / "conda-lock.yml"
    assert envkit_cli("lock", "-p", str(source_env), "--no-env-lock", "-o", str(conda_lock)).exit_code == 0
    r = envkit_cli("create", "--lock", str(conda_lock), "-p", str(tmp_path / "e2"), "--env", "format")
    assert r.exit_code == 2
    assert r.stderr == (
        f"error: {conda_lock}: an environment is picked from a pixi.lock; this is a conda-lock lock, "
        "which holds one environment\nhint: leave out --env\n"
    )


def test_platform_errors_name_only_options_create_has(monkeypatch):
    from envkit.create import choose_platform
    from envkit.create import target as create
    from envkit.errors import UsageError

    monkeypatch.setattr(create, "host_platform", lambda: "linux-64")

    pkg = LockedPackage(
        manager="conda", name="zlib", version="1", platform="osx-arm64", url="file:///x.conda", md5="0" * 32
    )
    lock = Lock(kind="conda-lock", platforms=("osx-arm64",), packages=(pkg,), source="l.yml")
    with pytest.raises(UsageError) as info:
        choose_platform(lock, None)
    assert (
        str(info.value)
        == "l.yml: the lock has no packages for this machine's platform linux-64 (locked: osx-arm64)"
    )
    assert info.value.hint == "pass platform=... to install another locked platform (osx-arm64)"
    empty = replace(lock, platforms=(), packages=())
    with pytest.raises(UsageError) as info:
        choose_platform(empty, None)
    assert (str(info.value), info.value.hint) == ("l.yml: the lock has no packages", None)
    pixi = replace(lock, kind="pixi", environment="cpu")
    with pytest.raises(UsageError) as info:
        choose_platform(
            pixi, "linux-64", environments={"cpu": ("osx-arm64",), "gpu": ("linux-64",), "none": ()}
        )
    assert str(info.value) == (
        "l.yml: pixi.lock environment 'cpu' has no packages for linux-64 (locked: osx-arm64); "
        "its other environments: gpu (linux-64)"
    )
    assert info.value.hint == 'pass environment="gpu" (it has linux-64)'


def test_input_format_and_hints_name_only_options_create_has(envkit_cli, tmp_path, source_env):
    """`create --lock some-non-lock-file` hinted `pass --format`, an option create does not have;
    create has --input-format (as diff has), and the hint names it."""
    from support.condafactory import PLATFORM

    prose = tmp_path / "notes.txt"
    prose.write_text("hello there\nthis is prose\n")
    r = envkit_cli("create", "--lock", str(prose), "-p", str(tmp_path / "x"))
    assert r.exit_code == 2
    assert r.stderr == (
        f"error: {prose}: cannot tell the format of this file\nhint: pass --input-format (one of: env, "
        "explicit, conda-lock, pixi, requirements, conda-list-json, conda-list-export, pylock, uv-lock, "
        "conda-requirements, pixi-manifest, pyproject)\n"
    )
    r = envkit_cli("create", "--lock", str(prose), "-p", str(tmp_path / "x"), "--input-format", "explicit")
    assert r.exit_code == 2 and "not an explicit file" in r.stderr
    r = envkit_cli("create", "--lock", str(prose), "-p", str(tmp_path / "x"), "--input-format", "yaml")
    assert r.exit_code == 2 and "Invalid value for '--input-format'" in r.stderr

    # the option reads the file as that format (an explicit file with its pip lines, as conda-lock
    # renders them)
    explicit = tmp_path / "packages.txt"
    r = envkit_cli("export", "-p", str(source_env), "--format", "explicit", "-o", str(explicit))
    assert r.exit_code == 0, r.stderr
    target = tmp_path / "env"
    r = envkit_cli("create", "--lock", str(explicit), "-p", str(target), "--input-format", "explicit")
    assert r.exit_code == 0, r.stderr
    assert (
        r.stdout == f"created {target} ({PLATFORM}, rattler): 9 conda packages and 2 pip packages, "
        "pip hashes required\n"
    )
    r = envkit_cli(
        "create", "--lock", str(explicit), "-p", str(tmp_path / "e2"), "--input-format", "conda-lock"
    )
    assert r.exit_code == 2 and not (tmp_path / "e2").exists()
