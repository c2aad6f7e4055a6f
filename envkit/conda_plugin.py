"""envkit's conda plugin: `conda export --format pixi-lock-v7|pylock|cyclonedx` and `conda create --file`
of a pixi.lock of version 7 (and 1 to 5).

conda (26.x) finds it through the `conda` entry point group (pyproject.toml) when envkit is installed
in conda's own Python, and calls the two hooks of its plugin API
(https://docs.conda.io/projects/conda/en/stable/dev-guide/plugins/index.html):
`conda_environment_exporters` and `conda_environment_specifiers`.  Nothing in envkit imports this
module, so envkit's own CLI never pays for conda.

It is an adapter: conda's `Environment` in, envkit's model through the readers and writers `envkit
convert` and `envkit lock -p` use (envkit.backends.open_env, envkit.ops.lock.lock_live,
envkit.formats.write_text and read_text), conda's `Environment` out.

* Exporters.  The prefix's own platform is read by envkit's prefix reader (conda records, pip
  distributions and their artifacts, credentials redacted); another `--platform` is the solution
  conda's `Environment.extrapolate` gives for it, read through the same record mapping.  pip
  packages exist only for the prefix's platform (conda solves conda packages for the others, never
  pip's).  The formats record what is installed exactly, so conda's `--from-history` and
  `--no-builds` (which ask for a loose spec) are refused with a hint rather than ignored.
* Specifier.  conda packages become records fetched with their md5/sha256 (conda verifies the
  downloaded artifact against them); pypi packages are handed to pip as conda does for an
  environment.yml's `pip:` section, each archive pinned by its sha256 (pip checks a URL's
  `#sha256=` fragment).  conda 26.7 installs the records of a file it reads as explicit packages
  and returns before its pip step, so a post-command of `create`/`install` runs conda's own pip
  installer for them.  pixi.lock version 6 is left to conda-lockfiles when it is installed (two
  plugins claiming one file is an error in conda).
"""

from __future__ import annotations

import importlib.metadata
import os
import re
import sys
from collections.abc import Callable, Iterable, Mapping
from functools import wraps
from typing import TYPE_CHECKING, Any, ClassVar, TypeVar

from conda.plugins import hookimpl
from conda.plugins.types import (
    CondaEnvironmentExporter,
    CondaEnvironmentSpecifier,
    CondaPostCommand,
    EnvironmentFormat,
    EnvironmentSpecBase,
)

if TYPE_CHECKING:
    from conda.models.environment import Environment
    from conda.models.records import PackageRecord

    from envkit.model import Lock

PIXI_V7 = "pixi-lock-v7"
PYLOCK = "pylock"
CYCLONEDX = "cyclonedx"
#: pixi.lock versions the specifier reads; 6 only when conda-lockfiles (which reads it) is absent
PIXI_VERSIONS = (1, 2, 3, 4, 5, 7)
_VERSION_LINE = re.compile(r"^version:[ \t]*['\"]?(\d+)['\"]?[ \t]*(?:#.*)?$", re.MULTILINE)

F = TypeVar("F", bound=Callable[..., Any])

#: (prefix, lock file) -> the pip requirement lines still to install there after conda's transaction
_PENDING_PIP: dict[tuple[str, str], list[str]] = {}


def _has_conda_lockfiles() -> bool:
    """Whether conda-lockfiles is installed beside conda: it claims `pixi.lock` (export and create)
    for version 6, and conda refuses a file name two plugins claim."""
    try:
        importlib.metadata.version("conda-lockfiles")
    except importlib.metadata.PackageNotFoundError:
        return False
    return True


def _conda_errors(fn: F) -> F:
    """envkit's errors as conda's: conda prints a CondaError as a message, anything else as a
    traceback."""

    @wraps(fn)
    def wrapper(*args, **kwargs):
        from conda.exceptions import CondaValueError

        from envkit.errors import EnvkitError

        try:
            return fn(*args, **kwargs)
        except EnvkitError as e:
            hint = f"\nhint: {e.hint}" if e.hint else ""
            raise CondaValueError(f"{e}{hint}") from e

    return wrapper  # type: ignore[return-value]


