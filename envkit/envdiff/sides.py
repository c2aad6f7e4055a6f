"""One side of a diff as the comparison sees it (`_Side`), built from any model, and the side-level
facts the per-package rules share (`_Context`)."""

from __future__ import annotations

from dataclasses import dataclass

from envkit.envdiff.categories import blas_of
from envkit.envdiff.keys import _chan_names, _pep503
from envkit.envdiff.platforms import _guess_export, platform_family
from envkit.envdiff.records import EXPORT_JSON_BACKEND, SideInfo
from envkit.model import EnvSpec, LiveEnv, Lock, LockedPackage, loose_spec, resolved_view


@dataclass(slots=True)
class _Side:
    info: SideInfo
    packages: tuple[LockedPackage, ...] = ()
    spec: EnvSpec | None = None
    channels: tuple[str, ...] | None = None
    priority: str | None = None
    pip_options: tuple[str, ...] | None = None
    variables: tuple[str, ...] | None = None  # KEY=VALUE, credentials redacted
    secrets: dict | None = None  # KEY -> the real value, for the variables that were redacted
    owned: dict | None = None  # live env: conda name -> PyPI names it owns
    python_version: str | None = None
    dists: dict | None = None  # live env: PEP 503 name -> PipDist (VCS and commit of direct installs)
    base_dir: str | None = None  # the directory of the file the side was read from (relative paths)
    used_channels: tuple[str, ...] | None = None  # live prefix: the channels its packages came from
    unused_channels: tuple[str, ...] = ()
    pip_sources: bool = True  # whether the side records where pip packages came from (see _side)


def spec_of(side: _Side) -> EnvSpec:
    """The spec a side that is not concrete was read from (every such side has one)."""
    if side.spec is None:
        raise ValueError(f"{side.info.source} is concrete: it has no spec")
    return side.spec


def _side(model: EnvSpec | Lock | LiveEnv, platform: str | None, label: str) -> _Side:
    view = resolved_view(model)
    if view is None:
        spec = loose_spec(model)
        assert spec is not None  # what is not resolved is a loose spec
        return _spec_side(spec, label)
    guessed = False
    export = view.export
    if export is not None:
        guess = _guess_export(export)
        if platform is None or platform == guess:
            platform = guess
            guessed = guess is not None
        elif guess and "-" not in guess and platform_family(platform) == guess:
            guessed = True  # the family was guessed, the platform taken from the other side
        view = resolved_view(export, platform)
        assert view is not None
    live = view.live
    if live is not None:
        return _live_side(live, label)
    lock = view.lock
    assert lock is not None
    pkgs = view.packages(platform)
    info = SideInfo(
        source=label,
        kind=lock.kind,
        concrete=True,
        platform=platform,
        platforms=view.platforms,
        name=lock.environment,
        packages=len(pkgs),
        platform_guessed=guessed,
        # an explicit file (`conda list --explicit`) cannot hold pip packages, unless it has
        # conda-lock's `# pip name @ url` lines; every other format can
        records_pip=lock.kind != "explicit" or any(p.manager == "pip" for p in lock.packages),
    )
    pip_opts = tuple(lock.pip_options) if lock.pip_options or lock.kind != "explicit" else None
    # a format records pip sources when any pip entry has one (`conda env export` writes every
    # pip package as name==version, so a VCS install there is not "from an index")
    pip_sources = any(p.manager == "pip" and (p.url or p.editable) for p in pkgs)
    # a `conda env export`'s variables (a Lock has no place for them)
    export_vars = export.variables if export is not None else None
    return _Side(
        info=info,
        packages=pkgs,
        channels=_chan_names(lock.channels) or None,
        pip_options=pip_opts,
        pip_sources=pip_sources,
        base_dir=_base_dir(lock.source),
        variables=_variables(export_vars) if export_vars is not None else None,
        secrets=_secrets(export_vars) if export_vars is not None else None,
    )


def _spec_side(spec: EnvSpec, label: str) -> _Side:
    """A spec that is not concrete: compared entry by entry against the other side."""
    info = SideInfo(
        source=label,
        kind=spec.kind,
        concrete=False,
        platform=None,
        platforms=tuple(spec.platforms),
        name=spec.name,
        packages=len(spec.conda) + sum(1 for p in spec.pip if p.kind != "option"),
    )
    return _Side(
        info=info,
        spec=spec,
        channels=_chan_names(spec.channels) or None,
        base_dir=_base_dir(spec.source),
        pip_options=tuple(p.text for p in spec.pip if p.kind == "option"),
        variables=_variables(spec.variables),
        secrets=_secrets(spec.variables),
    )


def _live_side(model: LiveEnv, label: str) -> _Side:
    """A live prefix, or an environment read from envkit's JSON export."""
    pkgs = tuple(model.packages)
    kind = "envkit-export" if model.backend == EXPORT_JSON_BACKEND else "live"
    info = SideInfo(
        source=label,
        kind=kind,
        concrete=True,
        platform=model.platform,
        platforms=(model.platform,) if model.platform else (),
        name=model.name,
        packages=len(pkgs),
    )
    used = None
    if kind == "live":
        from envkit.backends.live_models import export_channels

        # what `envkit export` writes: the configured channels packages came from, in priority
        # order, then those no configuration names
        used = _chan_names(export_channels(model))
    return _Side(
        info=info,
        packages=pkgs,
        channels=_chan_names(model.channels) or None,
        used_channels=used,
        priority=model.channel_priority,
        variables=_variables(model.variables),
        secrets=_secrets(model.variables),
        owned={k: tuple(v) for k, v in model.pypi_names} or None,
        python_version=model.python_version,
        dists={_pep503(d.name): d for d in model.pip_dists} or None,
    )


def _base_dir(source: str | None) -> str | None:
    """The directory of a local file a model was read from (relative pip paths are relative to
    it), or None (stdin, a remote file, no file)."""
    import os

    if not source or source.startswith("<") or "://" in source:
        return None
    return os.path.dirname(os.path.abspath(source))


def _variables(pairs) -> tuple[str, ...]:
    """`KEY=VALUE` texts with credentials redacted (envkit.urls.redact_variable)."""
    from envkit.urls import redact_variable

    return tuple(f"{k}={redact_variable(k, v)[0]}" for k, v in pairs)


def _secrets(pairs) -> dict[str, str]:
    """KEY -> real value of the variables whose value `_variables` redacts (kept to compare only)."""
    from envkit.urls import redact_variable

    return {k: v for k, v in pairs if redact_variable(k, v)[1]}


class _Context:
    """Side-level facts the per-package rules need (BLAS implementation, platforms)."""

    __slots__ = ("sa", "sb", "cross", "blas_a", "blas_b")

    def __init__(self, sa: _Side, sb: _Side, cross: bool) -> None:
        self.sa, self.sb, self.cross = sa, sb, cross
        self.blas_a = blas_of(sa.packages)
        self.blas_b = blas_of(sb.packages)
