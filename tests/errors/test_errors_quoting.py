"""How errors quote what another program printed: its last lines, whole words, credentials out."""

from __future__ import annotations

from envkit._text import unreachable_hint
from envkit.errors import BackendError

TRACEBACK = "\n".join(
    ["Traceback (most recent call last):"]
    + [f'  File "/site-packages/conda_lock/x{i}.py", line {i}, in f{i}' for i in range(40)]
    + [
        "conda_lock.errors.PlatformValidationError: Dependency file environment.yml is for platforms "
        + "linux-64, " * 40
        + "not osx-arm64"
    ]
)


def test_a_tools_output_is_quoted_from_its_end():
    err = BackendError("conda-lock failed with exit code 1", text=TRACEBACK)
    lines = err.text.splitlines()
    assert len(lines) == 8
    assert lines[-2] == '  File "/site-packages/conda_lock/x39.py", line 39, in f39'
    assert lines[-1].startswith("conda_lock.errors.PlatformValidationError: Dependency file")
    assert lines[-1].endswith("linux-64,…") and len(lines[-1]) <= 300  # cut between words


def test_a_single_line_is_clipped_as_before_and_credentials_never_show():
    err = BackendError("x", text="https://alice:hunter2@pypi.example.org/simple " + "y" * 400)
    assert "hunter2" not in err.text and len(err.text) == 200 and err.text.endswith("…")


def test_the_network_hint_names_the_host_only_for_network_failures():
    pip = (
        "WARNING: Retrying (Retry(total=0, connect=None, read=None, redirect=None, status=None)) after "
        "connection broken by 'NewConnectionError(\"HTTPSConnection(host='pypi.corp.example', port=443): "
        "Failed to establish a new connection: [Errno -2] Name or service not known\")': /simple/numpy/\n"
        "ERROR: No matching distribution found for numpy==1.26.4"
    )
    assert unreachable_hint(pip) == (
        "pypi.corp.example could not be reached: check the network, and for a proxy set HTTPS_PROXY / "
        "HTTP_PROXY (pip and py-rattler read them; conda reads proxy_servers in .condarc)"
    )
    rattler = (
        "error sending request for url (https://conda.anaconda.org/conda-forge/noarch/x.conda)\n"
        "Caused by: dns error"
    )
    assert unreachable_hint(rattler).startswith("conda.anaconda.org could not be reached: ")
    assert unreachable_hint("ERROR: No matching distribution found for tinyreq>=5") is None
