"""The one place envkit starts other programs.

Every call has a timeout, runs in its own process group (so a hang can be killed with all its
children: DataLoader workers, pip's build backends, ssh), and turns "not found" and failures into
BackendError with the program's stderr shown.
"""

from __future__ import annotations

import codecs
import contextlib
import io
import os
import signal
import subprocess
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from envkit.errors import BackendError

DEFAULT_TIMEOUT = 600.0


@dataclass(frozen=True, slots=True)
class Result:
    """What a finished program left: its argv, exit code, output and wall time."""

    argv: tuple[str, ...]
    returncode: int
    stdout: str
    stderr: str
    seconds: float
    timed_out: bool = False
    #: run_capped: stdout passed its byte limit and the program was stopped
    too_large: bool = False
    #: run_capped: seconds from the last stdout byte (or the start) to the end
    quiet: float = 0.0

    @property
    def ok(self) -> bool:
        return self.returncode == 0 and not self.timed_out


def _kill_group(proc: subprocess.Popen) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(proc.pid, signal.SIGKILL)


def _start(
    argv: tuple[str, ...],
    label: str,
    *,
    stdin: int,
    env: Mapping[str, str] | None,
    cwd: str | os.PathLike[str] | None,
    text: bool = True,
    output: int = subprocess.PIPE,
) -> subprocess.Popen:
    """Start `argv` (as text unless `text` is False) in a new process group; BackendError when it
    cannot be started."""
    codec = {"text": True, "encoding": "utf-8", "errors": "replace"} if text else {}
    try:
        return subprocess.Popen(
            argv,
            stdin=stdin,
            stdout=output,
            stderr=output,
            env=dict(env) if env is not None else None,
            cwd=cwd,
            start_new_session=True,
            **codec,  # type: ignore[call-overload]
        )
    except FileNotFoundError:
        raise BackendError(
            f"{label}: executable not found: {argv[0]}", hint="install it, or put it on PATH"
        ) from None
    except PermissionError:
        raise BackendError(f"{label}: not executable: {argv[0]}") from None


def run(
    argv: Sequence[str],
    *,
    timeout: float | None = DEFAULT_TIMEOUT,
    env: Mapping[str, str] | None = None,
    cwd: str | os.PathLike[str] | None = None,
    input: str | None = None,
    check: bool = True,
    what: str | None = None,
) -> Result:
    """Run `argv` to completion in a new process group and return its Result.

    On timeout the whole group is killed and the Result has `timed_out=True` (or BackendError is
    raised when `check`).  With `check`, a non-zero exit raises BackendError naming `what` (default:
    the program) and quoting the last lines of its stderr.
    """
    argv = tuple(str(a) for a in argv)
    label = what or os.path.basename(argv[0])
    start = time.monotonic()
    stdin = subprocess.PIPE if input is not None else subprocess.DEVNULL
    proc = _start(argv, label, stdin=stdin, env=env, cwd=cwd)
    try:
        out, err = proc.communicate(input=input, timeout=timeout)
        timed_out = False
    except subprocess.TimeoutExpired:
        _kill_group(proc)
        out, err = proc.communicate()
        timed_out = True
    except BaseException:
        stop(proc)
        raise
    finally:
        # Children that outlived their parent (daemonised workers) go with the group.
        if proc.poll() is not None:
            _kill_group(proc)
    result = Result(argv, proc.returncode, out or "", err or "", time.monotonic() - start, timed_out)
    if check and timed_out:
        raise BackendError(f"{label} did not finish within {timeout:g} s and was stopped: {' '.join(argv)}")
    if check and result.returncode != 0:
        from envkit._text import unreachable_hint

        raise BackendError(
            f"{label} failed with exit code {result.returncode}: {' '.join(argv)}",
            text=tail(result.stderr or result.stdout) or None,
            hint=unreachable_hint(result.stderr + result.stdout),
        )
    return result


