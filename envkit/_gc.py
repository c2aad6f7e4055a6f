"""The cyclic garbage collector paused around work that makes many objects and no cycles."""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def gc_paused() -> Iterator[None]:
    """No collector passes inside the block (as it was on the way out): each full pass walks every
    live object, and after reading two big locks that is the hundreds of thousands they hold."""
    collecting = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if collecting:
            gc.enable()
