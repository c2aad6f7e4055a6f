"""The native backend: read a conda prefix directly, no conda executable needed.

The prefix is scanned by `envkit.backends.prefix_scan` (stdlib only, also run remotely over ssh)
and the scan is mapped to a LiveEnv by `live_env_from_scan`, so a local and a remote prefix give the
same model.  What is read:

* `conda-meta/*.json` records (a corrupt one is an error naming its path);
* `conda-meta/history`, replayed like conda's `History.get_requested_specs_map` into the requested
  specs (records' `requested_spec(s)`, written by mamba and rattler, when there is no history);
* site-packages `*.dist-info` / `*.egg-info` that no conda record owns: pip's (or uv's), with
  `INSTALLER` and `direct_url.json` (URL, VCS, editable installs);
* the conda⇄PyPI names the prefix itself proves (which record ships which dist-info);
* a conda record whose dist-info is gone (pip overwrote it): a warning, never a crash; one whose
  dist-info pip installed again (the same version: INSTALLER now pip): a warning, and pip's package;
* the env's `conda-meta/state` variables, and the channel list and `channel_priority` from the
  .condarc search path (including the env's own `.condarc` and `CONDARC`) and `CONDA_*` variables.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any

from envkit.backends.pip_entries import pip_install_url
from envkit.errors import EnvironmentNotFound, ParseError, Where
from envkit.model import Channel, CondaDep, LiveEnv, LockedPackage, PipDist, split_depend

#: The scan format this module understands.
SCAN_VERSION = 1


def read_prefix(
    prefix: str | os.PathLike[str],
    *,
    name: str | None = None,
    environ: Mapping[str, str] | None = None,
    strict: bool = True,
) -> LiveEnv:
    """Read the conda environment at `prefix` into a LiveEnv.

    Raises EnvironmentNotFound when `prefix` is not a conda prefix (no `conda-meta/`), and
    ParseError naming the file when a `conda-meta/*.json` record is corrupt (unless `strict` is
    False: then the record is skipped and a warning says which file).
    """
    from envkit.backends import prefix_scan

    path = os.path.abspath(os.fspath(prefix))
    if not os.path.isdir(os.path.join(path, "conda-meta")):
        if not os.path.exists(path):
            raise EnvironmentNotFound(f"no such environment: {path}")
        raise EnvironmentNotFound(
            f"not a conda environment (no conda-meta/ directory): {path}",
            hint="pass the environment's root directory, the one holding conda-meta/",
        )
    data = prefix_scan.scan(path, environ=environ)
    return live_env_from_scan(data, name=name, strict=strict)


def live_env_from_scan(data: Mapping[str, Any], *, name: str | None = None, strict: bool = True) -> LiveEnv:
    """Map one `prefix_scan` JSON object (local or remote) to a LiveEnv.

    Raises ParseError for a scan of another version, and for a corrupt record when `strict`.
    """
    from envkit.conda.history import parse_history
    from envkit.conda.names import pep503

    version = data.get("scan_version")
    if version != SCAN_VERSION:
        raise ParseError(
            f"prefix scan version {version!r} is not supported (envkit reads version {SCAN_VERSION})"
        )
    prefix = str(data["prefix"])
    warnings = _incomplete(prefix, data, strict) + _record_errors(data, strict)
    platform = str(data.get("platform") or "")
    history = parse_history(str(data.get("history") or ""))
    requested = _requested_deps(
        _requested_texts(data, history), {r["name"] for r in data.get("records") or ()}, warnings
    )
    packages = _conda_packages(data, platform, {d.name for d in requested})
    over: list[tuple[str, str]] = []
    pip_dists = _pip_dists(data, warnings, over)
    packages += pip_packages(pip_dists, platform)
    _missing_warnings(data, packages, pip_dists, warnings, over)
    channels, priority = channels_and_priority(data, history)
    return LiveEnv(
        prefix=prefix,
        name=name if name is not None else os.path.basename(prefix.rstrip("/\\")) or prefix,
        platform=platform,
        packages=tuple(packages),
        pip_dists=tuple(pip_dists),
        requested=tuple(requested),
        channels=tuple(channels),
        channel_priority=priority,
        variables=tuple((str(k), str(v)) for k, v in (data.get("state") or {}).items()),
        python_version=data.get("python_version"),
        warnings=tuple(warnings),
        backend="native",
        pypi_names=_pypi_names(data),
        pip_over_conda=tuple(sorted(set(over), key=lambda o: (pep503(o[0]), o))),
    )


def _incomplete(prefix: str, data: Mapping[str, Any], strict: bool) -> list[str]:
    """The warning for a prefix an `envkit create` did not finish (its conda packages in place,
    its pip packages or variables perhaps not); an EnvironmentNotFound when `strict`: such a prefix
    is not the environment its lock describes, and no verdict on it may say otherwise."""
    if not data.get("incomplete"):
        return []
    from envkit.backends.prefix_scan import INCOMPLETE

    why = f"incomplete environment: an `envkit create` did not finish it ({prefix}/{INCOMPLETE})"
    if strict:
        raise EnvironmentNotFound(why, hint="run the same `envkit create` again: it replaces the prefix")
    return [why]


def _record_errors(data: Mapping[str, Any], strict: bool) -> list[str]:
    """The warnings for the scan's unreadable conda records; the first is a ParseError when `strict`."""
    warnings: list[str] = []
    for err in data.get("errors") or ():
        if strict:
            raise ParseError(
                f"corrupt conda package record: {err['message']}",
                where=Where(file=err["path"], key=err.get("key")),
                hint="reinstall that package (conda install --force-reinstall NAME) "
                "or delete the file if the package is gone",
            )
        warnings.append(f"{err['path']}: skipped unreadable conda package record: {err['message']}")
    return warnings


