"""The conda CLI backend: ask conda, mamba or micromamba about an environment.

The executable is found by an explicit path (`--conda-exe`), then the `CONDA_EXE` / `MAMBA_EXE`
variables their shell hooks set, then PATH.  Only their documented `--json` commands are used:

    <exe> list    (-p PREFIX | -n NAME) --json         installed packages (pip ones: channel "pypi")
    <exe> env export (-p PREFIX | -n NAME) --json [--from-history]   requested specs, variables, prefix
    <exe> info --json                                  platform, channels (priority order), envs
    <exe> env list --json                              known environments

Every call goes through `envkit._proc.run` with a timeout; a missing executable, a failure (its
stderr is shown) or output that is not the expected JSON is a BackendError.  The answers are mapped
to the same LiveEnv the native backend produces; what the CLIs do not report (hashes and URLs for
conda and micromamba 1.x, which record owns which dist-info, direct_url.json) is left empty.

The three CLIs answer differently (mamba 1.x is conda underneath; mamba 2.x is micromamba's
libmamba), and the mapping takes each as it is:

* `list --json`: conda gives base_url, build_number, build_string, channel, dist_name, name,
  platform (the subdir), version; pip packages have channel "pypi", platform "pypi", base_url
  `https://conda.anaconda.org/pypi`.  micromamba 2.x adds url, md5 and sha256 (used: the lock
  gets them) and lists pip packages with base_url `https://pypi.org/` and a platform such as
  `linux-x86_64`; micromamba 2.0.0 wrote the whole package URL into base_url and channel
  (mamba#3480), which is cut back to the channel here.
* `env export --json`: micromamba 1.x and 2.0.0-2.0.2 print YAML despite `--json` (mamba#3492),
  2.0.3 a trailing comma with `--from-history` (mamba#3582), 2.0 no `prefix` (mamba#3561): the
  answer is read as YAML (a superset of JSON) when it is not JSON, and the prefix is found in
  `env list --json` when the export lacks it.
* `info --json`: conda has root_prefix, envs, envs_dirs, channels, platform; micromamba has
  "base environment", "env location", envs_dirs, channels, platform and no envs list.
"""

from __future__ import annotations

import builtins
import json
import os
from collections.abc import Mapping
from typing import Any

from envkit.errors import BackendError
from envkit.model import Channel, CondaDep, LiveEnv, LockedPackage, PipDist

BACKENDS = ("conda", "mamba", "micromamba")
DEFAULT_TIMEOUT = 120.0


def find_executable(
    backend: str | None, *, exe: str | None = None, environ: Mapping[str, str] | None = None
) -> str:
    """The path of the conda-like executable to use.

    `backend` is "conda", "mamba", "micromamba" or None (any of them).  Order: `exe` (an explicit
    path or name), CONDA_EXE (conda), MAMBA_EXE (mamba, micromamba), then PATH.  Raises
    BackendError when nothing is found.
    """
    from shutil import which

    env = os.environ if environ is None else environ
    path = env.get("PATH")
    if exe:
        found = exe if os.sep in exe and os.access(exe, os.X_OK) else which(exe, path=path)
        if found:
            return found
        raise BackendError(
            f"{exe}: executable not found", hint="give the full path of conda, mamba or micromamba"
        )
    candidates: list[str] = []
    if backend in (None, "conda") and env.get("CONDA_EXE"):
        candidates.append(env["CONDA_EXE"])
    if env.get("MAMBA_EXE"):
        base = os.path.basename(env["MAMBA_EXE"])
        if backend is None or base.startswith(backend):
            candidates.append(env["MAMBA_EXE"])
    for c in candidates:
        if os.path.isfile(c) and os.access(c, os.X_OK):
            return c
    for name in [backend] if backend else list(BACKENDS):
        found = which(name, path=path)
        if found:
            return found
    wanted = backend or "conda, mamba or micromamba"
    raise BackendError(
        f"{wanted}: executable not found (looked at CONDA_EXE, MAMBA_EXE and PATH)",
        hint="use the native backend (the default), or put the executable on PATH",
    )


