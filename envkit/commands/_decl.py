"""Command declarations that cost nothing to import: click's decorators, spelled the same, recorded.

A command module declares its parameters with `command`, `argument` and `option` from here (the
same names and arguments as click's), so importing it does not import click, which is most of
envkit's start-up.  `Command.parse` reads the command lines it can read exactly as click would:
long and short options, `--opt=value`, choices, flags, repeated options, positional arguments,
`-` for stdin.  It declines everything else (help, a usage error, `--`, `-abc`, a value that
looks like an option, a type it does not know), and that command line goes to the real click
command, built on demand from the same recorded calls (`Command.click`), which answers it as it
always did.  tests/cli/test_fast_parse.py holds the two parsers to the same answers.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # pragma: no cover
    from typing import Any, TypeVar

    F = TypeVar("F", bound=Callable[..., Any])

#: what `parse` returns for a command line it leaves to click
DECLINE = None
_NO = object()  # a value the fast parser cannot convert as click would


class ParamType:
    """A click parameter type, recorded; `convert` is click's conversion of one value, or _NO."""

    click_name = ""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        self.args, self.kwargs = args, kwargs

    def to_click(self) -> Any:
        import click

        return getattr(click, self.click_name)(*self.args, **self.kwargs)

    def convert(self, value: str) -> Any:
        return _NO

    def default(self, value: Any) -> Any:
        """A declared default as click hands it to the command (None and str pass unchanged)."""
        return value if value is None else _NO


class Choice(ParamType):
    click_name = "Choice"

    def convert(self, value: str) -> Any:
        if self.kwargs or len(self.args) != 1:  # case_sensitive=False and the like: click's own
            return _NO
        return value if value in self.args[0] else _NO

    def default(self, value: Any) -> Any:
        return value if value is None or value in self.args[0] else _NO


class Path(ParamType):
    """click.Path without resolve_path/path_type: the value unchanged once its checks pass."""

    click_name = "Path"
    _KNOWN = {"exists", "file_okay", "dir_okay", "readable", "writable", "allow_dash"}

    def convert(self, value: str) -> Any:
        kw = self.kwargs
        if self.args or set(kw) - self._KNOWN:
            return _NO
        if value == "-" and kw.get("file_okay", True) and kw.get("allow_dash", False):
            return value
        try:
            st = os.stat(value)
        except OSError:
            return _NO if kw.get("exists", False) else value
        import stat

        if not kw.get("file_okay", True) and stat.S_ISREG(st.st_mode):
            return _NO
        if not kw.get("dir_okay", True) and stat.S_ISDIR(st.st_mode):
            return _NO
        if kw.get("readable", True) and not os.access(value, os.R_OK):
            return _NO
        if kw.get("writable", False) and not os.access(value, os.W_OK):
            return _NO
        return value


class _Range(ParamType):
    number: type = int

    def _bounds(self) -> tuple[Any, Any] | None:
        names = ("min", "max")
        kw = dict(zip(names, self.args, strict=False), **self.kwargs)
        if len(self.args) > 2 or set(kw) - set(names):
            return None  # open bounds, clamp: click's own
        return kw.get("min"), kw.get("max")

    def _check(self, number: Any) -> Any:
        bounds = self._bounds()
        if bounds is None:
            return _NO
        low, high = bounds
        if (low is not None and number < low) or (high is not None and number > high):
            return _NO
        return number

    def convert(self, value: str) -> Any:
        try:
            number = self.number(value)
        except ValueError:
            return _NO
        return self._check(number)

    def default(self, value: Any) -> Any:
        if value is None:
            return None
        if isinstance(value, bool) or not isinstance(value, int | float):
            return _NO
        return self._check(self.number(value))


class IntRange(_Range):
    click_name = "IntRange"
    number = int

    def convert(self, value: str) -> Any:
        return _NO if value.strip() != value or "_" in value else super().convert(value)


