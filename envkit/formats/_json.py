"""The one reader of the JSON files envkit is given (`conda list --json`, conda-meta records, machine
profiles, VEX documents, OSV records, the PyTorch matrix): json, after the nesting limit
(envkit.formats._depth), its error naming the file and line."""

from __future__ import annotations

import json
from typing import Any

from envkit.errors import ParseError, Where
from envkit.formats._depth import check_depth


def load_json(text: str, filename: str | None, *, hint: str | None = None) -> Any:
    """`text` parsed as JSON; ParseError (file, line; `hint`) for invalid JSON, or for arrays and
    objects nested deeper than envkit reads."""
    check_depth(text, filename, "JSON")
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        where = Where(file=filename, line=exc.lineno)
        raise ParseError(f"invalid JSON: {exc.msg}", where=where, hint=hint) from None
    except ValueError:  # int()'s: more digits than Python reads
        from envkit.formats._util import long_int_error, long_int_line

        line = long_int_line(text)
        if line is None:
            raise
        raise long_int_error(Where(file=filename, line=line), ParseError) from None