# --------------------------------------------------------------------------------------------
# exporters


def _refuse_loose(fmt: str) -> None:
    """CondaValueError when `conda export` was asked for a loose spec (--from-history, --no-builds):
    the exporter gets only an Environment, so the options are read from conda's parsed arguments."""
    from conda.base.context import context
    from conda.exceptions import CondaValueError

    args = getattr(context, "_argparse_args", None) or {}
    for flag, key in (("--from-history", "from_history"), ("--no-builds", "no_builds")):
        if args.get(key):
            raise CondaValueError(
                f"{flag} does not apply to --format {fmt}: it records every installed package "
                "exactly (version, build, artifact and hash)\n"
                f"hint: drop {flag}, or export a loose spec with --format environment-yaml {flag}"
            )


def _platform_lock(env: Environment, own: bool, resolve_pip: bool) -> Lock:
    """The Lock of one of `conda export`'s Environments: the prefix itself when `own` (conda
    records and pip packages, read by envkit), else the records conda solved for `env.platform`."""
    from dataclasses import replace

    from envkit.backends import open_env
    from envkit.backends.native import SCAN_VERSION, live_env_from_scan

    if own:
        live = open_env(prefix=env.prefix)
        if live.platform != env.platform:
            live = replace(live, platform=env.platform)
    else:
        scan = {
            "scan_version": SCAN_VERSION,
            "prefix": env.prefix or "",
            "platform": env.platform,
            "records": [dict(r.dump()) for r in env.explicit_packages],  # as conda-meta/*.json holds them
        }
        live = live_env_from_scan(scan, name=env.name)
    found: Mapping[str, tuple[str, str | None]] = {}
    if resolve_pip and any(not p.url for p in live.pip_packages()):
        # installed from an index: pip records no artifact; ask it, as `envkit lock -p` does
        from envkit.lock import resolve_index_artifacts, unresolved_pip_error

        resolution = resolve_index_artifacts(live)
        if resolution.unresolved:
            err = unresolved_pip_error(resolution)
            # its hint names `envkit lock`'s options, which conda does not have
            raise type(err)(
                err.message,
                hint="pip must reach the index they were installed from (PIP_INDEX_URL, pip.conf); "
                "--format cyclonedx lists them without artifacts",
            )
        found = resolution.found
    from envkit.ops.lock import lock_live

    return lock_live(live, index_artifacts=found).lock


def lock_from_envs(envs: Iterable[Environment], fmt: str, *, resolve_pip: bool = True) -> Lock:
    """One Lock of every platform `conda export` hands over: the prefix's channels in their
    priority, then those conda adds (`-c`, .condarc)."""
    from conda.base.context import context

    from envkit.conda.channels import parse_channel
    from envkit.model import Lock

    _refuse_loose(fmt)
    envs = list(envs)
    locks = [_platform_lock(env, env.platform == context.subdir, resolve_pip) for env in envs]
    pip_on = [lk.platforms[0] for lk in locks if any(p.manager == "pip" for p in lk.packages)]
    if pip_on and len(locks) > 1:
        others = ", ".join(lk.platforms[0] for lk in locks if lk.platforms[0] not in pip_on)
        print(
            f"warning: the pip packages are exported for {', '.join(pip_on)} only: conda solves the "
            f"conda packages for {others}, not pip's",
            file=sys.stderr,
        )
    first = locks[0] if locks else None
    # envkit's channels of the prefix keep their priority (its history's `-c` order); conda's
    # (installed packages' channels in record order, then `-c` and .condarc) add what is missing
    channels = list(first.channels if first else ())
    for c in envs[0].config.channels if envs else ():
        ch = parse_channel(str(c))
        if all(ch.name != have.name for have in channels):
            channels.append(ch)
    return Lock(
        kind="live",
        platforms=tuple(lk.platforms[0] for lk in locks),
        packages=tuple(p for lk in locks for p in lk.packages),
        channels=tuple(channels),
        content_hash=tuple(h for lk in locks for h in lk.content_hash),
        metadata=first.metadata if first else (),
        environment=envs[0].name if envs else None,
        source=first.source if first else None,
    )


