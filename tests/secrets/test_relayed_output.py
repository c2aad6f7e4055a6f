"""What envkit relays from the tools it runs (pip's warnings, in an error's quoted output) passes
the one secret detector: a query token inside a bare request path is redacted too."""

from __future__ import annotations

from dataclasses import replace

import pytest

from envkit.model import LockedPackage

#: pip's own retry warning (pip 25, `--index-url 'http://127.0.0.1:9/simple?token=...'`): pip
#: appends the project to the index URL, so the token sits inside a bare path, not a full URL
PIP_RETRY = (
    "WARNING: Retrying (Retry(total=0, connect=None, read=None, redirect=None, status=None)) after "
    "connection broken by 'NewConnectionError(\"HTTPConnection(host='127.0.0.1', port=9): Failed to "
    "establish a new connection: [Errno 111] Connection refused\")': "
    "/simple?token=QTOKabcdef123456/doesnotexist/"
)


def test_a_query_token_in_a_bare_path_is_found_and_redacted():
    from envkit.secrets import find_secrets, redact_text

    [secret] = find_secrets(PIP_RETRY)
    assert (secret.url, secret.redacted, secret.kind) == (
        "?token=QTOKabcdef123456/doesnotexist/",
        "?token=<TOKEN>",
        "query token",
    )
    assert redact_text(PIP_RETRY) == PIP_RETRY.replace("QTOKabcdef123456/doesnotexist/", "<TOKEN>")
    # a reference or a placeholder is no secret
    assert find_secrets("GET /simple?token=${PIP_TOKEN} and /x?password=<TOKEN>") == []


def test_an_error_quoting_a_tools_output_holds_no_query_token():
    """What the library raises (an API caller sees it without the CLI's redacting streams)."""
    from envkit.errors import BackendError

    err = BackendError("pip failed", text="Retrying after connection broken: /simple?token=QTOKabc/x/")
    assert err.text == "Retrying after connection broken: /simple?token=<TOKEN>"
    assert str(err) == "pip failed: 'Retrying after connection broken: /simple?token=<TOKEN>'"


@pytest.mark.slow
def test_pip_failure_relayed_by_create_holds_no_token(envkit_cli, tmp_path, default_prefix):
    """`envkit create` whose pip cannot reach the index (its URL, with a token, from pip's
    environment): the error quotes pip's last lines, the token replaced."""
    from envkit.formats.condalock import read_conda_lock, write_conda_lock

    src = tmp_path / "src.yml"
    assert envkit_cli("lock", "-p", str(default_prefix), "--no-env-lock", "-o", str(src)).exit_code == 0
    lock = read_conda_lock(src.read_text(), filename=str(src))
    from envkit.lock import index_placeholder_url

    pin = LockedPackage(
        manager="pip",
        name="doesnotexist",
        version="1.0",
        platform="linux-64",
        url=index_placeholder_url("doesnotexist", "1.0"),
    )
    path = tmp_path / "conda-lock.yml"
    path.write_text(write_conda_lock(replace(lock, packages=(*lock.packages, pin))))
    env = {
        "PIP_CONFIG_FILE": "/dev/null",
        "PIP_INDEX_URL": "http://127.0.0.1:9/simple?token=QTOKabcdef123456",
        "PIP_RETRIES": "1",
        "PIP_FIND_LINKS": "",
    }
    r = envkit_cli("create", "--lock", str(path), "-p", str(tmp_path / "env"), env=env)
    assert r.exit_code == 2, r.stderr
    assert "?token=<TOKEN>" in r.stderr
    assert "QTOK" not in r.stderr + r.stdout
    assert not (tmp_path / "env").exists()
