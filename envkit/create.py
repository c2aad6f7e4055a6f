"""Create an environment from a lock, without solving.

`create_from_lock(lock, prefix)` installs exactly the locked packages of one platform:

1. the conda packages, with py-rattler (`rattler.install`), or with a conda/mamba/micromamba
   executable and an explicit file (`backend="conda"|"mamba"|"micromamba"`);
2. then the pip packages, with the new environment's own Python and pip: `pip install --no-deps`
   from the locked URLs, with `--require-hashes` when every pip package has a sha256.

Hashes are verified: py-rattler checks the sha256 of what it downloads over HTTP, but not of
`file://` packages, so envkit checks local archives itself (md5 and sha256, before anything is
linked).  Any failure (a hash mismatch, a failed download, pip failing) removes the half-made
prefix before the error is raised: a prefix either holds the whole lock or does not exist.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import tempfile
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import unquote, urlparse

from envkit.conda.platform import host_platform, python_of
from envkit.errors import BackendError, IntegrityError, UsageError, Where
from envkit.model import Lock, LockedPackage

BACKENDS = ("rattler", "conda", "mamba", "micromamba")


@dataclass(frozen=True, slots=True, kw_only=True)
class CreateResult:
    """What `create_from_lock` made: the prefix, the platform installed, and package counts."""

    prefix: str
    platform: str
    conda: int
    pip: int
    backend: str
    require_hashes: bool
    #: pip packages locked without an artifact (envkit.lock's #envkit-unresolved marker), as
    #: `name==version`: installed by pin from the configured index, without hash checking
    by_pin: tuple[str, ...] = ()
    #: names of the environment variables written to conda-meta/state (from the lock's
    #: `custom_metadata`, envkit.lock.VARIABLES_KEY)
    variables: tuple[str, ...] = ()
    #: names of the variables the lock records without their value (a credential, redacted when it
    #: was locked): not set; the user sets them (`conda env config vars set`)
    unset_variables: tuple[str, ...] = ()


def choose_platform(
    lock: Lock, platform: str | None, *, environments: Mapping[str, Sequence[str]] | None = None
) -> str:
    """The platform to install: `platform` when given (it must be locked), else this machine's.

    `environments` (a pixi.lock's environments, name -> locked platforms) lets the error point to
    the ones that have the platform.  Raises UsageError saying what the lock (or the pixi.lock
    environment) has, with a hint naming only options `envkit create` has (--env, --platform).
    """
    wanted = platform or host_platform()
    if wanted in lock.platforms:
        return wanted
    pixi = lock.kind == "pixi"
    what = f"pixi.lock environment {lock.environment!r}" if pixi and lock.environment else "the lock"
    locked = ", ".join(lock.platforms)
    if not lock.platforms:
        message = f"{what} has no packages"
    elif platform:
        message = f"{what} has no packages for {platform} (locked: {locked})"
    else:
        message = f"{what} has no packages for this machine's platform {wanted} (locked: {locked})"
    others = {n: tuple(p) for n, p in (environments or {}).items() if n != lock.environment and p}
    if others:
        message += "; its other environments: " + ", ".join(
            f"{n} ({', '.join(p)})" for n, p in others.items()
        )
    hints = []
    fits = [n for n, p in others.items() if wanted in p]
    if len(fits) == 1:
        hints.append(f"pass --env {fits[0]} (it has {wanted})")
    elif fits:
        hints.append(f"pass --env NAME: {', '.join(fits)} have {wanted}")
    elif others:
        hints.append("choose another environment with --env NAME")
    if lock.platforms and not platform:
        hints.append(f"pass --platform to install another locked platform ({locked})")
    raise UsageError(message, where=Where(file=lock.source), hint="; or ".join(hints) or None)


def _local_path(url: str) -> str | None:
    parsed = urlparse(url)
    if parsed.scheme == "file":
        return unquote(parsed.path)
    if not parsed.scheme and os.path.isabs(url):
        return url
    return None


def file_hashes(path: str) -> tuple[str, str]:
    """(md5, sha256) hex digests of the file at `path`."""
    md5, sha = hashlib.md5(), hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            md5.update(block)
            sha.update(block)
    return md5.hexdigest(), sha.hexdigest()


#: The hash keys a lock records per package, and the length of each one's hex digest.
HASH_LENGTHS = {"md5": 32, "sha256": 64}


def validate_hashes(packages: Sequence[LockedPackage], *, source: str | None = None) -> None:
    """Check that every recorded hash of `packages` (md5, sha256; conda and pip) is a string of hex
    digits of the right length (32, 64).  An absent hash (None) is not checked here.

    A hash YAML read as something else, above all an unquoted all-digit hash (`sha256: 000...0` is
    the integer 0), would otherwise look absent or fail later with a traceback, and the package
    would go unverified.  Raises ParseError naming the file, the package's line, the package and the
    key.
    """
    from envkit.formats._digest import package_digest_error

    for p in packages:
        for key in HASH_LENGTHS:
            if getattr(p, key) is None:
                continue
            err = package_digest_error(p, key, where=Where(file=source, line=p.line, key=key))
            if err is not None:
                raise err


def verify_local_archives(packages: Sequence[LockedPackage], *, source: str | None = None) -> None:
    """Check md5/sha256 of every conda package whose URL is a local file.

    Raises ParseError for a recorded hash that is not a hex digest (`validate_hashes`),
    IntegrityError for a mismatch or a missing file, and UsageError for a conda package that
    records no hash at all (a lock without hashes cannot be installed safely).
    """
    validate_hashes(packages, source=source)
    for p in packages:
        if p.md5 is None and p.sha256 is None:
            raise UsageError(
                f"{p.name}={p.version}: the lock records no md5 or sha256 for this conda package",
                where=Where(file=source, line=p.line),
            )
        path = _local_path(p.url or "")
        if path is None:
            continue  # downloaded by rattler, which checks the sha256 itself
        if not os.path.isfile(path):
            raise IntegrityError(
                f"{p.name}={p.version}: package file not found: {path}", where=Where(file=source, line=p.line)
            )
        md5, sha = file_hashes(path)
        if p.sha256 is not None and sha != p.sha256.lower():
            raise IntegrityError(
                f"{p.name}={p.version}: sha256 mismatch for {p.url}: the lock says "
                f"{p.sha256}, the file has {sha}",
                where=Where(file=source, line=p.line),
                hint="the package changed after it was locked; relock, or fix the channel",
            )
        if p.md5 is not None and md5 != p.md5.lower():
            raise IntegrityError(
                f"{p.name}={p.version}: md5 mismatch for {p.url}: the lock says {p.md5}, the file has {md5}",
                where=Where(file=source, line=p.line),
                hint="the package changed after it was locked; relock, or fix the channel",
            )


def _file_name(url: str) -> str:
    return unquote(urlparse(url).path.rsplit("/", 1)[-1])


def _build_of(p: LockedPackage) -> tuple[str, int]:
    """The build string, and the lock's build number when it records one (else 0).  The number is
    a placeholder for linking only: `complete_prefix_records` writes the package's own value from
    its info/index.json (a build string's trailing digits are not its build number:
    `22_linux64_openblas` is build 22)."""
    from envkit.formats._util import split_filename

    build = p.build
    if not build and p.url:
        parts = split_filename(_file_name(p.url))
        if parts:
            build = parts[2]
    return build or "0", int(p.build_number or 0)


def to_repodata_records(packages: Sequence[LockedPackage], platform: str) -> list:
    """py-rattler RepoDataRecords for locked conda packages (what `rattler.install` takes)."""
    import rattler

    from envkit.conda.channels import channel_of_url

    out = []
    for p in packages:
        if not p.url:
            raise UsageError(f"{p.name}={p.version}: the lock records no URL for this conda package")
        build, number = _build_of(p)
        _chan, sub = channel_of_url(p.url)
        subdir = p.subdir or sub or platform
        record = rattler.PackageRecord(
            name=p.name,
            version=p.version,
            build=rattler.BuildString(build),
            build_number=number,
            subdir=subdir,
            depends=[f"{n} {s}".strip() for n, s in p.depends],
            md5=bytes.fromhex(p.md5) if p.md5 is not None else None,
            sha256=bytes.fromhex(p.sha256) if p.sha256 is not None else None,
        )
        channel_url = p.url.rsplit("/", 2)[0] + "/"
        out.append(rattler.RepoDataRecord(record, _file_name(p.url), p.url, channel_url))
    return out


def remove_tree(path: str, *, settle: float = 5.0) -> None:
    """Remove `path` and make sure it stays removed.

    After a failed install, py-rattler's linking threads that were already running finish their
    current files (they cannot be cancelled), so a tree removed at once can reappear; remove it again
    until it has stayed gone for a short while, at most `settle` seconds.
    """
    import time

    deadline = time.monotonic() + settle
    while True:
        shutil.rmtree(path, ignore_errors=True)
        time.sleep(0.05)
        if not os.path.lexists(path):
            time.sleep(0.15)
            if not os.path.lexists(path) or time.monotonic() > deadline:
                return
        elif time.monotonic() > deadline:
            return


def _prepare_prefix(prefix: str) -> None:
    if os.path.exists(prefix):
        if not os.path.isdir(prefix) or os.listdir(prefix):
            raise UsageError(
                f"prefix already exists and is not empty: {prefix}",
                hint="remove it first, or choose another -p/-n",
            )


def pip_requirement_lines(packages: Sequence[LockedPackage]) -> tuple[list[str], bool]:
    """Requirement lines for the locked pip packages, and whether every one has a hash.

    A package with a URL is installed from exactly that URL (`name @ URL`), otherwise (no URL, or
    envkit.lock's `#envkit-unresolved` marker, see `envkit.lock.UNRESOLVED_URL`) by pin
    (`name==version`, from the index pip is configured with); `--hash=sha256:...` is added to each
    line when every package has a sha256 (pip's hash-checking mode is all or nothing).
    """
    from envkit.lock import is_index_placeholder

    all_hashed = bool(packages) and all(p.sha256 for p in packages)
    lines = []
    for p in packages:
        url = None if is_index_placeholder(p) else p.url
        if p.editable and url:
            lines.append(f"-e {url}")
            continue
        line = f"{p.name} @ {url}" if url else f"{p.name}=={p.version}"
        if all_hashed:
            line += f" --hash=sha256:{p.sha256}"
        lines.append(line)
    return lines, all_hashed


def pip_option_lines(options: Sequence[str]) -> tuple[list[str], list[str]]:
    """The lock's pip options as requirement-file lines, and warnings.

    A URL whose credentials were redacted when it was locked (`https://<USER>:<PASSWORD>@host/...`,
    `<TOKEN>@`) is passed without them, so pip takes them from its keyring or .netrc, as for any
    URL without credentials; each such option is named in a warning.  `${VAR}` references are
    kept (pip expands them in requirement files).
    """
    import re

    from envkit.urls import TOKEN, USERINFO

    lines, warnings = [], []
    for opt in options:
        if USERINFO in opt or TOKEN in opt:
            cleaned = re.sub(rf"(://)(?:{re.escape(USERINFO)}|{re.escape(TOKEN)})@", r"\1", opt)
            cleaned = re.sub(rf"([?&][A-Za-z_]*token=){re.escape(TOKEN)}&?", r"\1", cleaned).rstrip("?&")
            cleaned = re.sub(r"[?&][A-Za-z_]*token=$", "", cleaned)
            warnings.append(
                f"pip option {opt!r} had credentials removed when it was locked; passing "
                f"{cleaned!r} (pip looks the credentials up in its keyring or .netrc; or write the "
                "URL with ${VARIABLES} in the spec)"
            )
            opt = cleaned
        lines.append(opt)
    return lines, warnings


def install_pip(
    prefix: str,
    platform: str,
    packages: Sequence[LockedPackage],
    *,
    options: Sequence[str] = (),
    timeout: float = 1800,
    cwd: str | None = None,
) -> bool:
    """Install the locked pip packages with the prefix's own Python: `pip install --no-deps`.

    `options` (the lock's pip options, see `pip_option_lines`) come first in the requirements file;
    relative paths in them are relative to `cwd` (the lock's directory).  Returns whether
    `--require-hashes` was used.  Raises BackendError when the prefix has no Python or pip fails.
    """
    from envkit._proc import run

    python = python_of(prefix, platform)
    if not os.path.exists(python):
        raise BackendError(
            f"the lock has pip packages but the new environment has no Python ({python})",
            hint="lock python and pip as conda packages",
        )
    lines, hashed = pip_requirement_lines(packages)
    # pip installs into `--prefix` with the interpreter's own scheme, which for a conda python is
    # exactly its site-packages.  When `python` is a launcher for another interpreter (its
    # sys.prefix is elsewhere), pip must also not skip what that interpreter already has.
    probe = run([python, "-c", "import sys; print(sys.prefix)"], timeout=60, check=False, what="python")
    foreign = probe.ok and os.path.realpath(probe.stdout.strip()) != os.path.realpath(prefix)
    with tempfile.TemporaryDirectory(prefix="envkit-create-") as tmp:
        req = os.path.join(tmp, "requirements.txt")
        Path(req).write_text("\n".join(pip_option_lines(options)[0] + lines) + "\n", encoding="utf-8")
        argv = [
            python,
            "-m",
            "pip",
            "install",
            "--no-deps",
            "--no-input",
            "--disable-pip-version-check",
            "--no-warn-script-location",
            "--prefix",
            prefix,
        ]
        if foreign:
            argv.append("--ignore-installed")
        if hashed:
            argv.append("--require-hashes")
        argv += ["-r", req]
        env = dict(os.environ, PIP_NO_INPUT="1")
        run(argv, timeout=timeout, env=env, cwd=cwd, what="pip install")
    return hashed


def conda_argv(backend: str, exe: str, prefix: str, explicit_file: str) -> list[str]:
    """The command that creates `prefix` from an explicit file with a conda-like executable."""
    if backend == "micromamba":
        return [exe, "create", "--yes", "--prefix", prefix, "--file", explicit_file]
    return [exe, "create", "--yes", "--prefix", prefix, "--file", explicit_file]


def find_backend_executable(backend: str, env: Mapping[str, str] | None = None) -> str:
    """The executable for `backend`: CONDA_EXE (conda) or MAMBA_EXE (mamba, micromamba), then PATH.

    Raises BackendError when there is none.
    """
    from envkit._proc import which

    env = os.environ if env is None else env
    var = "CONDA_EXE" if backend == "conda" else "MAMBA_EXE"
    exe = env.get(var)
    if (
        exe
        and os.path.isfile(exe)
        and os.access(exe, os.X_OK)
        and (backend == "conda" or os.path.basename(exe).startswith(backend))
    ):
        return exe
    found = which(backend, path=env.get("PATH"))
    if found:
        return found
    raise BackendError(
        f"--backend {backend}: no {backend} executable found ({var} or PATH)",
        hint="install it, or use the default backend (--backend rattler)",
    )


def create_from_lock(
    lock: Lock,
    prefix: str | os.PathLike[str],
    *,
    platform: str | None = None,
    backend: str = "rattler",
    executable: str | None = None,
    cache_dir: str | os.PathLike[str] | None = None,
    timeout: float = 1800,
    environments: Mapping[str, Sequence[str]] | None = None,
    show_progress: bool = False,
) -> CreateResult:
    """Create `prefix` holding exactly the packages `lock` has for `platform` (default: this machine's).

    `environments`: for a pixi.lock, every environment's locked platforms (see `choose_platform`),
    so that a platform the chosen environment lacks is answered with the ones that have it.

    Raises UsageError (existing non-empty prefix, platform not locked, missing URL/hash),
    IntegrityError (a package does not match its recorded hash) and BackendError (download, link,
    conda or pip failure).  On any error after the prefix was started it is removed again.
    """
    from envkit.conda.names import pep503
    from envkit.lock import apply_lock_metadata, lock_over_conda, lock_variables

    if backend not in BACKENDS:
        raise UsageError(f"unknown backend {backend!r}", hint="use one of: " + ", ".join(BACKENDS))
    lock = apply_lock_metadata(lock)  # editable pip packages recorded in custom_metadata
    plat = choose_platform(lock, platform, environments=environments)
    target = os.path.abspath(os.fspath(prefix))
    _prepare_prefix(target)
    pkgs = lock.for_platform(plat)
    conda = [p for p in pkgs if p.manager == "conda"]
    pip = [p for p in pkgs if p.manager == "pip"]
    validate_hashes(pkgs, source=lock.source)  # pip's too: a malformed one must not turn hash checking off
    verify_local_archives(conda, source=lock.source)
    try:
        if backend == "rattler":
            # the history block conda writes for `create --file` (the conda backend writes its own)
            cmd = ["envkit", "create", *(["--lock", lock.source] if lock.source else []), "-p", target]
            _install_rattler(
                conda, target, plat, cache_dir=cache_dir, history_cmd=cmd, show_progress=show_progress
            )
        else:
            _install_conda(lock, plat, target, backend, executable, timeout=timeout)
        # relative paths in the lock's pip options (`--find-links ./wheels`) are the lock's
        lock_dir = (
            os.path.dirname(os.path.abspath(lock.source))
            if lock.source and os.path.isfile(lock.source)
            else None
        )
        # pip packages that were installed over a conda package's files in the locked environment:
        # pip uninstalled conda's copy first, so do the same (whether or not this pip sees it)
        over = set(lock_over_conda(lock)) & {pep503(p.name) for p in pip}
        if over:
            uninstall_dists(target, over)
        hashed = (
            install_pip(target, plat, pip, options=lock.pip_options, timeout=timeout, cwd=lock_dir)
            if pip
            else False
        )
        written, unset = write_state_variables(target, lock_variables(lock))
    except BaseException:
        remove_tree(target)
        raise
    from envkit.lock import is_index_placeholder

    by_pin = tuple(f"{p.name}=={p.version}" for p in pip if is_index_placeholder(p))
    return CreateResult(
        prefix=target,
        platform=plat,
        conda=len(conda),
        pip=len(pip),
        backend=backend,
        require_hashes=hashed,
        by_pin=by_pin,
        variables=written,
        unset_variables=unset,
    )


def uninstall_dists(prefix: str, projects: Iterable[str]) -> list[str]:
    """Uninstall the Python distributions of `projects` (PEP 503 names) from `prefix`'s
    site-packages as `pip uninstall` does: every file the `.dist-info`'s RECORD lists (inside the
    prefix), the dist-info itself, then the directories left empty.  A dist-info without RECORD is
    left alone (pip refuses to uninstall one).  Returns the prefix-relative dist-info directories
    removed, in order.  Conda's records are not touched: they keep listing the files, as after a
    `pip install` over a conda package."""
    import glob

    from envkit.conda.names import pep503

    wanted = set(projects)
    root = os.path.realpath(prefix)
    removed = []
    sites = sorted(glob.glob(os.path.join(prefix, "lib", "python*", "site-packages")))
    sites += [d for d in [os.path.join(prefix, "Lib", "site-packages")] if os.path.isdir(d)]
    for site in sites:
        for entry in sorted(os.listdir(site)):
            if not entry.endswith(".dist-info") or pep503(entry.split("-", 1)[0]) not in wanted:
                continue
            dist = os.path.join(site, entry)
            record = os.path.join(dist, "RECORD")
            if not os.path.isfile(record):
                continue
            with open(record, encoding="utf-8", errors="replace") as fh:
                rows = [line.split(",", 1)[0] for line in fh if line.strip()]
            parents = set()
            for rel in rows:
                path = os.path.realpath(os.path.join(site, rel))
                if not path.startswith(root + os.sep) or path.startswith(os.path.realpath(dist) + os.sep):
                    continue  # outside the prefix, or in the dist-info (removed whole below)
                if os.path.isfile(path) or os.path.islink(path):
                    os.unlink(path)
                    parents.add(os.path.dirname(path))
            shutil.rmtree(dist)
            for d in sorted(parents, key=len, reverse=True):
                while d.startswith(os.path.realpath(site) + os.sep):
                    try:
                        os.rmdir(d)  # only when empty
                    except OSError:
                        break
                    d = os.path.dirname(d)
            removed.append(os.path.relpath(dist, prefix))
    return removed


def write_state_variables(
    prefix: str, variables: Sequence[tuple[str, str]]
) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """Set `variables` in the environment at `prefix` as `conda env config vars set` does (the
    `env_vars` of `conda-meta/state`, other keys of an existing state kept).  A variable whose value
    is a redaction placeholder (`<TOKEN>`, `<USER>:<PASSWORD>`: a credential left out when it was
    locked) is not set.  Returns (names set, names left unset), in order; writes nothing when no
    variable is set."""
    import json

    from envkit.io import atomic_write
    from envkit.urls import has_placeholder

    keep = [(k, v) for k, v in variables if not has_placeholder(v)]
    unset = tuple(k for k, v in variables if has_placeholder(v))
    if not keep:
        return (), unset
    path = os.path.join(prefix, "conda-meta", "state")
    state: dict = {}
    if os.path.isfile(path):
        try:
            with open(path, encoding="utf-8") as fh:
                loaded = json.load(fh)
            state = loaded if isinstance(loaded, dict) else {}
        except (OSError, ValueError):
            state = {}
    env_vars = dict(state.get("env_vars") or {})
    env_vars.update(keep)
    state["env_vars"] = env_vars
    atomic_write(
        path, json.dumps(state, indent=2, ensure_ascii=False) + "\n", redact=False
    )  # the real values
    return tuple(k for k, _ in keep), unset


def _install_rattler(
    conda: Sequence[LockedPackage],
    prefix: str,
    platform: str,
    *,
    cache_dir: str | os.PathLike[str] | None,
    show_progress: bool = False,
    history_cmd: Sequence[str] = (),
) -> None:
    """Link the conda packages into a staging directory beside `prefix` (with `prefix` patched into
    the files), then rename it into place: a failed install never leaves a half-made `prefix`."""
    import asyncio

    import rattler

    records = to_repodata_records(conda, platform)
    kwargs = {"cache_dir": Path(cache_dir)} if cache_dir else {}
    parent = os.path.dirname(prefix)
    os.makedirs(parent, exist_ok=True)
    stage = tempfile.mkdtemp(prefix=f".{os.path.basename(prefix)}.envkit-", dir=parent)
    try:
        try:
            asyncio.run(
                rattler.install(
                    records,
                    target_prefix=stage,
                    alternative_target_prefix=prefix,
                    platform=rattler.Subdir(platform),
                    show_progress=show_progress,
                    execute_link_scripts=False,
                    **kwargs,
                )
            )
        except Exception as exc:  # rattler's own exception classes
            text = str(exc).strip()
            if "hash mismatch" in text or "mismatch" in text.lower():
                # the root cause (rattler's last line) names the file and both hashes; the whole
                # chain is quoted only in part (errors clip quoted text), so say them in the message
                import re

                m = re.search(
                    r"mismatch when extracting (?P<url>\S+) .*?expected (?P<want>[0-9a-f]+), "
                    r"got (?P<got>[0-9a-f]+)",
                    text,
                )
                detail = (
                    (
                        f" ({_file_name(m.group('url'))}: the lock says {m.group('want')}, the download has "
                        f"{m.group('got')})"
                    )
                    if m
                    else ""
                )
                raise IntegrityError(
                    f"a package does not match the hash recorded in the lock{detail}; nothing was installed",
                    text=text,
                ) from None
            raise BackendError(
                f"installing the conda packages failed: {type(exc).__name__}", text=text
            ) from None
        complete_prefix_records(stage, conda)
        if history_cmd:
            from envkit.conda.history import append_history

            append_history(stage, conda, history_cmd)
        if os.path.isdir(prefix):
            os.rmdir(prefix)  # empty (checked before): the staged tree takes its place
        os.rename(stage, prefix)
    except BaseException:
        remove_tree(stage)
        raise


#: PackageRecord fields that the package's own `info/index.json` supplies, whatever the lock says
#: or lacks (conda-lock.yml has no place for most of them): `build_number` (conda's solver prefers a
#: higher one, so a wrong one makes `conda install` replace the package), `noarch` (conda relinks a
#: `noarch: python` package into the new site-packages when python changes, and only knows it is
#: one from this field), and `constrains`, which later solves must honour.
_INDEX_FIELDS = (
    "build_number",
    "subdir",
    "noarch",
    "constrains",
    "license",
    "license_family",
    "timestamp",
    "track_features",
    "features",
    "arch",
    "platform",
    "depends",
    "python_site_packages_path",
)
#: Fields whose value is meaningful even when it is 0 or empty.
_ALWAYS = frozenset({"build_number", "depends", "constrains"})


def complete_prefix_records(prefix: str, packages: Sequence[LockedPackage] = ()) -> int:
    """Fill each `conda-meta/*.json` record of `prefix` with what its package's own
    `info/index.json` (in the package cache, `extracted_package_dir`) says: the _INDEX_FIELDS, and
    `size` of a local archive.  The record was built from the lock, which has only name, version,
    build, URL, hashes and depends; the files were linked right either way (py-rattler reads the
    package's own index.json to link), but conda-meta would lack `noarch: python`, `constrains`,
    `license`.  The archive matched the lock's hash, so its index.json is the package's truth.
    Returns how many records were completed.
    """
    import glob

    import rattler
    from rattler.package import IndexJson

    sizes = {}
    for p in packages:
        path = _local_path(p.url or "")
        if path and os.path.isfile(path):
            sizes[_file_name(p.url)] = os.path.getsize(path)
    done = 0
    for path in sorted(glob.glob(os.path.join(prefix, "conda-meta", "*.json"))):
        try:
            record = rattler.PrefixRecord.from_path(path)
        except Exception:
            continue  # not a package record (conda-meta/history is not .json; be lenient anyway)
        pkg_dir = record.extracted_package_dir
        if not pkg_dir or not os.path.isfile(os.path.join(str(pkg_dir), "info", "index.json")):
            continue
        index = IndexJson.from_package_directory(pkg_dir)
        for field in _INDEX_FIELDS:
            value = getattr(index, field, None)
            if value is not None and (field in _ALWAYS or value not in ([], "")):
                setattr(record, field, value)
        if record.size is None and record.file_name in sizes:
            record.size = sizes[record.file_name]
        record.write_to_path(path, pretty=True)
        done += 1
    return done


def _install_conda(
    lock: Lock, platform: str, prefix: str, backend: str, executable: str | None, *, timeout: float
) -> None:
    from envkit._proc import run
    from envkit.formats.explicit import write_explicit

    exe = executable or find_backend_executable(backend)
    with tempfile.TemporaryDirectory(prefix="envkit-create-") as tmp:
        explicit = os.path.join(tmp, f"explicit-{platform}.txt")
        Path(explicit).write_text(write_explicit(lock, platform), encoding="utf-8")
        run(conda_argv(backend, exe, prefix, explicit), timeout=timeout, what=backend)
    if not os.path.isdir(os.path.join(prefix, "conda-meta")):
        raise BackendError(f"{backend} finished but {prefix} is not a conda environment")


def new_env_prefix(name: str, environ: Mapping[str, str] | None = None) -> str:
    """Where `-n NAME` creates an environment: NAME under the first envs directory (conda's order:
    CONDA_ENVS_PATH / CONDA_ENVS_DIRS, `envs_dirs` of the .condarc search path, the root prefix's
    envs/, ~/.conda/envs).  Raises UsageError for a name that is a path."""
    from envkit.backends.envs import envs_dirs

    if not name or "/" in name or os.sep in name or name in (".", ".."):
        raise UsageError(f"invalid environment name {name!r}", hint="use -p PATH for a path")
    return os.path.join(envs_dirs(environ)[0], name)
