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
