"""Locking: a live environment or a spec (+ platforms) becomes a `Lock`; a lock is checked against its spec.

Three entry points, all returning data (only `envkit.commands.lock` prints or writes files):

* `lock_live(env)` locks a live environment exactly (every conda record with URL, md5, sha256,
  depends; every pip distribution with version and, where the installation recorded them or pip
  resolved them (`resolve_index_artifacts`), URL and sha256).  `live_env_spec(env)` is the matching exact `environment.lock.yml` model.
* `solve_spec(spec, platforms, ...)` solves the spec's conda dependencies for each platform with
  py-rattler (channel priority strict by default, virtual packages settable per platform), then locks
  its pip section per platform with pip's resolver (`pip install --dry-run --report`, see
  `lock_pip`).  `solve_with_conda_lock(...)` does the same through conda-lock itself.
* `check_lock(spec, lock)` lists what makes a lock unfit for its spec: a stale content hash, a spec
  entry the locked packages do not satisfy (conda match semantics for conda entries, PEP 440 for pip).

The content hash (`spec_content_hash`) is defined below; `envkit check` calls it for its stale-lock rule.
"""
from __future__ import annotations

import json
import os
import re
import shlex
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Iterable, Mapping, Sequence

from envkit.conda.names import pep503
from envkit.pip_index import INDEX_KEY, index_mismatches, index_record
from envkit.solve_errors import solve_failure
from envkit.errors import BackendError, SolveError, UsageError, Where
from envkit.model import Channel, CondaDep, EnvSpec, LiveEnv, Lock, LockedPackage, PipDep
from envkit.urls import redact_variables

#: Identifies the definition of `spec_content_hash`; part of the hashed text, so that a change of
#: definition changes every hash instead of silently comparing unlike things.
CONTENT_HASH_VERSION = "envkit-content-hash/1"

CHANNEL_PRIORITIES = ("strict", "flexible", "disabled")

#: Virtual packages assumed for each platform when solving (name -> "version" or "version build").
#: These are conda-lock's defaults (conda_lock/default-virtual-packages.yaml) without `__cuda`: a
#: CUDA build is only chosen when the user says the target has CUDA (`--virtual-package
#: linux-64:__cuda=12.4`), as `CONDA_OVERRIDE_CUDA` does for conda.
DEFAULT_VIRTUAL_PACKAGES: dict[str, dict[str, str]] = {
    "linux-64": {"__unix": "0", "__linux": "5.10", "__glibc": "2.28", "__archspec": "1 x86_64"},
    "linux-aarch64": {"__unix": "0", "__linux": "5.10", "__glibc": "2.28", "__archspec": "1 aarch64"},
    "linux-ppc64le": {"__unix": "0", "__linux": "5.10", "__glibc": "2.28", "__archspec": "1 ppc64le"},
    "osx-64": {"__unix": "0", "__osx": "11.0", "__archspec": "1 x86_64"},
    "osx-arm64": {"__unix": "0", "__osx": "11.0", "__archspec": "1 arm64"},
    "win-64": {"__win": "0", "__archspec": "1 x86_64"},
    "win-arm64": {"__win": "0", "__archspec": "1 arm64"},
}

_VP_NAME = re.compile(r"__[a-z0-9_]+")
_DEP = re.compile(r"^\s*(?P<name>[A-Za-z0-9_.\-]+)\s*(?P<rest>.*?)\s*$")


# --------------------------------------------------------------------------------------------
# virtual packages


@dataclass(frozen=True, slots=True, kw_only=True)
class VirtualPackage:
    """A virtual package setting: `platform` None means every platform being solved."""

    name: str
    version: str
    build: str = "0"
    platform: str | None = None

    def __str__(self) -> str:
        head = f"{self.platform}:" if self.platform else ""
        return f"{head}{self.name}={self.version}={self.build}"


def parse_virtual_package(text: str) -> VirtualPackage:
    """Parse `[PLATFORM:]__name=version[=build]` (e.g. `linux-64:__cuda=12.4`, `__glibc=2.17`).

    Raises UsageError for any other shape.
    """
    from envkit.conda.channels import KNOWN_SUBDIRS

    raw = text.strip()
    platform = None
    head, sep, rest = raw.partition(":")
    if sep and not head.startswith("__"):
        if head not in KNOWN_SUBDIRS or head == "noarch":
            raise UsageError(f"--virtual-package {raw!r}: unknown platform {head!r}",
                             hint="write PLATFORM:__name=version, e.g. linux-64:__cuda=12.4")
        platform, raw = head, rest
    name, _, tail = raw.partition("=")
    version, _, build = tail.partition("=")
    if not _VP_NAME.fullmatch(name) or not version.strip():
        raise UsageError(f"--virtual-package {text!r}: expected [PLATFORM:]__name=version[=build]",
                         hint="e.g. --virtual-package linux-64:__cuda=12.4 or --virtual-package __glibc=2.17")
    try:
        from rattler import Version

        Version(version.strip())
    except Exception:
        raise UsageError(f"--virtual-package {text!r}: {version!r} is not a version") from None
    return VirtualPackage(name=name, version=version.strip(), build=build.strip() or "0", platform=platform)


def virtual_packages_for(platform: str, overrides: Iterable[VirtualPackage] = ()) -> tuple[VirtualPackage, ...]:
    """The virtual packages in force for `platform`: the defaults, then `overrides` (a later one
    for the same name wins; a platform-specific one beats an all-platform one).  Sorted by name."""
    found: dict[str, VirtualPackage] = {}
    for name, value in DEFAULT_VIRTUAL_PACKAGES.get(platform, {}).items():
        version, _, build = value.partition(" ")
        found[name] = VirtualPackage(name=name, version=version, build=build or "0", platform=platform)
    overrides = list(overrides)
    for vp in [v for v in overrides if v.platform is None] + [v for v in overrides if v.platform == platform]:
        found[vp.name] = VirtualPackage(name=vp.name, version=vp.version, build=vp.build, platform=platform)
    return tuple(found[k] for k in sorted(found))


def _vp_value(vps: Sequence[VirtualPackage], name: str) -> str | None:
    for vp in vps:
        if vp.name == name:
            return vp.version
    return None


# --------------------------------------------------------------------------------------------
# content hash


