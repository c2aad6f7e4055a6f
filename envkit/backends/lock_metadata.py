"""What envkit writes into a lock's custom_metadata (editable pip packages, variables, pip over conda).

It sits below the cores because both build locks: `envkit.backends.live_models.live_to_lock` (a live
environment as a Lock) and the lockers in `envkit.lock`; the readers are in `envkit.lock.metadata`.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence

from envkit.conda.names import pep503
from envkit.formats.condalock import EDITABLE_KEY  # defined with its reader
from envkit.model import LockedPackage
from envkit.urls import redact_variables

#: Keys envkit adds to conda-lock.yml's `metadata.custom_metadata` (conda-lock's schema: a string ->
#: string mapping, the one place it has for extra data; conda-lock itself reads and ignores them).
#: EDITABLE_KEY: the pip packages installed editable (`pip install -e`), one name per line: a
#: conda-lock v1 pip package has no editable field.  VARIABLES_KEY: the environment's variables
#: (`conda env config vars`), as a JSON object in their order, secret values as `<TOKEN>`
#: (`envkit.urls.redact_variables`); `envkit create` sets the others in the new environment's
#: conda-meta/state.  OVER_CONDA_KEY: the pip packages that were installed over a conda package's files
#: (`LiveEnv.pip_over_conda`), one name per line: `envkit create` installs them the same way.
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
    return add_custom_metadata(metadata, add)


def add_custom_metadata(
    metadata: Sequence[tuple[str, str]], add: Mapping[str, str]
) -> tuple[tuple[str, str], ...]:
    """`metadata` (Lock.metadata entries) with `add` merged into its custom_metadata entry (made
    when absent); unchanged when `add` is empty."""
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
