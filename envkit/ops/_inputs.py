"""What the operations take beyond their models: a path (str or os.PathLike) where a model goes,
read with envkit.formats.read_file; a list where a bare str would be read one character at a
time; virtual packages as text.  These are the checks no static type can make; each raises a
TypeError naming the function, the parameter, what was expected and what was given, or an
EnvkitError for a value that cannot be used."""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping

TYPE_CHECKING = False  # not typing's: `envkit check` must not import typing (tests/cli)
if TYPE_CHECKING:  # pragma: no cover
    from typing import Any, TypeGuard, TypeVar

    from envkit.lock.virtual import VirtualPackage

    T = TypeVar("T")


def type_error(func: str, param: str, expected: str, value: object, hint: str = "") -> TypeError:
    return TypeError(f"{func}() argument {param!r} must be {expected}, not {type(value).__name__}{hint}")


def is_path(value: object) -> TypeGuard[str | os.PathLike[str]]:
    return isinstance(value, (str, os.PathLike)) and isinstance(os.fspath(value), str)


def opt_path(value: str | os.PathLike[str] | None) -> str | None:
    """`value` as a str path (None stays None)."""
    return None if value is None else os.fspath(value)


def seconds(func: str, param: str, value: float) -> float:
    """`value`, a positive number of seconds."""
    if not value > 0:
        from envkit.errors import Remedy, UsageError

        raise UsageError(
            f"{func}(): {param} must be a positive number of seconds, not {value!r}",
            remedy=Remedy(option=param, metavar="SECONDS"),
        )
    return value


def str_list(func: str, param: str, value: Iterable[T] | None, what: str) -> tuple[T, ...]:
    """A list (any iterable) as a tuple; None is ().  A bare str (or one path) is refused: it is
    an iterable of str to the type checker, and would be read one character at a time."""
    if value is None:
        return ()
    if isinstance(value, (str, bytes, os.PathLike)):
        raise type_error(func, param, f"a list of {what}", value, f" (one goes in a list: [{value!r}])")
    if isinstance(value, Mapping) or not isinstance(value, Iterable):
        raise type_error(func, param, f"a list of {what}", value)
    return tuple(value)


def model_kind(value: Any) -> str | None:
    """Which model `value` is: "EnvSpec" (an environment file: a spec, an export, requirements),
    "Lock" or "LiveEnv"; None for anything else.  Read off the one view (envkit.model.resolved_view
    / env_file), which answers None for what is no model."""
    from envkit.model import env_file, resolved_view

    if env_file(value) is not None:
        return "EnvSpec"
    view = resolved_view(value)
    if view is None or view.origin is not value:  # (a Resolved given is its own view)
        return None
    return "Lock" if view.lock is not None else "LiveEnv"


def model_or_path(func: str, param: str, value: Any, names: tuple[str, ...], *, paths: bool = True) -> Any:
    """`value` when it is one of the models `names` (see model_kind); with `paths`, a path is read
    (envkit.formats.read_file) and its model must be one of them too (ParseError naming the file
    otherwise).  Anything else is a TypeError naming the function that makes the right model."""
    kind = model_kind(value)
    if kind in names:
        return value
    if paths and is_path(value):
        from envkit.formats import read_file

        path = os.fspath(value)
        model = read_file(path)
        if model_kind(model) not in names:
            from envkit.errors import ParseError, Where

            if names == ("Lock",):
                raise ParseError(
                    "not a lock file (it reads as an environment spec, which needs solving)",
                    where=Where(file=path),
                    hint="lock it first (envkit.lock_spec, envkit lock)",
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
    hint = (_HINTS.get(names[0], {}) if len(names) == 1 else _HINTS["Lock"]).get(kind or "", "")
    if not paths and is_path(value) and names == ("LiveEnv",):
        hint = " (read it first: envkit.open_env(prefix=...))"
    raise type_error(func, param, expected, value, hint)


#: the model a parameter takes -> the model given -> the function that makes the right one
_HINTS = {
    "Lock": {
        "EnvSpec": " (an EnvSpec is solved into a Lock by envkit.solve_spec)",
        "LiveEnv": " (a LiveEnv becomes a Lock with envkit.lock_live)",
    },
    "EnvSpec": {"Lock": " (a Lock is already solved)"},
    "LiveEnv": {"EnvSpec": " (envkit.open_env reads a LiveEnv; a spec is locked by envkit.lock_spec)"},
}


def virtual_packages(func: str, value: Iterable[VirtualPackage | str]) -> tuple[VirtualPackage, ...]:
    """VirtualPackage objects, or their text (`__cuda=12.4`, `linux-64:__glibc=2.17`), parsed."""
    from envkit.lock.virtual import VirtualPackage, parse_virtual_package

    if isinstance(value, VirtualPackage):
        raise type_error(
            func,
            "virtual_packages",
            "a list of VirtualPackage or str",
            value,
            f" (one goes in a list: [{value!r}])",
        )
    items = str_list(func, "virtual_packages", value, "VirtualPackage or str")
    return tuple(parse_virtual_package(v) if isinstance(v, str) else v for v in items)
