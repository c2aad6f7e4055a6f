"""What loads on first use: a package's public names, each from its own module, without importing
those modules when the package is (start-up pays only for what a command uses); regular
expressions compiled when first matched."""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable, Mapping

TYPE_CHECKING = False  # not typing's: importing typing costs 5 ms (envkit/_records.py)
if TYPE_CHECKING:  # pragma: no cover
    import re
    from typing import Any


def lazy_exports(
    package: str, home: Mapping[str, str]
) -> tuple[Callable[[str], object], Callable[[], list[str]]]:
    """(`__getattr__`, `__dir__`) for `package`, whose name N is attribute N of module `home[N]`;
    a name once loaded is kept in the package, so the lookup runs once."""

    def __getattr__(name: str) -> Any:
        if name not in home:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(home[name]), name)
        setattr(sys.modules[package], name, value)
        return value

    def __dir__() -> list[str]:
        return sorted({*vars(sys.modules[package]), *home})

    return __getattr__, __dir__


class _LazyPattern:
    """A regular expression compiled on first use (see `lazy_re`)."""

    def __init__(self, pattern: str, flags: int = 0) -> None:
        self._args = (pattern, flags)

    def __getattr__(self, name: str) -> Any:
        if name not in _PATTERN_ATTRS:  # getattr(x, "envkit_rule", None) must not compile it
            raise AttributeError(name)
        import re

        compiled = re.compile(*self._args)
        # the compiled pattern's attributes become this object's own: later calls do not come
        # through here
        for attr in _PATTERN_ATTRS:
            setattr(self, attr, getattr(compiled, attr))
        return getattr(compiled, name)


_PATTERN_ATTRS = (
    *("match", "search", "fullmatch", "finditer", "findall", "sub", "subn", "split", "scanner"),
    *("pattern", "flags", "groups", "groupindex"),
)


def lazy_re(pattern: str, flags: int = 0) -> re.Pattern[str]:
    """`re.compile(pattern, flags)`, compiled when first used: a module-level pattern that only some
    inputs need costs nothing at import (compiling one is 50-300 µs, and start-up compiled dozens)."""
    return _LazyPattern(pattern, flags)  # type: ignore[return-value]  # a Pattern to its users
