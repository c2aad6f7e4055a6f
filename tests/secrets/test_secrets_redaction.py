"""Credentials never reach output: normalize's diff, explicit files, conda-lock package URLs,
parse errors, the CLI's streams and the file writer."""

from __future__ import annotations

import pytest
from conftest import run_envkit

from envkit.secrets import find_secrets, redact_text

TOKEN = "ab-12345678-abcd-1234-abcd-1234567890ab"
MD5 = "d41d8cd98f00b204e9800998ecf8427e"


def test_normalize_check_diff_shows_no_credential_on_its_minus_lines(tmp_path):
    env = tmp_path / "environment.yml"
    env.write_text(
        f"name: t\nchannels:\n  - https://conda.anaconda.org/t/{TOKEN}/private\n  - conda-forge\n"
        "dependencies:\n  - python=3.11\n  - pip\n  - pip:\n"
        "    - --extra-index-url https://deploy:s3cr3tpw@pypi.example.org/simple\n"
        "variables:\n  TWINE_PASSWORD: hunter22x\n"
    )
    r = run_envkit("normalize", "--check", str(env))
    assert r.exit_code == 1
    assert r.stdout == (
        f"--- {env}\n+++ {env} (normalized)\n@@ -3,8 +3,8 @@\n"
        "   - https://conda.anaconda.org/t/<TOKEN>/private\n   - conda-forge\n dependencies:\n"
        "+  - pip\n   - python=3.11\n-  - pip\n   - pip:\n"
        "     - --extra-index-url https://<USER>:<PASSWORD>@pypi.example.org/simple\n"
        " variables:\n"
    )
    assert r.stderr == (
        f"note: {env}: the credentials on 3 lines (3, 9, 11) are replaced by placeholders "
        "(the diff shows them redacted on both sides)\n"
    )


def test_normalize_check_diff_redacts_a_variable_after_a_tab_in_a_file_of_plain_lines(tmp_path):
    # the diff's `-` side is redacted only on the lines that can hold a credential (one scan of
    # the text); a `KEY:<TAB>value` pair is one of them
    env = tmp_path / "environment.yml"
    env.write_text(
        "name: t\nchannels:\n  - conda-forge\ndependencies:\n  - zlib\n  - python=3.11\n"
        "variables:\n  TWINE_PASSWORD:\thunter22x\n  HOME_DIR: /opt/x\n"
    )
    r = run_envkit("normalize", "--check", str(env))
    assert r.exit_code == 1
    assert r.stdout == (
        f"--- {env}\n+++ {env} (normalized)\n@@ -2,8 +2,8 @@\n"
        " channels:\n   - conda-forge\n dependencies:\n+  - python=3.11\n   - zlib\n-  - python=3.11\n"
        " variables:\n-  TWINE_PASSWORD:\t<TOKEN>\n+  TWINE_PASSWORD: <TOKEN>\n   HOME_DIR: /opt/x\n"
    )
    assert "hunter22x" not in r.stdout + r.stderr
    assert r.stderr == (
        f"note: {env}: the credentials on 1 line (8) are replaced by placeholders "
        "(the diff shows them redacted on both sides)\n"
    )


def _explicit(tmp_path):
    path = tmp_path / "explicit.txt"
    path.write_text(
        f"# platform: linux-64\n@EXPLICIT\n"
        f"https://conda.anaconda.org/t/{TOKEN}/conda-forge/linux-64/python-3.11.9-h_0.conda#{MD5}\n"
        f"https://user:s3cr3tpw@repo.example.org/conda-forge/linux-64/zlib-1.3.1-h_1.conda#{MD5}\n"
    )
    return path


def test_normalize_of_an_explicit_file_redacts_its_package_urls(tmp_path):
    r = run_envkit("normalize", str(_explicit(tmp_path)))
    assert r.exit_code == 0, r.stderr
    assert r.stdout == (
        "# platform: linux-64\n@EXPLICIT\n"
        f"https://conda.anaconda.org/t/<TOKEN>/conda-forge/linux-64/python-3.11.9-h_0.conda#{MD5}\n"
        f"https://<USER>:<PASSWORD>@repo.example.org/conda-forge/linux-64/zlib-1.3.1-h_1.conda#{MD5}\n"
    )


