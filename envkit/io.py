"""File input and output: bounded reads and atomic writes."""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator, Sequence
from contextlib import contextmanager, suppress

from envkit.errors import EnvkitError, ParseError, Where

#: Environment files and locks larger than this are refused before reading (a 3,000-package,
#: 3-platform conda-lock.yml is about 5 MiB).
MAX_INPUT_BYTES = 64 * 1024 * 1024


#: Most lines envkit reads in a format that holds one entry per line (environment.yml,
#: requirements.txt, explicit files).  The largest real ones have a few thousand; a 1.1 million
#: entry environment.yml took minutes and gigabytes to check, so it is refused before parsing.
MAX_ENTRY_LINES = 100_000


def refuse_too_many_lines(text: str, filename: str | None, what: str) -> None:
    """Raise ParseError when `text` (a file of format `what`) has more than MAX_ENTRY_LINES lines."""
    n = text.count("\n")
    if n > MAX_ENTRY_LINES:
        raise ParseError(
            f"{what} has {n:,} lines; envkit reads at most {MAX_ENTRY_LINES:,} in one",
            where=Where(file=filename),
            hint="environment files list packages, not data: check how the file was generated",
        )


_KINDS = (
    (stat.S_ISDIR, "a directory"),
    (stat.S_ISFIFO, "a named pipe (FIFO)"),
    (stat.S_ISSOCK, "a socket"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
)


def _read_regular(path: str, max_bytes: int, where: Where) -> bytes:
    """The bytes of the regular file `path`.  Anything else is refused before a byte is read: a
    FIFO (opened without blocking, so one with no writer cannot hang the command), a device, a
    directory, and a kernel pseudo-file (/proc, /sys: a size of 0 that reads as text)."""
    flags = (
        os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0) | getattr(os, "O_BINARY", 0)
    )
    try:
        fd = os.open(path, flags)
    except FileNotFoundError:
        raise ParseError("no such file", where=where) from None
    except IsADirectoryError:
        raise ParseError("is a directory, not a file", where=where) from None
    except OSError as exc:
        raise ParseError(f"cannot read: {exc.strerror}", where=where) from None
    st = os.fstat(fd)
    if not stat.S_ISREG(st.st_mode):  # before fdopen, which refuses a directory with its own error
        os.close(fd)
        what = next((name for test, name in _KINDS if test(st.st_mode)), "not a regular file")
        if what == "a directory":
            raise ParseError("is a directory, not a file", where=where)
        raise ParseError(
            f"is {what}, not a regular file; envkit reads regular files (and '-' for stdin)",
            where=where,
            hint="save the input to a file, or pipe it to stdin with '-'",
        )
    with os.fdopen(fd, "rb") as fh:
        if st.st_size > max_bytes:
            raise ParseError(
                f"file is {st.st_size / 2**20:.1f} MiB, larger than the "
                f"{max_bytes / 2**20:.0f} MiB envkit reads",
                where=where,
            )
        try:
            data = fh.read(max_bytes + 1)
        except OSError as exc:
            raise ParseError(f"cannot read: {exc.strerror}", where=where) from None
    if len(data) > max_bytes:
        raise ParseError(f"file is larger than the {max_bytes / 2**20:.0f} MiB envkit reads", where=where)
    if st.st_size == 0 and data:
        raise ParseError(
            "is a kernel pseudo-file (its size is 0, yet it has content: /proc, /sys), not a regular file; "
            "envkit reads regular files (and '-' for stdin)",
            where=where,
        )
    return data


def read_text(
    path: str | os.PathLike[str], *, max_bytes: int = MAX_INPUT_BYTES, keep_bom: bool = False
) -> str:
    """Return the text of `path` (UTF-8, or UTF-16/32 by its byte-order mark; newlines kept as in
    the file; a byte-order mark stripped unless `keep_bom`, for a caller that must know the file
    had one).  A file read as UTF-16/32 is noted on stderr (envkit.output.note) inside the CLI.

    Raises ParseError for a missing, unreadable, oversized or undecodable file, and for anything
    that is not a regular file (a FIFO, a device, /proc/self/environ).
    """
    where = Where(file=str(path))
    data = _read_regular(os.fspath(path), max_bytes, where)
    return decode_text(data, str(path), keep_bom=keep_bom)


