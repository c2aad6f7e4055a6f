"""The conda packages installed with py-rattler: lock entries as repodata records, linked into a
staging directory that is renamed into place, their conda-meta records completed."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Mapping, Sequence
from pathlib import Path

from envkit.create.hashes import file_name, local_path
from envkit.create.target import remove_tree
from envkit.errors import BackendError, IntegrityError, ParseError, UsageError, Where, clip
from envkit.model import LockedPackage


def _build_of(p: LockedPackage) -> tuple[str, int]:
    """The build string, and the lock's build number when it records one (else 0).  The number is
    a placeholder for linking only: `complete_prefix_records` writes the package's own value from
    its info/index.json (a build string's trailing digits are not its build number:
    `22_linux64_openblas` is build 22)."""
    from envkit.formats._util import split_filename

    build = p.build
    if not build and p.url:
        parts = split_filename(file_name(p.url))
        if parts:
            build = parts[2]
    return build or "0", int(p.build_number or 0)


def to_repodata_records(
    packages: Sequence[LockedPackage], platform: str, *, source: str | None = None
) -> list:
    """py-rattler RepoDataRecords for locked conda packages (what `rattler.install` takes).

    Raises UsageError for a package without a URL, and ParseError naming the lock (`source`), the
    package's line and the key for an entry rattler refuses: a name or version that is not conda's
    (`../../x`, `1.0/../..`), a build string with a path in it, a URL that names no package archive.
    """
    import rattler

    from envkit.conda.channels import channel_of_url

    out = []
    for p in packages:
        if not p.url:
            raise UsageError(f"{p.name}={p.version}: the lock records no URL for this conda package")
        build, number = _build_of(p)
        _chan, sub = channel_of_url(p.url)
        subdir = p.subdir or sub or platform
        key = "name"
        try:
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
            key = "url"
            channel_url = p.url.rsplit("/", 2)[0] + "/"
            out.append(rattler.RepoDataRecord(record, file_name(p.url), p.url, channel_url))
        except Exception as exc:  # rattler's own exception classes, and ValueError
            raise _entry_error(p, key, exc, source) from None
    return out


def _entry_error(p: LockedPackage, key: str, exc: Exception, source: str | None) -> ParseError:
    """The ParseError for a lock entry rattler refused (`key`: where the construction stopped)."""
    text = str(exc).strip()
    kind = type(exc).__name__
    if "PackageName" in kind:
        key, why = "name", f"{p.name!r} is not a conda package name"
    elif "Version" in kind:
        key, why = "version", f"{p.version!r} is not a conda version"
    elif "build string" in text:
        key, why = "build", f"{p.build!r} is not a conda build string"
    elif key == "url":
        why = f"{file_name(p.url or '')!r} is not a conda package archive (.conda or .tar.bz2)"
    else:
        why = clip(text)
    return ParseError(
        (why if key == "name" else f"{clip(p.name)}: {why}") + "; nothing was installed",
        where=Where(file=source, line=p.line, key=key),
        hint="the lock was edited or is not a lock of conda packages; relock",
    )


def _install_error(exc: Exception) -> IntegrityError | BackendError:
    """The error for a failed `rattler.install`: IntegrityError for a hash mismatch (naming the
    package and both hashes), BackendError for anything else."""
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
        detail = ""
        if m:
            url, want, got = m.group("url", "want", "got")
            detail = f" ({file_name(url)}: the lock says {want}, the download has {got})"
        return IntegrityError(
            f"a package does not match the hash recorded in the lock{detail}; nothing was installed",
            text=text,
        )
    from envkit._text import unreachable_hint

    return BackendError(
        f"installing the conda packages failed: {type(exc).__name__}", text=text, hint=unreachable_hint(text)
    )


class PrefixTaken(UsageError):
    """The prefix was filled by someone else between the claim and the rename: not this run's."""


