"""The one nesting limit of every format envkit reads (YAML, JSON, TOML).

No environment file or lock nests more than a handful of levels; a file nested thousands deep is
hostile, and the standard readers answer it with a RecursionError (json, tomllib) after spending
the stack.  JSON and TOML text is measured here before it is parsed (linear: strings and comments
are skipped at C speed, then the brackets are counted); YAML's loader counts its levels as it
builds them (envkit.formats._yaml).
"""

from __future__ import annotations

import re
from itertools import accumulate

from envkit.errors import EnvkitError, ParseError, Where

#: The most levels of collections inside one another that a document may have.
MAX_DEPTH = 64

# what may hold a bracket without opening anything: TOML's multi-line and one-line strings (JSON's
# strings are TOML's basic ones, matched a run of plain characters at a time) and TOML comments
_SKIP = r'"""[\s\S]*?"""|\'\'\'[\s\S]*?\'\'\'|"[^"\\\n]*(?:\\.[^"\\\n]*)*"|\'[^\'\n]*\'|#[^\n]*'
_NOT_BRACKET = r"[^\[\]{}]+"
_TOKENS = rf"{_SKIP}|[\[\]{{}}]"
_STEP = {"[": 1, "{": 1, "]": -1, "}": -1}


def check_depth(
    text: str, filename: str | None, what: str, outer: int = 0, error: type[EnvkitError] = ParseError
) -> None:
    """Raise `error` (file, line) when the arrays and objects/tables of `text`, JSON or TOML named
    `what`, nest deeper than MAX_DEPTH; `outer`: the levels open before the first bracket (a TOML
    document is a table)."""
    if outer + text.count("[") + text.count("{") <= MAX_DEPTH:
        return
    brackets = re.sub(_NOT_BRACKET, "", re.sub(_SKIP, "", text))
    if outer + max(accumulate(map(_STEP.__getitem__, brackets)), default=0) <= MAX_DEPTH:
        return
    depth = outer
    for m in re.finditer(_TOKENS, text):
        depth += _STEP.get(m.group(), 0)
        if depth > MAX_DEPTH:
            raise error(
                f"{what} nested more than {MAX_DEPTH} levels deep; refused",
                where=Where(file=filename, line=text.count("\n", 0, m.start()) + 1),
                hint="envkit reads environment files and locks, whose values nest a few levels",
            )
