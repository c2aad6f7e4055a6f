"""What envkit's conda-lock.yml writer (envkit.formats.condalock.write_conda_lock) writes for its
readers beyond the packages: the metadata conda-lock's schema takes, and the note on what conda
cannot read."""

from __future__ import annotations

import json

from envkit.model import Lock, LockedPackage

#: The `metadata.custom_metadata` key (conda-lock's schema: a str -> str mapping) under which
#: `Lock.pip_options` (`--index-url`, `--find-links`, ... of the spec's pip section) are kept, one
#: option per line, in order; `envkit create` passes them to pip.
PIP_OPTIONS_KEY = "envkit.pip_options"

#: what `conda create --file` (its conda-lockfiles reader) makes of a conda-lock.yml with pip
#: packages: it takes `manager: pypi` only, where conda-lock, the format's owner, writes `pip`
CONDA_CANNOT_READ_PIP = (
    "conda cannot create from this conda-lock.yml: its pip packages ({names}) are `manager: pip`, "
    "as conda-lock writes them, and conda's reader of the format (conda-lockfiles) takes only "
    "`pypi`; install it with `envkit create --lock FILE` or `conda-lock install`"
)


def note_pip_for_conda(pkgs: list[LockedPackage]) -> None:
    pip = sorted({p.name for p in pkgs if p.manager == "pip"})
    if pip:
        from envkit.output import note

        note(CONDA_CANNOT_READ_PIP.format(names=", ".join(pip[:3]) + (", ..." if len(pip) > 3 else "")))


#: metadata keys of conda-lock's schema besides the four write_conda_lock writes first (it forbids
#: any other key)
_MORE_META_KEYS = ("time_metadata", "git_metadata", "inputs_metadata")


def written_metadata(lock: Lock) -> list[tuple[str, object]]:
    """The metadata entries after `sources:`, as conda-lock's schema and conda's reader take them.

    A key of another format's lock (pixi's `options`) goes into `custom_metadata` as JSON text
    under `KIND.KEY` (conda-lock forbids other keys; its custom values are strings); the source's
    own format `version` is not metadata of this file.  `custom_metadata` gets `created_by`, which
    conda's reader of the format (conda-lockfiles) requires whenever the mapping is there, and the
    pip options under PIP_OPTIONS_KEY (the inverse of `split_pip_options`)."""
    out: list[tuple[str, object]] = []
    custom: dict[str, object] = {}
    options = "\n".join(lock.pip_options)
    for k, v in lock.metadata:
        value = json.loads(v)
        if k == "custom_metadata" and (isinstance(value, dict) or options):
            custom.update(value if isinstance(value, dict) else {})
            if options:
                custom[PIP_OPTIONS_KEY] = options
        elif k in _MORE_META_KEYS:
            out.append((k, value))
        elif k != "version":
            custom[f"{lock.kind}.{k}"] = value
    if options:
        custom[PIP_OPTIONS_KEY] = options  # (no-op where the source's own custom_metadata took them)
    if custom:
        from envkit import __version__

        custom = {k: v if isinstance(v, str) else json.dumps(v, sort_keys=True) for k, v in custom.items()}
        out.append(("custom_metadata", {"created_by": f"envkit {__version__}", **custom}))
    return out
