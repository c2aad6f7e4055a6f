"""What loads on first use: a package's public names, each from its own module, without importing
those modules when the package is (start-up pays only for what a command uses)."""

from __future__ import annotations

import sys

TYPE_CHECKING = False  # not typing's: the package root imports this, and `envkit --version` it
if TYPE_CHECKING:  # pragma: no cover
    from collections.abc import Callable, Mapping
    from typing import Any


def lazy_exports(
    package: str, home: Mapping[str, str]
) -> tuple[Callable[[str], object], Callable[[], list[str]]]:
    """(`__getattr__`, `__dir__`) for `package`, whose name N is attribute N of module `home[N]`;
    a name once loaded is kept in the package, so the lookup runs once."""

    def __getattr__(name: str) -> Any:
        if name not in home:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        import importlib  # not on import: the package root imports this module

        value = getattr(importlib.import_module(home[name]), name)
        setattr(sys.modules[package], name, value)
        return value

    def __dir__() -> list[str]:
        return sorted({*vars(sys.modules[package]), *home})

    return __getattr__, __dir__