def file_text(path: str | None, size: int = -1) -> str | None:
    """The text (the first `size` characters) of the file at `path`, None when there is none: for
    a look at a file that may be absent or unreadable (undecodable bytes replaced, never an error)."""
    if not (path and os.path.isfile(path)):
        return None
    try:
        with open(path, encoding="utf-8", errors="replace") as fh:
            return fh.read(size)
    except OSError:
        return None


#: byte-order marks of the encodings envkit decodes besides UTF-8 (UTF-32's first: UTF-32LE's mark
#: starts with UTF-16LE's).  `conda env export > env.yml` in Windows PowerShell 5 writes UTF-16LE
#: with a mark (https://learn.microsoft.com/en-us/powershell/module/microsoft.powershell.core/about/about_character_encoding).
_BOMS = (
    (b"\xff\xfe\x00\x00", "utf-32-le", "UTF-32LE"),
    (b"\x00\x00\xfe\xff", "utf-32-be", "UTF-32BE"),
    (b"\xff\xfe", "utf-16-le", "UTF-16LE"),
    (b"\xfe\xff", "utf-16-be", "UTF-16BE"),
)


def decode_text(
    data: bytes, name: str, *, keep_bom: bool = False, hint: str = "save the file as UTF-8"
) -> str:
    """`data` (the content of `name`) as text: UTF-16 or UTF-32 when it starts with that byte-order
    mark (noted on stderr inside the CLI), else UTF-8; the mark stripped unless `keep_bom`.
    ParseError (with the line) for bytes that are not text in that encoding."""
    for bom, codec, label in _BOMS:
        if data.startswith(bom):
            try:
                text = data[len(bom) :].decode(codec)
            except UnicodeDecodeError as exc:
                line = data[len(bom) : len(bom) + exc.start].decode(codec, "replace").count("\n") + 1
                raise ParseError(
                    f"not {label} text, although it starts with a {label} byte-order mark",
                    where=Where(file=name, line=line),
                    hint=hint,
                ) from None
            from envkit.output import note

            note(f"{name}: read as {label} (it starts with a {label} byte-order mark)")
            return "\ufeff" + text if keep_bom else text
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise ParseError("not UTF-8 text", where=Where(file=name, line=line), hint=hint) from None
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


def emit(text: str, output: str | None, unchanged_since: tuple[int, int, int, int] | None = None) -> None:
    """Write command output to stdout, or atomically to `output` when given ('-' is stdout); not over
    a file that changed or appeared after `unchanged_since` (file_identity) was taken, by default
    not over one written, or made, since this process started (`file_identity(since_start=True)`:
    a file that another process writes there while this one runs is kept)."""
    if output is None or output == "-":
        from envkit.output import echo

        echo(text, nl=False)
        return
    if unchanged_since is None:
        unchanged_since = file_identity(output, since_start=True)
    atomic_write(output, text, unchanged_since=unchanged_since)


def umask_mode(base: int) -> int:
    """`base` (0o666 for a file, 0o777 for a directory) less the process's umask: the mode
    `open` and `mkdir` give a new file, for one made another way (mkstemp, mkdtemp: 0600, 0700)."""
    umask = os.umask(0)
    os.umask(umask)
    return base & ~umask


def fault_point(step: str) -> None:
    """A test hook at a named step of a multi-step write (`create:staged`, `create:pip`, ...):
    ENVKIT_TEST_FAULT=STEP:kill ends the process there with SIGKILL (a crash, an OOM kill), and
    STEP:wait:PATH creates PATH.reached and waits until PATH exists (two processes interleaved at
    a chosen point).  Nothing happens unless the variable names this step."""
    hook = os.environ.get("ENVKIT_TEST_FAULT")
    if not hook or not hook.startswith(step + ":"):
        return
    action, _, arg = hook[len(step) + 1 :].partition(":")
    if action == "kill":
        import signal

        os.kill(os.getpid(), signal.SIGKILL)
    elif action == "wait" and arg:
        import time

        with open(arg + ".reached", "w"):
            pass
        while not os.path.exists(arg):
            time.sleep(0.02)


#: The `file_identity` of a path where no file was: a file that appears there later is not
#: overwritten by a write made `unchanged_since=MISSING`.
MISSING = (-1, -1, -1, -1)


#: The identity of a file written after the process started (see `file_identity`): it matches no
#: file, so a write made `unchanged_since=WRITTEN_SINCE_START` refuses to replace it.
WRITTEN_SINCE_START = (-2, -2, -2, -2)


