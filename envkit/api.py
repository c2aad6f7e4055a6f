"""The functions `import envkit` exposes (see docs/api.md): typed, checked by mypy --strict.

Each function here converts what it is given, then calls the core or operation that does the work
(envkit.formats, envkit.canonical, envkit.envdiff, envkit.checks, envkit.backends, envkit.lock,
envkit.create, envkit.ops).  The static types say what each argument is; at run time only what a
type cannot say is checked:

* a bare `str` where a list belongs is a TypeError (`solve_spec(spec, 'linux-64')` would otherwise
  try the platforms 'l', 'i', 'n', ...), and so is a value that is neither a model nor a path where
  either is taken;
* an EnvkitError (UsageError, ParseError, ...) for a value that cannot be used: an unknown format,
  a file that holds a spec where a lock belongs, a timeout that is not positive, nothing to check.

Conveniences: `diff`, `check_lock`, `solve_spec`, `lock_spec`, `convert_model`, `create_from_lock`
and `run_checks` also take paths (str or os.PathLike) where they take a model (read with read_file).

The conversions are envkit.api_args.  Each facade's signature is its core's (names, kinds,
defaults; CONVENIENCE_DEFAULTS lists the deliberate differences): tests/api/test_api_signatures.py
compares them, so a core's new parameter cannot be missed here.

Importing this module costs nothing heavy: every core is imported inside the function using it.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, TypeAlias, TypeVar, cast

from envkit.api_args import (
    format_arg,
    is_path,
    model_arg,
    number_arg,
    opt_path,
    path_list,
    str_list,
    type_error,
    virtual_packages_arg,
)
from envkit.errors import Remedy

if TYPE_CHECKING:  # pragma: no cover
    from envkit.checks.core import Finding, Target
    from envkit.config import Config
    from envkit.create.from_lock import CreateResult
    from envkit.envdiff import EnvDiff
    from envkit.lock.check import LockProblem
    from envkit.lock.cutoff import ExcludeNewer
    from envkit.lock.staleness import Staleness
    from envkit.lock.virtual import VirtualPackage
    from envkit.machine.profile import MachineProfile
    from envkit.model import EnvSpec, LiveEnv, Lock
    from envkit.ops.check import CheckResult
    from envkit.ops.convert import ConvertResult
    from envkit.ops.lock import SpecLockResult
    from envkit.ops.template import TemplateResult

#: a file path, as the functions take one
Path: TypeAlias = "str | os.PathLike[str]"

__all__ = [
    "detect_format",
    "read_text",
    "read_file",
    "write_text",
    "normalize",
    "normalize_spec",
    "normalize_lock",
    "normalize_text",
    "diff",
    "load_targets",
    "run_checks",
    "check",
    "open_env",
    "lock_live",
    "solve_spec",
    "lock_spec",
    "check_lock",
    "create_from_lock",
    "convert_model",
    "pytorch_template",
]


# --------------------------------------------------------------------------------------------
# facades: each public function names the core it calls, in one place


#: facade name -> its core ("module:function").  tests/api/test_api_signatures.py compares each
#: facade's signature with its core's (names, kinds, defaults), so the two cannot drift apart.
CORES: dict[str, str] = {}

#: (facade, parameter) -> the facade's own default where it deliberately differs from the core's.
CONVENIENCE_DEFAULTS: dict[tuple[str, str], str] = {
    ("diff", "label_a"): "None: the path given, else 'A'",
    ("diff", "label_b"): "None: the path given, else 'B'",
    ("run_checks", "config"): "None: Config(), every rule at its default severity",
    ("solve_spec", "platforms"): "None: the spec's own platforms",
    ("convert_model", "source_format"): "None: the format a path is read as (a model needs it)",
}

F = TypeVar("F", bound=Callable[..., Any])


def _facade(core: str) -> Callable[[F], F]:
    """Record that the decorated function calls `core` ("module:function")."""

    def wrap(fn: F) -> F:
        CORES[fn.__name__] = core
        setattr(fn, "__envkit_core__", core)  # noqa: B010 (an attribute mypy does not know of)
        return fn

    return wrap


# --------------------------------------------------------------------------------------------
# formats and normalize


@_facade("envkit.formats:detect_format")
def detect_format(text: str, filename: Path | None = None) -> str:
    """The format of `text`, one of FORMATS (`filename` only breaks ties).  Raises ParseError when
    nothing fits."""
    from envkit.formats import detect_format as core

    return core(text, opt_path(filename))


@_facade("envkit.formats:read_text")
def read_text(
    text: str,
    *,
    filename: Path | None = None,
    format: str | None = None,
    environment: str | None = None,
) -> EnvSpec | Lock:
    """Parse `text` as `format` (detected when None): an EnvSpec (env, requirements) or a Lock.
    `environment` picks a pixi.lock environment.  Raises the ParseError family for bad input."""
    from envkit.formats import read_text as core

    model = core(text, filename=opt_path(filename), format=format_arg(format), environment=environment)
    return cast("EnvSpec | Lock", model)


@_facade("envkit.formats:read_file")
def read_file(path: Path, *, format: str | None = None, environment: str | None = None) -> EnvSpec | Lock:
    """Read and parse the file at `path` (see read_text); errors name the path as given."""
    from envkit.formats import read_file as core

    return cast("EnvSpec | Lock", core(os.fspath(path), format=format_arg(format), environment=environment))


@_facade("envkit.formats:write_text")
def write_text(model: EnvSpec | Lock, format: str, **opts: Any) -> str:
    """The text of `model` (EnvSpec or Lock) in `format` (see envkit.formats.write_text, which
    checks its own options)."""
    from envkit.formats import write_text as core

    return core(model, format, **opts)


@_facade("envkit.canonical:normalize")
def normalize(model: EnvSpec | Lock) -> EnvSpec | Lock:
    """The canonical form of `model`: an EnvSpec or a Lock (not a path or text: normalize_text
    takes text)."""
    from envkit.canonical import normalize as core

    return core(model)


@_facade("envkit.canonical:normalize_spec")
def normalize_spec(spec: EnvSpec, *, selectors: dict[int, str] | None = None) -> EnvSpec:
    """The canonical EnvSpec of `spec` (secrets in variables become placeholders).  `selectors`
    maps a dependency's line to its conda-build selector (`linux` for `# [linux]`): equal entries
    under different selectors are kept apart (see envkit.canonical.text_selectors)."""
    from envkit.canonical import normalize_spec as core

    return core(model_arg("normalize_spec", "spec", spec, ("EnvSpec",)), selectors=selectors)


@_facade("envkit.canonical:normalize_lock")
def normalize_lock(lock: Lock) -> Lock:
    """`lock` with its packages in canonical order."""
    from envkit.canonical import normalize_lock as core

    return core(model_arg("normalize_lock", "lock", lock, ("Lock",)))


@_facade("envkit.canonical:normalize_text")
def normalize_text(text: str, *, filename: Path | None = None, format: str | None = None) -> str:
    """`text` in canonical form, same format, comments kept.  UsageError for pixi.lock."""
    from envkit.canonical import normalize_text as core

    return core(text, filename=opt_path(filename), format=format_arg(format))


# --------------------------------------------------------------------------------------------
# diff and check


@_facade("envkit.envdiff:diff")
def diff(
    a: EnvSpec | Lock | LiveEnv | Path,
    b: EnvSpec | Lock | LiveEnv | Path,
    *,
    platform: str | None = None,
    host_platform: str | None = None,
    label_a: str | None = None,
    label_b: str | None = None,
    platform_a: str | None = None,
    platform_b: str | None = None,
) -> EnvDiff:
    """Compare two environments: each an EnvSpec, a Lock, a LiveEnv or the path of a file (read
    with read_file).  Labels default to the paths given, else "A" and "B".  Returns an EnvDiff."""
    from envkit.envdiff import diff as core

    names = ("EnvSpec", "Lock", "LiveEnv")
    ma = model_arg("diff", "a", a, names, paths=True)
    mb = model_arg("diff", "b", b, names, paths=True)
    if label_a is None:
        label_a = os.fspath(a) if is_path(a) else "A"
    if label_b is None:
        label_b = os.fspath(b) if is_path(b) else "B"
    return core(
        ma,
        mb,
        platform=platform,
        host_platform=host_platform,
        label_a=label_a,
        label_b=label_b,
        platform_a=platform_a,
        platform_b=platform_b,
    )


@_facade("envkit.checks:load_targets")
def load_targets(
    paths: Sequence[Path],
    *,
    lock: Path | None = None,
    live: LiveEnv | None = None,
    format: str | None = None,
    stdin: str | None = None,
) -> list[Target]:
    """Check targets for the files `paths` (a list; `-` is `stdin`), the `lock` file and the
    LiveEnv `live`, with spec/lock pairs set.  UsageError when there is nothing to check."""
    from envkit.checks.targets import load_targets as core

    items = [os.fspath(p) for p in path_list("load_targets", "paths", paths)]
    if live is not None:
        model_arg("load_targets", "live", live, ("LiveEnv",))
    if not items and lock is None and live is None:
        from envkit.errors import UsageError

        raise UsageError("load_targets(): nothing to check (no paths, no lock, no live environment)")
    return core(items, lock=opt_path(lock), live=live, format=format_arg(format), stdin=stdin)


@_facade("envkit.checks:run_checks")
def run_checks(
    targets: Sequence[Target] | Sequence[Path],
    config: Config | None = None,
    *,
    machine: MachineProfile | None = None,
) -> list[Finding]:
    """Run the rules `config` selects (None: every rule, default severities; a project's file is
    read by envkit.config.load_config) on `targets`: Targets from load_targets, or paths (then
    loaded with load_targets), against the MachineProfile `machine` when given (the machine-*
    rules, as `check --machine`; envkit.machine.resolve_machine reads one).  Returns the findings,
    sorted.  UsageError for no targets."""
    from envkit.checks.core import Target
    from envkit.checks.engine import run_checks as core
    from envkit.config import Config

    if isinstance(targets, Target):
        raise type_error(
            "run_checks",
            "targets",
            "a list of Targets (load_targets) or of paths",
            targets,
            " (one goes in a list: [target])",
        )
    items = list(path_list("run_checks", "targets", targets, "a list of Targets (load_targets) or of paths"))
    if not items:
        from envkit.errors import UsageError

        raise UsageError("run_checks(): nothing to check (no targets)")
    loaded: list[Target]
    if all(is_path(t) for t in items):
        loaded = load_targets(cast("list[Path]", items))
    elif any(is_path(t) for t in items):
        raise TypeError(
            "run_checks() argument 'targets' must hold Targets (from load_targets) or "
            "paths, not a path among Targets (give all paths or all Targets)"
        )
    else:
        loaded = cast("list[Target]", items)
    return core(loaded, config if config is not None else Config(), machine=machine)


@_facade("envkit.ops.check:check")
def check(
    paths: Sequence[str],
    *,
    lock: str | None = None,
    live: LiveEnv | None = None,
    stdin: str | None = None,
    format: str | None = None,
    config: Config | None = None,
    machine: MachineProfile | None = None,
    fix: bool = False,
) -> CheckResult:
    """Check files, a lock and a live environment as `envkit check` does (see envkit.ops.check):
    the findings, the files that could not be read, the fixes applied (`fix`), the duplicate
    warnings, as a CheckResult; against the MachineProfile `machine` when given."""
    from envkit.ops.check import check as core

    return core(
        list(str_list("check", "paths", paths, "paths") or ()),
        lock=lock,
        live=live,
        stdin=stdin,
        format=format_arg(format),
        config=config,
        machine=machine,
        fix=fix,
    )


# --------------------------------------------------------------------------------------------
# live environments, locking, creating, templates


@_facade("envkit.backends:open_env")
def open_env(
    name: str | None = None,
    prefix: Path | None = None,
    backend: str = "native",
    *,
    exe: Path | None = None,
    environ: Mapping[str, str] | None = None,
    strict: bool = True,
    timeout: float | None = None,
) -> LiveEnv:
    """Read the live environment named `name` or at `prefix` (neither: the active one) with
    `backend`; returns a LiveEnv.  Raises UsageError, EnvironmentNotFound, BackendError."""
    from envkit.backends import open_env as core

    return core(
        name,
        opt_path(prefix),
        backend,
        exe=opt_path(exe),
        environ=environ,
        strict=strict,
        timeout=number_arg("open_env", "timeout", timeout),
    )


@_facade("envkit.lock:lock_live")
def lock_live(
    env: LiveEnv,
    *,
    index_artifacts: Mapping[str, tuple[str, str | None]] | None = None,
    allow_unhashed_pip: bool = False,
) -> Lock:
    """Lock the LiveEnv `env` exactly, for its own platform, as `envkit lock -p` does (see
    envkit.lock.lock_live): BackendError when pip cannot resolve the artifact of a pip package
    installed from an index, unless `allow_unhashed_pip`."""
    from envkit.lock.live import lock_live as core

    hint = " (read it first: envkit.open_env(prefix=...))" if is_path(env) else None
    model_arg("lock_live", "env", env, ("LiveEnv",), hint=hint)
    return core(env, index_artifacts=index_artifacts, allow_unhashed_pip=allow_unhashed_pip)


@_facade("envkit.lock:solve_spec")
def solve_spec(
    spec: EnvSpec | Path,
    platforms: Sequence[str] | None = None,
    *,
    channel_priority: str = "strict",
    virtual_packages: Sequence[VirtualPackage | str] = (),
    lock_pip_section: bool = True,
    pip_timeout: float = 600,
    solve_timeout: float | None = 600,
    progress: Callable[[str], None] | None = None,
) -> Lock:
    """Solve the EnvSpec `spec` (or the spec file at that path) for each of `platforms` (a list;
    None: the spec's own `platforms:`) and return the Lock.  `virtual_packages` may be text
    (`__cuda=12.4`).  Raises SolveError, UsageError, BackendError."""
    from envkit.lock.solve import solve_spec as core

    spec_m = model_arg("solve_spec", "spec", spec, ("EnvSpec",), paths=True)
    plats = str_list("solve_spec", "platforms", platforms, "platform names", optional=True) or ()
    return core(
        spec_m,
        plats,
        channel_priority=channel_priority,
        virtual_packages=virtual_packages_arg("solve_spec", virtual_packages),
        lock_pip_section=lock_pip_section,
        pip_timeout=number_arg("solve_spec", "pip_timeout", pip_timeout),
        solve_timeout=number_arg("solve_spec", "solve_timeout", solve_timeout),
        progress=progress,
    )


@_facade("envkit.ops.lock:lock_spec")
def lock_spec(
    spec: EnvSpec | Path,
    *,
    platforms: Sequence[str] = (),
    previous: Lock | Path | None = None,
    update: Sequence[str] = (),
    update_all: bool = False,
    exclude_newer: ExcludeNewer | str | None = None,
    channel_priority: str = "strict",
    virtual_packages: Sequence[VirtualPackage | str] = (),
    environ: Mapping[str, str] | None = None,
    solver: str = "rattler",
    lock_pip_section: bool = True,
    progress: Callable[[str], None] | None = None,
) -> SpecLockResult:
    """Lock `spec` (an EnvSpec or the path of one) as `envkit lock -f` does (see
    envkit.ops.lock.lock_spec): for `platforms` (a list; default its own, else the previous
    lock's, else this machine's); over `previous` (a Lock or the path of one), keeping what it chose
    except the names in `update` (or everything, `update_all`); `exclude_newer` an ExcludeNewer or
    the text of `--exclude-newer` (`2024-06-01`, `30d`).  Returns a SpecLockResult: the lock, the
    moves from `previous`, the warnings.  Raises ParseError, UsageError, SolveError, BackendError."""
    from envkit.ops.lock import lock_spec as core

    spec_m = model_arg("lock_spec", "spec", spec, ("EnvSpec",), paths=True)
    prev = None
    if previous is not None:
        prev = model_arg("lock_spec", "previous", previous, ("Lock",), paths=True)
    cutoffs = exclude_newer
    if isinstance(cutoffs, str):
        from envkit.lock.cutoff import parse_exclude_newer

        cutoffs = parse_exclude_newer(cutoffs)
    return core(
        spec_m,
        platforms=str_list("lock_spec", "platforms", platforms, "platform names"),
        previous=prev,
        update=str_list("lock_spec", "update", update, "package names"),
        update_all=update_all,
        exclude_newer=cutoffs,
        channel_priority=channel_priority,
        virtual_packages=virtual_packages_arg("lock_spec", virtual_packages),
        environ=environ,
        solver=solver,
        lock_pip_section=lock_pip_section,
        progress=progress,
    )


@_facade("envkit.lock:check_lock")
def check_lock(
    spec: EnvSpec | Path,
    lock: Lock | Path,
    *,
    platforms: Sequence[str] | None = None,
    spec_path: Path | None = None,
    lock_text: str | None = None,
    staleness: Sequence[Staleness] | None = None,
    virtual_packages: Sequence[VirtualPackage | str] = (),
) -> list[LockProblem]:
    """The problems that make `lock` unfit for `spec` (empty when it fits).  `spec` is an EnvSpec
    or the path of one, `lock` a Lock or the path of one.  UsageError when the lock names no
    platform and `platforms` gives none (nothing would be checked)."""
    from envkit.lock.check import check_lock as core

    spec_m = model_arg("check_lock", "spec", spec, ("EnvSpec",), paths=True)
    lock_m = model_arg("check_lock", "lock", lock, ("Lock",), paths=True)
    plats = str_list("check_lock", "platforms", platforms, "platform names", optional=True)
    if not (plats or lock_m.platforms):
        from envkit.errors import UsageError, Where

        raise UsageError(
            "the lock names no platform, so nothing would be checked",
            where=Where(file=lock_m.source),
            hint="pass {}",
            remedy=Remedy(option="platforms", many=True),
        )
    return core(
        spec_m,
        lock_m,
        platforms=plats,
        spec_path=opt_path(spec_path),
        lock_text=lock_text,
        staleness=staleness,
        virtual_packages=virtual_packages_arg("check_lock", virtual_packages),
    )


@_facade("envkit.create:create_from_lock")
def create_from_lock(
    lock: Lock | Path,
    prefix: Path,
    *,
    platform: str | None = None,
    backend: str = "rattler",
    executable: Path | None = None,
    cache_dir: Path | None = None,
    timeout: float = 1800,
    environments: Mapping[str, Sequence[str]] | None = None,
    show_progress: bool = False,
) -> CreateResult:
    """Create `prefix` with exactly the packages `lock` (a Lock, or the path of a lock file) has
    for `platform` (default: this machine's).  Returns a CreateResult.  Raises UsageError,
    IntegrityError, BackendError (see envkit.create.create_from_lock)."""
    from envkit.create import create_from_lock as core

    lock_m = model_arg("create_from_lock", "lock", lock, ("Lock",), paths=True)
    return core(
        lock_m,
        os.fspath(prefix),
        platform=platform,
        backend=backend,
        executable=opt_path(executable),
        cache_dir=opt_path(cache_dir),
        timeout=number_arg("create_from_lock", "timeout", timeout),
        environments=environments,
        show_progress=show_progress,
    )


@_facade("envkit.ops.convert:convert_model")
def convert_model(
    model: EnvSpec | Lock | Path,
    target: str,
    *,
    source_format: str | None = None,
    platform: str | None = None,
) -> ConvertResult:
    """`model` (an EnvSpec, a Lock or the path of a file, read with read_file) written as `target`
    (one of envkit.convert.TARGETS), read back and diffed against it, as `envkit convert` does (see
    envkit.ops.convert.convert_model).  `source_format` is the format the model was read from
    (None: the one the path is read as); `platform` the platform to write for a one-platform
    target.  Returns a ConvertResult: `text`, `losses`, `changes_install`, `notes`, `verified`.
    Raises UsageError (an unknown target, a spec where a lock belongs, several platforms)."""
    from envkit.ops.convert import convert_model as core

    fmt = format_arg(source_format)
    if is_path(model):
        from envkit.formats import detect_format as detect
        from envkit.io import read_text as read_path

        path, text = os.fspath(model), read_path(os.fspath(model))
        fmt = fmt or detect(text, path)
        model = read_text(text, filename=path, format=fmt)
    model_m = model_arg("convert_model", "model", model, ("EnvSpec", "Lock"), paths=True)
    if fmt is None:
        from envkit.errors import UsageError

        raise UsageError(
            "convert_model(): a model needs the format it was read from (what that format carries)",
            hint="pass {}",
            remedy=Remedy(option="source_format", metavar="FORMAT"),
        )
    return core(model_m, target, source_format=fmt, platform=platform)


@_facade("envkit.ops.template:pytorch_template")
def pytorch_template(
    *,
    torch: str | None = None,
    cuda: str | None = None,
    cpu: bool = False,
    detect: bool = False,
    machine: MachineProfile | str | None = None,
    python: str | None = None,
    style: str = "conda-forge",
    with_: Sequence[str] | None = None,
    name: str | None = None,
    output: str | None = None,
) -> TemplateResult:
    """A PyTorch+CUDA (or CPU) environment file that installs, as `envkit template pytorch`
    writes it (see envkit.ops.template.pytorch_template).  UsageError for a combination that
    does not exist, listing what does."""
    from envkit.ops.template import pytorch_template as core

    return core(
        torch=torch,
        cuda=cuda,
        cpu=cpu,
        detect=detect,
        machine=machine,
        python=python,
        style=style,
        with_=str_list("pytorch_template", "with_", with_, "package names", optional=True),
        name=name,
        output=output,
    )
