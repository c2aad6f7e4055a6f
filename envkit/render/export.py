"""`envkit export`'s output: a live environment written as environment.yml, an @EXPLICIT list,
conda-lock.yml or envkit's JSON (schema JSON_SCHEMA_VERSION, documented in docs/commands/export.md).

`render_export` prepares what every format shares (redaction, the regenerate header, notes) and
hands the environment to the format's writer, chosen in envkit.render.RENDERERS["export"].
"""

from __future__ import annotations

from dataclasses import replace

#: Version of the `--format json` document (the `envkit_export` key).
JSON_SCHEMA_VERSION = 1


def render_export(
    env,
    *,
    fmt: str = "yaml",
    from_history: bool = False,
    no_builds: bool = False,
    command: str = "envkit export",
    notes: list[str] | None = None,
    digest: str = "md5",
) -> str:
    """The text `envkit export` writes for LiveEnv `env` in format `fmt` (deterministic).

    What a format cannot hold is appended to `notes` (when given) as a warning line.
    """
    from envkit.backends.live_models import redact_env
    from envkit.render import renderer

    env = redact_env(env)  # every format: no credential leaves in clear (variables, URLs)
    if from_history and notes is not None:
        from envkit.backends.live_models import history_fallback

        if history_fallback(env):
            notes.append(
                f"{env.prefix or 'the environment'} records no requested specs (no conda-meta/history "
                "entries): --from-history pins every installed package, as conda does"
            )
    flags = "".join(
        [
            " --from-history" if from_history else "",
            " --no-builds" if no_builds else "",
            f" --format {fmt}" if fmt != "yaml" else "",
            f" --hash {digest}" if digest != "md5" else "",
        ]
    )
    header = f"Exported by envkit from a {env.platform} environment; regenerate: {command}{flags}"
    write = renderer("export", fmt)
    return write(
        env, header=header, from_history=from_history, no_builds=no_builds, notes=notes, digest=digest
    )


# Each writer takes every option render_export passes (`**_`: those its format has no use for).


def render_export_yaml(env, *, header: str, from_history: bool = False, no_builds: bool = False, **_) -> str:
    from envkit.backends.live_models import live_to_spec
    from envkit.formats.envyml import write_env

    return write_env(live_to_spec(env, from_history=from_history, no_builds=no_builds), header=header)


def render_export_explicit(env, *, header: str, digest: str = "md5", **_) -> str:
    from envkit.backends.live_models import live_to_lock
    from envkit.formats.explicit import write_explicit

    lock = live_to_lock(env)
    if digest == "sha256":  # the writer takes the md5 when there is one
        lock = replace(lock, packages=tuple(replace(p, md5=None) if p.sha256 else p for p in lock.packages))
    return write_explicit(lock, env.platform, header=header)


def render_export_conda_lock(env, *, header: str, notes: list[str] | None = None, **_) -> str:
    from envkit.backends.live_models import live_to_lock
    from envkit.formats.condalock import write_conda_lock

    lock = live_to_lock(env)
    # conda-lock.yml needs an artifact URL for every pip package; pip records one only for direct
    # (URL, VCS, local) installs, so index installs cannot be written there.
    no_url = [p for p in lock.packages if p.manager == "pip" and not p.url]
    if no_url:
        lock = replace(lock, packages=tuple(p for p in lock.packages if p.manager == "conda" or p.url))
        if notes is not None:
            notes.append(
                f"{len(no_url)} pip package(s) left out of the conda-lock output: pip recorded no "
                f"URL for them ({', '.join(f'{p.name}=={p.version}' for p in no_url)}); "
                f"use --format yaml or `envkit lock`, which resolves their URLs and hashes"
            )
    return write_conda_lock(lock, header=header)


def export_json(env, *, from_history: bool = False, no_builds: bool = False, **_) -> str:
    """envkit's JSON export (schema version JSON_SCHEMA_VERSION; see docs/commands/export.md).
    The document carries no header comment."""
    import json

    from envkit.backends.live_models import export_channels, live_to_spec, redact_env
    from envkit.formats.envyml import channel_out

    env = redact_env(env)
    spec = live_to_spec(env, from_history=from_history, no_builds=no_builds)
    packages = _conda_entries(env, spec, no_builds) if not from_history else []
    packages += _pip_entries(env, spec)
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


def _conda_entries(env, spec, no_builds: bool) -> list[dict]:
    """The JSON export's conda packages, by name; `spec`: the export's EnvSpec (each entry's spec)."""
    return [
        {
            "manager": "conda",
            "name": p.name,
            "version": p.version,
            "build": None if no_builds else p.build,
            "build_number": None if no_builds else p.build_number,
            "channel": p.channel,
            "subdir": p.subdir,
            "url": None if no_builds else p.url,
            "md5": None if no_builds else p.md5,
            "sha256": None if no_builds else p.sha256,
            "depends": [f"{n} {s}".strip() for n, s in p.depends],
            "requested": bool(p.requested),
            "spec": next(d.spec() for d in spec.conda if d.name == p.name),
        }
        for p in sorted(env.conda_packages(), key=lambda p: p.name)
    ]


def _pip_entries(env, spec) -> list[dict]:
    """The JSON export's pip packages, each with the entry `spec`'s pip section writes for it."""
    pip_by_name = {d.name: d for d in env.pip_dists}  # the last dist of each name
    dists = [pip_by_name[d.name] for d in sorted(env.pip_dists, key=lambda d: (d.name.lower(), d.version))]
    return [
        {
            "manager": "pip",
            "name": dist.name,
            "version": dist.version,
            "installer": dist.installer,
            "url": dist.url,
            "vcs": dist.vcs,
            "commit": dist.commit,
            "editable": dist.editable,
            "sha256": dist.sha256,
            "spec": entry.text,
        }
        for entry, dist in zip(spec.pip, dists, strict=False)
    ]