def file_identity(
    path: str | os.PathLike[str], *, since_start: bool = False
) -> tuple[int, int, int, int] | None:
    """(device, inode, size, mtime_ns) of `path`, MISSING when there is no file, None when it cannot
    be stat'ed: taken before a file is read (or before a command starts that will write it), so
    that `atomic_write(..., unchanged_since=...)` can tell it was not edited, or made, since.

    With `since_start` (a command's output: the process has written nothing yet), a file modified
    after this process started is WRITTEN_SINCE_START: another process wrote it while this one was
    starting up, and it is not to be replaced either."""
    if since_start:
        fault_point("identity")
    try:
        st = os.stat(path)
    except FileNotFoundError:
        return MISSING
    except OSError:
        return None
    if since_start:
        started = process_start_ns()
        if started is not None and st.st_mtime_ns > started:
            return WRITTEN_SINCE_START
    return (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns)


def process_start_ns() -> int | None:
    """When this process started at the latest (wall clock, ns), from /proc, if it is
    an envkit process (the `envkit` script, `python -m envkit`); None in another program that
    calls envkit (a test runner, an application: "since the process started" says nothing of its
    files) and where there is no /proc."""
    import sys
    import time

    argv0 = os.path.basename(sys.argv[0]) if sys.argv else ""
    if argv0 != "envkit" and not sys.argv[0].endswith(os.path.join("envkit", "__main__.py")):
        return None
    try:
        with open("/proc/self/stat", "rb") as fh:
            fields = fh.read().rsplit(b")", 1)[1].split()
        ticks = int(fields[19])  # starttime: clock ticks after boot (field 22 of proc(5))
        since_boot = time.clock_gettime_ns(time.CLOCK_BOOTTIME)
    except (OSError, ValueError, IndexError, AttributeError):
        return None
    tick = 1_000_000_000 // os.sysconf("SC_CLK_TCK")
    # the start time is rounded down to a clock tick: a tick (and a millisecond for the clocks'
    # reading) later is the earliest it may have been, so a file written before never counts
    return time.time_ns() - since_boot + (ticks + 1) * tick + 1_000_000


def atomic_write(
    path: str | os.PathLike[str],
    text: str | bytes,
    *,
    mode: int | None = None,
    redact: bool = True,
    unchanged_since: tuple[int, int, int, int] | None = None,
) -> None:
    """Write `text` to `path` atomically: a temporary file in the same directory, fsync, rename.

    Every credential envkit detects is replaced by a placeholder first (`envkit.secrets.redact_text`)
    unless `redact` is False, for a file that must hold the real value (an environment's own
    `conda-meta/state`).  With `unchanged_since` (a `file_identity` taken before the file was read,
    MISSING when there was none), a file that another process changed or made meanwhile is not
    replaced: EnvkitError, the other process's file kept.  The existing file's permission bits are
    kept.  On any failure the original file is untouched and the temporary file is removed.
    """
    write_files([(path, text, unchanged_since)], mode=mode, redact=redact)


def write_files(
    files: Sequence[tuple[str | os.PathLike[str], str | bytes, tuple[int, int, int, int] | None]],
    *,
    mode: int | None = None,
    redact: bool = True,
) -> None:
    """Write each `(path, text, unchanged_since)` of `files` as `atomic_write` does, all or none:
    every temporary file is written (and synced) before the first is renamed into place, and a
    rename that fails puts back the files already replaced.  A full disk, a file size limit or a
    file another process changed leaves every path as it was.  Raises EnvkitError naming the file."""
    staged: list[_Staged] = []
    try:
        for path, text, since in files:
            try:
                staged.append(_stage(path, _redacted(text) if redact else text, mode, since))
            except EnvkitError as exc:
                exc.message += _left_alone([os.fspath(p) for p, _t, _s in files if p is not path])
                raise
        fault_point("write")
        with _locked_dirs(sorted({os.path.dirname(os.path.abspath(f.target)) for f in staged if f.tmp})):
            for f in staged:
                f.check()
            _replace_all(staged)
    finally:
        for f in staged:
            f.discard()


