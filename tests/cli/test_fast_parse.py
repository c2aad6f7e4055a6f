"""The fast command-line reading (envkit.commands._decl) against click's, on the same declarations.

Every command declared with envkit.commands._decl is parsed two ways: `Command.parse` (no click
imported) and the click command built from the same recorded calls.  For any command line, the fast
parser either declines (click then answers, as it always did) or gives exactly the keyword arguments
click would call the command with.  Command lines are drawn from each command's own options (valid
and invalid values, `--opt=value`, `-`, repeats) mixed with forms only click reads (`--`, `-h`,
clusters, unknown options)."""

from __future__ import annotations

import importlib

import click
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from envkit.cli import COMMANDS
from envkit.commands._decl import Choice, Command, FloatRange, IntRange

DECLARED = {
    name: cmd
    for name, (module, attr, _) in COMMANDS.items()
    if isinstance(cmd := getattr(importlib.import_module(module), attr), Command)
}

#: values any option may be given: plain, stdin/stdout, empty, option-like, a path that exists
_WORDS = ["a.yml", "-", "", "--fix", "-o", "x=1", "sub/dir", "envs", "1", "0", "3.5", "nan"]
_ODD = ["--", "-h", "--help", "-xy", "--no-such-option", "-Z", "--=", "-"]


def _click_params(cmd: Command, argv: list[str]):
    """What click calls the command with for argv, or None where click refuses it (or shows help)."""
    real = cmd.click()
    try:
        ctx = real.make_context(real.name or "cmd", list(argv))
    except (click.exceptions.ClickException, click.exceptions.Exit):
        return None
    return ctx.params


@st.composite
def _argv(draw, cmd: Command) -> list[str]:
    options = [p for p in cmd.params if p.kind == "option"]
    # most lines name the arguments a command needs (diff's two sources), somewhere among the options
    needed = sum(1 for p in cmd.params if p.kind == "argument" and p.required)
    tokens: list[str] = ["f0.yml"] * needed if draw(st.integers(0, 3)) else []
    for _ in range(draw(st.integers(0, 6))):
        kind = draw(st.sampled_from(["option", "option", "option", "positional", "odd"]))
        if kind == "positional" or not options:
            tokens.append(draw(st.sampled_from(["f1.yml", "-", "f2.lock", "ssh://h/p"])))
            continue
        if kind == "odd":
            tokens.append(draw(st.sampled_from(_ODD)))
            continue
        p = draw(st.sampled_from(options))
        opt = draw(st.sampled_from(p.opts))
        if p.is_flag:
            tokens.append(opt if draw(st.integers(0, 9)) else opt + "=1")
            continue
        values = list(_WORDS)
        if isinstance(p.type, Choice):
            values += list(p.type.args[0]) * 3 + [str(p.type.args[0][0]).upper()]
        if isinstance(p.type, IntRange | FloatRange):
            values += ["0", "1", "2", "64", "5000", "1.5", "-3", " 2", "1_0"]
        value = draw(st.sampled_from(values))
        tokens = tokens[:] if draw(st.booleans()) else tokens[::-1]
        if opt.startswith("--") and draw(st.booleans()):
            tokens.append(f"{opt}={value}")
        else:
            tokens.append(opt)
            if draw(st.integers(0, 12)):
                tokens.append(value)
    return tokens


@pytest.mark.parametrize("name", sorted(DECLARED))
@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_fast_parse_declines_or_agrees_with_click(name, data, tmp_path_factory, monkeypatch):
    monkeypatch.chdir(tmp_path_factory.getbasetemp())
    cmd = DECLARED[name]
    argv = data.draw(_argv(cmd))
    fast = cmd.parse(argv)
    if fast is None:
        return
    expected = _click_params(cmd, argv)
    assert expected is not None, f"fast parser accepted {argv!r}, which click refuses"
    assert fast == expected
    assert {k: type(v) for k, v in fast.items()} == {k: type(v) for k, v in expected.items()}


#: command lines users type every day: the fast parser must read them (not decline them all)
EVERYDAY = {
    "check": [
        ["environment.yml"],
        ["a.yml", "b.lock", "--format", "json", "--select", "x,y", "--select", "z"],
    ],
    "normalize": [["environment.yml"], ["env.yml", "-o", "-"], ["a.yml", "b.yml", "--check"]],
    "validate": [["a.yml", "pixi.lock", "--env", "default"]],
    "diff": [["a.yml", "b.yml"], ["a.yml", "b.yml", "--format=json"]],
    "export": [["-p", "/nonexistent/prefix", "-o", "out.yml"]],
    "lock": [["-f", "environment.yml", "--check"]],
    "fleet": [["h1.json", "h2.json", "--jobs", "4"]],
    "fingerprint": [[]],
}


@pytest.mark.parametrize(("name", "argv"), [(n, a) for n, lines in EVERYDAY.items() for a in lines])
def test_everyday_command_lines_are_read_without_click_as_click_reads_them(name, argv, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    cmd = DECLARED[name]
    fast = cmd.parse(argv)
    assert fast is not None, f"{name} {argv!r} declined"
    assert fast == _click_params(cmd, argv)


def test_help_usage_errors_and_click_only_forms_go_to_click(envkit_cli):
    cmd = DECLARED["check"]
    for argv in (["-h"], ["--help"], ["--format", "yaml"], ["--", "a"], ["--fix=1"], ["--lock"], ["-nfoo"]):
        assert cmd.parse(argv) is None, argv
    r = envkit_cli("check", "--format", "yaml", "environment.yml")
    assert r.exit_code == 2
    assert "Invalid value for '--format': 'yaml' is not one of 'text', 'json', 'github', 'sarif'." in r.stderr
    r = envkit_cli("normalize", "--help")
    assert r.exit_code == 0 and r.stdout.startswith("Usage: envkit normalize [OPTIONS] FILE...")


def test_declared_names_and_defaults_are_clicks():
    for name, cmd in DECLARED.items():
        real = cmd.click()
        assert [p.name for p in cmd.params] == [p.name for p in real.params if p.name != "help"], name
