"""A table inside a parsed TOML document (`[tool.envkit]`, `[tool.envkit.audit]`), found by its key
path: an absent key is an empty table, a key that holds something else is an error naming the file,
line and key path.  Both configuration readers (envkit.config, envkit.audit.config) select their
table here, so `tool = 5` is refused the same way by each."""

from __future__ import annotations

from envkit.errors import ConfigError, EnvkitError, Where, clip
from envkit.formats._tomllines import key_lines


def table_at(
    data: dict,
    keys: tuple[str, ...],
    *,
    file: str | None,
    text: str | None,
    error: type[EnvkitError] = ConfigError,
) -> dict:
    """The table of `data` (a parsed TOML document, `text` its source) at key path `keys`; {} when
    a key on the path is absent.  Raises `error` when one holds a value that is not a table."""
    table = data
    for i, key in enumerate(keys):
        value = table.get(key, {})
        if not isinstance(value, dict):
            path = keys[: i + 1]
            line = key_lines(text).get(path) if text else None
            dotted = ".".join(path)
            raise error(
                f"[{dotted}] must be a table, not {clip(repr(value))}",
                where=Where(file=file, line=line, key=dotted),
            )
        table = value
    return table