def run_capped(
    argv: Sequence[str],
    *,
    input: str,
    timeout: float,
    max_bytes: int,
    env: Mapping[str, str] | None = None,
    what: str | None = None,
) -> Result:
    """Run `argv` in a new process group with `input` on stdin, reading at most `max_bytes` of
    its stdout (for output that comes from elsewhere, as ssh's does, and may never end).

    Past `max_bytes` the group is killed and the Result has `too_large=True` (and no stdout); past `timeout`
    seconds, `timed_out=True`.  `quiet` says how long stdout had been silent when it ended.
    Only stderr's last 64 KiB are kept.  Never raises for a non-zero exit; raises BackendError
    only when the program cannot be started.
    """
    argv = tuple(str(a) for a in argv)
    start = time.monotonic()
    proc = _start(
        argv, what or os.path.basename(argv[0]), stdin=subprocess.PIPE, env=env, cwd=None, text=False
    )
    pump = _Pump(proc, input.encode("utf-8"), max_bytes=max_bytes, keep_err=64 * 1024)
    try:
        timed_out = pump.run(lambda now: now > start + timeout)
    finally:
        stop(proc)
        pump.close()
    return Result(
        argv,
        proc.returncode,
        "" if pump.too_large else pump.out.decode("utf-8", "replace"),  # a cut answer is no answer
        pump.err.decode("utf-8", "replace"),
        time.monotonic() - start,
        timed_out,
        too_large=pump.too_large,
        quiet=time.monotonic() - pump.last,
    )


class _Pump:
    """A started program's pipes, moved by one selector: `data` written to its stdin (when it has
    one), stdout kept (cut at `max_bytes`: `too_large`) and passed to `on_line` line by line as it
    arrives, stderr kept (its last `keep_err` bytes when given)."""

    def __init__(
        self,
        proc: subprocess.Popen,
        data: bytes = b"",
        *,
        max_bytes: int | None = None,
        keep_err: int | None = None,
        on_line: Callable[[str], None] | None = None,
    ) -> None:
        import selectors

        self.proc, self.data, self.max_bytes, self.keep_err = proc, memoryview(data), max_bytes, keep_err
        self.on_line = on_line
        self.out, self.err = bytearray(), bytearray()
        self.too_large = False
        self.last = time.monotonic()
        # stdout's lines as Popen(text=True) reads them (see _text)
        self.lines = io.IncrementalNewlineDecoder(codecs.getincrementaldecoder("utf-8")("replace"), True)
        self.partial = ""
        self.sel = selectors.DefaultSelector()
        for f, ev in (
            (proc.stdin, selectors.EVENT_WRITE),
            (proc.stdout, selectors.EVENT_READ),
            (proc.stderr, selectors.EVENT_READ),
        ):
            if f is not None:
                os.set_blocking(f.fileno(), False)
                self.sel.register(f, ev)

    def run(self, expired: Callable[[float], bool], *, end_group: bool = False) -> bool:
        """Move data until the pipes close and the program ends (False), or `expired(now)` (True),
        or stdout passes its limit (False, `too_large`).  With `end_group`, a program that ended
        while something it started still holds its pipes has its group killed (so they close)."""
        while self.sel.get_map():
            if expired(time.monotonic()):
                return True
            for key, _ in self.sel.select(0.1):
                if key.fileobj is self.proc.stdin:
                    self._write()
                elif not self._read(key.fileobj):
                    return False
            if end_group and self.proc.poll() is not None:
                _kill_group(self.proc)
        while True:
            try:
                self.proc.wait(timeout=0.1)
                return False
            except subprocess.TimeoutExpired:
                if expired(time.monotonic()):
                    return True

    def _write(self) -> None:
        try:
            n = os.write(self.proc.stdin.fileno(), self.data[:65536])  # type: ignore[union-attr]
        except BlockingIOError:
            return
        except OSError:  # the program stopped reading (it ended, or does not want it)
            n = len(self.data)
        self.data = self.data[n:]
        if not self.data:
            self._drop(self.proc.stdin)

    def _read(self, f) -> bool:
        """Read what `f` has; False when stdout passed its limit."""
        try:
            chunk = os.read(f.fileno(), 65536)
        except BlockingIOError:
            return True
        if f is self.proc.stdout:
            if chunk:
                self.out += chunk
                self.last = time.monotonic()
                if self.max_bytes is not None and len(self.out) > self.max_bytes:
                    self.too_large = True
                    return False
            self._pass_lines(chunk)
        else:
            self.err += chunk
            if self.keep_err is not None:
                del self.err[: -self.keep_err]
        if not chunk:
            self._drop(f)
        return True

    def _pass_lines(self, chunk: bytes) -> None:
        """Give `on_line` each line `chunk` completes (all that is left at the end: an empty chunk)."""
        if self.on_line is None:
            return
        *done, self.partial = (self.partial + self.lines.decode(chunk, final=not chunk)).split("\n")
        if not chunk and self.partial:
            done.append(self.partial)
        for line in done:
            self.on_line(line)

    def _drop(self, f) -> None:
        self.sel.unregister(f)
        f.close()

    def close(self) -> None:
        for key in list(self.sel.get_map().values()):
            self._drop(key.fileobj)
        self.sel.close()


