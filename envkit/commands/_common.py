"""Helpers shared by the command modules (CLI side only: these may print)."""

from __future__ import annotations

from envkit.model import EnvSpec, LiveEnv, Lock

# the messages are the operations' (envkit.ops); printing them is the CLI's
from envkit.ops._duplicates import duplicate_messages
from envkit.output import echo, warn


def warn_duplicates(env: EnvSpec | Lock | LiveEnv) -> None:
    """The mission's warning: one stderr line per project installed by both conda and pip (unless
    silenced: see duplicate_messages).  Every command that reads an environment (export, lock, diff,
    check, smoke --create) calls this."""
    for msg in duplicate_messages(env):
        warn(msg)


def note_named_format(path: str, fmt: str, option: str) -> None:
    """The one-line note that the name of `path`, not a flag, decided the format written."""
    from envkit.formats.registry import get

    echo(
        f"note: writing {get(fmt).title} ({fmt}): the name {path} says so; {option} chooses another", err=True
    )