class CondaCli:
    """One conda-like executable and the environment variables it runs with."""

    def __init__(
        self, exe: str, *, environ: Mapping[str, str] | None = None, timeout: float = DEFAULT_TIMEOUT
    ) -> None:
        self.exe = exe
        self.environ = dict(os.environ if environ is None else environ)
        self.timeout = timeout
        self.kind = _kind_of(exe)

    def json(self, *args: str, yaml: bool = False) -> Any:
        """Run `<exe> ARGS` and return its stdout parsed as JSON, or (with `yaml`) as an
        environment YAML when it is not JSON; BackendError otherwise."""
        from itertools import takewhile

        from envkit._proc import run, tail

        words = takewhile(lambda a: not a.startswith("-"), args)  # the subcommand: `env export`, `list`
        what = " ".join([os.path.basename(self.exe), *words])
        result = run([self.exe, *args], timeout=self.timeout, env=self.environ, what=what)
        try:
            return json.loads(result.stdout)
        except ValueError:
            data = _yaml_or_none(result.stdout, what) if yaml else None
        if data is None:
            raise BackendError(
                f"{what} did not print JSON" + (" (nor an environment YAML)" if yaml else ""),
                text=tail(result.stdout, 5) or "(no output)",
            )
        return data

    def _target(self, prefix: str | None, name: str | None) -> list[str]:
        return ["-p", prefix] if prefix else ["-n", str(name)]

    def list(self, *, prefix: str | None = None, name: str | None = None) -> list[dict]:
        data = self.json("list", *self._target(prefix, name), "--json")
        if not isinstance(data, list):
            raise BackendError(f"{os.path.basename(self.exe)} list --json: expected a list of packages")
        return data

    def export(
        self, *, prefix: str | None = None, name: str | None = None, from_history: bool = False
    ) -> dict:
        """`env export --json [--from-history]` as a dict.

        micromamba 1.x and 2.0.0-2.0.2 print YAML even with `--json`, and 2.0.3 a trailing comma
        with `--from-history`: output that is not JSON is read as YAML before it is refused.
        """
        args = ["env", "export", *self._target(prefix, name), "--json"]
        data = self.json(*args, *(["--from-history"] if from_history else []), yaml=True)
        if not isinstance(data, dict):
            raise BackendError(f"{os.path.basename(self.exe)} env export --json: expected an object")
        return data

    def info(self) -> dict:
        data = self.json("info", "--json")
        if not isinstance(data, dict):
            raise BackendError(f"{os.path.basename(self.exe)} info --json: expected an object")
        return data

    def env_list(self) -> builtins.list[str]:
        data = self.json("env", "list", "--json")
        envs = data.get("envs") if isinstance(data, dict) else None
        if not isinstance(envs, list):
            raise BackendError(f'{os.path.basename(self.exe)} env list --json: expected {{"envs": [...]}}')
        return [str(e) for e in envs]

    def explicit(self, *, prefix: str | None = None, name: str | None = None) -> dict[str, dict[str, str]]:
        """The package URLs and hashes conda's `list --json` lacks, from `list --explicit --md5` and
        `list --explicit --sha256` (conda takes one hash per call): {dist_name: {"url", "md5",
        "sha256"}}, where dist_name is the file name without its extension."""
        from envkit._proc import run

        out: dict[str, dict[str, str]] = {}
        for key in ("md5", "sha256"):
            what = f"{os.path.basename(self.exe)} list --explicit --{key}"
            result = run(
                [self.exe, "list", *self._target(prefix, name), "--explicit", f"--{key}"],
                timeout=self.timeout,
                env=self.environ,
                what=what,
            )
            for line in result.stdout.splitlines():
                line = line.strip()
                if not line or line.startswith(("#", "@")):
                    continue
                url, _, digest = line.partition("#")
                file = url.rstrip("/").rpartition("/")[2]
                for ext in (".conda", ".tar.bz2"):
                    if file.endswith(ext):
                        out.setdefault(file[: -len(ext)], {"url": url})[key] = digest.removeprefix("sha256:")
        return out

    def read_env(self, *, prefix: str | None = None, name: str | None = None) -> LiveEnv:
        """The environment (by prefix or name) as a LiveEnv, from list, env export and info (and,
        when `list --json` has no URLs, as conda's has not, `list --explicit`)."""
        listing = self.list(prefix=prefix, name=name)
        conda_entries = [
            e
            for e in listing
            if isinstance(e, dict) and e.get("channel") != "pypi" and e.get("platform") != "pypi"
        ]
        if self.kind != "micromamba" and conda_entries and not any(e.get("url") for e in conda_entries):
            found = self.explicit(prefix=prefix, name=name)
            listing = [
                dict(
                    e,
                    **{k: v for k, v in found.get(str(e.get("dist_name") or ""), {}).items() if not e.get(k)},
                )
                if isinstance(e, dict)
                else e
                for e in listing
            ]
        exported = self.export(prefix=prefix, name=name)
        history = self.export(prefix=prefix, name=name, from_history=True)
        info = self.info()
        if not prefix and not exported.get("prefix") and name:
            # micromamba 2.0's export has no prefix (mamba#3561): the env list knows it
            prefix = _prefix_of_name(name, self.env_list(), info)
        return live_env_from_cli(
            listing,
            exported,
            history,
            info,
            prefix=prefix,
            name=name,
            backend=self.kind,
            environ=self.environ,
        )


