"""A table inside a parsed TOML document (`[tool.envkit]`, `[tool.envkit.audit]`), found by its key
path: an absent key is an empty table, a key that holds something else is an error naming the file,
line and key path; and where each key of such a table is written.  Both configuration readers
(envkit.config, envkit.audit.config) select their table and place their keys here, so `tool = 5`
is refused, and a key's line found, the same way by each."""

from __future__ import annotations

from functools import cached_property

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


class KeyPlaces:
    """Where each key of the table at `prefix` (dotted; "" for the document) is: the file, the key
    path, and its line in `text` (as the file spells the key, `_` or `-`; an array item's own line
    where it has one)."""

    def __init__(self, table: dict, *, source: str | None, prefix: str, text: str | None) -> None:
        self.source, self.prefix, self.text = source, prefix, text
        self.path = tuple(prefix.split(".")) if prefix else ()
        self.written = {k.replace("_", "-"): k for k in table}

    @cached_property
    def lines(self) -> dict:
        # scanned when a place is first asked for (most configurations are read with none asked)
        return key_lines(self.text) if self.text else {}

    def __call__(self, key: str, item: int | None = None) -> Where:
        path = (*self.path, self.written.get(key, key))
        line = self.lines.get(path)
        dotted = f"{self.prefix}.{key}" if self.prefix else key
        if item is not None:
            line = self.lines.get((*path, item), line)
            dotted += f"[{item}]"
        return Where(file=self.source, line=line, key=dotted)
