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

Importing this module costs nothing heavy: every core is imported inside the function using it.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping

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


#: facade name -> its core ("module:function").  tests/test_api_signatures.py compares each
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
# argument checks


def _type_error(func: str, param: str, expected: str, value, hint: str = "") -> TypeError:
    return TypeError(f"{func}() argument {param!r} must be {expected}, not {type(value).__name__}{hint}")


def _is_path(value) -> bool:
    return isinstance(value, (str, os.PathLike)) and isinstance(os.fspath(value), str)


def _path(func: str, param: str, value, *, optional: bool = False) -> str | None:
    """`value` as a str path; TypeError for anything but str / os.PathLike (bytes paths included)."""
    if value is None and optional:
        return None
    if not _is_path(value):
        raise _type_error(func, param, "str or os.PathLike" + (" or None" if optional else ""), value)
    return os.fspath(value)


def _text(func: str, param: str, value) -> str:
    if not isinstance(value, str):
        hint = " (decode it first: data.decode('utf-8'))" if isinstance(value, (bytes, bytearray)) else ""
        raise _type_error(func, param, "str", value, hint)
    return value


def _opt_str(func: str, param: str, value) -> str | None:
    if value is not None and not isinstance(value, str):
        raise _type_error(func, param, "str or None", value)
    return value


def _number(func: str, param: str, value, *, optional: bool = False) -> float | None:
    """A positive number of seconds (bool is no number here)."""
    if value is None and optional:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise _type_error(func, param, "a number" + (" or None" if optional else ""), value)
    if not value > 0:
        from envkit.errors import UsageError

        raise UsageError(f"{func}(): {param} must be a positive number of seconds, not {value!r}")
    return value


def _flag(func: str, param: str, value) -> bool:
    if not isinstance(value, bool):
        raise _type_error(func, param, "bool", value)
    return value


def _str_list(func: str, param: str, value, what: str, *, optional: bool = False) -> tuple[str, ...] | None:
    """A list (any iterable) of str as a tuple.  A bare str is refused: it would be read one
    character at a time."""
    if value is None and optional:
        return None
    if isinstance(value, (str, bytes, os.PathLike)):
        raise _type_error(func, param, f"a list of {what}", value, f" (one goes in a list: [{value!r}])")
    if not isinstance(value, Iterable) or isinstance(value, Mapping):
        raise _type_error(func, param, f"a list of {what}" + (" or None" if optional else ""), value)
    items = tuple(value)
    for item in items:
        if not isinstance(item, str):
            raise TypeError(f"{func}() argument {param!r} must hold {what} (str), not {type(item).__name__}")
    return items


def _format(func: str, value, param: str = "format") -> str | None:
    if value is None:
        return None
    if not isinstance(value, str):
        raise _type_error(func, param, "str or None", value)
    from envkit.formats import FORMATS

    if value not in FORMATS:
        from envkit.errors import UsageError

        raise UsageError(f"unknown format {value!r}; choose one of: {', '.join(FORMATS)}")
    return value


def _models(*names: str) -> tuple[type, ...]:
    from envkit import model

    return tuple(getattr(model, n) for n in names)


def _model(func: str, param: str, value, names: tuple[str, ...], *, paths: bool = False, hint: str = ""):
    """`value` when it is one of the model classes `names`; with `paths`, a path is read
    (`read_file`) and its model must be one of them too (ParseError naming the file otherwise)."""
    types = _models(*names)
    if isinstance(value, types):
        return value
    if paths and _is_path(value):
        path = os.fspath(value)
        from envkit.formats import read_file as _read

        model = _read(path)
        if not isinstance(model, types):
            from envkit.errors import ParseError, Where

            if names == ("Lock",):
                raise ParseError(
                    "not a lock file (it reads as an environment spec, which needs solving)",
                    where=Where(file=path),
                    hint="lock it first (envkit.solve_spec, envkit lock)",
                )
            raise ParseError(
                f"not an environment spec (it reads as a {model.kind} lock)",
                where=Where(file=path),
                hint=f"{func}() takes the spec a lock is made from here",
            )
        return model
    expected = ", ".join(names[:-1]) + f" or {names[-1]}" if len(names) > 1 else names[0]
    if paths:
        expected = ", ".join(names) + " or a path"
    raise _type_error(func, param, expected, value, hint)


def _lock_hint(value) -> str:
    from envkit.model import EnvSpec, LiveEnv

    if isinstance(value, EnvSpec):
        return " (an EnvSpec is solved into a Lock by envkit.solve_spec)"
    if isinstance(value, LiveEnv):
        return " (a LiveEnv becomes a Lock with envkit.lock_live)"
    return ""


# --------------------------------------------------------------------------------------------
# formats and normalize


