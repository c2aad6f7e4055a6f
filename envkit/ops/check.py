"""The check operation: load the targets, run the rules (the machine-* rules too when a machine
profile is given), apply the safe fixes when asked, and return everything as a CheckResult."""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from envkit.errors import EnvkitError, Remedy, UsageError

if TYPE_CHECKING:  # pragma: no cover
    from envkit.checks.core import Finding, Target
    from envkit.checks.fix import Fixed
    from envkit.config import Config
    from envkit.machine.profile import MachineProfile
    from envkit.model import LiveEnv


@dataclass(frozen=True, slots=True, kw_only=True)
class CheckResult:
    """What a check found.  `unreadable`: the files that could not be read (left out, when several
    were given); `entry_errors`: the malformed entries of the files that were read (one error each);
    `warnings`: other notes for stderr (none today: a conda+pip duplicate is a finding of
    `conda-pip-duplicate`, not also a warning)."""

    targets: tuple[Target, ...]
    findings: tuple[Finding, ...]
    fixed: tuple[Fixed, ...] = ()
    unreadable: tuple[EnvkitError, ...] = ()
    entry_errors: tuple[EnvkitError, ...] = ()
    warnings: tuple[str, ...] = ()

    @property
    def checked(self) -> tuple[str, ...]:
        """The files checked, each once, in order."""
        return tuple(dict.fromkeys(t.path for t in self.targets if t.kind != "live"))

    @property
    def environments(self) -> tuple[str, ...]:
        """The live environments checked."""
        return tuple(t.path for t in self.targets if t.kind == "live")

    @property
    def unusable(self) -> bool:
        """Some input could not be used: a file unread, a malformed entry, YAML that did not parse."""
        return bool(self.unreadable or self.entry_errors) or any(
            t.parse_error is not None for t in self.targets
        )

    def fails(self, threshold: str) -> bool:
        """A finding is at least as severe as `threshold` (error, warning, info)."""
        from envkit.checks import severity_at_least

        return any(severity_at_least(f.severity, threshold) for f in self.findings)


#: the files a directory is searched for (envkit.checks.targets.discover)
_FOUND = (
    "environment.yml, environment.yaml, conda-lock.yml, pixi.lock, pixi.toml, pyproject.toml, uv.lock "
    "or pylock.toml"
)


def check_paths(
    files: Sequence[str | os.PathLike[str]], *, live: bool = False, lock: str | os.PathLike[str] | None = None
) -> list[str]:
    """The files to check: each of `files`, a directory as the environment files in it and below
    it (not in hidden folders or environments); with none (and no `live` environment), the
    environment files of the working directory.  UsageError when there is nothing to check."""
    from envkit.checks.targets import discover, discover_tree

    paths: list[str] = []
    for f in [os.fspath(p) for p in files]:
        if f != "-" and os.path.isdir(f):
            found = discover_tree(f)
            if not found:
                raise UsageError(
                    f"{f}: a directory with no {_FOUND} in it or below it", hint="pass the files to check"
                )
            paths += found
        else:
            paths.append(f)
    if not paths and not live:
        paths = discover(".")
        if not paths and lock is None:
            raise UsageError(
                f"nothing to check: no file given and no {_FOUND} here",
                hint="pass files, or {} / {} for a live environment",
                remedy=(Remedy(option="name", metavar="NAME"), Remedy(option="prefix", metavar="PREFIX")),
            )
    return paths


def check(
    paths: Sequence[str | os.PathLike[str]],
    *,
    lock: str | os.PathLike[str] | None = None,
    live: LiveEnv | None = None,
    stdin: str | None = None,
    format: str | None = None,
    config: Config | None = None,
    machine: MachineProfile | None = None,
    fix: bool = False,
) -> CheckResult:
    """Check the files `paths` (`-` is the text `stdin`), the `lock` file and the LiveEnv `live`
    with the rules `config` selects (None: every rule), against the MachineProfile `machine` when
    given (the machine-* rules).  With several paths, one that cannot be read is left out and its
    error returned in `unreadable`.  With `fix`, the safe fixes are applied (each file rewritten
    atomically) and the files checked again.  Raises UsageError for an unknown rule in a file's
    inline suppression, EnvkitError for an input that cannot be read (one path)."""
    from envkit.config import Config
    from envkit.ops._inputs import opt_path, str_list

    files = [os.fspath(p) for p in str_list("check", "paths", paths, "paths")]
    lock_file = opt_path(lock)
    config = config or Config()
    collect: list[EnvkitError] | None = [] if len(files) > 1 else None
    targets, findings = _run(files, lock_file, live, stdin, format, config, machine, collect)
    fixed: list[Fixed] = []
    if fix and any(f.fixable for f in findings):
        from envkit.checks.fix import apply_fixes

        fixed = apply_fixes(findings, {t.path: t.text for t in targets if t.text is not None})
        if fixed:
            collect = [] if collect is not None else None
            targets, findings = _run(files, lock_file, live, stdin, format, config, machine, collect)
    return CheckResult(
        targets=tuple(targets),
        findings=tuple(findings),
        fixed=tuple(fixed),
        unreadable=tuple(collect or ()),
        entry_errors=_entry_errors(targets),
    )


