"""Turning command-line inputs into check targets: files (read and parsed once), live environments,
and the spec/lock pairs the lock rules compare."""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import TYPE_CHECKING

from envkit.errors import EnvkitError
from envkit.model import EnvSpec, LiveEnv, Lock

if TYPE_CHECKING:  # pragma: no cover
    from envkit.checks.core import Target

#: What `envkit check` looks for in the working directory when no file is given, in this order.
DISCOVER = ("environment.yml", "environment.yaml", "conda-lock.yml", "pixi.lock")


def discover(directory: str | os.PathLike[str] = ".") -> list[str]:
    """The files of DISCOVER that exist in `directory`, then its manifests and their locks
    (envkit.checks._manifest_pairs.discover_manifests), as paths relative to it."""
    from envkit.checks._manifest_pairs import discover_manifests

    here = str(directory) in ("", ".")
    out = []
    for name in DISCOVER:
        if os.path.isfile(os.path.join(directory, name)):
            out.append(name if here else os.path.join(directory, name))
    out += (os.path.basename(p) if here else p for p in discover_manifests(directory))
    return out


#: folders `discover_tree` does not enter besides hidden ones: caches and installed packages
_SKIP_DIRS = frozenset({"node_modules", "__pycache__", "site-packages", "build", "dist"})


def discover_tree(directory: str | os.PathLike[str]) -> list[str]:
    """The files of DISCOVER in `directory` and every folder below it (each folder's in DISCOVER
    order, folders sorted), as a repository's CI passes its root: hidden folders (`.git`,
    `.pixi`, `.venv`), caches, environments themselves (a folder with `conda-meta/` or
    `pyvenv.cfg`), and in a git work tree what git ignores (`.gitignore`, as git reads it) are
    not entered."""
    ignored = git_ignored(directory)
    out: list[str] = []
    for root, dirs, _files in os.walk(directory):
        dirs[:] = sorted(
            d
            for d in dirs
            if not d.startswith(".")
            and d not in _SKIP_DIRS
            and not os.path.isdir(os.path.join(root, d, "conda-meta"))
            and not os.path.isfile(os.path.join(root, d, "pyvenv.cfg"))
            and os.path.realpath(os.path.join(root, d)) not in ignored
        )
        out += (os.path.normpath(p) for p in discover(root) if os.path.realpath(p) not in ignored)
    return out


def git_ignored(directory: str | os.PathLike[str]) -> frozenset[str]:
    """The real paths of the files and folders below `directory` that git ignores, as git itself
    lists them (`git ls-files --others --ignored --exclude-standard --directory`); empty outside a
    git work tree or without git (`_proc.run` raises EnvkitError for a git it cannot start)."""
    from envkit import _proc

    argv = ["git", "-C", os.fspath(directory), "ls-files", "-z", "--others", "--ignored"]
    argv += ["--exclude-standard", "--directory"]
    try:
        result = _proc.run(argv, timeout=60, check=False, what="git")
    except EnvkitError:
        return frozenset()
    if not result.ok:
        return frozenset()
    base = os.fspath(directory)
    return frozenset(os.path.realpath(os.path.join(base, p)) for p in result.stdout.split("\0") if p)


def load_file(path: str, *, format: str | None = None, stdin: str | None = None) -> list[Target]:
    """Read and parse one file into targets (one per pixi.lock environment, else one).

    `-` is standard input: the text `stdin` (read here when None), named `<stdin>` in findings.
    A duplicated YAML key does not raise: the target carries the error (`parse_error`) for the
    duplicate-key rule.  Raises the readers' ParseError family for anything else unreadable.
    """
    from envkit.stdin import STDIN, STDIN_LABEL

    if path == STDIN:
        from envkit.stdin import read_stdin

        return targets_from_text(read_stdin() if stdin is None else stdin, STDIN_LABEL, format=format)
    from envkit.io import read_text

    return targets_from_text(read_text(path), path, format=format)


def targets_from_text(text: str, path: str, *, format: str | None = None) -> list[Target]:
    """Like `load_file`, for text already read (`path` names it in findings)."""
    from envkit import formats
    from envkit.checks.core import Target
    from envkit.checks.rules_lock import is_duplicate_key_error
    from envkit.errors import ParseError

    fmt = format or formats.detect_format(text, path)
    kind = "spec" if fmt in formats.SPEC_FORMATS else "lock"
    # malformed entries of an environment file are collected, not raised: the rules run on what
    # parsed, and `check` reports every one of them (see entry_errors)
    entry_errors: list = []
    models: list[EnvSpec | Lock]
    try:
        if fmt == "env":
            from envkit.formats.envyml import read_env

            models = [read_env(text.removeprefix("\ufeff"), path, errors=entry_errors)]
        elif fmt == "pixi":
            from envkit.formats.pixilock import read_pixi_environments

            # one parse for every environment: a workspace's lock holds dozens
            envs = read_pixi_environments(text.removeprefix("\ufeff"), path)
            models = list(envs.values()) or [formats.read_text(text, filename=path, format=fmt)]
        else:
            models = [formats.read_text(text, filename=path, format=fmt)]
    except ParseError as exc:
        if is_duplicate_key_error(exc):
            return [Target(path=path, kind=kind, model=None, text=text, parse_error=exc)]
        raise
    # the environments of a pixi.lock share the file's lines, split once
    lines = text.splitlines() if len(models) > 1 else None
    return [
        Target(path=path, kind=kind, model=m, text=text, entry_errors=entry_errors, _lines=lines)
        for m in models
    ]