@_facade("envkit.formats:detect_format")
def detect_format(text: str, filename: str | os.PathLike[str] | None = None) -> str:
    """The format of `text`, one of FORMATS (`filename` only breaks ties).  Raises ParseError when
    nothing fits."""
    core = _core("detect_format")

    return core(
        _text("detect_format", "text", text), _path("detect_format", "filename", filename, optional=True)
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
        _text("read_text", "text", text),
        filename=_path("read_text", "filename", filename, optional=True),
        format=_format("read_text", format),
        environment=_opt_str("read_text", "environment", environment),
    )


@_facade("envkit.formats:read_file")
def read_file(path: str | os.PathLike[str], *, format: str | None = None, environment: str | None = None):
    """Read and parse the file at `path` (see read_text); errors name the path as given."""
    core = _core("read_file")

    return core(
        _path("read_file", "path", path),
        format=_format("read_file", format),
        environment=_opt_str("read_file", "environment", environment),
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
    return core(_model("normalize_spec", "spec", spec, ("EnvSpec",)), selectors=selectors)


@_facade("envkit.canonical:normalize_lock")
def normalize_lock(lock):
    """`lock` with its packages in canonical order."""
    core = _core("normalize_lock")

    return core(_model("normalize_lock", "lock", lock, ("Lock",), hint=_lock_hint(lock)))


@_facade("envkit.canonical:normalize_text")
def normalize_text(
    text: str, *, filename: str | os.PathLike[str] | None = None, format: str | None = None
) -> str:
    """`text` in canonical form, same format, comments kept.  UsageError for pixi.lock."""
    core = _core("normalize_text")

    return core(
        _text("normalize_text", "text", text),
        filename=_path("normalize_text", "filename", filename, optional=True),
        format=_format("normalize_text", format),
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
    ma = _model("diff", "a", a, names, paths=True)
    mb = _model("diff", "b", b, names, paths=True)
    for param, value in (
        ("platform", platform),
        ("host_platform", host_platform),
        ("label_a", label_a),
        ("label_b", label_b),
        ("platform_a", platform_a),
        ("platform_b", platform_b),
    ):
        _opt_str("diff", param, value)
    if label_a is None:
        label_a = os.fspath(a) if _is_path(a) else "A"
    if label_b is None:
        label_b = os.fspath(b) if _is_path(b) else "B"
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
        raise _type_error(
            "load_targets", "paths", "a list of paths", paths, f" (one goes in a list: [{paths!r}])"
        )
    if not isinstance(paths, Iterable) or isinstance(paths, Mapping):
        raise _type_error("load_targets", "paths", "a list of paths", paths)
    items = [_path("load_targets", "paths[]", p) for p in paths]
    if live is not None:
        _model("load_targets", "live", live, ("LiveEnv",))
    lock = _path("load_targets", "lock", lock, optional=True)
    if not items and lock is None and live is None:
        from envkit.errors import UsageError

        raise UsageError("load_targets(): nothing to check (no paths, no lock, no live environment)")
    return core(
        items,
        lock=lock,
        live=live,
        format=_format("load_targets", format),
        stdin=_opt_str("load_targets", "stdin", stdin),
    )


@_facade("envkit.checks:run_checks")
def run_checks(targets, config=None) -> list:
    """Run the rules `config` selects (None: every rule, default severities; a project's file is
    read by envkit.config.load_config) on `targets`: Targets from load_targets, or paths (then
    loaded with load_targets).  Returns the findings, sorted.  UsageError for no targets."""
    core = _core("run_checks")
    from envkit.checks.core import Target
    from envkit.config import Config

    if isinstance(targets, (str, bytes, os.PathLike, Target)):
        one = f"[{targets!r}]" if not isinstance(targets, Target) else "[target]"
        raise _type_error(
            "run_checks",
            "targets",
            "a list of Targets (load_targets) or of paths",
            targets,
            f" (one goes in a list: {one})",
        )
    if not isinstance(targets, Iterable) or isinstance(targets, Mapping):
        raise _type_error("run_checks", "targets", "a list of Targets (load_targets) or of paths", targets)
    items = list(targets)
    if config is None:
        config = Config()
    elif not isinstance(config, Config):
        raise _type_error("run_checks", "config", "Config or None", config)
    if not items:
        from envkit.errors import UsageError

        raise UsageError("run_checks(): nothing to check (no targets)")
    if all(_is_path(t) for t in items):
        items = load_targets(items)
    else:
        for t in items:
            if not isinstance(t, Target):
                what = (
                    "a path among Targets (give all paths or all Targets)"
                    if _is_path(t)
                    else type(t).__name__
                )
                raise TypeError(
                    f"run_checks() argument 'targets' must hold Targets (from load_targets) or "
                    f"paths, not {what}"
                )
    return core(items, config)


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
        raise _type_error("open_env", "environ", "a mapping (os.environ, a dict) or None", environ)
    if not isinstance(backend, str):
        raise _type_error("open_env", "backend", "str", backend)
    exe = _path("open_env", "exe", exe, optional=True)
    return core(
        _opt_str("open_env", "name", name),
        _path("open_env", "prefix", prefix, optional=True),
        backend,
        exe=exe,
        environ=environ,
        strict=_flag("open_env", "strict", strict),
        timeout=_number("open_env", "timeout", timeout, optional=True),
    )


@_facade("envkit.lock:lock_live")
def lock_live(env, *, index_artifacts: Mapping[str, tuple[str, str | None]] | None = None):
    """Lock the LiveEnv `env` exactly, for its own platform (see envkit.lock.lock_live)."""
    core = _core("lock_live")

    hint = (
        " (read it first: envkit.open_env(prefix=...))"
        if _is_path(env)
        else " (a spec is locked by envkit.solve_spec)"
        if isinstance(env, _models("EnvSpec"))
        else ""
    )
    _model("lock_live", "env", env, ("LiveEnv",), hint=hint)
    if index_artifacts is not None and not isinstance(index_artifacts, Mapping):
        raise _type_error("lock_live", "index_artifacts", "a mapping or None", index_artifacts)
    return core(env, index_artifacts=index_artifacts)


def _virtual_packages(func: str, value) -> tuple:
    """VirtualPackage objects, or their text (`__cuda=12.4`, `linux-64:__glibc=2.17`)."""
    from envkit.lock import VirtualPackage, parse_virtual_package

    if isinstance(value, (str, bytes, VirtualPackage)):
        raise _type_error(
            func,
            "virtual_packages",
            "a list of VirtualPackage or str",
            value,
            f" (one goes in a list: [{value!r}])",
        )
    if not isinstance(value, Iterable) or isinstance(value, Mapping):
        raise _type_error(func, "virtual_packages", "a list of VirtualPackage or str", value)
    out = []
    for v in value:
        if isinstance(v, str):
            v = parse_virtual_package(v)
        elif not isinstance(v, VirtualPackage):
            raise TypeError(
                f"{func}() argument 'virtual_packages' must hold VirtualPackage or str, "
                f"not {type(v).__name__}"
            )
        out.append(v)
    return tuple(out)


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

    spec = _model("solve_spec", "spec", spec, ("EnvSpec",), paths=True, hint=_spec_hint(spec))
    plats = _str_list("solve_spec", "platforms", platforms, "platform names", optional=True) or ()
    if not isinstance(channel_priority, str):
        raise _type_error("solve_spec", "channel_priority", "str", channel_priority)
    return core(
        spec,
        plats,
        channel_priority=channel_priority,
        virtual_packages=_virtual_packages("solve_spec", virtual_packages),
        lock_pip_section=_flag("solve_spec", "lock_pip_section", lock_pip_section),
        pip_timeout=_number("solve_spec", "pip_timeout", pip_timeout),
        solve_timeout=_number("solve_spec", "solve_timeout", solve_timeout, optional=True),
        progress=_callable("solve_spec", "progress", progress),
    )


def _callable(func: str, name: str, value):
    """`value` when it is callable or None (a progress callback), else TypeError."""
    if value is not None and not callable(value):
        raise _type_error(func, name, "a callable or None", value)
    return value


def _spec_hint(value) -> str:
    from envkit.model import Lock

    return " (a Lock is already solved)" if isinstance(value, Lock) else ""


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

    spec_m = _model("check_lock", "spec", spec, ("EnvSpec",), paths=True, hint=_spec_hint(spec))
    lock_m = _model("check_lock", "lock", lock, ("Lock",), paths=True, hint=_lock_hint(lock))
    plats = _str_list("check_lock", "platforms", platforms, "platform names", optional=True)
    spec_path = _path("check_lock", "spec_path", spec_path, optional=True)
    _opt_str("check_lock", "lock_text", lock_text)
    if staleness is not None:
        if isinstance(staleness, Staleness) or not isinstance(staleness, Iterable):
            raise _type_error("check_lock", "staleness", "a list of Staleness or None", staleness)
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
        virtual_packages=_virtual_packages("check_lock", virtual_packages),
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

    lock = _model("create_from_lock", "lock", lock, ("Lock",), paths=True, hint=_lock_hint(lock))
    if not isinstance(backend, str):
        raise _type_error("create_from_lock", "backend", "str", backend)
    if environments is not None and not isinstance(environments, Mapping):
        raise _type_error("create_from_lock", "environments", "a mapping or None", environments)
    return core(
        lock,
        _path("create_from_lock", "prefix", prefix),
        platform=_opt_str("create_from_lock", "platform", platform),
        backend=backend,
        executable=_path("create_from_lock", "executable", executable, optional=True),
        cache_dir=_path("create_from_lock", "cache_dir", cache_dir, optional=True),
        timeout=_number("create_from_lock", "timeout", timeout),
        environments=environments,
        show_progress=_flag("create_from_lock", "show_progress", show_progress),
    )