def _yaml_or_none(text: str, what: str) -> Any:
    from envkit.errors import EnvkitError
    from envkit.formats._yaml import load

    try:
        data = load(text, filename=what)
    except EnvkitError:
        return None
    return data if isinstance(data, dict) and "dependencies" in data else None


def _prefix_of_name(name: str, envs: list[str], info: Mapping) -> str | None:
    """The prefix called `name` among `env list --json`'s prefixes (`base` is the root)."""
    if name == "base":
        root = info.get("root_prefix") or info.get("base environment")
        if root:
            return str(root)
    for p in envs:
        if os.path.basename(p.rstrip("/\\")) == name:
            return p
    return None


def _channel_and_url(entry: Mapping) -> tuple[str | None, str | None]:
    """(channel name, package URL) of one `list --json` entry.

    The package URL is micromamba 2.x's `url`, or the whole URL micromamba 2.0.0 wrote into
    base_url (mamba#3480); the channel is the URL's channel then, else base_url's or channel's.
    """
    from envkit.conda.channels import channel_of_url, parse_channel

    url = entry.get("url") or None
    base = str(entry.get("base_url") or "")
    if not url and base.endswith((".conda", ".tar.bz2")):
        url = base
    if url:
        return channel_of_url(str(url))[0].name, str(url)
    chan = base or entry.get("channel")
    if chan and str(chan).endswith((".conda", ".tar.bz2")):
        return channel_of_url(str(chan))[0].name, None
    return (parse_channel(str(chan)).name if chan else None), None


def _hash(value: Any, size: int) -> str | None:
    text = str(value or "").strip().lower()
    return text if len(text) == size and all(c in "0123456789abcdef" for c in text) else None


def _kind_of(exe: str) -> str:
    base = os.path.basename(exe).lower()
    for k in ("micromamba", "mamba", "conda"):
        if base.startswith(k):
            return k
    return "conda"


