"""The argument checks of envkit.api: each returns the value it checked (a path as str, an
iterable as a tuple) or raises TypeError naming the function, the parameter, what was expected and
what was given; a value of the right type that cannot be used is an EnvkitError.

Importing this module costs nothing heavy: the model and the formats are imported when used.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping


def type_error(func: str, param: str, expected: str, value, hint: str = "") -> TypeError:
    return TypeError(f"{func}() argument {param!r} must be {expected}, not {type(value).__name__}{hint}")


def is_path(value) -> bool:
    return isinstance(value, (str, os.PathLike)) and isinstance(os.fspath(value), str)


def path_arg(func: str, param: str, value, *, optional: bool = False) -> str | None:
    """`value` as a str path; TypeError for anything but str / os.PathLike (bytes paths included)."""
    if value is None and optional:
        return None
    if not is_path(value):
        raise type_error(func, param, "str or os.PathLike" + (" or None" if optional else ""), value)
    return os.fspath(value)


def text_arg(func: str, param: str, value) -> str:
    if not isinstance(value, str):
        hint = " (decode it first: data.decode('utf-8'))" if isinstance(value, (bytes, bytearray)) else ""
        raise type_error(func, param, "str", value, hint)
    return value


def opt_str(func: str, param: str, value) -> str | None:
    if value is not None and not isinstance(value, str):
        raise type_error(func, param, "str or None", value)
    return value


def number_arg(func: str, param: str, value, *, optional: bool = False) -> float | None:
    """A positive number of seconds (bool is no number here)."""
    if value is None and optional:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise type_error(func, param, "a number" + (" or None" if optional else ""), value)
    if not value > 0:
        from envkit.errors import UsageError

        raise UsageError(f"{func}(): {param} must be a positive number of seconds, not {value!r}")
    return value


def flag_arg(func: str, param: str, value) -> bool:
    if not isinstance(value, bool):
        raise type_error(func, param, "bool", value)
    return value


def str_list(func: str, param: str, value, what: str, *, optional: bool = False) -> tuple[str, ...] | None:
    """A list (any iterable) of str as a tuple.  A bare str is refused: it would be read one
    character at a time."""
    if value is None and optional:
        return None
    if isinstance(value, (str, bytes, os.PathLike)):
        raise type_error(func, param, f"a list of {what}", value, f" (one goes in a list: [{value!r}])")
    if not isinstance(value, Iterable) or isinstance(value, Mapping):
        raise type_error(func, param, f"a list of {what}" + (" or None" if optional else ""), value)
    items = tuple(value)
    for item in items:
        if not isinstance(item, str):
            raise TypeError(f"{func}() argument {param!r} must hold {what} (str), not {type(item).__name__}")
    return items


def format_arg(func: str, value, param: str = "format") -> str | None:
    if value is None:
        return None
    if not isinstance(value, str):
        raise type_error(func, param, "str or None", value)
    from envkit.formats import FORMATS

    if value not in FORMATS:
        from envkit.errors import UsageError

        raise UsageError(f"unknown format {value!r}; choose one of: {', '.join(FORMATS)}")
    return value


def model_types(*names: str) -> tuple[type, ...]:
    from envkit import model

    return tuple(getattr(model, n) for n in names)


def model_arg(func: str, param: str, value, names: tuple[str, ...], *, paths: bool = False, hint: str = ""):
    """`value` when it is one of the model classes `names`; with `paths`, a path is read
    (`read_file`) and its model must be one of them too (ParseError naming the file otherwise)."""
    types = model_types(*names)
    if isinstance(value, types):
        return value
    if paths and is_path(value):
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
    raise type_error(func, param, expected, value, hint)


def lock_hint(value) -> str:
    from envkit.model import EnvSpec, LiveEnv

    if isinstance(value, EnvSpec):
        return " (an EnvSpec is solved into a Lock by envkit.solve_spec)"
    if isinstance(value, LiveEnv):
        return " (a LiveEnv becomes a Lock with envkit.lock_live)"
    return ""


def virtual_packages_arg(func: str, value) -> tuple:
    """VirtualPackage objects, or their text (`__cuda=12.4`, `linux-64:__glibc=2.17`)."""
    from envkit.lock import VirtualPackage, parse_virtual_package

    if isinstance(value, (str, bytes, VirtualPackage)):
        raise type_error(
            func,
            "virtual_packages",
            "a list of VirtualPackage or str",
            value,
            f" (one goes in a list: [{value!r}])",
        )
    if not isinstance(value, Iterable) or isinstance(value, Mapping):
        raise type_error(func, "virtual_packages", "a list of VirtualPackage or str", value)
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


def callable_arg(func: str, name: str, value):
    """`value` when it is callable or None (a progress callback), else TypeError."""
    if value is not None and not callable(value):
        raise type_error(func, name, "a callable or None", value)
    return value


def spec_hint(value) -> str:
    from envkit.model import Lock

    return " (a Lock is already solved)" if isinstance(value, Lock) else ""
