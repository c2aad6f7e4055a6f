"""The one TOML reader of every file envkit reads (manifests, locks, the configuration): tomllib
(tomli before Python 3.11), after the nesting limit (envkit.formats._depth), its error naming the
file and line."""

from __future__ import annotations

import os
import re
import sys

from envkit.errors import EnvkitError, ParseError, Where
from envkit.formats._depth import check_depth

if sys.version_info >= (3, 11):
    import tomllib
else:
    import tomli as tomllib


def load_toml(text: str, filename: str | None, what: str, *, error: type[EnvkitError] = ParseError) -> dict:
    """`text` parsed as TOML; `error` (ParseError, or ConfigError for a configuration) with the
    line and column tomllib names, or for arrays and inline tables nested deeper than envkit reads.
    A lock or manifest that is a requirements file saved under a TOML name is named as one (not a
    configuration: there a bare word is a typo)."""
    check_depth(text, filename, f"TOML ({what})", outer=1, error=error)
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        msg = str(exc)
    except ValueError:  # int()'s: more digits than Python reads
        from envkit.formats._util import refuse_long_int

        refuse_long_int(text, filename, error)
        raise
    m = re.search(r"\(at line (\d+), column \d+\)", msg)
    line = int(m.group(1)) if m else None
    entries = _requirements_lines(text) if error is ParseError else []
    if entries:  # `pip freeze > pylock.toml`
        name = os.path.basename(filename) if filename else what
        raise ParseError(
            f"{name} is a requirements file, not TOML: {len(entries)} "
            f"requirement{'s' if len(entries) != 1 else ''} such as {entries[0]!r}",
            where=Where(file=filename, line=1),
            hint="name it requirements.txt (pip reads it with -r), or write a pylock.toml from "
            "it with `pip lock -r requirements.txt` or `uv pip compile -o pylock.toml`",
        )
    raise error(f"not valid TOML ({what}): {msg}", where=Where(file=filename, line=line))


def _requirements_lines(text: str) -> list[str]:
    """The requirements of `text` when every line of it reads as a requirements file's (at least
    one requirement), else []."""
    from envkit.formats.requirements import read_requirements

    try:
        spec = read_requirements(text)
    except EnvkitError:
        return []
    return [d.text for d in spec.pip if d.kind == "requirement"]