def _requested_texts(data: Mapping[str, Any], history: Mapping[str, Any]) -> list[str]:
    """The requested specs as text: the history's replay (envkit.conda.history.parse_history), else
    the records' own."""
    requested = list(history["requested"])
    if not requested:
        # mamba / micromamba / rattler record what was asked for in the records themselves
        for rec in data.get("records") or ():
            specs = rec.get("requested_specs") or (
                [rec["requested_spec"]] if rec.get("requested_spec") else []
            )
            requested.extend(s for s in specs if s)
    return requested


def _conda_packages(data: Mapping[str, Any], platform: str, requested: set[str]) -> list[LockedPackage]:
    """The scan's conda records as packages, `requested` naming those the user asked for."""
    from envkit.conda.channels import channel_of_url, parse_channel
    from envkit.urls import redact_url

    packages: list[LockedPackage] = []
    for rec in data.get("records") or ():
        chan_name, subdir = _record_channel(rec, parse_channel, channel_of_url)
        url = rec.get("url")
        packages.append(
            LockedPackage(
                manager="conda",
                name=rec["name"],
                version=str(rec["version"]),
                build=rec.get("build") or "",
                build_number=_int(rec.get("build_number")),
                channel=chan_name,
                platform=platform,
                subdir=rec.get("subdir") or subdir,
                url=redact_url(url)[0] if url else None,
                md5=rec.get("md5") or None,
                sha256=rec.get("sha256") or None,
                depends=tuple(split_depend(d) for d in rec.get("depends") or ()),
                constrains=tuple(str(c) for c in rec.get("constrains") or ()),
                requested=rec["name"] in requested,
                license=rec.get("license") or None,
            )
        )
    return packages


def _pypi_names(data: Mapping[str, Any]) -> tuple[tuple[str, tuple[str, ...]], ...]:
    """(conda name, its PyPI projects): the conda⇄PyPI names the prefix proves, in name order."""
    from envkit.conda.names import pep503

    owned = data.get("owned") or {}
    return tuple(
        sorted(
            (conda, tuple(sorted({pep503(_dist_project(d)) for d in dists})))
            for conda, dists in owned.items()
        )
    )