@_conda_errors
def export_pixi_v7(envs: Iterable[Environment]) -> str:
    """pixi.lock version 7 of every platform exported."""
    from envkit.formats import write_text

    return write_text(lock_from_envs(envs, PIXI_V7), "pixi-v7")


@_conda_errors
def export_pylock(env: Environment) -> str:
    """pylock.toml (PEP 751) of the prefix's pip packages (conda packages are not Python's)."""
    from conda.base.context import context
    from conda.exceptions import CondaValueError

    from envkit.formats import write_text

    if env.platform != context.subdir:
        raise CondaValueError(
            f"--format {PYLOCK} exports the pip packages installed in the prefix ({context.subdir}); "
            f"conda cannot solve pip packages for {env.platform}\n"
            f"hint: drop --platform, or use --format {PIXI_V7} for the conda packages of several platforms"
        )
    lock = lock_from_envs([env], PYLOCK)
    return write_text(lock, "pylock", header=f"created by envkit (conda export --format {PYLOCK})")


@_conda_errors
def export_cyclonedx(envs: Iterable[Environment]) -> str:
    """CycloneDX 1.6 JSON SBOM of every platform exported (pip packages listed as installed)."""
    from envkit.formats import write_text

    envs = list(envs)
    lock = lock_from_envs(envs, CYCLONEDX, resolve_pip=False)
    return write_text(lock, "cyclonedx", name=envs[0].name if envs else None)


@hookimpl
def conda_environment_exporters() -> Iterable[CondaEnvironmentExporter]:
    from envkit.formats.registry import get as get_format

    # conda refuses `-f pixi.lock` when two exporters claim the name: conda-lockfiles' (version 6)
    # keeps it when installed, and version 7 is then asked for with --format
    pixi_names = () if _has_conda_lockfiles() else ("pixi.lock",)
    yield CondaEnvironmentExporter(
        name=PIXI_V7,
        aliases=("rattler-lock-v7",),
        default_filenames=pixi_names,
        multiplatform_export=export_pixi_v7,
        description="pixi.lock version 7, conda and pip packages, several platforms (envkit)",
        environment_format=EnvironmentFormat.lockfile,
    )
    yield CondaEnvironmentExporter(
        name=PYLOCK,
        aliases=("pylock-toml",),
        default_filenames=get_format("pylock").file_names,
        export=export_pylock,
        description="PEP 751 pylock.toml of the pip packages, with hashes (envkit)",
        environment_format=EnvironmentFormat.lockfile,
    )
    yield CondaEnvironmentExporter(
        name=CYCLONEDX,
        aliases=("sbom",),
        default_filenames=get_format("cyclonedx").file_names,
        multiplatform_export=export_cyclonedx,
        description="CycloneDX 1.6 JSON SBOM of the conda and pip packages (envkit)",
        environment_format=EnvironmentFormat.lockfile,
    )


# --------------------------------------------------------------------------------------------
# specifier: conda create --file pixi.lock


