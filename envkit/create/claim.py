"""The prefix `create` makes, claimed for one process at a time.

Two `envkit create -p P` at once must not both build P, and the one that fails must not remove
what the other made.  The claim is an exclusive `flock` on `.NAME.envkit-lock` beside the prefix:
the kernel drops it when its process ends, however it ends (kill -9 too), so a claim is never
stale.  Whoever holds it owns everything named `.NAME.envkit-*` there: the staging directories of
runs that were killed are swept.

A prefix is marked incomplete (`conda-meta/.envkit-incomplete`, envkit.backends.prefix_scan.INCOMPLETE)
from the moment its conda packages are in place until the last step of `create` is done; readers
refuse such a prefix, and the next `create` replaces it.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from contextlib import contextmanager

from envkit.backends.prefix_scan import INCOMPLETE
from envkit.create.target import remove_tree
from envkit.errors import Remedy, UsageError


def check_target(prefix: str) -> None:
    """Refuse a `prefix` that `create` cannot make, before any work: a symbolic link (dangling or
    not: the environment would be built through it, or the rename into place would fail after the
    whole install), something that is not a directory, a parent that is not a directory."""
    if os.path.islink(prefix):
        dest = os.readlink(prefix)
        state = "" if os.path.exists(prefix) else ", which does not exist"
        raise UsageError(
            f"prefix {prefix} is a symbolic link (to {dest}{state})",
            hint="pass the directory itself (a new path, or an empty directory) as {}",
            remedy=Remedy(option="prefix", metavar="PATH"),
        )
    if os.path.lexists(prefix) and not os.path.isdir(prefix):
        raise UsageError(f"prefix exists and is not a directory: {prefix}")
    parent = os.path.dirname(prefix)
    while not os.path.lexists(parent) and os.path.dirname(parent) != parent:
        parent = os.path.dirname(parent)  # the nearest existing ancestor: makedirs starts there
    if not os.path.isdir(parent):
        raise UsageError(f"cannot create {prefix}: {parent} is not a directory")


def is_incomplete(prefix: str) -> bool:
    """Whether `prefix` carries the mark of a `create` that did not finish."""
    return os.path.lexists(os.path.join(prefix, INCOMPLETE))


def mark_incomplete(prefix: str) -> None:
    """Mark `prefix` (or the staging directory that becomes it) incomplete."""
    path = os.path.join(prefix, INCOMPLETE)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8") as fh:
        fh.write(f"envkit create (pid {os.getpid()}) has not finished this environment\n")


def mark_complete(prefix: str) -> None:
    """Remove the mark: the last step of `create`."""
    with contextlib.suppress(FileNotFoundError):
        os.unlink(os.path.join(prefix, INCOMPLETE))


def _lock(path: str, prefix: str) -> int:
    """An open descriptor of `path` holding an exclusive flock; UsageError when another process
    holds it.  The lock file may be unlinked by its last holder: a descriptor of an unlinked file
    is no claim, so the lock is taken again on the file the path names now."""
    try:
        import fcntl
    except ImportError:  # Windows: no flock; the claim is the rename into place alone
        return os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    for _ in range(20):
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = os.read(fd, 32).decode("ascii", "replace").strip()
            os.close(fd)
            pid = f" (pid {holder})" if holder.isdigit() else ""
            raise UsageError(
                f"another process{pid} is creating {prefix}; nothing was done",
                hint="wait for it to finish, or choose another {}",
                remedy=Remedy(option="prefix", metavar="PATH"),
            ) from None
        try:
            same = os.fstat(fd).st_ino == os.stat(path).st_ino
        except FileNotFoundError:
            same = False
        if same:
            os.ftruncate(fd, 0)
            os.write(fd, str(os.getpid()).encode())
            return fd
        os.close(fd)
    raise UsageError(f"could not claim {prefix}: its lock file {path} keeps changing")


def _sweep(parent: str, base: str, lock_name: str) -> None:
    """Remove the staging directories of `.BASE.envkit-*` runs: with the claim held, none of them
    belongs to a running `create`."""
    try:
        entries = os.listdir(parent)
    except OSError:
        return
    for entry in entries:
        if entry.startswith(f".{base}.envkit-") and entry != lock_name:
            remove_tree(os.path.join(parent, entry), settle=0)


@contextmanager
def claim_prefix(prefix: str) -> Iterator[bool]:
    """Hold the claim on `prefix` for the `with` block, which is to create it.  Yields whether an
    earlier, unfinished `create` left the prefix (it is removed: the block starts afresh).

    Raises UsageError when another process holds the claim, and when `prefix` exists, is not
    empty and carries no incomplete mark (someone's environment, left alone)."""
    parent, base = os.path.split(prefix)
    os.makedirs(parent, exist_ok=True)
    lock_name = f".{base}.envkit-lock"
    lock_path = os.path.join(parent, lock_name)
    fd = _lock(lock_path, prefix)
    try:
        _sweep(parent, base, lock_name)
        replaced = is_incomplete(prefix)
        if replaced:
            remove_tree(prefix, settle=0)
        elif os.path.isdir(prefix) and os.listdir(prefix):
            raise UsageError(
                f"prefix already exists and is not empty: {prefix}",
                hint="remove it first, or choose another {}/{}",
                remedy=(Remedy(option="prefix"), Remedy(option="name")),
            )
        yield replaced
    finally:
        with contextlib.suppress(OSError):
            os.unlink(lock_path)  # while held: a later claim takes a fresh file
        os.close(fd)
