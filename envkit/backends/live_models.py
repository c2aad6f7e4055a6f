"""A LiveEnv as the other models: an EnvSpec (what `envkit export` writes) and a Lock.

Pure functions.  Where `conda env export` is wrong, these are right
(https://docs.conda.io/projects/conda/en/latest/user-guide/tasks/manage-environments.html):
channels in true priority order, each package keeps its channel, `--from-history` keeps pip
packages and `-c` channels, no `prefix:`, credentials redacted (in URLs and in the values of
secret-looking variables such as `HF_TOKEN`), and pip installs from URLs, VCS or editable checkouts
written as such.
"""

from __future__ import annotations

import re

from envkit.model import Channel, CondaDep, EnvSpec, LiveEnv, Lock, PipDep, PipDist

_URL_IN_TEXT = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*://[^\s'\"]+")


def redact_env(env: LiveEnv) -> LiveEnv:
    """`env` with every credential replaced by a placeholder, for writing it out in any format: the
    values of secret-looking variables (`envkit.urls.redact_variables`: `API_KEY`, `HF_TOKEN`, ... ->
    `<TOKEN>`, and credentials in URL values), and tokens in package URLs (conda and pip), pip
    distributions' URLs, channel URLs and URLs quoted in the reader's warnings.  The native backend
    already redacts URLs; a CLI backend's answers and `conda-meta/state` variables are redacted here.
    """
    from dataclasses import replace

    from envkit.urls import redact_url, redact_variables

    def redacted(x):  # a package or a pip distribution
        url, had = redact_url(x.url) if x.url else (x.url, False)
        return replace(x, url=url) if had else x

    return replace(
        env,
        packages=tuple(map(redacted, env.packages)),
        pip_dists=tuple(map(redacted, env.pip_dists)),
        variables=redact_variables(env.variables),
        warnings=tuple(_URL_IN_TEXT.sub(lambda m: redact_url(m.group(0))[0], w) for w in env.warnings),
    )


def export_channels(env: LiveEnv) -> tuple[Channel, ...]:
    """The channels a full export needs, in priority order.

    The env's configured channels (history `-c` channels, then the .condarc list) that some
    installed package came from - `defaults` counts for pkgs/main, pkgs/r, ... - in their order;
    then channels packages came from that no configuration names, in package-name order.
    """
    from envkit.conda.channels import is_defaults, parse_channel

    used: list[str] = []
    for p in sorted(env.conda_packages(), key=lambda p: p.name):
        if p.channel and p.channel not in used:
            used.append(p.channel)
    out: list[Channel] = []
    covered: set[str] = set()
    for ch in env.channels:
        if ch.name == "defaults":
            hits = [u for u in used if is_defaults(u)]
            if hits:
                out.append(ch)
                covered.update(hits)
        elif ch.name in used:
            out.append(ch)
            covered.add(ch.name)
    for u in used:
        if u not in covered:
            out.append(parse_channel(u))
            covered.add(u)
    return tuple(out)


def pip_entry(dist: PipDist) -> PipDep:
    """How a pip distribution is written back so that pip reinstalls the same thing.

    Index installs: `name==version`; VCS: `name @ git+URL@commit`; editable VCS:
    `-e git+URL@commit#egg=name`; editable local checkouts: `-e /path`; other direct URLs:
    `name @ URL`.  Credentials in URLs are replaced by placeholders.
    """
    from dataclasses import replace

    from envkit.backends.pip_entries import pip_install_url, pip_requirement
    from envkit.urls import redact_url

    if not dist.url:
        return pip_requirement(dist.name, dist.version)
    url = pip_install_url(replace(dist, url=redact_url(dist.url)[0])) or ""
    if dist.vcs and dist.editable:
        return pip_requirement(dist.name, dist.version, editable=f"{url}#egg={dist.name}")
    if dist.editable:
        return pip_requirement(dist.name, dist.version, editable=_file_path(url))
    return pip_requirement(dist.name, dist.version, url=url)


def _file_path(url: str) -> str:
    if url.startswith("file:"):
        from urllib.parse import unquote, urlsplit  # here: few environments hold an editable path

        return unquote(urlsplit(url).path) or url
    return url


def live_to_spec(
    env: LiveEnv, *, from_history: bool = False, no_builds: bool = False, name: str | None = None
) -> EnvSpec:
    """The environment.yml model of `env`.

    Default: every conda package pinned exactly as `channel::name=version=build`; `no_builds`
    gives `channel::name==version` (an exact version: conda reads `name=1.2.3` as `1.2.3*`);
    `from_history` gives the requested specs as the user wrote them, the `-c` channels included.
    pip packages are always kept.  No `prefix:`.  Variables whose value is a credential
    (`HF_TOKEN`, `WANDB_API_KEY`, ...; see `envkit.urls.redact_variable`) are written as `<TOKEN>`.
    """
    from envkit.urls import redact_variables

    if from_history and (env.requested or not env.conda_packages()):
        from dataclasses import replace

        conda = tuple(replace(d, line=None) for d in env.requested)  # no line of where they were read
        # every configured channel (history's -c ones first), used or not: the solve needs them
        channels = tuple(env.channels)
    else:
        # --from-history of a prefix that records no requested spec (no conda-meta/history, or one
        # without update specs, and records without requested_spec(s)): like conda 26.7.1, every
        # installed package, pinned (`history_fallback` says so)
        deps = []
        for p in env.conda_packages():
            build = None if no_builds or not p.build else p.build
            deps.append(
                CondaDep(
                    name=p.name, version=f"=={p.version}", build=build, channel=p.channel, raw=p.conda_form()
                )
            )
        conda = tuple(sorted(deps, key=lambda d: d.name))
        channels = export_channels(env)
    pip = tuple(pip_entry(d) for d in sorted(env.pip_dists, key=lambda d: (d.name.lower(), d.version)))
    return EnvSpec(
        name=name if name is not None else env.name,
        channels=channels,
        conda=conda,
        pip=pip,
        variables=redact_variables(env.variables),
        kind="spec" if from_history else "export",
        has_pip_section=bool(pip),
    )


def history_fallback(env: LiveEnv) -> bool:
    """Whether `--from-history` of `env` falls back to every installed package, pinned (the prefix
    records no requested spec), as conda 26.7.1's `conda env export --from-history` does."""
    return not env.requested and bool(env.conda_packages())


def live_to_lock(env: LiveEnv) -> Lock:
    """`env` as a one-platform Lock (kind "live"): conda packages then pip packages, in name order,
    channels as `export_channels`; its metadata records the editable pip packages and the
    variables (secrets redacted) as `envkit lock` does (`envkit.backends.lock_metadata`)."""
    from envkit.backends.lock_metadata import lock_metadata

    conda = sorted(env.conda_packages(), key=lambda p: p.name)
    pip = sorted(env.pip_packages(), key=lambda p: (p.name.lower(), p.version))
    return Lock(
        kind="live",
        platforms=(env.platform,),
        packages=tuple(conda + pip),
        channels=export_channels(env),
        metadata=lock_metadata(pip, env.variables, over_conda=[n for n, _ in env.pip_over_conda]),
        source=env.prefix,
    )