def live_target(env: LiveEnv) -> Target:
    """A live environment as a target; its findings name the prefix."""
    from envkit.checks.core import Target

    return Target(path=env.prefix, kind="live", model=env)


def load_targets(
    paths: Sequence[str],
    *,
    lock: str | None = None,
    live: LiveEnv | None = None,
    format: str | None = None,
    stdin: str | None = None,
    errors: list | None = None,
) -> list[Target]:
    """Targets for `paths` (in order), the `lock` file (added unless already among them) and the
    live environment, with spec/lock pairs set (see `pair`).  A path `-` is standard input (the
    text `stdin`; see `load_file`); raises UsageError when `-` is given more than once.  With
    `errors` given, a path that cannot be read is left out and its EnvkitError appended there
    (`check a.yml README.md b.yml` checks the other two), as linters do."""
    from envkit.stdin import check_stdin_once

    check_stdin_once(list(paths) + [lock])
    targets: list[Target] = []
    by_path: dict[str, list[Target]] = {}
    for p in paths:
        key = _file_key(p)
        if key in by_path:
            continue
        try:
            ts = load_file(p, format=format, stdin=stdin)
        except EnvkitError as exc:
            if errors is None:
                raise
            errors.append(exc)
            ts = []
        by_path[key] = ts
        targets.extend(ts)
    lock_targets = _lock_targets(lock, by_path, targets, stdin) if lock is not None else []
    if live is not None:
        t = live_target(live)
        if lock_targets:
            t.lock = lock_targets[0]
        targets.append(t)
    pair(targets, lock_targets[0] if lock_targets else None)
    from envkit.checks._manifest_pairs import pair_manifests

    pair_manifests(targets)
    from envkit.checks._compiled import pair_compiled

    pair_compiled(targets)
    return targets


def _lock_targets(lock: str, by_path: dict[str, list[Target]], targets: list[Target], stdin) -> list[Target]:
    """The targets of `--lock` (read and added to `targets` unless already among them); a file that
    holds no lock is a UsageError."""
    from envkit.checks._compiled import is_compiled
    from envkit.errors import UsageError, Where

    key = _file_key(lock)
    if key not in by_path:
        by_path[key] = load_file(lock, stdin=stdin)
        targets.extend(by_path[key])
    found = [t for t in by_path[key] if t.kind == "lock" or is_compiled(t)]
    if not found:
        raise UsageError(
            "--lock needs a lock file (conda-lock.yml, pixi.lock, an explicit file, a "
            "requirements file pip-compile wrote)",
            where=Where(file=lock),
        )
    return found


def _file_key(path: str) -> str:
    """One key per file however it is spelled (`conda-lock.yml`, `./conda-lock.yml`, its absolute
    path, a symlink to it), so that a file given twice is read and reported once."""
    from envkit.stdin import STDIN

    if path == STDIN:
        return path
    return os.path.realpath(path)


def pair(targets: list[Target], lock: Target | None = None) -> None:
    """Pair specs with the lock made from them, in place.

    With an explicit `lock` (`--lock`), every spec is paired with it.  Otherwise a conda-lock lock is
    paired with the specs its `metadata.sources` names, relative to the lock's own directory (one
    repository holds many projects, each with its `environment.yml` and `conda-lock.yml`); or, when
    exactly one spec and one conda-lock lock or explicit file are checked and nothing paired them,
    with that spec if it sits in the lock's directory.
    """
    specs = [t for t in targets if t.kind == "spec" and t.env_file is not None and t is not lock]
    if lock is not None:
        for s in specs:
            s.lock = lock
        if specs and lock.spec is None:
            lock.spec = specs[0]
        return
    locks = [
        (t, t.lock_model)
        for t in targets
        if t.kind == "lock" and t.lock_model is not None and t.lock_model.kind == "conda-lock"
    ]
    for lt, lock_model in locks:
        named = [s for s in specs if _names(lt.path, lock_model.sources, s.path)]
        for s in named:
            s.lock = s.lock or lt
        if named:
            lt.spec = named[0]
    # one spec and one lock of its folder, a conda-lock.yml or an explicit file (`conda-lock
    # render` writes it from the spec; it records no sources)
    single = [
        t for t in targets if t.kind == "lock" and t.lock_model is not None and t.lock_model.kind in _PAIRS
    ]
    only = single[0] if len(single) == 1 else None
    if (
        len(specs) == 1
        and only is not None
        and specs[0].lock is None
        and only.spec is None
        and _folder(specs[0].path) == _folder(only.path)
    ):
        specs[0].lock = only
        only.spec = specs[0]


#: the lock kinds a lone spec of their folder pairs with
_PAIRS = ("conda-lock", "explicit")


def _folder(path: str) -> str:
    return os.path.dirname(os.path.realpath(path))


def _names(lock_path: str, sources: Sequence[str], spec_path: str) -> bool:
    """Whether a lock at `lock_path` whose `metadata.sources` are `sources` was made from the spec
    at `spec_path`.  conda-lock records each source relative to the lock; a source recorded as an
    absolute path of another machine (a CI runner's checkout) names the file of that name beside
    the lock."""
    folder = _folder(lock_path)
    spec = os.path.realpath(spec_path)
    for s in sources:
        if os.path.realpath(os.path.join(folder, s)) == spec:
            return True
        beside = os.path.dirname(spec) == folder
        if os.path.isabs(s) and beside and os.path.basename(s) == os.path.basename(spec):
            return True
    return False