def live_env_from_cli(
    listing: list[dict],
    exported: Mapping,
    history: Mapping,
    info: Mapping,
    *,
    prefix: str | None,
    name: str | None,
    backend: str,
    environ: Mapping[str, str],
) -> LiveEnv:
    """Map the JSON answers of `list`, `env export`, `env export --from-history` and `info` to a
    LiveEnv.  Channels: `info`'s configured channels (conda's priority order), then any channel of
    the export not among them; channel_priority from the .condarc search path."""
    from envkit.backends.native import channels_and_priority
    from envkit.backends.prefix_scan import condarc_files

    platform = str(info.get("platform") or "")
    the_prefix = str(exported.get("prefix") or prefix or "")
    warnings: list[str] = []
    requested = _history_requested(history, backend, warnings)
    packages, pips, python_version = _listed_packages(listing, platform, {d.name for d in requested})
    _, priority = channels_and_priority(
        {"condarc": condarc_files(the_prefix, environ=environ), "environ": dict(environ)}
    )
    variables = exported.get("variables") or {}
    return LiveEnv(
        prefix=the_prefix,
        name=name or str(exported.get("name") or "") or None,
        platform=platform,
        packages=tuple(packages),
        pip_dists=tuple(pips),
        requested=tuple(requested),
        channels=tuple(_configured_channels(info, exported)),
        channel_priority=priority,
        variables=tuple((str(k), str(v)) for k, v in variables.items())
        if isinstance(variables, dict)
        else (),
        python_version=python_version,
        warnings=tuple(warnings),
        backend=backend,
    )


def _history_requested(history: Mapping, backend: str, warnings: list[str]) -> list[CondaDep]:
    """The specs of `env export --from-history`; one envkit cannot read is a warning."""
    from envkit.conda.matchspec import parse_spec
    from envkit.errors import InvalidSpecError

    requested = []
    for d in history.get("dependencies") or ():
        if isinstance(d, str):
            try:
                requested.append(parse_spec(d))
            except InvalidSpecError as exc:
                warnings.append(f"{backend} env export --from-history: ignored {d!r}: {exc.message}")
    return requested


def _listed_packages(
    listing: list[dict], platform: str, requested: set[str]
) -> tuple[list[LockedPackage], list[PipDist], str | None]:
    """(packages: conda ones in name order then pip ones, pip distributions, python's version)
    from the `list --json` entries."""
    packages: list[LockedPackage] = []
    pips: list[PipDist] = []
    python_version = None
    for e in listing:
        if not isinstance(e, dict) or not e.get("name"):
            continue
        n = str(e["name"])
        version = str(e.get("version") or "")
        if e.get("channel") == "pypi" or e.get("platform") == "pypi":
            pips.append(PipDist(name=n, version=version, installer="pip"))
            continue
        if n == "python":
            python_version = version
        packages.append(_listed_conda_package(e, n, version, platform, n in requested))
    packages.sort(key=lambda p: p.name)
    pips.sort(key=lambda d: d.name.lower())
    from envkit.backends.native import pip_packages

    return packages + pip_packages(pips, platform), pips, python_version


def _listed_conda_package(
    e: Mapping, name: str, version: str, platform: str, requested: bool
) -> LockedPackage:
    from envkit.urls import redact_url

    chan, url = _channel_and_url(e)
    return LockedPackage(
        manager="conda",
        name=name,
        version=version,
        build=str(e.get("build_string") or ""),
        build_number=e.get("build_number"),
        channel=chan,
        platform=platform,
        subdir=e.get("platform") or None,
        url=redact_url(url)[0] if url else None,
        md5=_hash(e.get("md5"), 32),
        sha256=_hash(e.get("sha256"), 64),
        requested=requested,
    )


def _configured_channels(info: Mapping, exported: Mapping) -> list[Channel]:
    """`info`'s channels (conda's priority order), then the export's others; `defaults` once."""
    from envkit.conda.channels import is_defaults, parse_channel

    channels: dict[str, Channel] = {}  # by name: the first of each
    for text in list(info.get("channels") or ()) + list(exported.get("channels") or ()):
        ch = parse_channel(str(text))
        if is_defaults(ch.name):
            # info lists defaults expanded (repo.anaconda.com/pkgs/main/linux-64, pkgs/r, ...):
            # they are the one `defaults` entry the user configured, not channels of their own
            ch = parse_channel("defaults")
        channels.setdefault(ch.name, ch)
    return list(channels.values())
