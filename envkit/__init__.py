"""envkit: reproducible conda environments.

Lock the environment that works, check environment files in CI, and explain why two environments
differ.  The Python API::

    import envkit

    spec = envkit.read_file("environment.yml")            # EnvSpec (env, requirements) or Lock
    text = envkit.write_text(spec, "env")                  # the text of a model in a format
    canonical = envkit.normalize(spec)                     # canonical EnvSpec / Lock
    envkit.normalize_text(open("environment.yml").read())  # canonical text, comments kept
    report = envkit.diff(envkit.read_file("a.yml"), envkit.read_file("b.yml"))   # EnvDiff
    findings = envkit.run_checks(envkit.load_targets(["environment.yml"]), envkit.Config())
    result = envkit.check(["conda-lock.yml"], machine=profile)  # CheckResult, as `envkit check`
    live = envkit.open_env(prefix="/opt/envs/research")  # LiveEnv
    lock = envkit.lock_live(live).lock                     # or solve_spec(spec, ["linux-64"])
    locked = envkit.lock_spec("environment.yml", previous="conda-lock.yml", update=["numpy"])
    converted = envkit.convert_model("conda-lock.yml", "pixi")  # ConvertResult: .text, .losses
    verdict = envkit.check_lock(spec, lock)                # LockCheck: .problems, () when it fits

Each function is the one the command line runs (`envkit check` calls envkit.check, `envkit lock
-f` envkit.lock_spec): the operations of envkit.ops, the readers of envkit.formats, the cores of
envkit.formats.canonical and envkit.backends.  They are typed (py.typed; mypy --strict clean) and take
paths (str or os.PathLike) where users pass paths, and also where they take a model
(`envkit.diff("a.yml", "b.yml")`).  At run time they check what a type cannot say: one path where
a list belongs is a TypeError; a value that cannot be used an EnvkitError whose `remedies`
(envkit.Remedy) name the keyword to change.  See docs/api.md.

The package root stays import-light: `envkit --version` must not pull in YAML engines, py-rattler,
conda-lock or torch, so every name above is loaded on first use.
"""

from __future__ import annotations

__version__ = "0.1.0"

# name -> (module, attribute).  Loaded on first attribute access (PEP 562), then cached.  Each
# function is the operation itself, from the module that implements it (no submodule shares a
# function's name: the diff core is envkit.envdiff, the normalize core envkit.formats.canonical).
_LAZY = {
    # errors
    "EnvkitError": ("envkit.errors", "EnvkitError"),
    "ParseError": ("envkit.errors", "ParseError"),
    "InvalidSpecError": ("envkit.errors", "InvalidSpecError"),
    "UsageError": ("envkit.errors", "UsageError"),
    "Remedy": ("envkit.errors", "Remedy"),
    # the model
    "EnvSpec": ("envkit.model", "EnvSpec"),
    "CondaDep": ("envkit.model", "CondaDep"),
    "PipDep": ("envkit.model", "PipDep"),
    "Channel": ("envkit.model", "Channel"),
    "LockedPackage": ("envkit.model", "LockedPackage"),
    "Lock": ("envkit.model", "Lock"),
    "LiveEnv": ("envkit.model", "LiveEnv"),
    "PipDist": ("envkit.model", "PipDist"),
    # formats
    "FORMATS": ("envkit.formats", "FORMATS"),
    "detect_format": ("envkit.formats", "detect_format"),
    "read_file": ("envkit.formats", "read_file"),
    "read_text": ("envkit.formats", "read_text"),
    "write_text": ("envkit.formats", "write_text"),
    # normalize
    "normalize": ("envkit.formats.canonical", "normalize"),
    "normalize_text": ("envkit.formats.canonical", "normalize_text"),
    "normalize_spec": ("envkit.formats.canonical", "normalize_spec"),
    "normalize_lock": ("envkit.formats.canonical", "normalize_lock"),
    # diff
    "diff": ("envkit.ops.diff", "diff"),
    "EnvDiff": ("envkit.envdiff", "EnvDiff"),
    # check
    "Config": ("envkit.config", "Config"),
    "load_targets": ("envkit.ops.check", "load_targets"),
    "run_checks": ("envkit.ops.check", "run_checks"),
    "check": ("envkit.ops.check", "check"),
    "CheckResult": ("envkit.ops.check", "CheckResult"),
    # live environments, locking, creating
    "open_env": ("envkit.backends", "open_env"),
    "lock_live": ("envkit.ops.lock", "lock_live"),
    "LiveLockResult": ("envkit.ops.lock", "LiveLockResult"),
    "solve_spec": ("envkit.ops.lock", "solve_spec"),
    "lock_spec": ("envkit.ops.lock", "lock_spec"),
    "SpecLockResult": ("envkit.ops.lock", "SpecLockResult"),
    "ExcludeNewer": ("envkit.lock.cutoff", "ExcludeNewer"),
    "check_lock": ("envkit.ops.lock", "check_lock"),
    "LockCheck": ("envkit.ops.lock", "LockCheck"),
    "create_from_lock": ("envkit.ops.create", "create_from_lock"),
    # converting
    "convert_model": ("envkit.ops.convert", "convert_model"),
    "ConvertResult": ("envkit.ops.convert", "ConvertResult"),
    # templates
    "pytorch_template": ("envkit.ops.template", "pytorch_template"),
    "TemplateResult": ("envkit.ops.template", "TemplateResult"),
}

__all__ = ["__version__", *_LAZY]


def __getattr__(name: str) -> object:
    import importlib

    try:
        module_name, attr = _LAZY[name]
    except KeyError:
        raise AttributeError(f"module 'envkit' has no attribute {name!r}") from None
    value = getattr(importlib.import_module(module_name), attr)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