def load_targets(
    paths: Sequence[str | os.PathLike[str]],
    *,
    lock: str | os.PathLike[str] | None = None,
    live: LiveEnv | None = None,
    format: str | None = None,
    stdin: str | None = None,
) -> list[Target]:
    """Check targets for the files `paths` (a list; `-` is the text `stdin`), the `lock` file and
    the LiveEnv `live`, with spec/lock pairs set.  UsageError when there is nothing to check or
    `-` is given more than once; the ParseError family for a file that cannot be read."""
    from envkit.checks.targets import load_targets
    from envkit.ops._inputs import model_or_path, opt_path, str_list

    files = [os.fspath(p) for p in str_list("load_targets", "paths", paths, "paths")]
    if live is not None:
        model_or_path("load_targets", "live", live, ("LiveEnv",), paths=False)
    if not files and lock is None and live is None:
        raise UsageError(
            "load_targets(): nothing to check (no paths, no lock, no live environment)",
            hint="pass {}",
            remedy=Remedy(option="paths", many=True, metavar="PATH"),
        )
    return load_targets(files, lock=opt_path(lock), live=live, format=format, stdin=stdin)


def run_checks(
    targets: Sequence[Target] | Sequence[str | os.PathLike[str]],
    config: Config | None = None,
    *,
    machine: MachineProfile | None = None,
) -> list[Finding]:
    """Run the rules `config` selects (None: every rule at its default severity; a project's file
    is read by envkit.config.load_config) on `targets`: Targets from load_targets, or paths (then
    loaded with load_targets), against the MachineProfile `machine` when given (the machine-*
    rules; envkit.machine.resolve_machine reads one).  Returns the findings, sorted.  UsageError
    for no targets or an unknown rule in an inline suppression."""
    from envkit.checks import run_checks as run
    from envkit.checks.core import Target
    from envkit.config import Config
    from envkit.ops._inputs import is_path, str_list, type_error

    what = "a list of Targets (load_targets) or of paths"
    if targets is None or isinstance(targets, Target):
        hint = " (one goes in a list: [target])" if targets is not None else ""
        raise type_error("run_checks", "targets", what, targets, hint)
    items = str_list("run_checks", "targets", targets, "Targets (load_targets) or of paths")
    if not items:
        raise UsageError("run_checks(): nothing to check (no targets)")
    paths = [t for t in items if is_path(t)]
    if paths and len(paths) < len(items):
        raise TypeError(
            "run_checks() argument 'targets' must hold Targets (from load_targets) or "
            "paths, not a path among Targets (give all paths or all Targets)"
        )
    loaded = load_targets(paths) if paths else [t for t in items if isinstance(t, Target)]
    if len(loaded) < len(items) and not paths:
        stray = next(t for t in items if not isinstance(t, Target))
        raise type_error("run_checks", "targets", what, stray)
    findings: list[Finding] = run(loaded, config if config is not None else Config(), machine=machine)
    return findings


def _run(
    paths: Sequence[str],
    lock: str | None,
    live: LiveEnv | None,
    stdin: str | None,
    format: str | None,
    config: Config,
    machine: MachineProfile | None,
    errors: list[EnvkitError] | None,
) -> tuple[list[Target], list[Finding]]:
    from envkit.checks import run_checks
    from envkit.checks.targets import load_targets

    targets = load_targets(paths, lock=lock, live=live, stdin=stdin, format=format, errors=errors)
    return targets, run_checks(targets, config, machine=machine)


def _entry_errors(targets: Sequence[Target]) -> tuple[EnvkitError, ...]:
    seen: set[int] = set()
    errors: list[EnvkitError] = []
    for t in targets:
        if id(t.entry_errors) not in seen:  # the environments of one file share one list
            seen.add(id(t.entry_errors))
            errors += t.entry_errors
    return tuple(errors)