class PixiLockSpec(EnvironmentSpecBase):
    """A pixi.lock (version 7, and 1 to 5; 6 too without conda-lockfiles) for `conda create --file`:
    its `default` environment, for the platform conda creates for."""

    detection_supported: ClassVar[bool] = True

    def __init__(self, path) -> None:
        self.path = os.path.abspath(os.fspath(path))
        self._lock: Lock | None = None

    def _versions(self) -> tuple[int, ...]:
        return PIXI_VERSIONS if _has_conda_lockfiles() else (*PIXI_VERSIONS, 6)

    def can_handle(self) -> bool:
        """True for a pixi.lock of a version this plugin reads; ValueError saying why otherwise
        (conda shows it when the plugin was asked for by name)."""
        self._read()
        return True

    def _read(self) -> Lock:
        if self._lock is not None:
            return self._lock
        from envkit.errors import EnvkitError
        from envkit.formats import read_text
        from envkit.io import read_text as read_file_text
        from envkit.model import Lock

        try:
            text = read_file_text(self.path)
        except EnvkitError as e:
            raise ValueError(str(e)) from e
        m = _VERSION_LINE.search(text)
        version = int(m.group(1)) if m else None
        if "environments:" not in text and version not in (1, 2, 3):
            raise ValueError(f"{self.path}: not a pixi.lock (no `environments:`)")
        if version not in self._versions():
            raise ValueError(
                f"{self.path}: pixi.lock version {version} is read by conda-lockfiles, not envkit"
                if version == 6
                else f"{self.path}: pixi.lock version {version} is not one envkit reads "
                f"({', '.join(map(str, self._versions()))})"
            )
        try:
            read = read_text(text, filename=self.path, format="pixi")
        except EnvkitError as e:
            hint = f" (hint: {e.hint})" if e.hint else ""
            raise ValueError(f"{e}{hint}") from e
        if not isinstance(read, Lock):  # the pixi reader gives a Lock; the type says EnvSpec | Lock
            raise ValueError(f"{self.path}: not a pixi.lock")
        self._lock = read
        return read

    @property
    def available_platforms(self) -> tuple[str, ...]:
        return tuple(self._read().platforms)

    @property
    def env(self) -> Environment:
        from conda.base.context import context

        return self.env_for(context.subdir)

    @_conda_errors
    def env_for(self, platform: str) -> Environment:
        from conda.base.context import context
        from conda.exceptions import CondaValueError
        from conda.models.environment import Environment, EnvironmentConfig

        lock = self._read()
        if platform not in lock.platforms:
            raise CondaValueError(
                f"{self.path}: the lock has no packages for {platform} "
                f"(it has: {', '.join(lock.platforms) or 'none'})"
            )
        pkgs = lock.for_platform(platform)
        conda = [p for p in pkgs if p.manager == "conda"]
        pip = [p for p in pkgs if p.manager == "pip"]
        unhashed = [p.name for p in conda if not (p.sha256 or p.md5)]
        if unhashed:
            raise CondaValueError(
                f"{self.path}: no sha256 or md5 for {', '.join(unhashed)} ({platform}): "
                "conda cannot verify what it downloads"
            )
        if pip:
            _PENDING_PIP[(str(context.target_prefix), self.path)] = _pip_lines(
                self.path, pip, {p.name for p in conda}, platform
            )
        channels = tuple(c.redacted_url or c.url or c.name for c in lock.channels)
        wanted = {p.url: {"md5": p.md5, "sha256": p.sha256} for p in conda if p.url}
        records = _fetch_records(self.path, wanted)
        return Environment(
            prefix=context.target_prefix,
            platform=platform,
            config=EnvironmentConfig(channels=channels),
            explicit_packages=list(records),
        )


def _pip_lines(path: str, pip, conda_names: set[str], platform: str) -> list[str]:
    """The pip requirement lines of the lock's pypi packages: archives pinned by sha256 (pip checks a
    URL's `#sha256=` fragment), paths relative to the lock's folder (conda runs pip there)."""
    from conda.exceptions import CondaValueError

    names = ", ".join(sorted(p.name for p in pip)[:5])
    if len(pip) > 5:
        names += f", ... ({len(pip)} in all)"
    missing = [n for n in ("python", "pip") if n not in conda_names]
    if missing:
        raise CondaValueError(
            f"{path}: the lock has pypi packages for {platform} ({names}) and conda installs them "
            f"with pip, but the lock has no {' or '.join(missing)} conda package to run it\n"
            "hint: create the environment with pixi, or add python and pip to the workspace and lock again"
        )
    lines = []
    for p in pip:
        url = p.url or ""
        if url.startswith(("git+", "hg+", "svn+", "bzr+")):
            lines.append(f"{p.name} @ {url}")
        elif "://" in url:
            base = url.split("#", 1)[0]
            lines.append(f"{p.name} @ {base}#sha256={p.sha256}" if p.sha256 else f"{p.name} @ {base}")
        else:
            lines.append(f"-e {url}" if p.editable else url)
    return lines


