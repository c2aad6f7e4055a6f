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

from envkit._lazy import lazy_exports

__version__ = "0.1.0"

# name -> the module that defines it.  Loaded on first attribute access (PEP 562), then cached.  Each
# function is the operation itself, from the module that implements it (no submodule shares a
# function's name: the diff core is envkit.envdiff, the normalize core envkit.formats.canonical).
_LAZY = {
    # errors
    "EnvkitError": "envkit.errors",
    "ParseError": "envkit.errors",
    "InvalidSpecError": "envkit.errors",
    "UsageError": "envkit.errors",
    "Remedy": "envkit.errors",
    # the model
    "EnvSpec": "envkit.model",
    "CondaDep": "envkit.model",
    "PipDep": "envkit.model",
    "Channel": "envkit.model",
    "LockedPackage": "envkit.model",
    "Lock": "envkit.model",
    "LiveEnv": "envkit.model",
    "PipDist": "envkit.model",
    # formats
    "FORMATS": "envkit.formats",
    "detect_format": "envkit.formats",
    "read_file": "envkit.formats",
    "read_text": "envkit.formats",
    "write_text": "envkit.formats",
    # normalize
    "normalize": "envkit.formats.canonical",
    "normalize_text": "envkit.formats.canonical",
    "normalize_spec": "envkit.formats.canonical",
    "normalize_lock": "envkit.formats.canonical",
    # diff
    "diff": "envkit.ops.diff",
    "EnvDiff": "envkit.envdiff",
    # check
    "Config": "envkit.config",
    "load_targets": "envkit.ops.check",
    "run_checks": "envkit.ops.check",
    "check": "envkit.ops.check",
    "CheckResult": "envkit.ops.check",
    # live environments, locking, creating
    "open_env": "envkit.backends",
    "lock_live": "envkit.ops.lock",
    "LiveLockResult": "envkit.ops.lock",
    "solve_spec": "envkit.ops.lock",
    "lock_spec": "envkit.ops.lock",
    "SpecLockResult": "envkit.ops.lock",
    "ExcludeNewer": "envkit.lock.cutoff",
    "check_lock": "envkit.ops.lock",
    "LockCheck": "envkit.ops.lock",
    "create_from_lock": "envkit.ops.create",
    # converting
    "convert_model": "envkit.ops.convert",
    "ConvertResult": "envkit.ops.convert",
    # templates
    "pytorch_template": "envkit.ops.template",
    "TemplateResult": "envkit.ops.template",
}

__all__ = ["__version__", *_LAZY]

_getattr, __dir__ = lazy_exports(__name__, _LAZY)


def __getattr__(name: str) -> object:
    return _getattr(name)
