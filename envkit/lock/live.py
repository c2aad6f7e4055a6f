"""Locking a live environment exactly, and its exact environment file (`environment.lock.yml`)."""

from __future__ import annotations

from collections.abc import Mapping

from envkit.backends.lock_metadata import lock_metadata
from envkit.conda.names import pep503
from envkit.lock.artifacts import index_placeholder_url
from envkit.lock.content_hash import spec_content_hash
from envkit.lock.packages import sort_packages
from envkit.model import CondaDep, EnvSpec, LiveEnv, Lock, LockedPackage, PipDep
from envkit.urls import redact_variables


def live_env_spec(env: LiveEnv) -> EnvSpec:
    """The exact environment file of a live environment (`environment.lock.yml`): every conda
    package as `channel::name=version=build` in name order, every pip package pinned
    (`name==version`, or `name @ URL` for URL/VCS installs, `-e URL` for editable ones)."""
    conda = [
        CondaDep(name=p.name, version=f"=={p.version}", build=p.build or None, channel=p.channel or None)
        for p in sorted(env.conda_packages(), key=lambda p: p.name)
    ]
    dists = {pep503(d.name): d for d in env.pip_dists}
    pip = []
    for p in sorted(env.pip_packages(), key=lambda p: pep503(p.name)):
        pip.append(_pip_pin(p, dists.get(pep503(p.name))))
    from envkit.backends.live_models import export_channels

    # the channel list `envkit export` writes (configured channels some package came from, then the
    # others packages came from): a configured `defaults` no package came from is not added
    channels = export_channels(env)
    return EnvSpec(
        name=env.name,
        channels=channels,
        conda=tuple(conda),
        pip=tuple(pip),
        variables=redact_variables(env.variables),
        kind="export",
        has_pip_section=bool(pip),
    )


def _pip_pin(p: LockedPackage, dist) -> PipDep:
    """The environment.lock.yml entry of live pip package `p` (its PipDist `dist`, when known):
    `-e URL#egg=NAME` for an editable install (the name kept in pip's `#egg=` fragment), `NAME @
    git+URL@commit` for a VCS install, `NAME @ URL` for another URL install, else `NAME==VERSION`.
    The entry is what reading the written line back gives (`parse_pip_entry`), so that the content
    hash of the file on disk is the one the lock records."""
    from envkit.backends.pip_entries import pip_install_url, pip_requirement

    url = (pip_install_url(dist) if dist is not None else None) or p.url or None
    editable = bool(p.editable or (dist is not None and dist.editable))
    if url and editable:
        return pip_requirement(p.name, p.version, editable=url if "#" in url else f"{url}#egg={p.name}")
    return pip_requirement(p.name, p.version, url=url)


def lock_live(
    env: LiveEnv,
    *,
    index_artifacts: Mapping[str, tuple[str, str | None]] | None = None,
    allow_unhashed_pip: bool = False,
) -> Lock:
    """Lock the live environment `env` exactly, for its own platform: what `envkit lock -p` writes.

    Pip packages keep the URL and sha256 their installation recorded (direct_url.json).  One
    installed from an index records neither: it gets the artifact in `index_artifacts` (PEP 503
    name -> (URL, sha256)); when that is None, pip is asked (`resolve_index_artifacts`), and a
    release pip cannot resolve raises BackendError, as `envkit lock -p` exits 2, unless
    `allow_unhashed_pip` (then it gets the UNRESOLVED_URL marker, and no hash).  The lock's
    content hash is the hash of `live_env_spec(env)`, so `envkit lock --check -f
    environment.lock.yml --lock conda-lock.yml` passes on the pair `envkit lock -p` writes.
    """
    from dataclasses import replace

    platform = env.platform
    if index_artifacts is None and any(p.manager == "pip" and not p.url for p in env.packages):
        from envkit.lock.artifacts import resolve_or_refuse

        index_artifacts = resolve_or_refuse(env, allow_unhashed_pip=allow_unhashed_pip).found
    artifacts = index_artifacts or {}
    pkgs = []
    for p in env.packages:
        if p.platform != platform:
            p = replace(p, platform=platform)
        if p.manager == "pip" and not p.url:
            hit = artifacts.get(pep503(p.name))
            if hit is not None:
                p = replace(p, url=hit[0], sha256=hit[1] or p.sha256)
            else:
                p = replace(p, url=index_placeholder_url(p.name, p.version))
        pkgs.append(p)
    spec = live_env_spec(env)
    return Lock(
        kind="conda-lock",
        platforms=(platform,),
        packages=sort_packages(pkgs),
        channels=spec.channels,
        content_hash=((platform, spec_content_hash(spec, platform)),),
        metadata=lock_metadata(pkgs, env.variables, over_conda=[n for n, _ in env.pip_over_conda]),
        source=env.prefix,
    )