def _fetch_records(path: str, metadata_by_url: dict[str, dict[str, str | None]]) -> tuple[PackageRecord, ...]:
    """conda's records of the lock's artifacts, downloaded into the package cache, each artifact's
    sha256 (else md5) checked against the lock's: conda 26.7 checks only the md5 it is given."""
    from conda.base.context import context
    from conda.common.io import dashlist
    from conda.core.package_cache_data import PackageCacheData, ProgressiveFetchExtract
    from conda.exceptions import CondaExitZero, DryRunExit
    from conda.models.match_spec import MatchSpec
    from conda.models.records import PackageRecord

    specs = [MatchSpec(url, **{k: v for k, v in meta.items() if v}) for url, meta in metadata_by_url.items()]
    if context.dry_run:
        print("\nDry run would have fetched the following package records:")
        print(dashlist(specs))
        raise DryRunExit()
    ProgressiveFetchExtract(specs).execute()
    if context.download_only:
        raise CondaExitZero("Package caches prepared. Installed cancelled with --download-only option.")
    records = []
    for spec, (url, meta) in zip(specs, metadata_by_url.items(), strict=True):
        cached = next(PackageCacheData.query_all(spec), None)
        if cached is None:  # pragma: no cover - execute() raised already
            raise AssertionError(f"no package cache record for {spec}")
        _verify(path, url, meta, cached)
        records.append(PackageRecord.from_objects(cached))
    return tuple(records)


def _verify(path: str, url: str, meta: dict[str, str | None], cached) -> None:
    """CondaValueError unless the cached artifact of `url` has the lock's sha256 (else md5): hashed
    from the downloaded file, or the cache's record of it when only the extracted folder is left."""
    import hashlib

    from conda.exceptions import CondaValueError

    alg = "sha256" if meta.get("sha256") else "md5"
    want = str(meta.get(alg)).lower()
    tarball = getattr(cached, "package_tarball_full_path", None)
    if tarball and os.path.isfile(tarball):
        h = hashlib.new(alg)
        with open(tarball, "rb") as f:
            for chunk in iter(lambda: f.read(1 << 20), b""):
                h.update(chunk)
        got = h.hexdigest()
    else:
        got = str(cached.get(alg, None) or "").lower()
    if got != want:
        from envkit.urls import redact_url

        raise CondaValueError(
            f"{path}: {alg} mismatch for {redact_url(url)[0]}: the lock says {want}, the artifact "
            f"has {got or 'none'}\nhint: the channel serves another artifact under that name than the "
            "one locked; lock again, or remove it from the package cache (conda clean --packages --tarballs)"
        )


def install_pending_pip(command: str) -> None:
    """After `conda create/install --file LOCK`: pip-install the lock's pypi packages with conda's pip
    installer, in the lock's folder (relative paths are the lock's)."""
    from conda.base.context import context
    from conda.env.installers import pip as pip_installer

    if context.dry_run or context.download_only:
        _PENDING_PIP.clear()
        return
    while _PENDING_PIP:
        (prefix, path), lines = _PENDING_PIP.popitem()
        if not context.quiet and not context.json:
            print(f"Installing the {len(lines)} pypi package(s) of {path} with pip")
        pip_installer.install(prefix, lines, None, None, workdir=os.path.dirname(path))


@hookimpl
def conda_post_commands() -> Iterable[CondaPostCommand]:
    yield CondaPostCommand(
        name="envkit-pixi-lock-pip", action=install_pending_pip, run_for={"create", "install"}
    )


@hookimpl
def conda_environment_specifiers() -> Iterable[CondaEnvironmentSpecifier]:
    yield CondaEnvironmentSpecifier(
        name=PIXI_V7,
        aliases=("rattler-lock-v7",),
        # conda-lockfiles claims pixi.lock (version 6); two claims are an error, so the file is
        # then recognised by its content (or --env-spec pixi-lock-v7)
        default_filenames=() if _has_conda_lockfiles() else ("pixi.lock",),
        environment_spec=PixiLockSpec,
        description="pixi.lock version 7 (and 1 to 5), conda and pypi packages (envkit)",
        environment_format=EnvironmentFormat.lockfile,
    )