def _pip_dists(data: Mapping[str, Any], warnings: list[str], over: list[tuple[str, str]]) -> list[PipDist]:
    """The scan's pip distributions in name order; those pip installed over a conda record's files
    are added to `over` as (pip name, conda name), with a warning each."""
    from envkit.conda.names import pep503
    from envkit.urls import redact_url

    pip_dists: list[PipDist] = []
    versions = {r["name"]: str(r["version"]) for r in data.get("records") or ()}
    for item in data.get("pip") or ():
        if item.get("over_conda"):
            # the same dist-info as a conda record's, installed again by pip: pip's copy now
            conda = item["over_conda"]
            warnings.append(
                f"pip package '{item.get('name')}' {item.get('version')} overwrote conda package "
                f"'{conda}' {versions.get(conda, '?')}: pip reinstalled it over the conda record's files "
                f"({item.get('path')} now says INSTALLER {item.get('installer')}); "
                "reinstall one of them so that conda and pip agree"
            )
            pip_dists.append(_pip_dist(item, redact_url))
            over.append((str(item.get("name") or ""), conda))
            continue
        if (item.get("installer") or "").lower() == "conda":
            # conda's own dist-info whose record is gone: not pip's, and nothing to reinstall from
            warnings.append(
                f"{item.get('path')}: installed by conda, but no conda-meta record owns it "
                f"(the record was deleted or is unreadable); left out"
            )
            continue
        pip_dists.append(_pip_dist(item, redact_url))
    pip_dists.sort(key=lambda d: (pep503(d.name), d.version, d.path))
    return pip_dists


def pip_packages(pip_dists: list[PipDist], platform: str) -> list[LockedPackage]:
    """The pip distributions as packages, each with the URL pip installs it again from."""
    return [
        LockedPackage(
            manager="pip",
            name=d.name,
            version=d.version,
            platform=platform,
            url=pip_install_url(d),
            sha256=d.sha256,
            editable=d.editable,
        )
        for d in pip_dists
    ]


def _missing_warnings(
    data: Mapping[str, Any],
    packages: list[LockedPackage],
    pip_dists: list[PipDist],
    warnings: list[str],
    over: list[tuple[str, str]],
) -> None:
    """A warning for each conda record whose dist-info is gone: pip overwrote it (added to `over`)
    or it is damaged."""
    from envkit.conda.names import pep503

    pip_by_project = {pep503(d.name): d for d in pip_dists}
    for miss in data.get("missing") or ():
        project = pep503(_dist_project(miss["dist"].rsplit("/", 1)[-1]))
        rec_version = next(
            (p.version for p in packages if p.manager == "conda" and p.name == miss["name"]), "?"
        )
        by = pip_by_project.get(project)
        if by is not None:
            over.append((by.name, miss["name"]))
            warnings.append(
                f"pip package '{by.name}' {by.version} overwrote conda package '{miss['name']}' "
                f"{rec_version}: the conda record's files are gone ({miss['dist']}); "
                f"reinstall one of them so that conda and pip agree"
            )
        else:
            warnings.append(
                f"conda package '{miss['name']}' {rec_version} is damaged: {miss['dist']} is gone "
                f"(removed by pip or by hand); reinstall it"
            )


def _int(value) -> int | None:
    try:
        return int(value) if value is not None else None
    except (TypeError, ValueError):
        return None


def _record_channel(rec: Mapping[str, Any], parse_channel, channel_of_url) -> tuple[str | None, str | None]:
    """(canonical channel name, subdir) of a record: from `channel`, else from `url`."""
    chan = rec.get("channel")
    if chan:
        return parse_channel(str(chan)).name, None
    url = rec.get("url")
    if url:
        c, sub = channel_of_url(str(url))
        return c.name, sub
    return None, None


def _dist_project(dist_dir: str) -> str:
    """`PyYAML-6.0.1.dist-info` -> `PyYAML`; `foo_bar-1.0-py3.11.egg-info` -> `foo_bar`."""
    stem = dist_dir.rsplit(".", 1)[0]
    return stem.split("-", 1)[0]


def _requested_deps(specs: list[str], installed: set[str], warnings: list[str]) -> list[CondaDep]:
    """Parse the replayed specs; like conda, drop those whose package is no longer installed."""
    from envkit.conda.matchspec import parse_spec
    from envkit.errors import InvalidSpecError

    out: list[CondaDep] = []
    seen: set[str] = set()
    for s in specs:
        try:
            dep = parse_spec(s)
        except InvalidSpecError as exc:
            warnings.append(f"conda-meta/history: ignored a spec envkit cannot read: {exc.message}")
            continue
        if dep.name not in installed or dep.name in seen:
            continue
        seen.add(dep.name)
        out.append(dep)
    return out


