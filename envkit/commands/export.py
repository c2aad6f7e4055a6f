"""`envkit export`: write a live conda environment down exactly.

    envkit export [-n NAME | -p PREFIX] [--backend native|conda|mamba|micromamba] [--exe PATH]
                  [--from-history] [--no-builds] [--format yaml|explicit|conda-lock|json]
                  [--hash md5|sha256] [-o FILE]

Formats: `yaml` (default, a normalized environment.yml), `explicit` (conda's `@EXPLICIT` URL list
with md5), `conda-lock` (conda-lock.yml version 1, one platform), `json` (envkit's own schema,
documented in docs/commands/export.md and `JSON_SCHEMA_VERSION`).
"""
from __future__ import annotations

import click

FORMATS = ("yaml", "explicit", "conda-lock", "json")

#: Version of the `--format json` document (the `envkit_export` key).
JSON_SCHEMA_VERSION = 1


@click.command("export")
@click.option("-n", "--name", "env_name", metavar="NAME", help="Environment name (resolved like conda does).")
@click.option("-p", "--prefix", metavar="PREFIX", type=click.Path(file_okay=False), help="Environment prefix path.")
@click.option("--backend", type=click.Choice(["native", "conda", "mamba", "micromamba"]), default="native",
              show_default=True, help="Read the prefix directly, or ask that executable's --json commands.")
@click.option("--exe", metavar="PATH", help="The conda/mamba/micromamba executable (default: CONDA_EXE, MAMBA_EXE, PATH).")
@click.option("--from-history", is_flag=True, help="Only the specs you asked for (with pip packages and -c channels).")
@click.option("--no-builds", is_flag=True, help="Pin versions exactly (name==version) without build strings.")
@click.option("--format", "fmt", type=click.Choice(FORMATS), default="yaml", show_default=True)
@click.option("--hash", "digest", type=click.Choice(["md5", "sha256"]), default="md5", show_default=True,
              help="The hash each URL of --format explicit carries (as `conda list --explicit --md5/--sha256`).")
@click.option("-o", "--output", metavar="FILE", help="Write to FILE (atomically) instead of stdout.")
def export(env_name, prefix, backend, exe, from_history, no_builds, fmt, digest, output) -> int:
    """Export a live conda environment exactly.

    Unlike `conda env export`: channels come in their true priority order, every package keeps its
    channel (conda-forge::numpy=1.26.4=py311h...), --from-history keeps pip packages and -c channels,
    there is no prefix: line, tokens are redacted, and pip packages installed from URLs, VCS or
    editable checkouts are written as such.
    """
    from envkit.backends import open_env
    from envkit.cli import emit, warn
    from envkit.commands._common import warn_duplicates
    from envkit.errors import UsageError

    if from_history and fmt in ("explicit", "conda-lock"):
        raise UsageError(f"--from-history cannot be written as {fmt}: it has no exact packages",
                         hint="use --format yaml or json")
    if no_builds and fmt in ("explicit", "conda-lock"):
        raise UsageError(f"--no-builds does not apply to --format {fmt} (it lists exact artifacts)")
    if exe and backend == "native":
        # the native backend runs no executable: a silently ignored --exe hides a typo'd command line
        raise UsageError("--exe names the executable of --backend conda, mamba or micromamba; the native "
                         "backend (the default) runs none", hint="add --backend conda (or mamba, micromamba)")
    env = open_env(name=env_name, prefix=prefix, backend=backend, exe=exe)
    for w in env.warnings:
        warn(w)
    warn_duplicates([env])
    regen = "envkit export " + (f"-n {env_name}" if env_name else "-p PREFIX")
    if backend != "native":  # the regenerate command reads the environment the same way
        regen += f" --backend {backend}"
    notes: list[str] = []
    if digest != "md5" and fmt != "explicit":
        raise UsageError(f"--hash applies to --format explicit only, not {fmt}")
    text = render_export(env, fmt=fmt, from_history=from_history, no_builds=no_builds, command=regen,
                         notes=notes, digest=digest)
    for n in notes:
        warn(n)
    emit(text, output)
    return 0


