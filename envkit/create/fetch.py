"""The remote conda package archives of a lock, downloaded before anything is linked: each one is
checked against the lock's hashes and for paths outside the prefix (its `info/paths.json`), as a
local archive is, and py-rattler links the very files that were checked."""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path

from envkit.create.hashes import check_archive_hashes, local_path
from envkit.errors import BackendError, IntegrityError, Where, clip
from envkit.model import LockedPackage

#: downloads at once (py-rattler's installer runs several too)
_CONCURRENT = 8


def fetch_archives(
    packages: Sequence[LockedPackage], into: Callable[[], str], *, source: str | None = None
) -> tuple[list[LockedPackage], dict[str, str]]:
    """Download every package of `packages` whose URL is remote into the directory `into()` makes
    (called only when there is one), check it (`check_archive_hashes`, `check_paths_of`), and
    return (the packages with those URLs replaced by the downloads' `file://` URLs, {archive file
    name: the URL it came from}).

    Raises BackendError for a download that fails, IntegrityError for an archive that does not
    match the lock or would write outside the prefix."""
    remote = [(i, p) for i, p in enumerate(packages) if p.url and local_path(p.url) is None]
    if not remote:
        return list(packages), {}
    directory = into()
    files = {i: os.path.join(directory, str(i), _file_name(p.url or "")) for i, p in remote}
    _download_all([(p.url or "", files[i]) for i, p in remote])
    out = list(packages)
    origins = {}
    for i, p in remote:
        check_archive_hashes(p, files[i], source=source)
        check_paths_of(p, files[i], source=source)
        out[i] = replace(p, url=Path(files[i]).as_uri())
        origins[os.path.basename(files[i])] = p.url or ""
    return out, origins


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


def _file_name(url: str) -> str:
    from urllib.parse import unquote, urlparse

    return unquote(urlparse(url).path.rsplit("/", 1)[-1])


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
                        f"downloading {_file_name(url)} failed: {type(exc).__name__}",
                        text=str(exc).strip(),
                        hint=unreachable_hint(str(exc)),
                    ) from None

        await asyncio.gather(*(one(url, dest) for url, dest in jobs))

    asyncio.run(run())
