"""The one reader of the JSON files envkit is given (`conda list --json`, conda-meta records, machine
profiles, VEX documents, OSV records, the PyTorch matrix): json, after the nesting limit
(envkit.formats._depth), its error naming the file and line."""

from __future__ import annotations

import json
import re
from typing import Any

from envkit.errors import ParseError, Where
from envkit.formats._depth import check_depth

# a JSON string (one line: JSON strings hold no raw line break)
_STRING = r'"[^"\\]*(?:\\.[^"\\]*)*"'
_SURROGATE = "[\ud800-\udfff]"


def load_json(text: str, filename: str | None, *, hint: str | None = None) -> Any:
    """`text` parsed as JSON; ParseError (file, line; `hint`) for invalid JSON, for arrays and
    objects nested deeper than envkit reads, for an integer of more digits than Python reads, and
    for a string holding a lone UTF-16 surrogate (`"\\ud800"`: no file or terminal can hold it)."""
    check_depth(text, filename, "JSON")
    try:
        value = json.loads(text)
    except json.JSONDecodeError as exc:
        where = Where(file=filename, line=exc.lineno)
        raise ParseError(f"invalid JSON: {exc.msg}", where=where, hint=hint) from None
    except ValueError:  # int()'s: more digits than Python reads
        from envkit.formats._util import refuse_long_int

        refuse_long_int(text, filename)
        raise
    if "\\u" in text or not text.isascii():
        _refuse_lone_surrogate(text, filename)
    return value


def _refuse_lone_surrogate(text: str, filename: str | None) -> None:
    """ParseError at the first string of `text` (valid JSON) whose value holds a surrogate: an escape
    of half a pair (json pairs the halves it finds together) or the character itself."""
    if re.search(r"\\u[dD][89a-fA-F]", text) is None and re.search(_SURROGATE, text) is None:
        return
    for m in re.finditer(_STRING, text):
        bad = re.search(_SURROGATE, json.loads(m.group()))
        if bad is not None:
            raise ParseError(
                f"invalid JSON: a lone surrogate U+{ord(bad.group()):04X} is not a character",
                where=Where(file=filename, line=text.count("\n", 0, m.start()) + 1),
                hint="write the character itself, or both halves of its \\u escape pair",
            )
