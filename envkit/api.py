"""The functions `import envkit` exposes, with their arguments checked (see docs/api.md).

Each function here checks what it is given, then calls the core that does the work
(envkit.formats, envkit.canonical, envkit.envdiff, envkit.checks, envkit.backends, envkit.lock,
envkit.create).  Misuse is answered, before any work, with

* TypeError for an argument of the wrong Python type, naming what was expected and what was given
  (`diff() argument 'a' must be EnvSpec, Lock, LiveEnv or a path, not int`).  A bare `str` where
  a list belongs is one of these (`solve_spec(spec, 'linux-64')` would otherwise try the platforms
  'l', 'i', 'n', ...);
* an EnvkitError (UsageError, ParseError, ...) for a value that cannot be used: an unknown format,
  a file that holds a spec where a lock belongs, nothing to check.

Conveniences: `diff`, `check_lock`, `solve_spec`, `create_from_lock` and `run_checks` also take
paths (str or os.PathLike) where they take a model, and read the file with `read_file`.

The checks themselves are envkit.api_args.  Each facade's signature is its core's (names, kinds,
defaults; CONVENIENCE_DEFAULTS lists the deliberate differences): tests/api/test_api_signatures.py
compares them, so a core's new parameter cannot be missed here.

Importing this module costs nothing heavy: every core is imported inside the function using it.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping

from envkit.api_args import (
    callable_arg,
    flag_arg,
    format_arg,
    is_path,
    lock_hint,
    model_arg,
    model_types,
    number_arg,
    opt_str,
    path_arg,
    spec_hint,
    str_list,
    text_arg,
    type_error,
    virtual_packages_arg,
)

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
    "open_env",
    "lock_live",
    "solve_spec",
    "check_lock",
    "create_from_lock",
]


# --------------------------------------------------------------------------------------------
# facades: each public function names the core it checks arguments for, in one place


#: facade name -> its core ("module:function").  tests/api/test_api_signatures.py compares each
#: facade's signature with its core's (names, kinds, defaults), so the two cannot drift apart.
CORES: dict[str, str] = {}

#: (facade, parameter) -> the facade's own default where it deliberately differs from the core's.
CONVENIENCE_DEFAULTS: dict[tuple[str, str], str] = {
    ("diff", "label_a"): "None: the path given, else 'A'",
    ("diff", "label_b"): "None: the path given, else 'B'",
    ("run_checks", "config"): "None: Config(), every rule at its default severity",
    ("solve_spec", "platforms"): "None: the spec's own platforms",
}


def _facade(core: str):
    """Record that the decorated function checks the arguments of `core` ("module:function")."""

    def wrap(fn):
        CORES[fn.__name__] = core
        fn.__envkit_core__ = core
        return fn

    return wrap


def _core(name: str):
    """The core function behind facade `name`, imported now (never when envkit.api is)."""
    import importlib

    module, _, attr = CORES[name].partition(":")
    return getattr(importlib.import_module(module), attr)


# --------------------------------------------------------------------------------------------
# formats and normalize


@_facade("envkit.formats:detect_format")
def detect_format(text: str, filename: str | os.PathLike[str] | None = None) -> str:
    """The format of `text`, one of FORMATS (`filename` only breaks ties).  Raises ParseError when
    nothing fits."""
    core = _core("detect_format")

    return core(
        text_arg("detect_format", "text", text),
        path_arg("detect_format", "filename", filename, optional=True),
    )


@_facade("envkit.formats:read_text")
def read_text(
    text: str,
    *,
    filename: str | os.PathLike[str] | None = None,
    format: str | None = None,
    environment: str | None = None,
):
    """Parse `text` as `format` (detected when None): an EnvSpec (env, requirements) or a Lock.
    `environment` picks a pixi.lock environment.  Raises the ParseError family for bad input."""
    core = _core("read_text")

    return core(
        text_arg("read_text", "text", text),
        filename=path_arg("read_text", "filename", filename, optional=True),
        format=format_arg("read_text", format),
        environment=opt_str("read_text", "environment", environment),
    )


@_facade("envkit.formats:read_file")
def read_file(path: str | os.PathLike[str], *, format: str | None = None, environment: str | None = None):
    """Read and parse the file at `path` (see read_text); errors name the path as given."""
    core = _core("read_file")

    return core(
        path_arg("read_file", "path", path),
        format=format_arg("read_file", format),
        environment=opt_str("read_file", "environment", environment),
    )


@_facade("envkit.formats:write_text")
def write_text(model, format: str, **opts) -> str:
    """The text of `model` (EnvSpec or Lock) in `format` (see envkit.formats.write_text, which
    checks its own arguments)."""
    core = _core("write_text")

    return core(model, format, **opts)


@_facade("envkit.canonical:normalize")
def normalize(model):
    """The canonical form of `model`: an EnvSpec or a Lock (not a path or text: normalize_text
    takes text).  TypeError for anything else."""
    core = _core("normalize")

    return core(model)


@_facade("envkit.canonical:normalize_spec")
def normalize_spec(spec, *, selectors=None):
    """The canonical EnvSpec of `spec` (secrets in variables become placeholders).  `selectors`
    maps a dependency's line to its conda-build selector (`linux` for `# [linux]`): equal entries
    under different selectors are kept apart (see envkit.canonical.text_selectors)."""
    core = _core("normalize_spec")

    if selectors is not None and not isinstance(selectors, dict):
        raise TypeError(
            f"normalize_spec(selectors=...) takes a dict (line -> selector) or None, "
            f"not {type(selectors).__name__}"
        )
    return core(model_arg("normalize_spec", "spec", spec, ("EnvSpec",)), selectors=selectors)


@_facade("envkit.canonical:normalize_lock")
def normalize_lock(lock):
    """`lock` with its packages in canonical order."""
    core = _core("normalize_lock")

    return core(model_arg("normalize_lock", "lock", lock, ("Lock",), hint=lock_hint(lock)))


@_facade("envkit.canonical:normalize_text")
def normalize_text(
    text: str, *, filename: str | os.PathLike[str] | None = None, format: str | None = None
) -> str:
    """`text` in canonical form, same format, comments kept.  UsageError for pixi.lock."""
    core = _core("normalize_text")

    return core(
        text_arg("normalize_text", "text", text),
        filename=path_arg("normalize_text", "filename", filename, optional=True),
        format=format_arg("normalize_text", format),
    )


# --------------------------------------------------------------------------------------------
# diff and check


@_facade("envkit.envdiff:diff")
def diff(
    a,
    b,
    *,
    platform: str | None = None,
    host_platform: str | None = None,
    label_a: str | None = None,
    label_b: str | None = None,
    platform_a: str | None = None,
    platform_b: str | None = None,
):
    """Compare two environments: each an EnvSpec, a Lock, a LiveEnv or the path of a file (read
    with read_file).  Labels default to the paths given, else "A" and "B".  Returns an EnvDiff."""
    core = _core("diff")

    names = ("EnvSpec", "Lock", "LiveEnv")
    ma = model_arg("diff", "a", a, names, paths=True)
    mb = model_arg("diff", "b", b, names, paths=True)
    for param, value in (
        ("platform", platform),
        ("host_platform", host_platform),
        ("label_a", label_a),
        ("label_b", label_b),
        ("platform_a", platform_a),
        ("platform_b", platform_b),
    ):
        opt_str("diff", param, value)
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
    paths,
    *,
    lock: str | os.PathLike[str] | None = None,
    live=None,
    format: str | None = None,
    stdin: str | None = None,
) -> list:
    """Check targets for the files `paths` (a list; `-` is `stdin`), the `lock` file and the
    LiveEnv `live`, with spec/lock pairs set.  UsageError when there is nothing to check."""
    core = _core("load_targets")

    if isinstance(paths, (str, bytes, os.PathLike)):
        raise type_error(
            "load_targets", "paths", "a list of paths", paths, f" (one goes in a list: [{paths!r}])"
        )
    if not isinstance(paths, Iterable) or isinstance(paths, Mapping):
        raise type_error("load_targets", "paths", "a list of paths", paths)
    items = [path_arg("load_targets", "paths[]", p) for p in paths]
    if live is not None:
        model_arg("load_targets", "live", live, ("LiveEnv",))
    lock = path_arg("load_targets", "lock", lock, optional=True)
    if not items and lock is None and live is None:
        from envkit.errors import UsageError

        raise UsageError("load_targets(): nothing to check (no paths, no lock, no live environment)")
    return core(
        items,
        lock=lock,
        live=live,
        format=format_arg("load_targets", format),
        stdin=opt_str("load_targets", "stdin", stdin),
    )


@_facade("envkit.checks:run_checks")
def run_checks(targets, config=None, *, machine=None) -> list:
    """Run the rules `config` selects (None: every rule, default severities; a project's file is
    read by envkit.config.load_config) on `targets`: Targets from load_targets, or paths (then
    loaded with load_targets), against the MachineProfile `machine` when given (the machine-*
    rules, as `check --machine`; envkit.machine.resolve_machine reads one).  Returns the findings,
    sorted.  UsageError for no targets."""
    core = _core("run_checks")
    from envkit.checks.core import Target
    from envkit.config import Config

    if isinstance(targets, (str, bytes, os.PathLike, Target)):
        one = f"[{targets!r}]" if not isinstance(targets, Target) else "[target]"
        raise type_error(
            "run_checks",
            "targets",
            "a list of Targets (load_targets) or of paths",
            targets,
            f" (one goes in a list: {one})",
        )
    if not isinstance(targets, Iterable) or isinstance(targets, Mapping):
        raise type_error("run_checks", "targets", "a list of Targets (load_targets) or of paths", targets)
    items = list(targets)
    if config is None:
        config = Config()
    elif not isinstance(config, Config):
        raise type_error("run_checks", "config", "Config or None", config)
    if not items:
        from envkit.errors import UsageError

        raise UsageError("run_checks(): nothing to check (no targets)")
    if all(is_path(t) for t in items):
        items = load_targets(items)
    else:
        for t in items:
            if not isinstance(t, Target):
                what = (
                    "a path among Targets (give all paths or all Targets)" if is_path(t) else type(t).__name__
                )
                raise TypeError(
                    f"run_checks() argument 'targets' must hold Targets (from load_targets) or "
                    f"paths, not {what}"
                )
    if machine is not None:
        from envkit.machine.profile import MachineProfile

        if not isinstance(machine, MachineProfile):
            raise type_error(
                "run_checks", "machine", "a MachineProfile (envkit.machine.resolve_machine) or None", machine
            )
    return core(items, config, machine=machine)


# --------------------------------------------------------------------------------------------
# live environments, locking, creating


@_facade("envkit.backends:open_env")
def open_env(
    name: str | None = None,
    prefix: str | os.PathLike[str] | None = None,
    backend: str = "native",
    *,
    exe: str | os.PathLike[str] | None = None,
    environ: Mapping[str, str] | None = None,
    strict: bool = True,
    timeout: float | None = None,
):
    """Read the live environment named `name` or at `prefix` (neither: the active one) with
    `backend`; returns a LiveEnv.  Raises UsageError, EnvironmentNotFound, BackendError."""
    core = _core("open_env")

    if environ is not None and not isinstance(environ, Mapping):
        raise type_error("open_env", "environ", "a mapping (os.environ, a dict) or None", environ)
    if not isinstance(backend, str):
        raise type_error("open_env", "backend", "str", backend)
    exe = path_arg("open_env", "exe", exe, optional=True)
    return core(
        opt_str("open_env", "name", name),
        path_arg("open_env", "prefix", prefix, optional=True),
        backend,
        exe=exe,
        environ=environ,
        strict=flag_arg("open_env", "strict", strict),
        timeout=number_arg("open_env", "timeout", timeout, optional=True),
    )


@_facade("envkit.lock:lock_live")
def lock_live(
    env,
    *,
    index_artifacts: Mapping[str, tuple[str, str | None]] | None = None,
    allow_unhashed_pip: bool = False,
):
    """Lock the LiveEnv `env` exactly, for its own platform, as `envkit lock -p` does (see
    envkit.lock.lock_live): BackendError when pip cannot resolve the artifact of a pip package
    installed from an index, unless `allow_unhashed_pip`."""
    core = _core("lock_live")

    hint = (
        " (read it first: envkit.open_env(prefix=...))"
        if is_path(env)
        else " (a spec is locked by envkit.solve_spec)"
        if isinstance(env, model_types("EnvSpec"))
        else ""
    )
    model_arg("lock_live", "env", env, ("LiveEnv",), hint=hint)
    if index_artifacts is not None and not isinstance(index_artifacts, Mapping):
        raise type_error("lock_live", "index_artifacts", "a mapping or None", index_artifacts)
    return core(
        env,
        index_artifacts=index_artifacts,
        allow_unhashed_pip=flag_arg("lock_live", "allow_unhashed_pip", allow_unhashed_pip),
    )


@_facade("envkit.lock:solve_spec")
def solve_spec(
    spec,
    platforms=None,
    *,
    channel_priority: str = "strict",
    virtual_packages=(),
    lock_pip_section: bool = True,
    pip_timeout: float = 600,
    solve_timeout: float | None = 600,
    progress=None,
):
    """Solve the EnvSpec `spec` (or the spec file at that path) for each of `platforms` (a list;
    None: the spec's own `platforms:`) and return the Lock.  `virtual_packages` may be text
    (`__cuda=12.4`).  Raises SolveError, UsageError, BackendError."""
    core = _core("solve_spec")

    spec = model_arg("solve_spec", "spec", spec, ("EnvSpec",), paths=True, hint=spec_hint(spec))
    plats = str_list("solve_spec", "platforms", platforms, "platform names", optional=True) or ()
    if not isinstance(channel_priority, str):
        raise type_error("solve_spec", "channel_priority", "str", channel_priority)
    return core(
        spec,
        plats,
        channel_priority=channel_priority,
        virtual_packages=virtual_packages_arg("solve_spec", virtual_packages),
        lock_pip_section=flag_arg("solve_spec", "lock_pip_section", lock_pip_section),
        pip_timeout=number_arg("solve_spec", "pip_timeout", pip_timeout),
        solve_timeout=number_arg("solve_spec", "solve_timeout", solve_timeout, optional=True),
        progress=callable_arg("solve_spec", "progress", progress),
    )


@_facade("envkit.lock:check_lock")
def check_lock(
    spec,
    lock,
    *,
    platforms=None,
    spec_path: str | os.PathLike[str] | None = None,
    lock_text: str | None = None,
    staleness=None,
    virtual_packages=(),
) -> list:
    """The problems that make `lock` unfit for `spec` (empty when it fits).  `spec` is an EnvSpec
    or the path of one, `lock` a Lock or the path of one.  UsageError when the lock names no
    platform and `platforms` gives none (nothing would be checked)."""
    from envkit.lock import Staleness

    core = _core("check_lock")

    spec_m = model_arg("check_lock", "spec", spec, ("EnvSpec",), paths=True, hint=spec_hint(spec))
    lock_m = model_arg("check_lock", "lock", lock, ("Lock",), paths=True, hint=lock_hint(lock))
    plats = str_list("check_lock", "platforms", platforms, "platform names", optional=True)
    spec_path = path_arg("check_lock", "spec_path", spec_path, optional=True)
    opt_str("check_lock", "lock_text", lock_text)
    if staleness is not None:
        if isinstance(staleness, Staleness) or not isinstance(staleness, Iterable):
            raise type_error("check_lock", "staleness", "a list of Staleness or None", staleness)
        staleness = list(staleness)
        for s in staleness:
            if not isinstance(s, Staleness):
                raise TypeError(
                    f"check_lock() argument 'staleness' must hold Staleness, not {type(s).__name__}"
                )
    if not (plats or lock_m.platforms):
        from envkit.errors import UsageError, Where

        raise UsageError(
            "the lock names no platform, so nothing would be checked",
            where=Where(file=lock_m.source),
            hint="pass platforms=[...]",
        )
    return core(
        spec_m,
        lock_m,
        platforms=plats,
        spec_path=spec_path,
        lock_text=lock_text,
        staleness=staleness,
        virtual_packages=virtual_packages_arg("check_lock", virtual_packages),
    )


@_facade("envkit.create:create_from_lock")
def create_from_lock(
    lock,
    prefix: str | os.PathLike[str],
    *,
    platform: str | None = None,
    backend: str = "rattler",
    executable: str | os.PathLike[str] | None = None,
    cache_dir: str | os.PathLike[str] | None = None,
    timeout: float = 1800,
    environments: Mapping | None = None,
    show_progress: bool = False,
):
    """Create `prefix` with exactly the packages `lock` (a Lock, or the path of a lock file) has
    for `platform` (default: this machine's).  Returns a CreateResult.  Raises UsageError,
    IntegrityError, BackendError (see envkit.create.create_from_lock)."""
    core = _core("create_from_lock")

    lock = model_arg("create_from_lock", "lock", lock, ("Lock",), paths=True, hint=lock_hint(lock))
    if not isinstance(backend, str):
        raise type_error("create_from_lock", "backend", "str", backend)
    if environments is not None and not isinstance(environments, Mapping):
        raise type_error("create_from_lock", "environments", "a mapping or None", environments)
    return core(
        lock,
        path_arg("create_from_lock", "prefix", prefix),
        platform=opt_str("create_from_lock", "platform", platform),
        backend=backend,
        executable=path_arg("create_from_lock", "executable", executable, optional=True),
        cache_dir=path_arg("create_from_lock", "cache_dir", cache_dir, optional=True),
        timeout=number_arg("create_from_lock", "timeout", timeout),
        environments=environments,
        show_progress=flag_arg("create_from_lock", "show_progress", show_progress),
    )
