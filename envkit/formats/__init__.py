"""Every environment format envkit reads and writes, and format detection.

One module per format: envyml (environment.yml, hand-written and `conda env export`), requirements,
explicit, condalock, pixilock, condalist (`conda list --json` and `--export`), pylock (PEP 751
pylock.toml), uvlock (uv.lock), condareq (conda's MatchSpec-per-line requirements, `conda export
--format requirements`); pixi.lock is written by pixiwrite, and cyclonedx writes a CycloneDX SBOM
(a format envkit writes, never reads).  Readers raise ParseError / InvalidSpecError /
UnsupportedVersionError with file and line; writers are deterministic.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from envkit.errors import ParseError, UsageError
from envkit.formats.registry import REGISTRY, Format, detect, get

if TYPE_CHECKING:
    from typing import Any

    from envkit.model import EnvSpec, Lock

#: The formats envkit reads (`--format` choices), in the registry's order.
FORMATS = tuple(f.name for f in REGISTRY if f.reads)
#: Formats whose model is an EnvSpec; every other format reads as a Lock.
SPEC_FORMATS = tuple(f.name for f in REGISTRY if f.spec)


def detect_format(text: str, filename: str | os.PathLike[str] | None = None) -> str:
    """The format of `text` (one of FORMATS), decided from the content; `filename` only breaks ties
    (an empty file, or text that fits several formats).  Raises ParseError when nothing fits."""
    return detect(text, None if filename is None else os.fspath(filename)).name


#: manifest format -> the lock file its tool writes beside it
LOCK_NAMES = {"pixi-manifest": "pixi.lock", "pyproject": "uv.lock"}


def manifest_format(text: str, path: str | None) -> str | None:
    """ "pixi-manifest" / "pyproject" when `text` is a manifest, else None."""
    head = text[:4096].lstrip()
    if not (head.startswith(("[", "#")) or (path or "").endswith(".toml")):
        return None  # YAML, JSON, requirements: no need to ask every sniffer
    try:
        fmt = detect_format(text, path)
    except ParseError:
        return None
    return fmt if fmt in LOCK_NAMES else None


def read_text(
    text: str,
    *,
    filename: str | os.PathLike[str] | None = None,
    format: str | None = None,
    environment: str | None = None,
):
    """Parse `text` as `format` (detected when None) and return an EnvSpec or a Lock.

    `environment` picks a pixi.lock environment (default "default").  Raises UsageError for an
    unknown format name, and the readers' ParseError family for bad input.
    """
    filename = None if filename is None else os.fspath(filename)
    fmt = get(format) if format else detect(text, filename)
    if not fmt.reads:
        raise UsageError(f"unknown format {fmt.name!r}; choose one of: {', '.join(FORMATS)}")
    if text.startswith("\ufeff"):
        text = text[1:]
    return fmt.read(text, filename, environment=environment)


def read_file(path, *, format: str | None = None, environment: str | None = None):
    """Read and parse the file at `path` (see read_text); errors name the path as given."""
    from envkit.io import read_text as _read

    name = os.fspath(path)
    return read_text(_read(name), filename=name, format=format, environment=environment)


#: The options write_text takes, by format (see write_text).
WRITE_OPTIONS = {f.name: f.write_options or () for f in REGISTRY}
#: Formats write_text writes but nothing reads as such (pixi-v7 is read as pixi).
WRITE_ONLY = tuple(f.name for f in REGISTRY if f.writes and not f.reads)


def write_text(model: EnvSpec | Lock, format: str, **opts: Any) -> str:
    """The text of `model` (EnvSpec or Lock) in `format`.

    Options by format (WRITE_OPTIONS): `header` (str, comment text written first) for env,
    requirements, conda-lock, explicit and conda-list-export; `comments` (a CommentMap) for env and
    requirements; `platform` (str) picks the platform of a multi-platform Lock written as env,
    explicit, conda-list-json or conda-list-export, and is the platform an exported EnvSpec is
    locked for when written as a lock format; `name` (str) names the environment of a
    `cyclonedx` SBOM.  Besides FORMATS it writes WRITE_ONLY: `pixi-v7` (pixi.lock version 7; `pixi`
    is version 6, what conda's conda-lockfiles plugin reads) and `cyclonedx` (CycloneDX 1.6 JSON).
    Raises TypeError for a model that is neither, an option the format does not take or an option
    of the wrong type; UsageError for an unknown format and when the model cannot be written in
    that format (a Lock as requirements.txt, a spec that is not an export as a lock format, a
    package pixi.lock cannot hold: `envkit convert` writes the rest and reports it, and uv.lock).
    """
    from envkit.model import resolved_view

    spec, lock = _spec_or_lock(model)
    _check_write_args(format, opts)
    platform = opts.pop("platform", None)
    if platform is not None:
        _check_platform(spec is not None, format)
    if format == "env":
        from envkit.formats.envyml import write_env

        return write_env(spec if spec is not None else lock_to_export(lock, platform), **opts)
    if format == "conda-requirements":
        raise UsageError(
            "envkit reads conda's requirements format but does not write it; write env, explicit "
            "or conda-lock instead"
        )
    if format == "requirements":
        from envkit.formats.requirements import write_requirements

        if spec is None:
            raise UsageError("a lock cannot be written as requirements.txt")
        return write_requirements(spec, **opts)
    view = resolved_view(model, platform)
    if view is None or view.lock is None:
        raise UsageError(f"only an exported environment (name=version=build) can be written as {format}")
    return _write_lock(view.lock, format, platform, opts)


def _spec_or_lock(model: EnvSpec | Lock) -> tuple[EnvSpec | None, Lock | None]:
    """(the environment file, None) or (None, the Lock) that `model` is; TypeError for anything
    else (the type says what it takes; the hint is the way to a Lock from a live environment)."""
    from envkit.model import env_file, resolved_view

    spec = env_file(model)
    if spec is not None:
        return spec, None
    view = resolved_view(model)
    # (a Resolved given is its own view: it is not a model write_text takes)
    if view is not None and view.lock is not None and view.origin is model:
        return None, view.lock
    name = type(model).__name__
    hint = " (lock a LiveEnv first: envkit.lock_live)" if view is not None and view.live is not None else ""
    raise TypeError(f"write_text() argument 'model' must be EnvSpec or Lock, not {name}{hint}")


def _check_write_args(format: str, opts: dict[str, Any]) -> None:
    """TypeError / UsageError for write_text arguments of the wrong type, an unknown format or an
    option the format does not take."""
    if not isinstance(format, str):
        raise TypeError(f"write_text() argument 'format' must be str, not {type(format).__name__}")
    if format not in FORMATS and format not in WRITE_ONLY:
        raise UsageError(f"unknown format {format!r}; choose one of: {', '.join(FORMATS)}")
    takes = WRITE_OPTIONS[format]
    for key, value in opts.items():
        if key not in takes:
            raise TypeError(
                f"write_text() got an unexpected keyword argument {key!r} for format {format!r}"
                + (f" (it takes: {', '.join(takes)})" if takes else " (it takes none)")
            )
        if key == "comments":
            from envkit.formats.envyml import CommentMap

            if value is not None and not isinstance(value, CommentMap):
                raise TypeError(
                    f"write_text() argument 'comments' must be CommentMap or None, not {type(value).__name__}"
                )
        elif value is not None and not isinstance(value, str):
            raise TypeError(f"write_text() argument {key!r} must be str or None, not {type(value).__name__}")


def _check_platform(is_spec: bool, format: str) -> None:
    """UsageError when `platform=` does not apply to the model (an environment file, else a Lock)
    written as `format`."""
    if is_spec and format in SPEC_FORMATS:
        raise UsageError(f"platform= picks a platform of a lock; an EnvSpec is written as {format} as it is")
    if not is_spec and format in _WHOLE_LOCK:
        what = {"conda-lock": "conda-lock.yml", "cyclonedx": "an SBOM"}.get(format, "pixi.lock")
        raise UsageError(
            f"platform= does not apply to a Lock written as {format}: {what} holds every platform of the lock"
        )


#: the lock formats that hold every platform of a lock: their writers take no platform=
_WHOLE_LOCK = ("conda-lock", "pixi", "pixi-v7", "cyclonedx")


def _write_lock(lock: Lock, format: str, platform: str | None, opts: dict[str, Any]) -> str:
    """write_text for a Lock in a lock format (every format but env and the spec formats)."""
    if format == "uv-lock":
        raise UsageError("envkit reads uv.lock but does not write it (uv owns it); write pylock instead")
    writer = get(format).writer
    if writer is not None:
        import importlib

        module, func = writer.split(":")
        write = getattr(importlib.import_module(f"envkit.formats.{module}"), func)
        return write(lock, **opts) if format in _WHOLE_LOCK else write(lock, platform, **opts)
    from envkit.formats.pixiwrite import write_pixi_lock

    return write_pixi_lock(lock, version=7 if format == "pixi-v7" else 6, strict=True)


def lock_to_export(lock, platform: str | None = None):
    """A Lock as an exported EnvSpec (`name=version=build` per conda package, `name==version` per pip
    package) for one platform: what `conda env export` would write for it."""
    from envkit.conda.matchspec import parse_spec
    from envkit.formats.pipreq import parse_pip_entry
    from envkit.model import EnvSpec

    if platform is None:
        if len(lock.platforms) > 1:
            raise UsageError(
                f"the lock has {len(lock.platforms)} platforms; choose one",
                hint=f"one of: {', '.join(lock.platforms)}",
            )
        platform = lock.platforms[0] if lock.platforms else None
    pkgs = lock.for_platform(platform) if platform else lock.packages
    conda = []
    pip = []
    for p in pkgs:
        if p.manager == "conda":
            text = f"{p.name}={p.version}={p.build}" if p.build else f"{p.name}={p.version}"
            conda.append(parse_spec(text))
        elif p.version:
            pip.append(parse_pip_entry(f"{p.name}=={p.version}"))
        elif p.url:
            pip.append(parse_pip_entry(p.url))
    pip_opts = [parse_pip_entry(o) for o in lock.pip_options]
    channels = lock.channels
    if not channels:
        from envkit.conda.channels import parse_channel

        # an explicit file or `conda list` names no channels: the packages' own, in order of appearance
        channels = tuple(parse_channel(c) for c in dict.fromkeys(p.channel for p in pkgs if p.channel))
    return EnvSpec(
        name=lock.environment,
        channels=channels,
        conda=tuple(conda),
        pip=tuple(pip_opts + pip),
        kind="export",
        has_pip_section=bool(pip or pip_opts),
    )


__all__ = [
    "REGISTRY",
    "Format",
    "FORMATS",
    "SPEC_FORMATS",
    "WRITE_OPTIONS",
    "detect_format",
    "read_text",
    "read_file",
    "write_text",
    "lock_to_export",
]
