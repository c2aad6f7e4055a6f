"""The environment variables a lock records, set in the new environment's conda-meta/state."""

from __future__ import annotations

import contextlib
import os
from collections.abc import Sequence


def write_state_variables(
    prefix: str, variables: Sequence[tuple[str, str]]
) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """Set `variables` in the environment at `prefix` as `conda env config vars set` does (the
    `env_vars` of `conda-meta/state`, other keys of an existing state kept).  A variable whose value
    is a redaction placeholder (`<TOKEN>`, `<USER>:<PASSWORD>`: a credential left out when it was
    locked) is not set.  Returns (names set, names left unset), in order; writes nothing when no
    variable is set."""
    import json

    from envkit.io import atomic_write
    from envkit.urls import has_placeholder

    keep = [(k, v) for k, v in variables if not has_placeholder(v)]
    unset = tuple(k for k, v in variables if has_placeholder(v))
    if not keep:
        return (), unset
    path = os.path.join(prefix, "conda-meta", "state")
    state: dict = {}
    if os.path.isfile(path):
        with contextlib.suppress(OSError, ValueError), open(path, encoding="utf-8") as fh:
            loaded = json.load(fh)
            state = loaded if isinstance(loaded, dict) else {}
    env_vars = dict(state.get("env_vars") or {})
    env_vars.update(keep)
    state["env_vars"] = env_vars
    atomic_write(
        path, json.dumps(state, indent=2, ensure_ascii=False) + "\n", redact=False
    )  # the real values
    return tuple(k for k, _ in keep), unset
