"""File input and output: bounded reads and atomic writes."""
from __future__ import annotations

import os
import stat
from pathlib import Path

from envkit.errors import EnvkitError, ParseError, Where

#: Environment files and locks larger than this are refused before reading (a 3,000-package,
#: 3-platform conda-lock.yml is about 5 MiB).
MAX_INPUT_BYTES = 64 * 1024 * 1024


def read_text(path: str | os.PathLike[str], *, max_bytes: int = MAX_INPUT_BYTES, keep_bom: bool = False) -> str:
    """Return the text of `path` (UTF-8, newlines kept as in the file; a byte-order mark stripped
    unless `keep_bom`, for a caller that must know the file had one).

    Raises ParseError for a missing, unreadable, oversized or non-UTF-8 file.
    """
    p = Path(path)
    where = Where(file=str(path))
    try:
        size = p.stat().st_size
    except FileNotFoundError:
        raise ParseError("no such file", where=where) from None
    except OSError as exc:
        raise ParseError(f"cannot read: {exc.strerror}", where=where) from None
    if p.is_dir():
        raise ParseError("is a directory, not a file", where=where)
    if size > max_bytes:
        raise ParseError(
            f"file is {size / 2**20:.1f} MiB, larger than the {max_bytes / 2**20:.0f} MiB envkit reads",
            where=where,
        )
    try:
        with open(p, "rb") as fh:
            data = fh.read(max_bytes + 1)
    except OSError as exc:
        raise ParseError(f"cannot read: {exc.strerror}", where=where) from None
    if len(data) > max_bytes:
        raise ParseError(f"file is larger than the {max_bytes / 2**20:.0f} MiB envkit reads", where=where)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise ParseError("not UTF-8 text", where=Where(file=str(path), line=line),
                         hint="save the file as UTF-8") from None
    if text.startswith("\ufeff") and not keep_bom:
        text = text[1:]
    return text


def _redacted(text: str | bytes) -> str | bytes:
    from envkit.secrets import redact_text

    if isinstance(text, str):
        return redact_text(text)
    try:
        decoded = text.decode("utf-8")
    except UnicodeDecodeError:
        return text
    new = redact_text(decoded)
    return text if new is decoded else new.encode("utf-8")


def atomic_write(path: str | os.PathLike[str], text: str | bytes, *, mode: int | None = None,
                 redact: bool = True) -> None:
    """Write `text` to `path` atomically: a temporary file in the same directory, fsync, rename.

    Every credential envkit detects is replaced by a placeholder first (`envkit.secrets.redact_text`)
    unless `redact` is False, for a file that must hold the real value (an environment's own
    `conda-meta/state`).  The existing file's permission bits are kept.  On any failure the original
    file is untouched and the temporary file is removed.
    """
    if redact:
        text = _redacted(text)
    p = Path(path)
    if p.is_symlink():
        # Rewrite the file the link points to; replacing the link itself would detach it.
        p = Path(os.path.realpath(p))
    directory = p.parent if str(p.parent) else Path(".")
    data = text.encode("utf-8") if isinstance(text, str) else text
    try:
        st = p.stat()
    except OSError:
        st = None
    if st is not None and not stat.S_ISREG(st.st_mode):
        # /dev/null, /dev/stdout, a FIFO: there is nothing to replace atomically, and renaming
        # over a device node would destroy it.
        try:
            with open(p, "wb") as fh:
                fh.write(data)
        except OSError as exc:
            raise EnvkitError(f"cannot write: {exc.strerror}", where=Where(file=str(path))) from None
        return
    if mode is None:
        try:
            mode = p.stat().st_mode & 0o7777
        except FileNotFoundError:
            umask = os.umask(0)
            os.umask(umask)
            mode = 0o666 & ~umask
    import tempfile  # only writers pay for it

    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{p.name}.", suffix=".tmp", dir=directory)
    except OSError as exc:
        raise EnvkitError(f"cannot write: {exc.strerror}", where=Where(file=str(path))) from None
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.chmod(tmp, mode)
        os.replace(tmp, p)
    except BaseException as exc:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        if isinstance(exc, OSError):
            raise EnvkitError(f"cannot write: {exc.strerror}", where=Where(file=str(path))) from None
        raise
