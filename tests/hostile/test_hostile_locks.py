"""Hostile lock entries: each is refused as a lock error naming the file and line (exit 2), never
an exit 3 from a library below envkit, never a digest of an arbitrary local file."""

from __future__ import annotations

import pytest

SHA_A = "a" * 64


@pytest.mark.parametrize(
    ("line", "said"),
    [
        (
            "numpy==1.26.4 --hash=sha256:abc",
            "--hash=sha256:abc is not a sha256 hash of 64 hex digits (3 characters)",
        ),
        ("six==1.16.0 --hash=sha256:" + "z" * 64, "is not a sha256 hash of 64 hex digits (64 characters)"),
        ("six==1.16.0 --hash sha256:" + "a" * 63, "is not a sha256 hash of 64 hex digits (63 characters)"),
        ("six==1.16.0 --hash=md5:" + "a" * 32, "is not ALGO:HEX with ALGO one of sha256, sha384, sha512"),
    ],
)
def test_validate_refuses_a_pip_hash_create_would_refuse(envkit_cli, tmp_path, line, said):
    """`validate` read `--hash=sha256:<not 64 hex digits>` as fine; `create` refuses such a lock."""
    req = tmp_path / "requirements.txt"
    req.write_text(f"{line}\n")
    r = envkit_cli("validate", str(req))
    assert r.exit_code == 2, r.stdout
    assert r.stderr.startswith(f"error: {req}:1: ")
    assert said in r.stderr
    r = envkit_cli("create", "--lock", str(req), "-p", str(tmp_path / "env"))
    assert r.exit_code == 2, r.stdout
    assert r.stderr.startswith(f"error: {req}:1: ")
    assert said in r.stderr
    assert not (tmp_path / "env").exists()


def test_validate_accepts_the_hashes_pip_verifies(envkit_cli, tmp_path):
    req = tmp_path / "requirements.txt"
    req.write_text(f"six==1.16.0 --hash=sha256:{SHA_A} --hash=sha512:{'B' * 128}\n")
    r = envkit_cli("validate", str(req))
    assert (r.exit_code, r.stdout) == (0, f"ok: {req}: requirements, 1 entry\n")


def _conda_lock(path, *, name="x", version="1.0", url, md5="a" * 32, sha256="a" * 64):
    """A one-package conda-lock.yml; the package entry starts on line 13."""
    path.write_text(
        "version: 1\nmetadata:\n  content_hash:\n    linux-64: " + "c" * 64 + "\n  channels:\n"
        "  - url: conda-forge\n    used_env_vars: []\n  platforms:\n  - linux-64\n  sources:\n"
        f"  - environment.yml\npackage:\n- name: {name}\n  version: '{version}'\n  manager: conda\n"
        f"  platform: linux-64\n  dependencies: {{}}\n  url: {url}\n  hash:\n    md5: {md5}\n"
        f"    sha256: {sha256}\n  category: main\n  optional: false\n"
    )
    return path


ARCHIVE = "https://conda.anaconda.org/conda-forge/linux-64/x-1.0-h0_0.conda"


@pytest.mark.parametrize(
    ("name", "version", "url", "said"),
    [
        ("../../x", "1.0", ARCHIVE, "(name): '../../x' is not a conda package name; nothing was installed"),
        (
            "x",
            "1.0/../..",
            ARCHIVE,
            "(version): x: '1.0/../..' is not a conda version; nothing was installed",
        ),
        (
            "x",
            "1.0",
            "https://conda.anaconda.org/conda-forge/linux-64/x-1.0-h0_0.html",
            "(url): x: 'x-1.0-h0_0.html' is not a conda package archive (.conda or .tar.bz2); "
            "nothing was installed",
        ),
    ],
)
def test_create_refuses_an_entry_conda_cannot_link_as_a_lock_error(
    envkit_cli, tmp_path, name, version, url, said
):
    """These were exit 3 (rattler's InvalidPackageNameError, InvalidVersionError, `Invalid archive
    identifier`): a lock error naming the file, the entry's line and its key, exit 2, nothing made."""
    lock = _conda_lock(tmp_path / "conda-lock.yml", name=name, version=version, url=url)
    r = envkit_cli("create", "--lock", str(lock), "-p", str(tmp_path / "env"))
    assert r.exit_code == 2, r.stderr
    assert r.stderr.splitlines()[0] == f"error: {lock}:13 {said}"
    assert not (tmp_path / "env").exists()


def test_a_local_url_that_is_no_package_is_refused_before_it_is_read(envkit_cli, tmp_path):
    """`url: file:///etc/passwd` with that file's true hashes: refused as no package archive, and
    nothing about the file is printed."""
    from envkit.create import file_hashes

    secret = tmp_path / "passwd"
    secret.write_text("root:x:0:0:root:/root:/bin/bash\n")
    md5, sha = file_hashes(str(secret))
    lock = _conda_lock(tmp_path / "conda-lock.yml", url=secret.as_uri(), md5=md5, sha256=sha)
    r = envkit_cli("create", "--lock", str(lock), "-p", str(tmp_path / "env"))
    assert r.exit_code == 2, r.stderr
    assert r.stderr.splitlines()[0] == (
        f"error: {lock}:13 (url): x: 'passwd' is not a conda package archive (.conda or .tar.bz2); "
        "nothing was installed"
    )


def test_a_hash_mismatch_of_a_local_file_does_not_print_the_files_digest(envkit_cli, tmp_path):
    """A local archive whose hash does not match: the error says so, with the lock's value; the
    digest of whatever file the URL names is not printed (it tells about a file's content)."""
    from envkit.create import file_hashes

    secret = tmp_path / "x-1.0-h0_0.tar.bz2"
    secret.write_text("not a package, and private\n")
    md5, sha = file_hashes(str(secret))
    lock = _conda_lock(tmp_path / "conda-lock.yml", url=secret.as_uri())
    r = envkit_cli("create", "--lock", str(lock), "-p", str(tmp_path / "env"))
    assert r.exit_code == 2, r.stderr
    assert r.stderr.splitlines()[0] == (
        f"error: {lock}:13: x=1.0: {secret.as_uri()} does not match the sha256 the lock records ({'a' * 64})"
    )
    assert sha not in r.stderr and md5 not in r.stderr
    assert not (tmp_path / "env").exists()
