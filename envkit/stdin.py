"""Standard input as an environment source: the name that means it, and reading it once."""

from __future__ import annotations

import sys

from envkit.errors import ParseError, UsageError, Where
from envkit.io import MAX_INPUT_BYTES, decode_text

#: The SOURCE (or FILE) that means standard input, and how findings and reports name it.
STDIN = "-"
STDIN_LABEL = "<stdin>"


def read_stdin(stream=None, *, max_bytes: int | None = None, keep_bom: bool = False) -> str:
    """All of standard input (or `stream`, a binary or text file object) as text: UTF-8 (or the
    UTF-16/32 its byte-order mark names), the mark stripped unless `keep_bom`, at most
    envkit.io.MAX_INPUT_BYTES.  Raises ParseError naming `<stdin>` when it is
    larger or not UTF-8."""
    limit = MAX_INPUT_BYTES if max_bytes is None else max_bytes
    where = Where(file=STDIN_LABEL)
    stream = sys.stdin if stream is None else stream
    raw = getattr(stream, "buffer", stream)
    data = raw.read(limit + 1)
    if isinstance(data, str):
        data = data.encode("utf-8", "surrogateescape")
    if len(data) > limit:
        raise ParseError(
            f"standard input is larger than the {limit / 2**20:.0f} MiB envkit reads", where=where
        )
    return decode_text(data, STDIN_LABEL, keep_bom=keep_bom, hint="pipe the file in as UTF-8")


def check_stdin_once(sources) -> None:
    """Raise UsageError when `-` (standard input) is given more than once: it can be read once."""
    if sum(1 for s in sources if s == STDIN) > 1:
        raise UsageError(
            "standard input (-) can be read only once", hint="save one of them to a file and pass its path"
        )
