"""The argument conversions of envkit.api, and the checks no static type can make: one path (a
str) where a list belongs, a model that is not the one a parameter takes (with the function that
makes the right one), a path whose file holds the wrong kind of model, a timeout that is not
positive, an unknown format name.  Each raises TypeError naming the function, the parameter,
what was expected and what was given, or an EnvkitError for a value that cannot be used.

Importing this module costs nothing heavy: the model and the formats are imported when used.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, TypeGuard, cast, overload

if TYPE_CHECKING:  # pragma: no cover
    from envkit.lock.virtual import VirtualPackage
    from envkit.model import EnvSpec, LiveEnv, Lock


def type_error(func: str, param: str, expected: str, value: object, hint: str = "") -> TypeError:
    return TypeError(f"{func}() argument {param!r} must be {expected}, not {type(value).__name__}{hint}")


def is_path(value: object) -> TypeGuard[str | os.PathLike[str]]:
    return isinstance(value, (str, os.PathLike)) and isinstance(os.fspath(value), str)


def opt_path(value: str | os.PathLike[str] | None) -> str | None:
    """`value` as a str path (None stays None)."""
    return None if value is None else os.fspath(value)


@overload
def number_arg(func: str, param: str, value: float) -> float: ...
@overload
def number_arg(func: str, param: str, value: float | None) -> float | None: ...
def number_arg(func: str, param: str, value: float | None) -> float | None:
    """`value`, a positive number of seconds (None: no limit, where the parameter allows it)."""
    if value is not None and not value > 0:
        from envkit.errors import UsageError

        raise UsageError(f"{func}(): {param} must be a positive number of seconds, not {value!r}")
    return value


@overload
def str_list(func: str, param: str, value: Iterable[str], what: str) -> tuple[str, ...]: ...
@overload
def str_list(
    func: str, param: str, value: Iterable[str] | None, what: str, *, optional: bool
) -> tuple[str, ...] | None: ...
def str_list(
    func: str, param: str, value: Iterable[str] | None, what: str, *, optional: bool = False
) -> tuple[str, ...] | None:
    """A list (any iterable) of str as a tuple.  A bare str is refused: it is an iterable of str
    to the type checker, and would be read one character at a time."""
    if value is None and optional:
        return None
    if isinstance(value, (str, bytes, os.PathLike)):
        raise type_error(func, param, f"a list of {what}", value, f" (one goes in a list: [{value!r}])")
    if value is None or isinstance(value, Mapping):
        raise type_error(func, param, f"a list of {what}" + (" or None" if optional else ""), value)
    return tuple(value)


def path_list(func: str, param: str, value: Sequence[Any], what: str = "a list of paths") -> Sequence[Any]:
    """`value` when it is a list; TypeError for one path where a list of them belongs (a str would
    be read one character at a time), which no static type forbids."""
    if isinstance(value, (str, bytes, os.PathLike)):
        raise type_error(func, param, what, value, f" (one goes in a list: [{value!r}])")
    if value is None or isinstance(value, Mapping):
        raise type_error(func, param, what, value)
    return value


def format_arg(value: str | None) -> str | None:
    """`value`, a format name envkit knows (UsageError otherwise), or None."""
    if value is None:
        return None
    from envkit.formats import FORMATS

    if value not in FORMATS:
        from envkit.errors import UsageError

        raise UsageError(f"unknown format {value!r}; choose one of: {', '.join(FORMATS)}")
    return value


def model_kind(value: object) -> str | None:
    """Which model `value` is: "EnvSpec" (an environment file: a spec, an export, requirements),
    "Lock" or "LiveEnv"; None for anything else (a path, a Resolved view, ...).  Read off the one
    view (envkit.model.resolved_view / env_file), which answers None for what is no model."""
    from envkit.model import env_file, resolved_view

    model = cast("EnvSpec | Lock | LiveEnv", value)
    if env_file(model) is not None:
        return "EnvSpec"
    view = resolved_view(model)
    if view is None or view.origin is not value:  # (a Resolved given is its own view)
        return None
    return "Lock" if view.lock is not None else "LiveEnv"


def model_arg(
    func: str, param: str, value: Any, names: tuple[str, ...], *, paths: bool = False, hint: str | None = None
) -> Any:
    """`value` when it is one of the models `names` (see model_kind); with `paths`, a path is read
    (`read_file`) and its model must be one of them too (ParseError naming the file otherwise).
    A model of another kind is a TypeError with `hint` (default: kind_hint's, the function that
    makes the right model)."""
    if model_kind(value) in names:
        return value
    if paths and is_path(value):
        path = os.fspath(value)
        from envkit.formats import read_file as _read

        model = _read(path)
        if model_kind(model) not in names:
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
    raise type_error(func, param, expected, value, kind_hint(func, names, value) if hint is None else hint)


#: the model a parameter takes -> the model given -> the function that makes the right one
_HINTS = {
    "Lock": {
        "EnvSpec": " (an EnvSpec is solved into a Lock by envkit.solve_spec)",
        "LiveEnv": " (a LiveEnv becomes a Lock with envkit.lock_live)",
    },
    "EnvSpec": {"Lock": " (a Lock is already solved)"},
    "LiveEnv": {"EnvSpec": " (a spec is locked by envkit.solve_spec)"},
}
#: (function, the model given) -> its own hint, where the parameter's is not the way
_FUNC_HINTS = {
    ("normalize_spec", "Lock"): " (a Lock is normalized by envkit.normalize_lock)",
    ("load_targets", "EnvSpec"): " (a spec file goes in paths; envkit.open_env reads a LiveEnv)",
    ("convert_model", "LiveEnv"): " (a LiveEnv becomes a Lock with envkit.lock_live)",
}


def kind_hint(func: str, names: tuple[str, ...], value: object) -> str:
    """The hint for the model `value` given to `func` where one of `names` belongs ("" for none,
    and for what is no model)."""
    kind = model_kind(value) or ""
    if (func, kind) in _FUNC_HINTS:
        return _FUNC_HINTS[func, kind]
    return _HINTS[names[0]].get(kind, "") if len(names) == 1 else ""


def virtual_packages_arg(func: str, value: Iterable[VirtualPackage | str]) -> tuple[VirtualPackage, ...]:
    """VirtualPackage objects, or their text (`__cuda=12.4`, `linux-64:__glibc=2.17`), parsed."""
    from envkit.lock.virtual import VirtualPackage, parse_virtual_package

    if isinstance(value, (str, bytes, VirtualPackage)):
        raise type_error(
            func,
            "virtual_packages",
            "a list of VirtualPackage or str",
            value,
            f" (one goes in a list: [{value!r}])",
        )
    return tuple(parse_virtual_package(v) if isinstance(v, str) else v for v in value)
