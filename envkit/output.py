"""The output layer's redaction: stdout and stderr streams that pass every line through
`envkit.secrets.redact_text` before it reaches the terminal, a pipe or a CI log.

`envkit.cli.main` runs every command inside `redacted_stdio()`, so a credential cannot be printed
whichever code path writes it (a finding, a diff line, an error quoting the input, a warning).
Files are covered by `envkit.io.atomic_write`, which redacts what it writes.
"""

from __future__ import annotations

import contextlib
import io
import sys
from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # pragma: no cover
    from typing import TextIO

#: a partial line longer than this is written out (redacted) without waiting for its newline
_MAX_PENDING = 1 << 16


class RedactingStream(io.TextIOBase):
    """A text stream that writes to `inner` with every credential replaced by a placeholder.

    Text is held back to the end of its line, so a URL split across two writes is still seen whole;
    `flush()` writes what is held.  Its `buffer` (for bytes, as click's echo of bytes uses) decodes
    into the same redacting path: bytes cannot go around it."""

    def __init__(self, inner: TextIO) -> None:
        super().__init__()
        self._inner = inner
        self._pending = ""
        self._buffer = _RedactingBuffer(self)

    @property
    def buffer(self) -> _RedactingBuffer:
        return self._buffer

    @property
    def encoding(self) -> str | None:  # type: ignore[override]
        return getattr(self._inner, "encoding", None)

    @property
    def errors(self) -> str | None:  # type: ignore[override]
        return getattr(self._inner, "errors", None)

    def writable(self) -> bool:
        return True

    def isatty(self) -> bool:
        return bool(getattr(self._inner, "isatty", lambda: False)())

    def fileno(self) -> int:
        return self._inner.fileno()

    def write(self, s: str) -> int:
        if not isinstance(s, str):
            raise TypeError(f"write() argument must be str, not {type(s).__name__}")
        from envkit.secrets import redact_text

        data = self._pending + s if self._pending else s
        cut = data.rfind("\n") + 1
        if cut:
            self._inner.write(redact_text(data[:cut]))
            data = data[cut:]
        if len(data) > _MAX_PENDING:
            self._inner.write(redact_text(data))
            data = ""
        self._pending = data
        return len(s)

    def flush(self) -> None:
        if self._pending:
            from envkit.secrets import redact_text

            pending, self._pending = self._pending, ""
            self._inner.write(redact_text(pending))
        self._inner.flush()


class _RedactingBuffer(io.RawIOBase):
    """The binary side of a RedactingStream: bytes are decoded (UTF-8) and written as text."""

    def __init__(self, text: RedactingStream) -> None:
        super().__init__()
        self._text = text

    def writable(self) -> bool:
        return True

    def write(self, b) -> int:
        data = bytes(b)
        self._text.write(data.decode("utf-8", "replace"))
        return len(data)

    def flush(self) -> None:
        self._text.flush()


@contextlib.contextmanager
def redacted_stdio() -> Iterator[None]:
    """Replace sys.stdout and sys.stderr with redacting streams for the duration; what is held is
    flushed and the original streams come back on the way out (an exception or SystemExit too)."""
    global _noted
    old_out, old_err = sys.stdout, sys.stderr
    new_out = old_out if isinstance(old_out, RedactingStream) else RedactingStream(old_out)
    new_err = old_err if isinstance(old_err, RedactingStream) else RedactingStream(old_err)
    sys.stdout, sys.stderr = new_out, new_err
    old_noted, _noted = _noted, set()
    try:
        yield
    finally:
        _noted = old_noted
        sys.stdout, sys.stderr = old_out, old_err
        for stream in (new_out, new_err):
            with contextlib.suppress(OSError, ValueError):
                stream.flush()


# --------------------------------------------------------------------------------------------
# what commands print: below both envkit.cli and envkit.commands, so no command imports the cli


#: the notes printed by the command running (see redacted_stdio, which every command runs in);
#: None outside the CLI, where the library stays silent
_noted: set[str] | None = None


def echo(message: str = "", *, err: bool = False, nl: bool = True) -> None:
    """click.echo of a str, without importing click: `message` (and a newline) on stdout or
    stderr, flushed."""
    stream = sys.stderr if err else sys.stdout
    stream.write(message + "\n" if nl else message)
    stream.flush()


def note(message: str) -> None:
    """Print one `note: ...` line on stderr, once per command however often the same thing is
    noted (a file read twice), for code below the command layer (envkit.io); nothing outside the
    CLI."""
    if _noted is None or message in _noted:
        return
    _noted.add(message)
    echo(f"note: {message}", err=True)


def warn(message: str) -> None:
    """Print one `warning: ...` line on stderr.  Only CLI code calls this."""
    echo(f"warning: {message}", err=True)


#: a library keyword -> the command-line flag that sets it, where the flag is not the keyword
#: with dashes (`allow_loss` -> `--allow-loss`)
FLAGS: dict[str, str] = {
    "format": "--input-format",
    "environment": "--env",
    "platforms": "--platform",
    "virtual_packages": "--virtual-package",
    "name": "-n",
    "prefix": "-p",
}


def flag_of(option: str) -> str:
    """The command-line flag of the library keyword `option`."""
    return FLAGS.get(option) or "--" + option.replace("_", "-")


def cli_hint(exc: BaseException) -> str | None:
    """The hint of `exc` as the CLI prints it: each remedy worded as its flag (`--input-format
    pixi`) where the library words it as a keyword (`format="pixi"`)."""
    from envkit.errors import EnvkitError

    if isinstance(exc, EnvkitError):
        return exc.worded(lambda r: r.as_flag(flag_of(r.option)))
    hint = getattr(exc, "hint", None)
    return hint if isinstance(hint, str) else None


def echo_errors(errors: Iterable[BaseException], *, first_line: bool = False) -> None:
    """Each error as the CLI reports one (`error: ...`, and `hint: ...` with its remedies worded as
    flags) on stderr; `first_line`: only the first line of each message."""
    for exc in errors:
        text = str(exc)
        echo(f"error: {text.splitlines()[0] if first_line and text else text}", err=True)
        hint = cli_hint(exc)
        if hint:
            echo(f"hint: {hint}", err=True)
