"""Reading back what envkit records in a lock's custom_metadata (editable pip packages, variables, pip
over conda); the writer, `lock_metadata`, and its keys are in `envkit.backends.lock_metadata`."""

from __future__ import annotations

from collections.abc import Mapping

from envkit.backends.lock_metadata import OVER_CONDA_KEY, VARIABLES_KEY
from envkit.conda.names import pep503
from envkit.errors import ParseError
from envkit.formats.condalock import apply_editable, custom_metadata
from envkit.model import Lock

#: `lock` with its editable pip packages marked (read_conda_lock applies them already; a lock built
#: in memory may need it)
apply_lock_metadata = apply_editable


def lock_over_conda(lock: Lock) -> tuple[str, ...]:
    """The pip package names recorded in `lock` as installed over a conda package's files
    (OVER_CONDA_KEY), PEP 503 normalized; () when none."""
    text = custom_metadata(lock).get(OVER_CONDA_KEY)
    if not isinstance(text, str):
        return ()
    return tuple(pep503(n) for n in text.splitlines() if n.strip())


def lock_variables(lock: Lock) -> tuple[tuple[str, str], ...]:
    """The environment variables recorded in `lock` (VARIABLES_KEY), in order; () when none.
    Secret values are `<TOKEN>` there (they were redacted when locked)."""
    data = recorded_json(custom_metadata(lock), VARIABLES_KEY) or {}
    return tuple((str(k), str(v)) for k, v in data.items())


def recorded_json(custom: Mapping[str, object], key: str) -> dict | None:
    """The JSON object recorded as text under `key` of a lock's custom_metadata mapping `custom`;
    None when there is none (or an unreadable one)."""
    from envkit.formats._json import load_json  # here: most locks record nothing in JSON

    text = custom.get(key)
    if not isinstance(text, str):
        return None
    try:
        doc = load_json(text, None)
    except ParseError:
        return None
    return doc if isinstance(doc, dict) else None
