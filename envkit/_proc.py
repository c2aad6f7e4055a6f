"""The one place envkit starts other programs.

Every call has a timeout, runs in its own process group (so a hang can be killed with all its
children: DataLoader workers, pip's build backends, ssh), and turns "not found" and failures into
BackendError with the program's stderr shown.
"""

from __future__ import annotations

import os
import shutil
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

    @property
    def ok(self) -> bool:
        return self.returncode == 0 and not self.timed_out


def which(name: str, path: str | None = None) -> str | None:
    """Return the full path of executable `name` on PATH (or `path`), or None."""
    return shutil.which(name, path=path)


def _kill_group(proc: subprocess.Popen) -> None:
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


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
    try:
        proc = subprocess.Popen(
            argv,
            stdin=subprocess.PIPE if input is not None else subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=dict(env) if env is not None else None,
            cwd=cwd,
            text=True,
            encoding="utf-8",
            errors="replace",
            start_new_session=True,
        )
    except FileNotFoundError:
        raise BackendError(
            f"{label}: executable not found: {argv[0]}", hint="install it, or put it on PATH"
        ) from None
    except PermissionError:
        raise BackendError(f"{label}: not executable: {argv[0]}") from None
    try:
        out, err = proc.communicate(input=input, timeout=timeout)
        timed_out = False
    except subprocess.TimeoutExpired:
        _kill_group(proc)
        out, err = proc.communicate()
        timed_out = True
    except BaseException:
        _kill_group(proc)
        proc.wait()
        raise
    finally:
        # Children that outlived their parent (daemonised workers) go with the group.
        if proc.poll() is not None:
            _kill_group(proc)
    result = Result(argv, proc.returncode, out or "", err or "", time.monotonic() - start, timed_out)
    if check and timed_out:
        raise BackendError(f"{label} did not finish within {timeout:g} s and was stopped: {' '.join(argv)}")
    if check and result.returncode != 0:
        raise BackendError(
            f"{label} failed with exit code {result.returncode}: {' '.join(argv)}",
            text=tail(result.stderr or result.stdout) or None,
        )
    return result


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
    import queue
    import threading

    argv = tuple(str(a) for a in argv)
    label = what or os.path.basename(argv[0])
    start = time.monotonic()
    try:
        proc = subprocess.Popen(
            argv,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=dict(env) if env is not None else None,
            cwd=cwd,
            text=True,
            encoding="utf-8",
            errors="replace",
            start_new_session=True,
            bufsize=1,
        )
    except FileNotFoundError:
        raise BackendError(
            f"{label}: executable not found: {argv[0]}", hint="install it, or put it on PATH"
        ) from None
    except PermissionError:
        raise BackendError(f"{label}: not executable: {argv[0]}") from None
    lines: queue.Queue[str | None] = queue.Queue()
    out_parts: list[str] = []
    err_parts: list[str] = []

    def read_out() -> None:
        for line in proc.stdout:  # type: ignore[union-attr]
            lines.put(line)
        lines.put(None)

    def read_err() -> None:
        for line in proc.stderr:  # type: ignore[union-attr]
            err_parts.append(line)

    readers = [threading.Thread(target=read_out, daemon=True), threading.Thread(target=read_err, daemon=True)]
    for t in readers:
        t.start()
    hard = start + timeout if timeout is not None else None
    timed_out = False
    eof = False
    try:
        while True:
            try:
                line = lines.get(timeout=0.1)
            except queue.Empty:
                line = ""
            if line is None:
                eof = True
            elif line:
                out_parts.append(line)
                if on_line is not None:
                    on_line(line.rstrip("\n"))
            if eof and proc.poll() is not None:
                break
            now = time.monotonic()
            soft = deadline() if deadline is not None else None
            if (hard is not None and now > hard) or (soft is not None and now > soft):
                timed_out = True
                _kill_group(proc)
                break
            if proc.poll() is not None and not eof:
                # The program ended but something it started still holds stdout: end the group.
                _kill_group(proc)
    except BaseException:
        _kill_group(proc)
        proc.wait()
        raise
    finally:
        _kill_group(proc)
    proc.wait()
    for t in readers:
        t.join(timeout=5)
    while True:  # lines that arrived after the loop stopped
        try:
            line = lines.get_nowait()
        except queue.Empty:
            break
        if line:
            out_parts.append(line)
            if on_line is not None and not timed_out:
                on_line(line.rstrip("\n"))
    return Result(
        argv, proc.returncode, "".join(out_parts), "".join(err_parts), time.monotonic() - start, timed_out
    )