def test_normalize_check_calls_an_explicit_file_with_credentials_not_normalized(tmp_path):
    path = _explicit(tmp_path)
    r = run_envkit("normalize", "--check", str(path))
    assert r.exit_code == 1
    assert r.stdout == ""  # the only change is the redaction, which the note reports
    assert r.stderr == (
        f"note: {path}: the credentials on 2 lines (3, 4) are replaced by placeholders "
        "(the diff shows them redacted on both sides)\n"
    )
    fixed = tmp_path / "fixed.txt"
    assert run_envkit("normalize", "-o", str(fixed), str(path)).exit_code == 0
    assert run_envkit("normalize", "--check", str(fixed)).exit_code == 0
    assert "leaked-secret" not in run_envkit("check", str(fixed)).stdout


def test_normalize_of_a_conda_lock_redacts_package_urls(tmp_path):
    from support.secretfiles import Secrets, conda_lock_text

    s = Secrets("tk-Zq81x0PLm2", "pwQ81mZ0x", "qv1", "ghp_1", "pypi-AgE1", "hf_1", "tw1")
    lock = tmp_path / "conda-lock.yml"
    lock.write_text(conda_lock_text(s))
    r = run_envkit("normalize", str(lock))
    assert r.exit_code == 0, r.stderr
    urls = [ln.strip() for ln in r.stdout.splitlines() if "url: " in ln]
    assert urls == [
        "- url: https://conda.anaconda.org/t/<TOKEN>/private",
        "- url: conda-forge",
        "url: https://conda.anaconda.org/t/<TOKEN>/private/linux-64/numpy-1.26.4-py311h64a7726_0.conda",
        "url: https://<USER>:<PASSWORD>@pypi.example.org/packages/internal_tool-1.0-py3-none-any.whl",
    ]


@pytest.mark.parametrize(
    "command",
    [
        ["validate"],
        ["normalize"],
        ["check"],
        ["check", "--format", "json"],
        ["check", "--format", "sarif"],
        ["diff"],
        ["normalize", "--check"],
    ],
)
def test_a_parse_error_quotes_the_offending_text_redacted(tmp_path, command):
    bad = tmp_path / "bad.txt"
    bad.write_text("@EXPLICIT\nhttps://x.example.org/pkg.conda?token=SECRETVAL123\n")
    args = [*command, str(bad)] + ([str(bad)] if command == ["diff"] else [])
    r = run_envkit(*args)
    assert r.exit_code == 2
    expected = f"{bad}:2: not a conda package URL (.conda or .tar.bz2): 'https://x.example.org/pkg.conda?token=<TOKEN>'"
    assert expected in r.stdout + r.stderr
    assert "SECRETVAL123" not in r.stdout + r.stderr


def test_a_clipped_quote_is_redacted_before_it_is_cut(tmp_path):
    """An error quotes at most 200 characters: the credential is replaced first, so the cut cannot
    leave a prefix of it that no longer looks like a credential."""
    from envkit.errors import ParseError

    text = "x" * 170 + "https://deploy:SECRETVAL123456789@h.example.org/simple"
    err = ParseError("bad", text=text)
    assert "SECRET" not in str(err)
    assert err.text.endswith("https://<USER>:<PASSWORD>@h.e…")


def test_the_cli_streams_redact_whatever_prints(tmp_path, monkeypatch):
    """A warning that quotes a credential (here: a duplicate pip/conda package warning from a path
    that carries one) is redacted on its way out, whoever wrote it."""
    import io
    import sys

    import click

    from envkit.output import redacted_stdio

    buf = io.StringIO()
    monkeypatch.setattr(sys, "stderr", buf)
    with redacted_stdio():
        click.echo(
            "warning: see https://u:s3cr3tpw@h.example.org/x and pypi-AgEIcHlwaS5vcmcCJDAwMDAwMDAw", err=True
        )
        sys.stderr.write("partial https://conda.anaconda.org/t/")
        sys.stderr.write(f"{TOKEN}/private no newline")
    assert buf.getvalue() == (
        "warning: see https://<USER>:<PASSWORD>@h.example.org/x and <TOKEN>\n"
        "partial https://conda.anaconda.org/t/<TOKEN>/private no newline"
    )


