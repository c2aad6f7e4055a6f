"""The output protocol: events on stdout, and the exceptions a check raises to skip, warn or fail."""

from __future__ import annotations

import json
import sys

EVENT_PREFIX = "@@envkit-smoke@@ "


SCHEMA = 1


def emit(event: dict) -> None:
    sys.stdout.write(EVENT_PREFIX + json.dumps(event, sort_keys=True, default=str) + "\n")
    sys.stdout.flush()


def progress(check: str, detail: str) -> None:
    emit({"event": "progress", "check": check, "detail": detail})


class Skip(Exception):
    """Raised by a check that does not apply here (the detail says why)."""


class Warn(Exception):
    """Raised by a check that ran but found something worth a warning."""


class Fail(Exception):
    """Raised by a check that found a real problem (the detail says which)."""
