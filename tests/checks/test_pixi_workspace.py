"""`envkit check` of a pixi.lock with many environments does the work of the file once: one parse
for every environment, and the rules that read the text alone run once per file, not once per
environment (a workspace's lock holds dozens)."""

from __future__ import annotations

from conftest import CORPUS
from hypothesis import given, settings
from hypothesis import strategies as st

from envkit.checks import load_targets, run_checks
from envkit.config import Config

NEMO = CORPUS / "59_43ravens__NEMO_Nowcast__pixi.lock"  # pixi.lock v7, seven environments


def test_every_environment_comes_from_one_parse(monkeypatch):
    from envkit.formats import pixilock

    calls = []
    load = pixilock._load
    monkeypatch.setattr(pixilock, "_load", lambda *a: calls.append(1) or load(*a))
    targets = load_targets([str(NEMO)])
    assert (len(targets), len(calls)) == (7, 1)
    assert len({id(t.lines) for t in targets}) == 1  # the lines too are split once


def test_a_rule_reading_the_text_alone_runs_once_per_file(monkeypatch):
    from envkit.checks import rules_secrets

    calls = []
    scan = rules_secrets.secret_lines
    monkeypatch.setattr(rules_secrets, "secret_lines", lambda text: calls.append(1) or scan(text))
    targets = load_targets([str(NEMO)])
    assert run_checks(targets, Config(select=("leaked-secret",))) == []
    assert calls == [1]


_PIECES = st.sampled_from([*"0123456789._-+ :'\"=\n", "a", "v", "é", "١", "3.10", "010", "1_0", ".5"])


@settings(max_examples=3000)
@given(st.lists(_PIECES, max_size=16).map("".join))
def test_the_number_scan_tries_the_quick_pattern_where_it_can_start(text):
    from envkit.checks.rules_files import _NUMBER_QUICK, _holds_number

    assert _holds_number(text) == (_NUMBER_QUICK.search(text) is not None)


_SECRET_PIECES = st.sampled_from(
    [*"a/:@?&=_-%\n ", "https://", "u:p@", "/t/", "token=", "GHP_", "ghp_", "hf_", "xoxb-", "%3A%2F%2F"]
    + ["pypi-AgE"]
)


@settings(max_examples=3000)
@given(st.lists(_SECRET_PIECES, max_size=14).map("".join))
def test_the_secret_scan_finds_the_lines_the_pattern_matches(text):
    import re

    from envkit.secrets import _ANY_CANDIDATE, secret_lines

    expected = [n for n, line in enumerate(text.split("\n"), 1) if re.search(_ANY_CANDIDATE, line)]
    assert secret_lines(text) == expected
