"""vcs-unpinned reads a VCS URL's path without urllib.parse (a start-up cost of every check); the
path it reads is urllib.parse.urlsplit's, on every shape."""

from __future__ import annotations

from urllib.parse import urlsplit

from hypothesis import given, settings
from hypothesis import strategies as st

from envkit.checks.rules_deps import _url_path

_PIECES = st.sampled_from([*"ab:/@?#.+-1 []\t", "git", "https", "//", "://", "github.com", "C:\\"])


def _urlsplit_path(url: str) -> str | None:
    try:
        return urlsplit(url).path
    except ValueError:
        return None


@settings(max_examples=3000)
@given(st.lists(_PIECES, max_size=14).map("".join))
def test_the_path_is_urlsplits(url):
    assert _url_path(url) == _urlsplit_path(url)


def test_real_vcs_urls():
    assert _url_path("https://github.com/CompVis/taming-transformers.git@master") == (
        "/CompVis/taming-transformers.git@master"
    )
    assert _url_path("ssh://git@github.com/org/repo.git") == "/org/repo.git"
    assert _url_path("https://[::1/x") is None  # urlsplit: Invalid IPv6 URL


def test_a_git_url_of_a_release_file_is_an_error_saying_pip_cannot_clone_it(tmp_path):
    from tests.conftest import run_envkit

    url = (
        "git+https://github.com/explosion/spacy-models/releases/download/en_core_web_sm-3.7.1/"
        "en_core_web_sm-3.7.1-py3-none-any.whl"
    )
    spec = tmp_path / "environment.yml"
    spec.write_text(f"name: x\nchannels: [conda-forge]\ndependencies:\n  - pip\n  - pip:\n    - {url}\n")
    r = run_envkit("check", str(spec))
    assert (r.exit_code, r.stdout.splitlines()[0]) == (
        1,
        f"{spec}:6: error vcs-unpinned: {url} is the download URL of a file, not a repository: pip runs "
        "`git clone` on it and fails; drop the `git+` (pip installs the file at that URL)",
    )