class FloatRange(_Range):
    click_name = "FloatRange"
    number = float

    def convert(self, value: str) -> Any:
        # float() reads "nan", "1_0", " 1" as click does, but say no to the rare forms
        if value.strip() != value or "_" in value or value.lower().strip("+-") in ("nan", "inf", "infinity"):
            return _NO
        return super().convert(value)


class _String(ParamType):
    def convert(self, value: str) -> Any:
        return value

    def default(self, value: Any) -> Any:
        return value if value is None or isinstance(value, str) else _NO


_STRING = _String()
#: the keyword arguments the fast parser understands (others: click parses that command)
_OPTION_KW = {
    "type",
    "default",
    "show_default",
    "help",
    "is_flag",
    "multiple",
    "hidden",
    "metavar",
    "required",
}
_ARGUMENT_KW = {"nargs", "required", "metavar", "default", "type"}


class Param:
    """One recorded `option(...)` or `argument(...)`: its declarations and keyword arguments."""

    def __init__(self, kind: str, decls: tuple[str, ...], kwargs: dict[str, Any]) -> None:
        self.kind, self.decls, self.kwargs = kind, decls, kwargs
        self.type: ParamType = kwargs.get("type") or _STRING
        self.multiple = bool(kwargs.get("multiple"))
        self.is_flag = bool(kwargs.get("is_flag"))
        self.required = bool(kwargs.get("required", kind == "argument" and "default" not in kwargs))
        self.nargs = kwargs.get("nargs", 1)
        self.opts = [d for d in decls if not d.isidentifier()]
        self.name = self._name()
        self.default = self._default()

    def _name(self) -> str:
        if self.kind == "argument":
            return self.decls[0].replace("-", "_").lower()
        named = [d for d in self.decls if d.isidentifier()]
        if named:
            return named[0]
        longest = sorted(self.opts, key=lambda o: -(len(o) - len(o.lstrip("-"))))[0]  # stable
        return longest.lstrip("-").replace("-", "_").lower()

    def _default(self) -> Any:
        given = self.kwargs.get("default")
        if self.is_flag:
            return False if given in (None, False) else _NO
        if self.multiple or self.nargs == -1:
            return () if given is None else _NO
        if given is not None and "type" not in self.kwargs and not isinstance(given, str):
            return _NO  # click would infer a type from the default
        return self.type.default(given)

    def fast(self) -> bool:
        """Whether the fast parser reads this parameter as click does."""
        known = _OPTION_KW if self.kind == "option" else _ARGUMENT_KW
        if set(self.kwargs) - known or self.default is _NO:
            return False
        if self.kind == "argument":
            return self.nargs in (1, -1) and not self.multiple
        if any("/" in d or ";" in d or not d.startswith("-") for d in self.opts) or not self.opts:
            return False
        if self.is_flag and (self.multiple or "type" in self.kwargs):
            return False
        return not (self.required and self.is_flag)

    def to_click(self, fn: Callable[..., Any]) -> Callable[..., Any]:
        import click

        kwargs = dict(self.kwargs)
        if isinstance(kwargs.get("type"), ParamType):
            kwargs["type"] = kwargs["type"].to_click()
        return getattr(click, self.kind)(*self.decls, **kwargs)(fn)