def render_export(env, *, fmt: str = "yaml", from_history: bool = False, no_builds: bool = False,
                  command: str = "envkit export", notes: list[str] | None = None, digest: str = "md5") -> str:
    """The text `envkit export` writes for LiveEnv `env` in format `fmt` (deterministic).

    What a format cannot hold is appended to `notes` (when given) as a warning line.
    """
    from envkit.backends.convert import live_to_lock, live_to_spec, redact_env

    env = redact_env(env)  # every format: no credential leaves in clear (variables, URLs)
    if from_history and notes is not None:
        from envkit.backends.convert import history_fallback

        if history_fallback(env):
            notes.append(f"{env.prefix or 'the environment'} records no requested specs (no conda-meta/history "
                         "entries): --from-history pins every installed package, as conda does")
    flags = "".join([" --from-history" if from_history else "", " --no-builds" if no_builds else "",
                     f" --format {fmt}" if fmt != "yaml" else "", f" --hash {digest}" if digest != "md5" else ""])
    header = f"Exported by envkit from a {env.platform} environment; regenerate: {command}{flags}"
    if fmt == "yaml":
        from envkit.formats.envyml import write_env

        return write_env(live_to_spec(env, from_history=from_history, no_builds=no_builds), header=header)
    if fmt == "json":
        return export_json(env, from_history=from_history, no_builds=no_builds)
    lock = live_to_lock(env)
    if fmt == "explicit":
        from dataclasses import replace

        from envkit.formats.explicit import write_explicit

        if digest == "sha256":  # the writer takes the md5 when there is one
            lock = replace(lock, packages=tuple(replace(p, md5=None) if p.sha256 else p for p in lock.packages))

        return write_explicit(lock, env.platform, header=header)
    from dataclasses import replace

    from envkit.formats.condalock import write_conda_lock

    # conda-lock.yml needs an artifact URL for every pip package; pip records one only for direct
    # (URL, VCS, local) installs, so index installs cannot be written there.
    no_url = [p for p in lock.packages if p.manager == "pip" and not p.url]
    if no_url:
        lock = replace(lock, packages=tuple(p for p in lock.packages if p.manager == "conda" or p.url))
        if notes is not None:
            notes.append(f"{len(no_url)} pip package(s) left out of the conda-lock output: pip recorded no "
                         f"URL for them ({', '.join(f'{p.name}=={p.version}' for p in no_url)}); "
                         f"use --format yaml or `envkit lock`, which resolves their URLs and hashes")
    return write_conda_lock(lock, header=header)


def export_json(env, *, from_history: bool = False, no_builds: bool = False) -> str:
    """envkit's JSON export (schema version JSON_SCHEMA_VERSION; see docs/commands/export.md)."""
    import json

    from envkit.backends.convert import export_channels, live_to_spec, redact_env
    from envkit.formats.envyml import channel_out

    env = redact_env(env)
    spec = live_to_spec(env, from_history=from_history, no_builds=no_builds)
    pip_by_name = {d.name: d for d in env.pip_dists}
    packages = []
    if not from_history:
        for p in sorted(env.conda_packages(), key=lambda p: p.name):
            packages.append({
                "manager": "conda", "name": p.name, "version": p.version,
                "build": None if no_builds else p.build,
                "build_number": None if no_builds else p.build_number,
                "channel": p.channel, "subdir": p.subdir,
                "url": None if no_builds else p.url, "md5": None if no_builds else p.md5,
                "sha256": None if no_builds else p.sha256,
                "depends": [f"{n} {s}".strip() for n, s in p.depends],
                "requested": bool(p.requested),
                "spec": next(d.spec() for d in spec.conda if d.name == p.name),
            })
    for entry, d in zip(spec.pip, sorted(env.pip_dists, key=lambda d: (d.name.lower(), d.version))):
        dist = pip_by_name.get(d.name, d)
        packages.append({
            "manager": "pip", "name": dist.name, "version": dist.version, "installer": dist.installer,
            "url": dist.url, "vcs": dist.vcs, "commit": dist.commit, "editable": dist.editable,
            "sha256": dist.sha256, "spec": entry.text,
        })
    doc = {
        "envkit_export": JSON_SCHEMA_VERSION,
        "name": spec.name,
        "platform": env.platform,
        "backend": env.backend,
        "from_history": from_history,
        "channels": [channel_out(c) for c in (spec.channels if from_history else export_channels(env))],
        "channel_priority": env.channel_priority,
        "requested": [d.spec() for d in env.requested],
        "dependencies": [d.spec() for d in spec.conda],
        "pip": [p.text for p in spec.pip],
        "variables": dict(env.variables),
        "python_version": env.python_version,
        "packages": packages,
        "warnings": list(env.warnings),
    }
    return json.dumps(doc, indent=2, ensure_ascii=False) + "\n"