def spawn(
    argv: Sequence[str], *, env: Mapping[str, str] | None = None, what: str | None = None
) -> subprocess.Popen:
    """Start `argv` in the background, in a new process group, with stdin, stdout and stderr on
    /dev/null (no pipe of this process to hold open or fill); `stop` ends it.  Raises
    BackendError when it cannot be started."""
    argv = tuple(str(a) for a in argv)
    label = what or os.path.basename(argv[0])
    return _start(
        argv, label, stdin=subprocess.DEVNULL, env=env, cwd=None, text=False, output=subprocess.DEVNULL
    )


def stop(proc: subprocess.Popen) -> None:
    """End a program started by `spawn`, with its whole process group."""
    _kill_group(proc)
    proc.wait()


def tail(text: str, lines: int = 20) -> str:
    """The last `lines` non-empty lines of `text`."""
    kept = [ln for ln in text.strip().splitlines() if ln.strip()]
    return "\n".join(kept[-lines:])


def stream(
    argv: Sequence[str],
    *,
    on_line: Callable[[str], None] | None = None,
    deadline: Callable[[], float | None] | None = None,
    timeout: float | None = DEFAULT_TIMEOUT,
    env: Mapping[str, str] | None = None,
    cwd: str | os.PathLike[str] | None = None,
    what: str | None = None,
) -> Result:
    """Run `argv` in a new process group, calling `on_line(line)` for each stdout line as it arrives.

    `deadline()` (polled about ten times a second) may return a `time.monotonic()` instant after
    which the program counts as hung; that, or `timeout` seconds overall, kills the whole group
    (children included) and the Result has `timed_out=True`.  Whatever the outcome, processes left
    in the group when the program ends (daemonised workers) are killed too.  Never raises for a
    non-zero exit; raises BackendError only when the program cannot be started.
    """
    argv = tuple(str(a) for a in argv)
    label = what or os.path.basename(argv[0])
    start = time.monotonic()
    proc = _start(argv, label, stdin=subprocess.DEVNULL, env=env, cwd=cwd, text=False)
    hard = start + timeout if timeout is not None else None
    pump = _Pump(proc, on_line=on_line)
    try:
        timed_out = pump.run(lambda now: _past(now, hard, deadline), end_group=True)
        if timed_out:
            _kill_group(proc)
            # what the group wrote before it was killed still comes in, but is no longer followed
            pump.on_line = None
            drained = time.monotonic() + 5
            pump.run(lambda now: now > drained)
    finally:
        stop(proc)
        pump.close()
    return Result(
        argv, proc.returncode, _text(pump.out), _text(pump.err), time.monotonic() - start, timed_out
    )


def _text(data: bytes | bytearray) -> str:
    """`data` as Popen(text=True) reads it: UTF-8 with replacement, CR LF and CR made LF."""
    return data.decode("utf-8", "replace").replace("\r\n", "\n").replace("\r", "\n")


def _past(now: float, hard: float | None, deadline: Callable[[], float | None] | None) -> bool:
    """Whether `now` is past the overall limit `hard` or the caller's `deadline()`."""
    soft = deadline() if deadline is not None else None
    return (hard is not None and now > hard) or (soft is not None and now > soft)
