"""The remote conda package archives of a lock, downloaded before anything is linked: each one is
checked against the lock's hashes and for paths outside the prefix (its `info/paths.json`), as a
local archive is, and py-rattler links the very files that were checked."""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path

from envkit.create.hashes import check_archive_hashes, file_name, local_path
from envkit.errors import BackendError, IntegrityError, Where, clip
from envkit.model import LockedPackage

#: downloads at once (py-rattler's installer runs several too)
_CONCURRENT = 8


def fetch_archives(
    packages: Sequence[LockedPackage],
    into: Callable[[], str],
    *,
    source: str | None = None,
    cache: str | None = None,
) -> tuple[list[LockedPackage], dict[str, str]]:
    """Download every package of `packages` whose URL is remote into the directory `into()` makes
    (called only when there is one), check it (`check_archive_hashes`, `check_paths_of`), and
    return (the packages with those URLs replaced by the archives' `file://` URLs, {archive file
    name: the URL it came from}).  With `cache` (a directory; see `archive_cache`), an archive
    already there whose hashes match the lock's is used without downloading it, and each download
    is kept there for the next create.

    Raises BackendError for a download that fails, IntegrityError for an archive that does not
    match the lock or would write outside the prefix."""
    remote = [(i, p) for i, p in enumerate(packages) if p.url and local_path(p.url) is None]
    if not remote:
        return list(packages), {}
    files = {i: _cached(cache, p, source) for i, p in remote}
    missing = [(i, p) for i, p in remote if files[i] is None]
    fresh: dict[int, str] = {}
    if missing:
        directory = into()
        fresh = {i: os.path.join(directory, str(i), file_name(p.url or "")) for i, p in missing}
        _download_all([(p.url or "", fresh[i]) for i, p in missing])
        for i, p in missing:
            check_archive_hashes(p, fresh[i], source=source)
            check_paths_of(p, fresh[i], source=source)  # a hostile archive is not kept
            files[i] = _keep(cache, p, fresh[i])
    out = list(packages)
    origins = {}
    for i, p in remote:
        path = files[i] or ""
        if i not in fresh:
            check_paths_of(p, path, source=source)
        out[i] = replace(p, url=Path(path).as_uri())
        origins[os.path.basename(path)] = p.url or ""
    return out, origins


def archive_cache(cache_dir: str | os.PathLike[str] | None) -> str:
    """Where downloaded archives are kept between creates: `envkit-archives` in the package cache
    given (`cache_dir`), else `$XDG_CACHE_HOME/envkit/archives` (`~/.cache/envkit/archives`)."""
    if cache_dir:
        return os.path.join(os.fspath(cache_dir), "envkit-archives")
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "envkit", "archives")


def _cache_path(cache: str | None, p: LockedPackage) -> str | None:
    """An archive's place in `cache`: under the hash the lock records (the same file under another
    URL, a mirror or a token, is the same entry); None without a cache or a hash."""
    digest = p.sha256 or p.md5
    if cache is None or digest is None:
        return None
    return os.path.join(cache, digest.lower(), file_name(p.url or ""))


def _cached(cache: str | None, p: LockedPackage, source: str | None) -> str | None:
    """The cached archive of `p` when it matches the lock's hashes; one that does not (a partial or
    altered file) is removed and downloaded again."""
    path = _cache_path(cache, p)
    if path is None or not os.path.isfile(path):
        return None
    try:
        check_archive_hashes(p, path, source=source)
    except IntegrityError:
        with contextlib.suppress(OSError):
            os.unlink(path)
        return None
    return path


def _keep(cache: str | None, p: LockedPackage, fresh: str) -> str:
    """Move the checked download `fresh` into `cache` (atomically: a concurrent create sees the
    whole file or none) and return where it is; `fresh` itself when it cannot be kept."""
    import shutil
    import tempfile

    path = _cache_path(cache, p)
    if path is None:
        return fresh
    try:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=".part-", dir=os.path.dirname(path))
        os.close(fd)
        try:
            shutil.copyfile(fresh, tmp)
            os.replace(tmp, path)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
            raise
    except OSError:
        return fresh  # a read-only or full cache only costs the next create a download
    return path


def check_archive_paths(packages: Sequence[LockedPackage], *, source: str | None = None) -> None:
    """Refuse a local package archive whose `info/paths.json` names a file outside the prefix
    (`check_paths_of`).  A remote archive is checked once downloaded (envkit.create.fetch)."""
    for p in packages:
        path = local_path(p.url or "")
        if path is not None:
            check_paths_of(p, path, source=source)


def check_paths_of(p: LockedPackage, path: str, *, source: str | None = None) -> None:
    """Refuse the archive at `path` (the package `p`) when its `info/paths.json` names a file
    outside the prefix (an absolute path, a `..` component): py-rattler's linker aborts the process
    on one (a panic in a worker thread), or writes beside the prefix, so it is caught before
    anything is linked.  Raises IntegrityError naming the lock's line and the path."""
    from pathlib import PurePosixPath

    from rattler.package import PathsJson

    try:
        entries = PathsJson.from_package_archive(Path(path)).paths
    except Exception as exc:  # rattler's own exception classes
        raise IntegrityError(
            f"{p.name}={p.version}: {p.url} is not a readable conda package ({type(exc).__name__})",
            where=Where(file=source, line=p.line),
        ) from None
    for entry in entries:
        rel = str(entry.relative_path)
        parts = PurePosixPath(rel).parts
        if not rel or rel.startswith(("/", "\\")) or ".." in parts or "\0" in rel:
            raise IntegrityError(
                f"{p.name}={p.version}: the package's info/paths.json names {clip(rel)!r}, outside "
                "the environment; nothing was installed",
                where=Where(file=source, line=p.line),
                hint="the package is malformed or hostile: do not install it",
            )


def _download_all(jobs: Sequence[tuple[str, str]]) -> None:
    """Download each (url, file) of `jobs`, a few at a time; BackendError naming the first that
    failed."""
    import asyncio

    from rattler import Client
    from rattler.package_streaming import download_to_path

    async def run() -> None:
        client = Client.default_client()  # the credentials py-rattler's installer would use
        gate = asyncio.Semaphore(_CONCURRENT)

        async def one(url: str, dest: str) -> None:
            async with gate:
                os.makedirs(os.path.dirname(dest), exist_ok=True)
                try:
                    await download_to_path(client, url, Path(dest))
                except Exception as exc:  # rattler's own exception classes
                    from envkit._text import unreachable_hint

                    raise BackendError(
                        f"downloading {file_name(url)} failed: {type(exc).__name__}",
                        text=str(exc).strip(),
                        hint=unreachable_hint(str(exc)),
                    ) from None

        await asyncio.gather(*(one(url, dest) for url, dest in jobs))

    asyncio.run(run())