def spec_content_hash(spec: EnvSpec, platform: str) -> str:
    """The content hash of `spec` for `platform`: 64 hex digits of SHA-256.

    Definition (`envkit-content-hash/1`): the SHA-256 of the compact, key-sorted JSON of

        {"version": "envkit-content-hash/1", "platform": <platform>,
         "channels": [<canonical channel names, in priority order>],
         "conda": [<canonical match spec of each conda dependency, sorted, duplicates removed>],
         "pip": {"options": [<pip option lines, in file order>],
                 "requirements": [<canonical pip entries, sorted, duplicates removed>]}}

    So the hash depends only on what the solve depends on: comments, formatting, quoting, key order,
    `name:`, `variables:` and the order of dependencies do not change it (`numpy >=1.2` and
    `numpy>=1.2` are one canonical spec); channel order does (it is priority), and so does the order
    of pip options (`--index-url` before `--extra-index-url` matters to pip).  Solver settings
    (virtual packages, channel priority) are not part of it: `envkit lock --check` needs only the
    spec and the lock.
    """
    channels = [c.name for c in spec.channels]
    conda = sorted({d.spec() for d in spec.conda})
    options = [p.text for p in spec.pip if p.kind == "option"]
    reqs = sorted({("-e " if p.editable else "") + p.text for p in spec.pip if p.kind != "option"})
    doc = {"version": CONTENT_HASH_VERSION, "platform": platform, "channels": channels,
           "conda": conda, "pip": {"options": options, "requirements": reqs}}
    import hashlib

    text = json.dumps(doc, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


# --------------------------------------------------------------------------------------------
# small helpers


def split_depend(text: str) -> tuple[str, str]:
    """`"python >=3.11,<3.12.0a0"` -> `("python", ">=3.11,<3.12.0a0")`; a bare name gets `""`."""
    m = _DEP.match(text)
    if not m:
        return (text.strip(), "")
    return (m.group("name"), m.group("rest"))


def _sort_key(pkg: LockedPackage) -> tuple:
    return (pkg.platform or "", 0 if pkg.manager == "conda" else 1, pkg.name.lower(), pkg.version,
            pkg.build or "", pkg.url or "")


def sort_packages(packages: Iterable[LockedPackage]) -> tuple[LockedPackage, ...]:
    """Packages in lock order: platform, conda before pip, then name (a new tuple; input untouched)."""
    return tuple(sorted(packages, key=_sort_key))


# --------------------------------------------------------------------------------------------
# live environments


def live_env_spec(env: LiveEnv) -> EnvSpec:
    """The exact environment file of a live environment (`environment.lock.yml`): every conda
    package as `channel::name=version=build` in name order, every pip package pinned
    (`name==version`, or `name @ URL` for URL/VCS installs, `-e URL` for editable ones)."""
    conda = []
    for p in sorted(env.conda_packages(), key=lambda p: p.name):
        conda.append(CondaDep(name=p.name, version=f"=={p.version}", build=p.build or None,
                              channel=p.channel or None))
    dists = {pep503(d.name): d for d in env.pip_dists}
    pip = []
    for p in sorted(env.pip_packages(), key=lambda p: pep503(p.name)):
        pip.append(_pip_pin(p, dists.get(pep503(p.name))))
    from envkit.backends.convert import export_channels

    # the channel list `envkit export` writes (configured channels some package came from, then the
    # others packages came from): a configured `defaults` no package came from is not added
    channels = export_channels(env)
    return EnvSpec(name=env.name, channels=channels, conda=tuple(conda), pip=tuple(pip),
                   variables=redact_variables(env.variables), kind="export", has_pip_section=bool(pip))


def _pip_pin(p: LockedPackage, dist) -> PipDep:
    """The environment.lock.yml entry of live pip package `p` (its PipDist `dist`, when known):
    `-e URL#egg=NAME` for an editable install (the name kept in pip's `#egg=` fragment), `NAME @
    git+URL@commit` for a VCS install, `NAME @ URL` for another URL install, else `NAME==VERSION`.
    The entry is what reading the written line back gives (`parse_pip_entry`), so that the content
    hash of the file on disk is the one the lock records."""
    from envkit.backends.native import pip_install_url
    from envkit.errors import InvalidSpecError
    from envkit.formats.pipreq import parse_pip_entry

    url = (pip_install_url(dist) if dist is not None else None) or p.url or None
    editable = bool(p.editable or (dist is not None and dist.editable))
    if url and editable:
        text = url if "#" in url else f"{url}#egg={p.name}"
        text = f"-e {text}"
    elif url:
        text = f"{p.name} @ {url}"
    else:
        text = f"{p.name}=={p.version}"
    try:
        return parse_pip_entry(text)
    except InvalidSpecError:
        # a version PEP 440 no longer accepts is kept as text, never dropped
        return PipDep(kind="requirement", text=text, name=p.name, specifier=f"=={p.version}")


#: Keys envkit adds to conda-lock.yml's `metadata.custom_metadata` (conda-lock's schema: a string ->
#: string mapping, the one place it has for extra data; conda-lock itself reads and ignores them).
#: EDITABLE_KEY: the pip packages installed editable (`pip install -e`), one name per line: a
#: conda-lock v1 pip package has no editable field.  VARIABLES_KEY: the environment's variables
#: (`conda env config vars`), as a JSON object in their order, secret values as `<TOKEN>`
#: (`envkit.urls.redact_variables`); `envkit create` sets the others in the new environment's
#: conda-meta/state.  OVER_CONDA_KEY: the pip packages that were installed over a conda package's files
#: (`LiveEnv.pip_over_conda`), one name per line: `envkit create` installs them the same way.
from envkit.formats.condalock import EDITABLE_KEY  # noqa: E402  (defined with its reader)

VARIABLES_KEY = "envkit.variables"
OVER_CONDA_KEY = "envkit.pip_over_conda"


def lock_metadata(packages: Iterable[LockedPackage], variables: Sequence[tuple[str, str]] = (),
                  metadata: Sequence[tuple[str, str]] = (), *,
                  over_conda: Iterable[str] = ()) -> tuple[tuple[str, str], ...]:
    """`metadata` (Lock.metadata entries) with EDITABLE_KEY (the editable pip packages of
    `packages`, in name order), VARIABLES_KEY (`variables`, secrets redacted) and OVER_CONDA_KEY
    (the pip names `over_conda`, in name order) added to `custom_metadata`; unchanged when there is
    nothing to add."""
    def by_name(names):
        return sorted(set(names), key=lambda n: (pep503(n), n))

    editable = by_name(p.name for p in packages if p.manager == "pip" and p.editable)
    add: dict[str, str] = {}
    if editable:
        add[EDITABLE_KEY] = "\n".join(editable)
    over = by_name(over_conda)
    if over:
        add[OVER_CONDA_KEY] = "\n".join(over)
    if variables:
        add[VARIABLES_KEY] = json.dumps(dict(redact_variables(variables)), ensure_ascii=False,
                                        separators=(",", ":"))
    if not add:
        return tuple(metadata)
    out, done = [], False
    for k, v in metadata:
        if k == "custom_metadata":
            custom = json.loads(v) if v else {}
            custom = dict(custom) if isinstance(custom, dict) else {}
            custom.update(add)
            v, done = json.dumps(custom, ensure_ascii=False, separators=(",", ":")), True
        out.append((k, v))
    if not done:
        out.append(("custom_metadata", json.dumps(add, ensure_ascii=False, separators=(",", ":"))))
    return tuple(out)


def _custom_metadata(lock: Lock) -> dict:
    from envkit.formats.condalock import custom_metadata

    return custom_metadata(lock)


def apply_lock_metadata(lock: Lock) -> Lock:
    """`lock` with what envkit recorded in `custom_metadata` put back on its packages: the pip
    packages named under EDITABLE_KEY are editable.  The same lock when there is nothing to apply.
    (read_conda_lock already does this; locks built in memory may still need it.)"""
    from envkit.formats.condalock import apply_editable

    return apply_editable(lock)


def lock_over_conda(lock: Lock) -> tuple[str, ...]:
    """The pip package names recorded in `lock` as installed over a conda package's files
    (OVER_CONDA_KEY), PEP 503 normalized; () when none."""
    text = _custom_metadata(lock).get(OVER_CONDA_KEY)
    if not isinstance(text, str):
        return ()
    return tuple(pep503(n) for n in text.splitlines() if n.strip())


def lock_variables(lock: Lock) -> tuple[tuple[str, str], ...]:
    """The environment variables recorded in `lock` (VARIABLES_KEY), in order; () when none.
    Secret values are `<TOKEN>` there (they were redacted when locked)."""
    text = _custom_metadata(lock).get(VARIABLES_KEY)
    if not isinstance(text, str):
        return ()
    try:
        data = json.loads(text)
    except ValueError:
        return ()
    if not isinstance(data, dict):
        return ()
    return tuple((str(k), str(v)) for k, v in data.items())


#: pip records no artifact URL for a distribution it installed from an index (no direct_url.json),
#: so `envkit lock -p` asks pip which artifact that release is (`resolve_index_artifacts`).  When
#: pip cannot say (offline, the index no longer has it) and the user passed --allow-unhashed-pip,
#: the package is still locked, with this marker as its URL (conda-lock.yml requires one): the PyPI
#: page of the release plus the fragment `#envkit-unresolved`.  It is not an artifact; `envkit
#: create` installs such a package by pin (`name==version`) from the index pip is configured with.
UNRESOLVED_URL = "https://pypi.org/project/{name}/{version}/#envkit-unresolved"
#: The marker envkit wrote before it resolved index installs (the same page, no fragment); still
#: understood by `envkit create`.
INDEX_URL = "https://pypi.org/project/{name}/{version}/"


def index_placeholder_url(name: str, version: str) -> str:
    """The marker URL of a pip package whose artifact could not be resolved (see UNRESOLVED_URL)."""
    return UNRESOLVED_URL.format(name=pep503(name), version=version)


def is_index_placeholder(pkg: LockedPackage) -> bool:
    """True when `pkg` is a pip package locked without an artifact URL: the UNRESOLVED_URL marker
    (or the older INDEX_URL one).  `envkit create` installs it by pin."""
    if pkg.manager != "pip" or not pkg.url:
        return False
    name, version = pep503(pkg.name), pkg.version
    return pkg.url in (UNRESOLVED_URL.format(name=name, version=version), INDEX_URL.format(name=name, version=version))


@dataclass(frozen=True, slots=True, kw_only=True)
class IndexResolution:
    """What pip said about the index-installed pip packages of a live environment.

    `found` maps the PEP 503 name to (artifact URL, sha256 or None) for each release pip found;
    `unresolved` names (`name==version`) the ones it did not, in name order; `warnings` are the
    messages to show (one per reason, naming its packages);
    `pip` is the pip command line used (without its requirement file), None when none ran.
    """

    found: Mapping[str, tuple[str, str | None]]
    unresolved: tuple[str, ...] = ()
    warnings: tuple[str, ...] = ()
    pip: tuple[str, ...] | None = None


#: pip runs at most this many times to resolve index installs: once for all, then again without
#: each release it reported missing.  Offline, every release is "missing" one after the other, so
#: the bound keeps `envkit lock -p` of an environment with many pip packages quick.
MAX_PIP_ATTEMPTS = 4

_NOT_FOUND = re.compile(r"No matching distribution found for (?P<req>\S+)")


def _index_pip_argv(env: LiveEnv, *, requirements_file: str, report_file: str, own: bool = True) -> list[str]:
    """The pip command that resolves pinned releases for `env`: the environment's own Python and
    pip when they can run here and `own` (its interpreter's tags, its site pip.conf), else envkit's
    pip with the environment's platform and Python version as targets (wheels only)."""
    from envkit.create import host_platform, python_of

    python = python_of(env.prefix, env.platform)
    if own and os.path.exists(python) and env.platform == host_platform():
        return [python, "-m", "pip", "install", "--dry-run", "--ignore-installed", "--no-deps", "--quiet",
                "--disable-pip-version-check", "--no-input", "--report", report_file, "-r", requirements_file]
    version = env.python_version or next((p.version for p in env.conda_packages() if p.name == "python"), "3")
    argv = pip_argv(env.platform, version, requirements_file=requirements_file, report_file=report_file)
    return argv[:-2] + ["--no-deps", "-r", requirements_file]


def resolve_index_artifacts(env: LiveEnv, *, timeout: float = 300) -> IndexResolution:
    """Resolve the artifact (URL and sha256) of every pip package of `env` that records no URL.

    Runs pip's resolver (`pip install --dry-run --ignore-installed --no-deps --report`) on
    `name==version` pins, with the pip configuration of the user and the environment (index URLs,
    `PIP_*` variables, pip.conf, credentials: nothing is overridden), through `envkit._proc.run`.
    A release pip reports missing is left out and the rest resolved again (at most MAX_PIP_ATTEMPTS
    runs).  Never raises for pip's failures: they become `unresolved` with warnings.
    """
    from envkit._proc import run, tail

    wanted = {pep503(p.name): p for p in env.pip_packages() if not p.url}
    if not wanted:
        return IndexResolution(found={})
    pending = dict(sorted(wanted.items()))
    found: dict[str, tuple[str, str | None]] = {}
    failed: dict[str, str] = {}
    argv_used: tuple[str, ...] | None = None
    with tempfile.TemporaryDirectory(prefix="envkit-pip-resolve-") as tmp:
        req = os.path.join(tmp, "requirements.txt")
        report = os.path.join(tmp, "report.json")
        own = True
        for _attempt in range(MAX_PIP_ATTEMPTS):
            if not pending:
                break
            Path(req).write_text("".join(f"{n}=={p.version}\n" for n, p in pending.items()), encoding="utf-8")
            env_vars = dict(os.environ, PIP_NO_INPUT="1", PIP_DISABLE_PIP_VERSION_CHECK="1")
            try:
                argv = _index_pip_argv(env, requirements_file=req, report_file=report, own=own)
                result = run(argv, timeout=timeout, env=env_vars, check=False, what="pip")
                if own and not result.ok and not _NOT_FOUND.search(result.stderr or "") and not result.timed_out:
                    # the environment's own pip is missing, or too old for `--dry-run --report`
                    # (pip < 22.2), or broken: envkit's pip, targeting its platform and Python
                    own = False
                    argv = _index_pip_argv(env, requirements_file=req, report_file=report, own=own)
                    result = run(argv, timeout=timeout, env=env_vars, check=False, what="pip")
            except BackendError as exc:
                result, why = None, exc.message
            argv_used = tuple(a for a in argv if a not in (req, report))
            if result is not None and result.ok and os.path.isfile(report):
                data = json.loads(Path(report).read_text(encoding="utf-8"))
                for item in data.get("install", []):
                    pkg = _report_package(item, env.platform, "3")
                    if pkg.name in pending and pkg.url:
                        found[pkg.name] = (pkg.url, pkg.sha256)
                for n in list(pending):
                    if n not in found:
                        failed[n] = "pip's report does not list it"
                pending = {}
                break
            if result is not None:
                why = tail(result.stderr or result.stdout, 3) or f"pip exited with code {result.returncode}"
                if result.timed_out:
                    why = f"pip did not finish within {timeout:g} s"
                missing = None if result.timed_out else _NOT_FOUND.search(result.stderr or "")
                if missing:
                    name = pep503(re.split(r"[=<>!~ ;\[]", missing.group("req"), maxsplit=1)[0])
                    if name in pending:
                        failed[name] = "no such release on the configured index"
                        del pending[name]
                        continue
            for n in pending:
                failed[n] = "pip failed: " + why.replace("\n", " | ")
            pending = {}
            break
        for n in pending:  # MAX_PIP_ATTEMPTS releases in a row were missing: offline, most likely
            failed[n] = (f"not tried: the {MAX_PIP_ATTEMPTS} releases asked for before were all missing, so the "
                         "index is probably unreachable")
    unresolved = tuple(f"{n}=={wanted[n].version}" for n in sorted(failed))
    by_reason: dict[str, list[str]] = {}
    for n in sorted(failed):
        by_reason.setdefault(failed[n], []).append(f"{n}=={wanted[n].version}")
    warnings = []
    for why, pins in by_reason.items():
        one = len(pins) == 1
        warnings.append(
            f"pip could not resolve the artifact{'' if one else 's'} of {', '.join(pins)} (installed from an "
            f"index): {why}; locked without URL or hash (marked #envkit-unresolved): `envkit create` installs "
            f"{'it' if one else 'them'} by pin from the index pip is configured with")
    return IndexResolution(found=found, unresolved=unresolved, warnings=tuple(warnings), pip=argv_used)


#: The oldest pip whose resolver envkit can ask for an artifact (`install --dry-run --report`).
MIN_PIP = "22.2"


def unresolved_pip_error(resolution: IndexResolution) -> BackendError:
    """The error `envkit lock -n/-p` fails with when pip resolved no artifact for some index-installed
    pip packages: a lock without their URL and hash cannot be reproduced or verified."""
    import importlib.metadata

    try:
        ours = importlib.metadata.version("pip")
    except importlib.metadata.PackageNotFoundError:
        ours = None
    argv = resolution.pip or ()
    used = "none"
    if argv:  # envkit's own pip runs as `python -c <shim>`: name it rather than print the shim
        used = f"{argv[0]} -m pip (envkit's, for the environment's platform)" if argv[1:2] == ("-c",) else \
            " ".join(argv[:4])
    pins = ", ".join(resolution.unresolved)
    reasons = "; ".join(w.split(" (installed from an index): ", 1)[-1].split("; locked without", 1)[0]
                        for w in resolution.warnings)
    return BackendError(
        f"pip could not resolve the artifact (URL and sha256) of {pins}: {reasons}; a lock without them "
        "cannot be reproduced",
        hint=f"envkit needs pip >= {MIN_PIP} (`pip install --dry-run --report`): the environment's own, else "
             f"envkit's{f' (pip {ours})' if ours else ''}; it ran `{used}`. Check the index pip is configured "
             "with (PIP_INDEX_URL, pip.conf), or pass --allow-unhashed-pip to lock them without URL or hash")


def lock_live(env: LiveEnv, *, index_artifacts: Mapping[str, tuple[str, str | None]] | None = None) -> Lock:
    """Lock the live environment `env` exactly, for its own platform.

    Pip packages keep the URL and sha256 their installation recorded (direct_url.json).  One
    installed from an index records neither: it gets the artifact in `index_artifacts` (PEP 503
    name -> (URL, sha256), from `resolve_index_artifacts`), else the UNRESOLVED_URL marker.  The
    lock's content hash is the hash of `live_env_spec(env)`, so `envkit lock --check -f
    environment.lock.yml --lock conda-lock.yml` passes on the pair `envkit lock -p` writes.
    """
    from dataclasses import replace

    platform = env.platform
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
    return Lock(kind="conda-lock", platforms=(platform,), packages=sort_packages(pkgs),
                channels=spec.channels, content_hash=((platform, spec_content_hash(spec, platform)),),
                metadata=lock_metadata(pkgs, env.variables, over_conda=[n for n, _ in env.pip_over_conda]),
                source=env.prefix)


# --------------------------------------------------------------------------------------------
# solving with py-rattler


def channel_sources(channels: Sequence[Channel], platform: str) -> list[str]:
    """The channel URLs (or names) rattler is given, in priority order.  `defaults` becomes
    Anaconda's main and r channels (and msys2 on Windows); `nodefaults` is dropped."""
    out: list[str] = []
    for ch in channels:
        if ch.name == "nodefaults":
            continue
        if ch.name == "defaults":
            extra = ["https://repo.anaconda.com/pkgs/main", "https://repo.anaconda.com/pkgs/r"]
            if platform.startswith("win-"):
                extra.append("https://repo.anaconda.com/pkgs/msys2")
            out.extend(extra)
        else:
            out.append(ch.url or ch.name)
    return list(dict.fromkeys(out))


def record_to_package(record, platform: str) -> LockedPackage:
    """A py-rattler RepoDataRecord as a locked conda package for `platform`."""
    from envkit.conda.channels import channel_of_url, parse_channel
    from envkit.urls import redact_url

    url = redact_url(str(record.url))[0]
    chan_text = str(record.channel) if record.channel else ""
    channel = parse_channel(chan_text).name if chan_text else channel_of_url(url)[0].name
    return LockedPackage(
        manager="conda", name=record.name.normalized, version=str(record.version),
        build=str(record.build), build_number=int(record.build_number), channel=channel,
        platform=platform, subdir=str(record.subdir), url=url,
        md5=record.md5.hex() if record.md5 else None,
        sha256=record.sha256.hex() if record.sha256 else None,
        depends=tuple(split_depend(d) for d in record.depends),
    )


def solve_conda(spec: EnvSpec, platform: str, *, channel_priority: str = "strict",
                virtual_packages: Sequence[VirtualPackage] = (), timeout: float | None = 600) -> tuple[LockedPackage, ...]:
    """Solve the conda dependencies of `spec` for one platform and return the locked packages."""
    return _solve_many(spec, [platform], channel_priority=channel_priority,
                       virtual_packages=virtual_packages, timeout=timeout)[platform]


def _solve_many(spec: EnvSpec, platforms: Sequence[str], *, channel_priority: str,
                virtual_packages: Sequence[VirtualPackage], timeout: float | None) -> dict[str, tuple[LockedPackage, ...]]:
    import asyncio
    import datetime

    import rattler

    if channel_priority not in CHANNEL_PRIORITIES:
        raise UsageError(f"unknown channel priority {channel_priority!r}",
                         hint="use one of: " + ", ".join(CHANNEL_PRIORITIES))
    priority = {"strict": rattler.ChannelPriority.Strict, "flexible": rattler.ChannelPriority.Flexible,
                "disabled": rattler.ChannelPriority.Disabled}[channel_priority]
    where = Where(file=spec.source, line=spec.line_of("channels"), key="channels")
    from envkit.conda.matchspec import to_rattler

    # MatchSpec objects, not strings: rattler reads strings strictly and refuses `name=1.2=build`
    specs = [to_rattler(d, source=spec.source) for d in spec.conda]
    # virtual packages the spec itself asks for (`__cuda >=12`) are requirements on the target
    # machine, not packages: the solve must honour them through the virtual package list.
    vp_specs = [d for d in spec.conda if d.name.startswith("__")]

    # conda searches a `chan::pkg` spec's channel even when `channels:` does not list it (after
    # the listed ones); rattler only searches its sources, so they must include it.
    spec_channels = _spec_channels(spec)

    async def one(platform: str):
        sources = channel_sources(spec.channels, platform)
        if sources:
            sources = list(dict.fromkeys(sources + channel_sources(spec_channels, platform)))
        if not sources:
            raise SolveError(f"{platform}: the spec lists no channels to solve from", where=where,
                             hint="add a `channels:` list (e.g. conda-forge) to the environment file")
        vps = virtual_packages_for(platform, virtual_packages)
        for d in vp_specs:
            if not any(v.name == d.name for v in vps):
                raise SolveError(f"{platform}: the spec requires virtual package {d.spec()!r}, which is "
                                 "not set for this platform",
                                 where=Where(file=spec.source, line=d.line, key="dependencies"),
                                 hint=f"pass --virtual-package {platform}:{d.name}=VERSION")
        generic = [rattler.GenericVirtualPackage(rattler.PackageName(v.name), rattler.Version(v.version),
                                                 rattler.BuildString(v.build)) for v in vps]
        try:
            records = await rattler.solve(
                sources=sources, specs=specs, platforms=[platform, "noarch"],
                virtual_packages=generic, channel_priority=priority,
                timeout=datetime.timedelta(seconds=timeout) if timeout else None)
        except Exception as exc:  # rattler raises its own exception classes
            name = type(exc).__name__
            if name in ("SolverError", "UnsolvableError"):
                raise SolveError(f"{platform}: cannot solve the spec", where=Where(file=spec.source),
                                 text=str(exc).strip()) from None
            raise solve_failure(exc, platform, spec.source, sources) from None
        return platform, tuple(record_to_package(r, platform) for r in records)

    async def main():
        return await asyncio.gather(*(one(p) for p in platforms))

    return dict(asyncio.run(main()))


def _spec_channels(spec: EnvSpec) -> list[Channel]:
    """The channels named by `chan::pkg` dependencies, in file order."""
    from envkit.conda.channels import parse_channel

    return [parse_channel(n) for n in dict.fromkeys(d.channel for d in spec.conda if d.channel)]


def solve_spec(spec: EnvSpec, platforms: Sequence[str], *, channel_priority: str = "strict",
               virtual_packages: Sequence[VirtualPackage] = (), lock_pip_section: bool = True,
               pip_timeout: float = 600, solve_timeout: float | None = 600,
               progress: Callable[[str], None] | None = None) -> Lock:
    """Solve `spec` for every platform in `platforms` and return the Lock.

    Conda dependencies are solved with py-rattler; the pip section (when the spec has one) is then
    locked per platform with `lock_pip`, for the python version the conda solve chose.  Raises
    SolveError when a platform cannot be solved, UsageError for an unknown platform or channel
    priority, BackendError when pip fails.
    """
    plats = _check_platforms(platforms or spec.platforms, spec)
    say = progress or (lambda _m: None)
    say(f"solving {', '.join(plats)} with py-rattler (fetching the channels' repodata)")
    solved = _solve_many(spec, plats, channel_priority=channel_priority,
                         virtual_packages=virtual_packages, timeout=solve_timeout)
    packages: list[LockedPackage] = []
    for platform in plats:
        conda = solved[platform]
        say(f"{platform}: {len(conda)} conda packages solved")
        packages.extend(conda)
        pip_entries = [p for p in spec.pip if p.kind != "option"]
        if lock_pip_section and pip_entries:
            python = next((p for p in conda if p.name == "python"), None)
            if python is None:
                raise SolveError(f"{platform}: the spec has a pip section but the solution has no python",
                                 where=Where(file=spec.source, line=spec.line_of("dependencies")),
                                 hint="add python (e.g. python=3.11) to the conda dependencies")
            say(f"{platform}: locking the pip section with pip (python {python.version})")
            pip = lock_pip(spec, platform, python.version,
                           virtual_packages=virtual_packages_for(platform, virtual_packages), timeout=pip_timeout)
            _require_named_index(spec, platform, pip)
            packages.extend(pip)
    hashes = tuple((p, spec_content_hash(spec, p)) for p in plats)
    channels = tuple(c for c in spec.channels if c.name != "nodefaults")
    sources = (os.path.basename(spec.source),) if spec.source else ()
    metadata = lock_metadata(packages, spec.variables)
    indexes = index_record(packages, lock_pip_options(spec)) if lock_pip_section else {}
    if indexes:  # where each pip artifact came from (which of the spec's indexes)
        metadata = _add_custom(metadata, {INDEX_KEY: json.dumps(indexes, separators=(",", ":"))})
    return Lock(kind="conda-lock", platforms=plats, packages=sort_packages(packages), channels=channels,
                content_hash=hashes, sources=sources, pip_options=lock_pip_options(spec), metadata=metadata)


def _add_custom(metadata: Sequence[tuple[str, str]], add: Mapping[str, str]) -> tuple[tuple[str, str], ...]:
    """`metadata` with `add` merged into its custom_metadata entry (made when absent)."""
    out, done = [], False
    for k, v in metadata:
        if k == "custom_metadata":
            custom = json.loads(v) if v else {}
            v, done = json.dumps({**custom, **add}, ensure_ascii=False, separators=(",", ":")), True
        out.append((k, v))
    if not done:
        out.append(("custom_metadata", json.dumps(dict(add), ensure_ascii=False, separators=(",", ":"))))
    return tuple(out)


def _require_named_index(spec: EnvSpec, platform: str, pip: Sequence[LockedPackage]) -> None:
    """Raise BackendError when a PyTorch-family package the pip section asks for was locked from
    another index than the PyTorch wheel index the section names (pip fell back to an extra index,
    PyPI, because that one was unreachable or lacks the release)."""
    requested = [d.name for d in spec.pip if d.kind != "option" and d.name]
    bad = index_mismatches(requested, pip, lock_pip_options(spec))
    if not bad:
        return
    b = bad[0]
    others = f" (and {', '.join(x.name for x in bad[1:])})" if len(bad) > 1 else ""
    came = f"from {b.got}" if b.got else f"from {b.url}"
    raise BackendError(
        f"{platform}: pip locked {b.name}=={b.version}{others} {came}, not from the index the pip section "
        f"names for it, {b.wanted}: that index was unreachable or lacks the release, and pip fell back to "
        "another index", where=Where(file=spec.source, line=spec.line_of("dependencies")),
        hint=f"check that {b.wanted} is reachable (network, proxy, PIP_* settings) and has that release; "
             "nothing was written")


#: The pip options of a spec that a lock keeps for `envkit create`: where pip finds the locked
#: artifacts.  Others (`-r`, `-c`, `--pre`, ...) shaped the resolution, which the lock now records.
_KEPT_PIP_OPTIONS = ("--index-url", "-i", "--extra-index-url", "--find-links", "-f", "--no-index",
                     "--trusted-host")


def rebase_pip_options(options: Sequence[str], from_dir: str, to_dir: str) -> tuple[str, ...]:
    """`options` with each relative `--find-links`/`-f` path (relative to `from_dir`, the spec's
    directory) rewritten relative to `to_dir` (the lock's), so that `envkit create` finds it from
    the lock.  URLs and absolute paths are unchanged."""
    out = []
    for opt in options:
        m = re.match(r"^(?P<flag>--find-links|-f)(?P<sep>\s*=?\s*)(?P<path>\S+)$", opt.strip())
        if m and "://" not in m.group("path") and not os.path.isabs(m.group("path")):
            target = os.path.normpath(os.path.join(from_dir, m.group("path")))
            rel = os.path.relpath(target, to_dir)
            opt = f"{m.group('flag')} {rel if rel.startswith('.') else './' + rel}"
        out.append(opt)
    return tuple(out)


def lock_pip_options(spec: EnvSpec) -> tuple[str, ...]:
    """The pip options of `spec`'s pip section a lock records (`Lock.pip_options`), in file order:
    index and link options only (`--index-url`, `--extra-index-url`, `--find-links`, `--no-index`,
    `--trusted-host`), with credentials redacted as the spec model has them."""
    out = []
    for p in spec.pip:
        if p.kind != "option":
            continue
        head = re.split(r"[\s=]", p.text.strip(), maxsplit=1)[0]
        if head in _KEPT_PIP_OPTIONS:
            out.append(p.text.strip())
    return tuple(out)


def _check_platforms(platforms: Sequence[str], spec: EnvSpec) -> tuple[str, ...]:
    from envkit.conda.channels import KNOWN_SUBDIRS

    if not platforms:
        raise UsageError("no platform to lock for", hint="pass --platform (e.g. --platform linux-64)")
    for p in platforms:
        if p not in KNOWN_SUBDIRS or p == "noarch":
            raise UsageError(f"unknown platform {p!r}",
                             hint="use a conda subdir such as linux-64, linux-aarch64, osx-64, osx-arm64, win-64")
    return tuple(sorted(set(platforms)))


# --------------------------------------------------------------------------------------------
# pip


_MACHINE = {"64": "x86_64", "aarch64": "aarch64", "ppc64le": "ppc64le", "arm64": "arm64", "s390x": "s390x",
            "32": "i686", "armv7l": "armv7l"}


def target_markers(platform: str, python_version: str) -> dict[str, str]:
    """PEP 508 marker values of a conda `platform` running CPython `python_version`."""
    os_part, _, arch = platform.partition("-")
    machine = _MACHINE.get(arch, arch)
    xy = ".".join(python_version.split(".")[:2])
    full = python_version if python_version.count(".") >= 2 else f"{xy}.0"
    if os_part == "osx":
        sysp, system, osname = "darwin", "Darwin", "posix"
    elif os_part == "win":
        sysp, system, osname = "win32", "Windows", "nt"
        machine = {"x86_64": "AMD64", "arm64": "ARM64", "i686": "x86"}.get(machine, machine)
    else:
        sysp, system, osname = "linux", "Linux", "posix"
    return {"sys_platform": sysp, "platform_system": system, "os_name": osname,
            "platform_machine": machine, "python_version": xy, "python_full_version": full,
            "implementation_name": "cpython", "implementation_version": full,
            "platform_python_implementation": "CPython", "platform_release": "", "platform_version": ""}


def wheel_platform_tags(platform: str, virtual_packages: Sequence[VirtualPackage] = ()) -> list[str]:
    """Wheel platform tags a conda `platform` accepts, best first.  Linux tags go down from the
    `__glibc` virtual package's version (manylinux_2_X ... 2_5 and the legacy aliases); macOS tags
    from `__osx`'s version."""
    os_part, _, arch = platform.partition("-")
    machine = _MACHINE.get(arch, arch)
    tags: list[str] = []
    if os_part == "linux":
        glibc = _vp_value(virtual_packages, "__glibc") or DEFAULT_VIRTUAL_PACKAGES.get(platform, {}).get("__glibc", "2.17")
        major, minor = (int(x) for x in (glibc.split(".") + ["0"])[:2])
        minor = minor if major == 2 else 17
        for m in range(minor, 4, -1):
            tags.append(f"manylinux_2_{m}_{machine}")
            legacy = {17: "manylinux2014", 12: "manylinux2010", 5: "manylinux1"}.get(m)
            if legacy and (m != 5 or machine in ("x86_64", "i686")):
                tags.append(f"{legacy}_{machine}")
        tags.append(f"linux_{machine}")
    elif os_part == "osx":
        osx = _vp_value(virtual_packages, "__osx") or "11.0"
        major, minor = (int(x) for x in (osx.split(".") + ["0"])[:2])
        arches = [machine, "universal2"] + (["intel", "fat64", "universal"] if machine == "x86_64" else [])
        for mj in range(major, 10, -1):
            for a in arches:
                tags.append(f"macosx_{mj}_0_{a}")
        if machine == "x86_64":
            top = minor if major == 10 else 16
            for mn in range(top, 8, -1):
                for a in arches:
                    tags.append(f"macosx_10_{mn}_{a}")
    elif os_part == "win":
        tags.append({"x86_64": "win_amd64", "arm64": "win_arm64", "i686": "win32"}.get(machine, f"win_{machine}"))
    else:
        raise UsageError(f"cannot lock pip packages for platform {platform!r}")
    return list(dict.fromkeys(tags))


# Runs pip in-process with PEP 508 markers evaluated for the TARGET platform: pip itself evaluates
# them against the interpreter running it, which would drop `; sys_platform == "darwin"` wheels from
# an osx-arm64 lock made on Linux.  `packaging.markers.default_environment` is the one function
# every marker evaluation in pip's vendored packaging goes through.
_PIP_SHIM = r"""
import json, sys
env = json.loads(sys.argv[1])
from pip._vendor.packaging import markers
_orig = markers.default_environment
def _target():
    d = dict(_orig())
    d.update(env)
    return d
markers.default_environment = _target
from pip._internal.cli.main import main
sys.argv = ["pip"] + sys.argv[2:]
sys.exit(main())
"""


def pip_argv(platform: str, python_version: str, *, virtual_packages: Sequence[VirtualPackage] = (),
             requirements_file: str, report_file: str, python: str | None = None) -> list[str]:
    """The pip command `lock_pip` runs (pip's resolver in dry-run mode, for the target platform)."""
    import sys

    xy = python_version.split(".")[:2]
    abi = f"cp{''.join(xy)}"
    argv = [python or sys.executable, "-c", _PIP_SHIM, json.dumps(target_markers(platform, python_version),
                                                                   sort_keys=True),
            "install", "--dry-run", "--ignore-installed", "--quiet", "--disable-pip-version-check",
            "--no-input", "--report", report_file, "--only-binary=:all:", "--implementation", "cp",
            "--python-version", ".".join(xy), "--abi", abi, "--abi", "abi3", "--abi", "none"]
    for tag in wheel_platform_tags(platform, virtual_packages):
        argv += ["--platform", tag]
    argv += ["-r", requirements_file]
    return argv


def pip_requirements_text(entries: Sequence[PipDep]) -> str:
    """The pip section as a requirements file (options and entries in file order)."""
    lines = []
    for p in entries:
        text = p.raw.strip() if p.kind == "option" and p.raw.strip() else p.text
        if p.editable and not text.startswith("-e"):
            text = f"-e {text}"
        lines.append(text)
    return "\n".join(lines) + "\n"


def lock_pip(spec: EnvSpec, platform: str, python_version: str, *,
             virtual_packages: Sequence[VirtualPackage] = (), timeout: float = 600,
             cwd: str | None = None) -> tuple[LockedPackage, ...]:
    """Resolve the pip section of `spec` for `platform` and CPython `python_version`, with hashes.

    Runs `pip install --dry-run --ignore-installed --report` (wheels only, `--platform`/`--abi`/
    `--python-version` for the target, markers evaluated for the target) and returns one pip
    LockedPackage per distribution pip would install, with its URL, sha256 (when the index or file
    gave one) and dependencies.  Options in the pip section (`--index-url`, `--find-links`,
    `--no-index`, ...) are passed to pip as written; relative paths are relative to the spec's
    directory.  Raises BackendError when pip fails or cannot resolve.
    """
    entries = list(spec.pip)
    if not any(p.kind != "option" for p in entries):
        return ()
    workdir = cwd or (os.path.dirname(os.path.abspath(spec.source)) if spec.source else os.getcwd())
    from envkit._proc import run

    with tempfile.TemporaryDirectory(prefix="envkit-pip-") as tmp:
        req = os.path.join(tmp, "requirements.txt")
        report = os.path.join(tmp, "report.json")
        Path(req).write_text(pip_requirements_text(entries), encoding="utf-8")
        argv = pip_argv(platform, python_version, virtual_packages=virtual_packages,
                        requirements_file=req, report_file=report)
        env = dict(os.environ, PIP_NO_INPUT="1", PIP_DISABLE_PIP_VERSION_CHECK="1")
        result = run(argv, timeout=timeout, cwd=workdir, env=env, check=False, what="pip")
        if not result.ok:
            from envkit._proc import tail

            if "No module named pip" in result.stderr:
                raise BackendError("pip is not installed in envkit's Python, so the pip section cannot be locked",
                                   hint="python -m ensurepip, or pip install pip")
            raise BackendError(f"{platform}: pip could not resolve the pip section (python {python_version})",
                               where=Where(file=spec.source, line=spec.line_of("dependencies")),
                               text=tail(result.stderr or result.stdout) or None)
        data = json.loads(Path(report).read_text(encoding="utf-8"))
    return tuple(_report_package(item, platform, python_version) for item in data.get("install", []))


def _report_package(item: Mapping, platform: str, python_version: str) -> LockedPackage:
    from packaging.requirements import InvalidRequirement, Requirement

    from envkit.urls import redact_url

    meta = item.get("metadata", {})
    info = item.get("download_info", {}) or {}
    url = info.get("url")
    sha256 = None
    archive = info.get("archive_info") or {}
    hashes = archive.get("hashes") or {}
    if "sha256" in hashes:
        sha256 = hashes["sha256"]
    elif str(archive.get("hash", "")).startswith("sha256="):
        sha256 = archive["hash"].split("=", 1)[1]
    vcs = info.get("vcs_info")
    if vcs and url:
        url = f"{vcs.get('vcs', 'git')}+{url}@{vcs.get('commit_id', '')}".rstrip("@")
    env = target_markers(platform, python_version)
    deps: dict[str, str] = {}
    for text in meta.get("requires_dist") or []:
        try:
            r = Requirement(text)
        except InvalidRequirement:
            continue
        if r.marker is not None and not r.marker.evaluate(dict(env, extra="")):
            continue
        deps.setdefault(pep503(r.name), str(r.specifier))
    editable = bool((info.get("dir_info") or {}).get("editable"))
    return LockedPackage(manager="pip", name=pep503(meta.get("name", "")), version=str(meta.get("version", "")),
                         platform=platform, url=redact_url(url)[0] if url else None, sha256=sha256,
                         depends=tuple(sorted(deps.items())), editable=editable)


# --------------------------------------------------------------------------------------------
# conda-lock as the solver


def find_conda_executable(env: Mapping[str, str] | None = None) -> str | None:
    """A conda-compatible executable for conda-lock: CONDA_EXE, MAMBA_EXE, then conda, mamba,
    micromamba on PATH.  None when there is none."""
    from envkit._proc import which

    env = os.environ if env is None else env
    for var in ("CONDA_EXE", "MAMBA_EXE"):
        exe = env.get(var)
        if exe and os.path.isfile(exe) and os.access(exe, os.X_OK):
            return exe
    for name in ("conda", "mamba", "micromamba"):
        found = which(name, path=env.get("PATH"))
        if found:
            return found
    return None


def virtual_package_spec_yaml(platforms: Sequence[str], virtual_packages: Sequence[VirtualPackage]) -> str:
    """conda-lock's `--virtual-package-spec` file for these platforms and settings."""
    from envkit._yaml import scalar

    lines = ["subdirs:"]
    for p in platforms:
        lines.append(f"  {p}:")
        lines.append("    packages:")
        for vp in virtual_packages_for(p, virtual_packages):
            value = vp.version if vp.build == "0" else f"{vp.version} {vp.build}"
            lines.append(f"      {vp.name}: {scalar(value)}")
    return "\n".join(lines) + "\n"


def conda_lock_argv(spec_file: str, platforms: Sequence[str], lockfile: str, conda_exe: str,
                    vp_file: str) -> list[str]:
    """The conda-lock command `solve_with_conda_lock` runs."""
    import sys

    argv = [sys.executable, "-m", "conda_lock", "lock", "--file", spec_file, "--lockfile", lockfile,
            "--conda", conda_exe, "--virtual-package-spec", vp_file, "--kind", "lock"]
    for p in platforms:
        argv += ["--platform", p]
    return argv


def solve_with_conda_lock(spec: EnvSpec, platforms: Sequence[str], *,
                          virtual_packages: Sequence[VirtualPackage] = (), conda_exe: str | None = None,
                          timeout: float = 1800) -> Lock:
    """Solve with conda-lock itself (it needs a conda, mamba or micromamba executable).

    The result is read back and given envkit's content hashes, so `envkit lock --check` works on it
    like on any envkit lock.  Raises BackendError when no conda executable exists or conda-lock fails.
    """
    if not spec.source:
        raise UsageError("--solver conda-lock needs the spec as a file (-f)")
    plats = _check_platforms(platforms or spec.platforms, spec)
    exe = conda_exe or find_conda_executable()
    if exe is None:
        raise BackendError("--solver conda-lock needs a conda executable, and none was found "
                           "(CONDA_EXE, MAMBA_EXE, conda, mamba, micromamba on PATH)",
                           hint="install micromamba or conda, or use the default solver (--solver rattler)")
    from dataclasses import replace

    from envkit._proc import run
    from envkit.formats.condalock import read_conda_lock

    with tempfile.TemporaryDirectory(prefix="envkit-conda-lock-") as tmp:
        out = os.path.join(tmp, "conda-lock.yml")
        vp_file = os.path.join(tmp, "virtual-packages.yml")
        Path(vp_file).write_text(virtual_package_spec_yaml(plats, virtual_packages), encoding="utf-8")
        run(conda_lock_argv(os.path.abspath(spec.source), plats, out, exe, vp_file), timeout=timeout,
            cwd=os.path.dirname(os.path.abspath(spec.source)), what="conda-lock")
        from envkit.io import read_text

        lock = read_conda_lock(read_text(out), filename=out)
    hashes = tuple((p, spec_content_hash(spec, p)) for p in plats)
    return replace(lock, kind="conda-lock", platforms=plats, packages=sort_packages(lock.packages),
                   content_hash=hashes, sources=(os.path.basename(spec.source),),
                   pip_options=lock_pip_options(spec),
                   metadata=lock_metadata(lock.packages, spec.variables, lock.metadata))


# --------------------------------------------------------------------------------------------
# staleness: whose content hash, and does it still fit the spec


#: Comment marks that say who wrote a lock (searched, case-insensitively, in its leading comments).
ENVKIT_MARK = "generated by envkit"
CONDA_LOCK_MARK = "generated by conda-lock"

#: Names conda-lock looks for in its working directory when no `--virtual-package-spec` is given.
VIRTUAL_PACKAGE_FILES = ("virtual-packages.yml", "virtual-packages.yaml")

#: Conda dependencies whose pinned version says which CUDA the project was locked for; conda-lock
#: users pass it as `--with-cuda`, so its hash is tried with that `__cuda` too.
_CUDA_PIN_NAMES = ("__cuda", "cuda-version", "pytorch-cuda", "cudatoolkit", "cuda-toolkit", "cuda")


def lock_writer(text: str | None) -> str:
    """Who wrote a lock, from the comment lines it starts with: "envkit" (envkit's generated-by
    header), "conda-lock" (conda-lock's, in conda-lock.yml or a rendered explicit file) or
    "unknown" (no such header, or no text)."""
    if not text:
        return "unknown"
    for line in text[:4000].splitlines():
        stripped = line.strip()
        if not stripped:
            continue
        if not stripped.startswith("#"):
            break
        low = stripped.lower()
        if ENVKIT_MARK in low:
            return "envkit"
        if CONDA_LOCK_MARK in low:
            return "conda-lock"
    return "unknown"


def conda_lock_version() -> str | None:
    """The installed conda-lock's version, or None when conda-lock cannot be imported."""
    try:
        import conda_lock  # noqa: F401
        from importlib.metadata import PackageNotFoundError, version
    except Exception:
        return None
    try:
        return version("conda-lock")
    except PackageNotFoundError:
        return "unknown"


def _cuda_versions_in(spec: EnvSpec) -> list[str]:
    """CUDA versions the spec pins (`pytorch-cuda=11.7`, `cuda-version=12.4`, `__cuda>=12`), as
    `X.Y`, in file order."""
    out: list[str] = []
    for d in spec.conda:
        if d.name not in _CUDA_PIN_NAMES or not d.version:
            continue
        m = re.search(r"(\d+)\.(\d+)", d.version) or re.search(r"(\d+)", d.version)
        if m:
            v = f"{m.group(1)}.{m.group(2) if m.lastindex and m.lastindex >= 2 else '0'}"
            if v not in out:
                out.append(v)
    return out


def conda_lock_content_hashes(spec_path: str, platforms: Sequence[str], *,
                              virtual_packages: Sequence[VirtualPackage] = (),
                              cuda_versions: Sequence[str] = ()) -> dict[str, tuple[str, frozenset[str]]]:
    """conda-lock's content hashes of the environment file at `spec_path`, per platform.

    Computed with conda-lock's own library, as `conda-lock lock --check-input-hash` does: the
    spec parsed by `conda_lock.src_parser.make_lock_spec` (platform selectors and all), hashed by
    `conda_lock.content_hash.backwards_compatible_content_hashes` (which also accepts the hashes
    older conda-lock versions wrote for the same spec).  The hash includes the virtual package
    repository, so every repository conda-lock could have been run with is tried: its default
    (with `__cuda`), `--without-cuda`, `--with-cuda X` for each CUDA version in `cuda_versions`, a
    `virtual-packages.yml` beside the spec, and `virtual_packages` (envkit's defaults plus these
    settings) when given.  Returns platform -> (the default hash, every acceptable hash).

    Raises ImportError when conda-lock is not installed, and any exception conda-lock raises for a
    spec it cannot read.
    """
    import contextlib
    import io
    import pathlib

    from conda_lock.content_hash import backwards_compatible_content_hashes, compute_content_hashes
    from conda_lock.src_parser import make_lock_spec
    from conda_lock.virtual_package import (default_virtual_package_repodata,
                                            virtual_package_repo_from_specification)

    plats = list(platforms)
    with tempfile.TemporaryDirectory(prefix="envkit-conda-lock-hash-") as tmp:
        # The only name an environment file makes conda-lock map from PyPI to conda is `pip`
        # itself (it adds the conda package `pip` when there is a pip section), and it is `pip` in
        # conda-lock's mapping too; an empty local mapping keeps conda-lock off the network.
        mapping = os.path.join(tmp, "pypi-mapping.json")
        Path(mapping).write_text("{}", encoding="utf-8")
        with contextlib.redirect_stderr(io.StringIO()):  # its "editable pip dep will not be included"
            lock_spec = make_lock_spec(src_files=[pathlib.Path(spec_path)], platform_overrides=plats,
                                       mapping_url=mapping)
            repos = [default_virtual_package_repodata(), default_virtual_package_repodata(cuda_version="")]
            repos += [default_virtual_package_repodata(cuda_version=v) for v in cuda_versions]
            here = os.path.dirname(os.path.abspath(spec_path))
            for name in VIRTUAL_PACKAGE_FILES:
                candidate = os.path.join(here, name)
                if os.path.isfile(candidate):
                    repos.append(virtual_package_repo_from_specification(pathlib.Path(candidate)))
                    break
            if virtual_packages:
                vp_file = os.path.join(tmp, "virtual-packages.yml")
                Path(vp_file).write_text(virtual_package_spec_yaml(plats, virtual_packages), encoding="utf-8")
                repos.append(virtual_package_repo_from_specification(pathlib.Path(vp_file)))
            default = compute_content_hashes(lock_spec, repos[0])
            out: dict[str, tuple[str, frozenset[str]]] = {}
            for platform in plats:
                accepted: set[str] = set()
                for repo in repos:
                    accepted |= backwards_compatible_content_hashes(lock_spec, repo, platform)
                out[platform] = (default[platform], frozenset(accepted))
    return out


@dataclass(frozen=True, slots=True, kw_only=True)
class Staleness:
    """The content-hash verdict for one platform of a lock.

    status: "fresh" (the recorded hash is the spec's hash), "stale" (it is not: the spec changed
    since it was locked; or an envkit lock records none) or "not-comparable" (the hash cannot be
    checked; `message` says why; only whether the lock satisfies the spec can be checked).
    `method` is whose hash definition was compared ("envkit", "conda-lock"), None when none was.
    `writer` is who wrote the lock (see `lock_writer`; "envkit" for an in-memory lock).
    """

    platform: str
    status: str
    method: str | None
    writer: str
    recorded: str | None
    expected: str | None
    message: str

    def __str__(self) -> str:
        return f"{self.platform}: {self.message}"


def lock_staleness(spec: EnvSpec, lock: Lock, spec_path: str | None = None, *, lock_text: str | None = None,
                   platforms: Sequence[str] | None = None,
                   virtual_packages: Sequence[VirtualPackage] = ()) -> list[Staleness]:
    """Whether `lock`'s recorded content hash still fits `spec`, per platform (the lock's, or
    `platforms`), in order.  `envkit lock --check` and `envkit check`'s stale-lock rule both decide
    with this function.

    Whose hash is compared depends on who wrote the lock (`lock_writer` of `lock_text`, else of the
    first lines of the file `lock.source`; a lock with neither is envkit's own, made in memory):

    * envkit: `spec_content_hash`; a different or missing hash is "stale".
    * conda-lock: conda-lock's own hash of the spec file (`conda_lock_content_hashes`; `spec_path`,
      default `spec.source`), when conda-lock (`envkit[lock]`) is importable: one of its acceptable
      hashes is "fresh", anything else "stale" (conda-lock itself would re-solve that platform).
      Without conda-lock, without a spec file, or when conda-lock cannot read the spec, the hash is
      "not-comparable" (never "stale": the lock may well be current).  `virtual_packages` are
      the settings it was locked with, when not conda-lock's defaults.
    * unknown: "fresh" when the hash is envkit's or conda-lock's hash of the spec, otherwise
      "not-comparable" (a hash of unknown definition, or none).
    """
    plats = list(platforms) if platforms else list(lock.platforms)
    text = lock_text
    if text is None and lock.source and os.path.isfile(lock.source):
        try:
            with open(lock.source, encoding="utf-8", errors="replace") as fh:
                text = fh.read(4000)
        except OSError:
            text = None
    writer = lock_writer(text) if text is not None else "envkit"
    out: list[Staleness] = []

    def verdict(platform, status, method, recorded, expected, message):
        out.append(Staleness(platform=platform, status=status, method=method, writer=writer,
                             recorded=recorded, expected=expected, message=message))

    envkit_hashes = {p: spec_content_hash(spec, p) for p in plats}
    conda_lock: dict[str, tuple[str, frozenset[str]]] | None = None
    why_not = ""
    need_conda_lock = writer == "conda-lock" or (
        writer == "unknown" and any(lock.hash_for(p) not in (None, envkit_hashes[p]) for p in plats))
    if need_conda_lock:
        version = conda_lock_version()
        path = spec_path or spec.source
        if version is None:
            why_not = ("conda-lock is not installed, and its hash is its own definition; install envkit[lock] "
                       "(pip install 'envkit[lock]') to compare it")
        elif not path or not os.path.isfile(path):
            why_not = "conda-lock hashes the environment file, and there is none on disk to hash"
        else:
            try:
                conda_lock = conda_lock_content_hashes(path, plats, virtual_packages=virtual_packages,
                                                       cuda_versions=_cuda_versions_in(spec))
            except Exception as exc:  # conda-lock's parser raises many kinds
                why_not = (f"conda-lock {version} cannot compute a hash for {path}: {type(exc).__name__}: "
                           f"{str(exc).strip().splitlines()[0] if str(exc).strip() else ''}").rstrip(": ")
    def short(h: str) -> str:
        return f"{h[:12]}..."

    version = conda_lock_version() if conda_lock is not None else None
    who = {"conda-lock": "lock written by conda-lock", "unknown": "lock not written by envkit or conda-lock"}
    for platform in plats:
        recorded = lock.hash_for(platform)
        mine = envkit_hashes[platform]
        if writer == "envkit":
            if recorded is None:
                verdict(platform, "stale", "envkit", None, mine, "the lock records no content hash for this platform")
            elif recorded != mine:
                verdict(platform, "stale", "envkit", recorded, mine,
                        f"content hash {short(recorded)} does not match the spec ({short(mine)}): "
                        "the spec changed since it was locked")
            else:
                verdict(platform, "fresh", "envkit", recorded, mine, "content hash matches the spec")
            continue
        if recorded is None:
            verdict(platform, "not-comparable", None, None, None,
                    f"hash not comparable ({who[writer]}, which records no content hash for this platform); "
                    "only checked that the lock satisfies the spec")
            continue
        if writer == "unknown" and recorded == mine:
            verdict(platform, "fresh", "envkit", recorded, mine, "content hash matches the spec (envkit's hash)")
            continue
        if conda_lock is None:
            verdict(platform, "not-comparable", None, recorded, None,
                    f"hash not comparable ({who[writer]}; {why_not}); only checked that the lock satisfies "
                    "the spec")
            continue
        default, accepted = conda_lock[platform]
        if recorded in accepted:
            verdict(platform, "fresh", "conda-lock", recorded, recorded,
                    f"content hash matches the spec (conda-lock's hash, computed with conda-lock {version})")
        elif writer == "conda-lock":
            verdict(platform, "stale", "conda-lock", recorded, default,
                    f"content hash {short(recorded)} is not conda-lock's hash of the spec ({short(default)}, "
                    f"conda-lock {version}, default virtual packages): the spec changed since it was locked, "
                    "or it was locked with other virtual packages (pass them with --virtual-package)")
        else:
            verdict(platform, "not-comparable", None, recorded, None,
                    f"hash not comparable ({who[writer]}: the recorded hash is neither envkit's nor "
                    f"conda-lock's hash of the spec); only checked that the lock satisfies the spec")
    return out


# --------------------------------------------------------------------------------------------
# checking a lock against its spec


@dataclass(frozen=True, slots=True, kw_only=True)
class LockProblem:
    """One reason a lock does not fit its spec.

    kind: "stale" (content hash differs or is missing), "missing-platform" (a platform the spec
    names is not locked), "missing" (a spec entry has no locked package), "unsatisfied" (the locked
    package does not match the entry).  `line` is the spec line of the entry, when known.
    """

    kind: str
    platform: str | None
    message: str
    name: str | None = None
    line: int | None = None

    def __str__(self) -> str:
        head = f"{self.platform}: " if self.platform else ""
        return head + self.message


def check_lock(spec: EnvSpec, lock: Lock, *, platforms: Sequence[str] | None = None,
               spec_path: str | None = None, lock_text: str | None = None,
               staleness: Sequence[Staleness] | None = None,
               virtual_packages: Sequence[VirtualPackage] = ()) -> list[LockProblem]:
    """The problems that make `lock` unfit for `spec` (empty when it fits), in a stable order.

    For each locked platform (or `platforms`): the content hash must not be stale
    (`lock_staleness(spec, lock, spec_path, lock_text=..., virtual_packages=...)`, or the verdicts
    given as `staleness`; a "not-comparable" hash is no problem); every conda entry of the spec
    must be matched (conda match semantics: version, build, build number, channel) by the locked
    conda package of that name; every pip requirement whose marker applies to the platform must be
    matched (PEP 440, pre-releases allowed) by a locked pip package of that name.  Virtual-package
    entries (`__cuda`) and pip options are not package entries and are skipped.  Platforms the spec
    lists (conda-lock's `platforms:` key) but the lock lacks are problems too.
    """
    from envkit.conda.matchspec import matches

    problems: list[LockProblem] = []
    plats = list(platforms) if platforms else list(lock.platforms)
    for p in spec.platforms:
        if p not in lock.platforms:
            problems.append(LockProblem(kind="missing-platform", platform=p,
                                        message=f"the spec lists platform {p} but the lock has no packages for it",
                                        line=spec.line_of("platforms")))
    if staleness is None:
        staleness = lock_staleness(spec, lock, spec_path, lock_text=lock_text, platforms=plats,
                                   virtual_packages=virtual_packages)
    verdicts = {s.platform: s for s in staleness}
    for platform in plats:
        s = verdicts.get(platform)
        if s is not None and s.status == "stale":
            problems.append(LockProblem(kind="stale", platform=platform, message=s.message))
        pkgs = lock.for_platform(platform)
        conda = {p.name: p for p in pkgs if p.manager == "conda"}
        pip = {pep503(p.name): p for p in pkgs if p.manager == "pip"}
        for dep in spec.conda:
            if dep.name.startswith("__"):
                continue
            pkg = conda.get(dep.name)
            if pkg is None:
                problems.append(LockProblem(kind="missing", platform=platform, name=dep.name, line=dep.line,
                                            message=f"{dep.spec()}: no such conda package in the lock"))
                continue
            if not matches(dep, name=pkg.name, version=pkg.version, build=pkg.build,
                           build_number=pkg.build_number, channel=pkg.channel):
                problems.append(LockProblem(kind="unsatisfied", platform=platform, name=dep.name, line=dep.line,
                                            message=f"{dep.spec()}: locked {pkg.conda_form()} does not match"))
        problems.extend(_check_pip(spec, platform, pip, conda))
    return problems


def _check_pip(spec: EnvSpec, platform: str, pip: Mapping[str, LockedPackage],
               conda: Mapping[str, LockedPackage]) -> list[LockProblem]:
    from packaging.specifiers import InvalidSpecifier, SpecifierSet
    from packaging.markers import InvalidMarker, Marker
    from packaging.version import InvalidVersion, Version

    out: list[LockProblem] = []
    python = conda.get("python")
    env = target_markers(platform, python.version if python else "3")
    for dep in spec.pip:
        if dep.kind == "option" or not dep.name:
            continue
        if dep.marker:
            try:
                if not Marker(dep.marker).evaluate(dict(env, extra="")):
                    continue
            except InvalidMarker:
                pass
        pkg = pip.get(pep503(dep.name))
        if pkg is None:
            out.append(LockProblem(kind="missing", platform=platform, name=dep.name, line=dep.line,
                                   message=f"pip {dep.text}: no such pip package in the lock"))
            continue
        if dep.kind == "requirement" and dep.specifier:
            try:
                ok = SpecifierSet(dep.specifier).contains(Version(pkg.version), prereleases=True)
            except (InvalidSpecifier, InvalidVersion):
                ok = False
            if not ok:
                out.append(LockProblem(kind="unsatisfied", platform=platform, name=dep.name, line=dep.line,
                                       message=f"pip {dep.text}: locked {pkg.name}=={pkg.version} does not match"))
    return out
