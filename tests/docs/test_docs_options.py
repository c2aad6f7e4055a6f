"""Every option of every command is documented on its page in docs/commands/."""

import click
import pytest
from conftest import REPO

from envkit.cli import COMMANDS, cli

PAGE = {
    "normalize": "normalize",
    "validate": "normalize",
    "export": "export",
    "lock": "lock",
    "create": "create",
    "diff": "diff",
    "check": "check",
    "explain": "check",
    "template": "template",
    "smoke": "smoke",
    "machine": "machine",
    "convert": "convert",
    "fleet": "fleet",
    "fingerprint": "fleet",
    "audit": "audit",
}


def _commands():
    ctx = click.Context(cli)
    for name in sorted(COMMANDS):
        cmd = cli.get_command(ctx, name)
        if isinstance(cmd, click.Group):
            for sub in sorted(cmd.commands):
                yield f"{name} {sub}", name, cmd.commands[sub]
        else:
            yield name, name, cmd


@pytest.mark.parametrize("label,name,cmd", list(_commands()), ids=lambda v: v if isinstance(v, str) else "")
def test_every_option_is_on_the_command_page(label, name, cmd):
    page = (REPO / "docs" / "commands" / f"{PAGE[name]}.md").read_text()
    missing = [
        opt
        for p in cmd.params
        if isinstance(p, click.Option) and not p.hidden
        for opt in p.opts
        if opt.startswith("--") and opt != "--help" and opt not in page
    ]
    assert missing == [], f"docs/commands/{PAGE[name]}.md does not mention {missing} of `envkit {label}`"


def test_every_page_states_exit_codes():
    for page in sorted(set(PAGE.values())):
        text = (REPO / "docs" / "commands" / f"{page}.md").read_text().lower()
        assert "exit" in text, page