class Command:
    """A command declared here: its function, its parameters (top to bottom) and click's
    keyword arguments; `parse` is the fast reading of a command line, `click()` the real one."""

    def __init__(self, fn: Callable[..., Any], name: str | None, kwargs: dict[str, Any]) -> None:
        self.fn, self.given_name, self.click_kwargs = fn, name, kwargs
        # decorators run bottom-up: the recorded order reversed is the order on the page
        self.applied: list[Param] = list(getattr(fn, "__envkit_params__", []))
        self.params = list(reversed(self.applied))
        self._click: Any = None
        self._opts: dict[str, Param] | None = None
        settings = kwargs.get("context_settings", {})
        plain = set(kwargs) <= {"context_settings"} and set(settings) <= {"help_option_names"}
        if self.params and plain and all(p.fast() for p in self.params):
            self._opts = {o: p for p in self.params if p.kind == "option" for o in p.opts}
            nargs = [p.nargs for p in self.params if p.kind == "argument"]
            if nargs.count(-1) > 1:
                self._opts = None

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self.fn(*args, **kwargs)

    def click(self) -> Any:
        """The click command of the same declarations (built once)."""
        if self._click is None:
            import click

            fn = self.fn
            for param in self.applied:
                fn = param.to_click(fn)
            self._click = click.command(self.given_name, **self.click_kwargs)(fn)
        return self._click

    def parse(self, argv: Sequence[str]) -> dict[str, Any] | None:
        """The keyword arguments click would call the command with for `argv`, or DECLINE when
        click must read it (help, an error, a form this parser does not take)."""
        opts = self._opts
        if opts is None:
            return DECLINE
        values: dict[str, Any] = {}
        positional: list[str] = []
        i, n = 0, len(argv)
        while i < n:
            token = argv[i]
            i += 1
            if token[:1] != "-" or token == "-":
                positional.append(token)
                continue
            if token.startswith("--"):
                key, eq, value = token.partition("=")
            elif len(token) == 2:
                key, eq, value = token, "", ""
            else:
                return DECLINE  # -abc, -oFILE: click's short-option clusters
            param = opts.get(key)
            if param is None:
                return DECLINE  # --help, -h, an unknown option: click words the answer
            if param.is_flag:
                if eq:
                    return DECLINE
                values[param.name] = True
                continue
            if not eq:
                if i == n:
                    return DECLINE
                value = argv[i]
                i += 1
                if value[:1] == "-" and value != "-":
                    return DECLINE
            converted = param.type.convert(value)
            if converted is _NO:
                return DECLINE
            if param.multiple:
                values.setdefault(param.name, []).append(converted)
            else:
                values[param.name] = converted
        if not self._place(positional, values):
            return DECLINE
        out: dict[str, Any] = {}
        for p in self.params:
            if p.name in values:
                value = values[p.name]
                out[p.name] = tuple(value) if p.multiple else value
            elif p.required:
                return DECLINE
            else:
                out[p.name] = p.default
        return out

    def _place(self, positional: list[str], values: dict[str, Any]) -> bool:
        """Hand the positional arguments to the declared arguments as click's _unpack_args does
        (at most one takes the rest); False where click would refuse them."""
        args = [p for p in self.params if p.kind == "argument"]
        star = next((k for k, p in enumerate(args) if p.nargs == -1), None)
        if star is None:
            if len(positional) > len(args):
                return False
            for p, token in zip(args, positional, strict=False):
                if (converted := p.type.convert(token)) is _NO:
                    return False
                values[p.name] = converted
            return True
        before, after = args[:star], args[star + 1 :]
        if len(positional) < len(before) + len(after):
            return False
        tail = len(positional) - len(after)
        for p, token in [*zip(before, positional, strict=False), *zip(after, positional[tail:], strict=True)]:
            if (converted := p.type.convert(token)) is _NO:
                return False
            values[p.name] = converted
        rest = positional[len(before) : tail]
        if args[star].required and not rest:
            return False
        converted_rest = [args[star].type.convert(t) for t in rest]
        if any(c is _NO for c in converted_rest):
            return False
        values[args[star].name] = tuple(converted_rest)
        return True


def command(name: str | None = None, **kwargs: Any) -> Callable[[Callable[..., Any]], Command]:
    """`click.command`, recorded."""

    def wrap(fn: Callable[..., Any]) -> Command:
        return Command(fn, name, kwargs)

    return wrap


def _record(kind: str, decls: tuple[str, ...], kwargs: dict[str, Any]) -> Callable[[F], F]:
    def wrap(fn: F) -> F:
        params = fn.__dict__.setdefault("__envkit_params__", [])
        params.append(Param(kind, decls, kwargs))
        return fn

    return wrap


def option(*decls: str, **kwargs: Any) -> Callable[[F], F]:
    """`click.option`, recorded."""
    return _record("option", decls, kwargs)


def argument(*decls: str, **kwargs: Any) -> Callable[[F], F]:
    """`click.argument`, recorded."""
    return _record("argument", decls, kwargs)