def _pip_dist(item: Mapping[str, Any], redact_url) -> PipDist:
    direct = item.get("direct_url") or None
    url = vcs = commit = sha = None
    editable = False
    if isinstance(direct, dict):
        raw_url = direct.get("url")
        url = redact_url(str(raw_url))[0] if raw_url else None
        vcs_info = direct.get("vcs_info")
        dir_info = direct.get("dir_info")
        archive = direct.get("archive_info")
        if isinstance(vcs_info, dict):
            vcs = vcs_info.get("vcs")
            commit = vcs_info.get("commit_id")
        if isinstance(dir_info, dict):
            editable = bool(dir_info.get("editable"))
        if isinstance(archive, dict):
            hashes = archive.get("hashes") or {}
            sha = hashes.get("sha256") if isinstance(hashes, dict) else None
            if not sha and str(archive.get("hash", "")).startswith("sha256="):
                sha = archive["hash"][7:]
    return PipDist(
        name=str(item.get("name") or ""),
        version=str(item.get("version") or ""),
        installer=item.get("installer"),
        url=url,
        vcs=vcs,
        commit=commit,
        editable=editable,
        sha256=sha,
        path=str(item.get("path") or ""),
    )


# ------------------------------------------------------------------------------------------
# configuration: .condarc search path


def merged_condarc(files) -> dict[str, Any]:
    """Merge .condarc files (lowest priority first) as conda does.

    Sequences: the higher-priority file's items come first, then the lower ones', without repeats;
    a scalar: the highest-priority file that sets it wins.  Returns {"channels": [...],
    "envs_dirs": [...], "channel_priority": str | None, "root_prefix": str | None}.  A .condarc
    that is not valid YAML is a ParseError naming it.
    """
    lists: dict[str, list[list[str]]] = {"channels": [], "envs_dirs": []}
    scalars: dict[str, Any] = {}
    for f in files:
        path, text = f["path"], f["text"]
        if not text.strip():
            continue
        from envkit.formats._yaml import load  # only with a .condarc to read

        data = load(text, filename=path)
        if data is None:
            continue
        if not isinstance(data, dict):
            raise ParseError("a .condarc must be a mapping of settings", where=Where(file=path))
        for key in lists:
            value = data.get(key)
            if isinstance(value, list):
                lists[key].append([str(v) for v in value if v is not None])
        for key in ("channel_priority", "root_prefix"):
            if data.get(key) is not None:
                value = data[key]
                if isinstance(value, bool):  # old style `channel_priority: false`
                    value = "flexible" if value else "disabled"
                scalars[key] = str(value)
    out: dict[str, Any] = {
        key: list(dict.fromkeys(v for group in reversed(groups) for v in group))
        for key, groups in lists.items()
    }
    out["channel_priority"] = scalars.get("channel_priority")
    out["root_prefix"] = scalars.get("root_prefix")
    return out


def channels_and_priority(
    data: Mapping[str, Any], history: Mapping[str, Any] | None = None
) -> tuple[list[Channel], str | None]:
    """The env's channels in priority order and its channel_priority, from a scan and its replayed
    `history` (envkit.conda.history.parse_history; None: no history).

    Order: the `-c` channels of the env's history (the user asked for them on the command line,
    which conda puts above the configured ones), then the merged .condarc `channels` (`CONDA_CHANNELS`
    first when set), then nothing else.  `--override-channels` in the history drops the configured
    ones.  `defaults` stays one entry.
    """
    from envkit.conda.channels import parse_channel

    conf = merged_condarc(data.get("condarc") or ())
    environ = data.get("environ") or {}
    hist = history or {}
    texts: list[str] = list(hist.get("channels") or ())
    if not hist.get("override_channels"):
        if environ.get("CONDA_CHANNELS"):
            texts += [c.strip() for c in environ["CONDA_CHANNELS"].split(",") if c.strip()]
        texts += conf["channels"]
    out: dict[str, Channel] = {}  # by name: the first of each
    for t in texts:
        ch = parse_channel(t)
        out.setdefault(ch.name, ch)
    priority = environ.get("CONDA_CHANNEL_PRIORITY") or conf["channel_priority"]
    if priority is not None:
        priority = {"true": "flexible", "false": "disabled"}.get(priority.lower(), priority.lower())
    return list(out.values()), priority