def test_atomic_write_redacts_unless_told_not_to(tmp_path):
    from envkit.io import atomic_write

    atomic_write(tmp_path / "a", f"- https://conda.anaconda.org/t/{TOKEN}/private\n")
    assert (tmp_path / "a").read_text() == "- https://conda.anaconda.org/t/<TOKEN>/private\n"
    atomic_write(tmp_path / "b", f"- https://conda.anaconda.org/t/{TOKEN}/private\n", redact=False)
    assert TOKEN in (tmp_path / "b").read_text()


@pytest.mark.parametrize(
    "text, expected",
    [
        ("plain text, no URL\n", "plain text, no URL\n"),
        ("https://conda.anaconda.org/t/<TOKEN>/c", "https://conda.anaconda.org/t/<TOKEN>/c"),
        ("a\nhttps://u:p4ss@h/x b\nc", "a\nhttps://<USER>:<PASSWORD>@h/x b\nc"),
        ("git+ssh://git@github.com/o/r.git", "git+ssh://git@github.com/o/r.git"),
        (
            "${PIP_INDEX_URL} https://${USER}:${PASS}@h/simple",
            "${PIP_INDEX_URL} https://${USER}:${PASS}@h/simple",
        ),
        (
            "# see https://discourse.example.org/t/topic/123",
            "# see https://discourse.example.org/t/topic/123",
        ),
        ("hf_abc is short", "hf_abc is short"),
    ],
)
def test_redact_text_changes_only_credentials_and_is_idempotent(text, expected):
    assert redact_text(text) == expected
    assert redact_text(expected) == expected


def test_a_channel_token_is_found_as_a_token():
    assert [s.kind for s in find_secrets(f"- https://conda.anaconda.org/t/{TOKEN}/c")] == ["token"]


@pytest.mark.parametrize(
    "text, expected",
    [
        # upper-case shapes: the ASCII scan lowers the text, the redaction keeps its case
        ("X HTTPS://U:P4SS@H/X\n", "X HTTPS://<USER>:<PASSWORD>@H/X\n"),
        ("see https://h.example.org/s?TOKEN=abc123secret\n", "see https://h.example.org/s?TOKEN=<TOKEN>\n"),
        # not ASCII: the case-insensitive pattern on the text as it is
        ("é https://u:p4ss@h/x\nü\n", "é https://<USER>:<PASSWORD>@h/x\nü\n"),
    ],
)
def test_redact_text_finds_candidates_in_any_case(text, expected):
    assert redact_text(text) == expected


def test_redact_text_ascii_scan_matches_where_the_case_insensitive_one_does():
    import re

    from envkit.secrets import _ANY_CANDIDATE, _ANY_CANDIDATE_LOWER

    text = "A HTTPS://U:P@H/ b /T/tok/ c ?Api_Key=1 d PYPI-AGE e GHP_x f Github_Pat_ g %3a%2F%2F h hf_\n"
    expected = [m.span() for m in re.finditer(_ANY_CANDIDATE, text)]
    assert [m.span() for m in _ANY_CANDIDATE_LOWER.finditer(text.lower())] == expected
    assert len(expected) == 8


def test_the_lowered_candidate_pattern_has_no_escape_that_lowering_changes():
    # `\S`, `\W`, `\D`, `\B`, `\A`, `\Z` lowered are other escapes: the ASCII scan would differ
    import re

    from envkit.secrets import _ANY_CANDIDATE_TEXT

    assert re.findall(r"\\[A-Z]", _ANY_CANDIDATE_TEXT) == []
    assert "\\s" in _ANY_CANDIDATE_TEXT
