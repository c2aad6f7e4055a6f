"""Whether long-running commands (lock, create) show progress on stderr, and the one way they print it.

Progress is for people watching a terminal: shown when stderr is a terminal, never when it is piped
or redirected (CI logs, `2>file`) unless ENVKIT_PROGRESS=1 asks for it, and never with --quiet or
ENVKIT_PROGRESS=0.  Cores take a `progress` callback (or a show_progress flag for py-rattler's own
download/link bars) and never decide this themselves.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable

from envkit.output import echo

ENV_VAR = "ENVKIT_PROGRESS"


def enabled(quiet: bool = False) -> bool:
    """True when progress should be shown: not `quiet`, and ENVKIT_PROGRESS=1 or stderr a terminal."""
    if quiet:
        return False
    forced = os.environ.get(ENV_VAR, "").strip()
    if forced in ("0", "1"):
        return forced == "1"
    return stderr_is_terminal()


def stderr_is_terminal() -> bool:
    try:
        return sys.stderr.isatty()
    except (AttributeError, ValueError):  # a replaced or closed stderr
        return False


def reporter(quiet: bool = False) -> Callable[[str], None] | None:
    """A callback printing one `envkit: ...` line per step on stderr, or None when progress is off."""
    if not enabled(quiet):
        return None

    def say(message: str) -> None:
        echo(f"envkit: {message}", err=True)

    return say