class _Staged:
    """One file of `write_files`: its content synced to a temporary file beside `target`, or (for
    a device, a FIFO: nothing to replace atomically) held until the others are in place."""

    def __init__(self, target: str, tmp: str | None, data: bytes, since: tuple[int, int, int, int] | None):
        self.target, self.tmp, self.data, self.since = target, tmp, data, since

    def check(self) -> None:
        """EnvkitError when the file changed, or appeared, since `since` was taken."""
        if self.since is None or self.tmp is None:
            return
        now = file_identity(self.target)
        if now == self.since:
            return
        what = {
            MISSING: "appeared since envkit started",
            WRITTEN_SINCE_START: "changed since envkit started",
        }.get(self.since, "changed since envkit read it")
        raise self._changed(what)

    def _changed(self, what: str) -> EnvkitError:
        return EnvkitError(
            f"{what} (another process wrote to it); not replaced",
            where=Where(file=self.target),
            hint="run the command again on the new content",
        )

    def commit(self) -> None:
        """Put the file in place (OSError on failure)."""
        if self.tmp is None:
            with open(self.target, "wb") as fh:
                fh.write(self.data)
            return
        if self.since == MISSING:
            # a link fails if a file appeared after the check, where a rename would replace it
            try:
                os.link(self.tmp, self.target)
            except FileExistsError:
                raise self._changed("appeared since envkit started") from None
            except OSError:
                os.replace(self.tmp, self.target)  # a file system without hard links
            return
        os.replace(self.tmp, self.target)

    def discard(self) -> None:
        if self.tmp is not None:
            with suppress(OSError):
                os.unlink(self.tmp)


def _stage(
    path: str | os.PathLike[str], text: str | bytes, mode: int | None, since: tuple[int, int, int, int] | None
) -> _Staged:
    data = text.encode("utf-8") if isinstance(text, str) else text
    target = os.fspath(path)
    if os.path.islink(target):
        # Rewrite the file the link points to; replacing the link itself would detach it.
        target = os.path.realpath(target)
    try:
        st: os.stat_result | None = os.stat(target)
    except OSError:
        st = None
    if st is not None and not stat.S_ISREG(st.st_mode):
        # /dev/null, /dev/stdout, a FIFO: written in place; renaming over a device would destroy it
        return _Staged(target, None, data, since)
    if mode is None:
        mode = st.st_mode & 0o7777 if st is not None else umask_mode(0o666)
    import tempfile  # only writers pay for it

    directory = os.path.dirname(target) or "."
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{os.path.basename(target)}.", suffix=".tmp", dir=directory)
    except OSError as exc:
        raise EnvkitError(f"cannot write: {exc.strerror}", where=Where(file=os.fspath(path))) from None
    staged = _Staged(target, tmp, data, since)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.chmod(tmp, mode)
    except OSError as exc:
        staged.discard()
        raise EnvkitError(f"cannot write: {exc.strerror}", where=Where(file=os.fspath(path))) from None
    return staged


@contextmanager
def _locked_dirs(directories: Sequence[str]) -> Iterator[None]:
    """Hold an exclusive flock on each directory (in sorted order: no deadlock), so that envkit
    processes writing there check and replace their files one at a time."""
    fds = []
    try:
        for d in directories:
            try:
                fd = os.open(d, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
            except OSError:
                continue
            fds.append(fd)
            with suppress(ImportError, OSError):  # no flock here: the identity check alone
                import fcntl

                fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        for fd in fds:
            os.close(fd)


def _replace_all(staged: Sequence[_Staged]) -> None:
    """Commit each staged file in order; when one fails, put the ones already replaced back
    (from hard links taken before) and raise EnvkitError saying that nothing changed."""
    done: list[tuple[_Staged, str | None]] = []
    try:
        for f in staged:
            backup = None
            if f.tmp is not None and f.since != MISSING and os.path.isfile(f.target):
                backup = f.tmp + ".old"
                try:
                    os.link(f.target, backup)
                except OSError:
                    backup = None
            done.append((f, backup))
            f.commit()
    except BaseException as exc:
        f, backup = done.pop()
        if backup:
            os.unlink(backup)
        for g, old in reversed(done):
            with suppress(OSError):
                os.replace(old, g.target) if old else os.unlink(g.target)
        if isinstance(exc, OSError):
            kept = _left_alone([g.target for g in staged if g is not f])
            raise EnvkitError(f"cannot write: {exc.strerror}{kept}", where=Where(file=f.target)) from None
        raise
    for _f, backup in done:
        if backup:
            with suppress(OSError):
                os.unlink(backup)


def _left_alone(others: Sequence[str]) -> str:
    """What an error about one of several files written together adds: the others are unchanged."""
    if not others:
        return ""
    return f"; {', '.join(others)} left as {'it was' if len(others) == 1 else 'they were'}"