def install_rattler(
    conda: Sequence[LockedPackage],
    prefix: str,
    platform: str,
    *,
    cache_dir: str | os.PathLike[str] | None,
    show_progress: bool,
    history_cmd: Sequence[str],
    source: str | None,
) -> None:
    """Link the conda packages into a staging directory beside `prefix` (with `prefix` patched into
    the files), then rename it into place: a failed install never leaves a half-made `prefix`.
    Remote archives are downloaded and checked first, or taken from the archive cache when they
    match the lock's hashes (envkit.create.fetch; `source`, the lock, is named in its errors).
    conda-meta/history records `history_cmd` as the command that made the environment."""
    from envkit.conda.history import append_history
    from envkit.create.claim import mark_incomplete
    from envkit.create.fetch import archive_cache, fetch_archives
    from envkit.io import fault_point, umask_mode

    parent = os.path.dirname(prefix)
    os.makedirs(parent, exist_ok=True)
    # named for the sweep of a later claim (envkit.create.claim) should this run be killed
    stage = tempfile.mkdtemp(prefix=f".{os.path.basename(prefix)}.envkit-", dir=parent)
    fetched: list[str] = []  # the download directory, once there is one

    def fetch_dir() -> str:
        fetched.append(tempfile.mkdtemp(prefix=f".{os.path.basename(prefix)}.envkit-fetch-", dir=parent))
        return fetched[0]

    try:
        os.chmod(stage, umask_mode(0o777))  # mkdtemp's 0700 would become the environment's mode
        local, origins = fetch_archives(conda, fetch_dir, source=source, cache=archive_cache(cache_dir))
        _link(to_repodata_records(local, platform), stage, prefix, platform, cache_dir, show_progress)
        for d in fetched:  # linked from the package cache now
            remove_tree(d, settle=0)
        complete_prefix_records(stage, local, origins)
        append_history(stage, conda, history_cmd)
        mark_incomplete(stage)  # until create's last step: the mark comes with the tree
        fault_point("create:staged")
        try:
            os.rename(stage, prefix)  # replaces an empty directory; never a non-empty one
        except OSError as exc:
            raise PrefixTaken(
                f"{prefix} was made by another program while envkit was creating it; left as it is",
                where=Where(file=prefix),
            ) from exc
    except BaseException:
        remove_tree(stage)
        raise
    finally:
        for d in fetched:
            remove_tree(d, settle=0)


def _link(
    records: list,
    stage: str,
    prefix: str,
    platform: str,
    cache_dir: str | os.PathLike[str] | None,
    show_progress: bool,
) -> None:
    """`rattler.install` of `records` into `stage`, with `prefix` patched into the files."""
    import asyncio

    import rattler

    try:
        asyncio.run(
            rattler.install(
                records,
                target_prefix=stage,
                alternative_target_prefix=prefix,
                platform=rattler.Subdir(platform),
                show_progress=show_progress,
                execute_link_scripts=False,
                cache_dir=Path(cache_dir) if cache_dir else None,
            )
        )
    except Exception as exc:  # rattler's own exception classes
        raise _install_error(exc) from None


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


def complete_prefix_records(
    prefix: str, packages: Sequence[LockedPackage], origins: Mapping[str, str]
) -> None:
    """Fill each `conda-meta/*.json` record of `prefix` with what its package's own
    `info/index.json` (in the package cache, `extracted_package_dir`) says: the _INDEX_FIELDS, and
    `size` of a local archive.  The record was built from the lock, which has only name, version,
    build, URL, hashes and depends; the files were linked right either way (py-rattler reads the
    package's own index.json to link), but conda-meta would lack `noarch: python`, `constrains`,
    `license`.  The archive matched the lock's hash, so its index.json is the package's truth.
    Every record's `url` and `channel` lose their credentials, as conda writes them; an archive
    that was downloaded first (`origins`: its file name -> the lock's URL) gets the lock's URL back.
    """
    import glob

    import rattler
    from rattler.package import IndexJson

    from envkit.urls import strip_credentials

    sizes = {}
    for p in packages:
        url = p.url or ""
        path = local_path(url)
        if path and os.path.isfile(path):
            sizes[file_name(url)] = os.path.getsize(path)
    for path in sorted(glob.glob(os.path.join(prefix, "conda-meta", "*.json"))):
        try:
            record = rattler.PrefixRecord.from_path(Path(path))
        except Exception:
            continue  # not a package record (conda-meta/history is not .json; be lenient anyway)
        # conda writes `url` and `channel` without credentials (a `/t/TOKEN/` path, a user part);
        # the download used them, the environment keeps none
        origin = origins.get(str(record.file_name))
        if origin:
            record.url, record.channel = origin, origin.rsplit("/", 2)[0] + "/"
        if record.url:
            record.url = strip_credentials(str(record.url))
        if record.channel:
            record.channel = strip_credentials(str(record.channel))
        pkg_dir = record.extracted_package_dir
        if pkg_dir and os.path.isfile(os.path.join(str(pkg_dir), "info", "index.json")):
            index = IndexJson.from_package_directory(pkg_dir)
            for field in _INDEX_FIELDS:
                value = getattr(index, field, None)
                if value is not None and (field in _ALWAYS or value not in ([], "")):
                    setattr(record, field, value)
        if record.size is None and record.file_name in sizes:
            record.size = sizes[record.file_name]
        record.write_to_path(Path(path), pretty=True)
