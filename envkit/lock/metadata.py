"""What envkit records in a lock's custom_metadata (editable pip packages, variables, pip over conda)."""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence

from envkit.conda.names import pep503

#: Keys envkit adds to conda-lock.yml's `metadata.custom_metadata` (conda-lock's schema: a string ->
#: string mapping, the one place it has for extra data; conda-lock itself reads and ignores them).
#: EDITABLE_KEY: the pip packages installed editable (`pip install -e`), one name per line: a
#: conda-lock v1 pip package has no editable field.  VARIABLES_KEY: the environment's variables
#: (`conda env config vars`), as a JSON object in their order, secret values as `<TOKEN>`
#: (`envkit.urls.redact_variables`); `envkit create` sets the others in the new environment's
#: conda-meta/state.  OVER_CONDA_KEY: the pip packages that were installed over a conda package's files
#: (`LiveEnv.pip_over_conda`), one name per line: `envkit create` installs them the same way.
from envkit.formats.condalock import EDITABLE_KEY  # noqa: E402  (defined with its reader)
from envkit.model import Lock, LockedPackage
from envkit.urls import redact_variables

VARIABLES_KEY = "envkit.variables"
OVER_CONDA_KEY = "envkit.pip_over_conda"


def lock_metadata(
    packages: Iterable[LockedPackage],
    variables: Sequence[tuple[str, str]] = (),
    metadata: Sequence[tuple[str, str]] = (),
    *,
    over_conda: Iterable[str] = (),
) -> tuple[tuple[str, str], ...]:
    """`metadata` (Lock.metadata entries) with EDITABLE_KEY (the editable pip packages of
    `packages`, in name order), VARIABLES_KEY (`variables`, secrets redacted) and OVER_CONDA_KEY
    (the pip names `over_conda`, in name order) added to `custom_metadata`; unchanged when there is
    nothing to add."""

    def by_name(names):
        return sorted(set(names), key=lambda n: (pep503(n), n))

    editable = by_name(p.name for p in packages if p.manager == "pip" and p.editable)
    add: dict[str, str] = {}
    if editable:
        add[EDITABLE_KEY] = "\n".join(editable)
    over = by_name(over_conda)
    if over:
        add[OVER_CONDA_KEY] = "\n".join(over)
    if variables:
        add[VARIABLES_KEY] = json.dumps(
            dict(redact_variables(variables)), ensure_ascii=False, separators=(",", ":")
        )
    if not add:
        return tuple(metadata)
    out, done = [], False
    for k, v in metadata:
        if k == "custom_metadata":
            custom = json.loads(v) if v else {}
            custom = dict(custom) if isinstance(custom, dict) else {}
            custom.update(add)
            v, done = json.dumps(custom, ensure_ascii=False, separators=(",", ":")), True
        out.append((k, v))
    if not done:
        out.append(("custom_metadata", json.dumps(add, ensure_ascii=False, separators=(",", ":"))))
    return tuple(out)


def _custom_metadata(lock: Lock) -> dict:
    from envkit.formats.condalock import custom_metadata

    return custom_metadata(lock)


def apply_lock_metadata(lock: Lock) -> Lock:
    """`lock` with what envkit recorded in `custom_metadata` put back on its packages: the pip
    packages named under EDITABLE_KEY are editable.  The same lock when there is nothing to apply.
    (read_conda_lock already does this; locks built in memory may still need it.)"""
    from envkit.formats.condalock import apply_editable

    return apply_editable(lock)


def lock_over_conda(lock: Lock) -> tuple[str, ...]:
    """The pip package names recorded in `lock` as installed over a conda package's files
    (OVER_CONDA_KEY), PEP 503 normalized; () when none."""
    text = _custom_metadata(lock).get(OVER_CONDA_KEY)
    if not isinstance(text, str):
        return ()
    return tuple(pep503(n) for n in text.splitlines() if n.strip())


def lock_variables(lock: Lock) -> tuple[tuple[str, str], ...]:
    """The environment variables recorded in `lock` (VARIABLES_KEY), in order; () when none.
    Secret values are `<TOKEN>` there (they were redacted when locked)."""
    text = _custom_metadata(lock).get(VARIABLES_KEY)
    if not isinstance(text, str):
        return ()
    try:
        data = json.loads(text)
    except ValueError:
        return ()
    if not isinstance(data, dict):
        return ()
    return tuple((str(k), str(v)) for k, v in data.items())
