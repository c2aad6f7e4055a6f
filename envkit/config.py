"""envkit's project configuration: `[tool.envkit]` in pyproject.toml, or a `.envkit.toml`.

    [tool.envkit]                      # in .envkit.toml the same keys sit at the top level
    select = ["conda-pip-duplicate", "leaked-secret"]   # default: every rule
    ignore = ["fuzzy-pin"]
    fail-on = "warning"                # default for `envkit check --fail-on`
    allowed-channels = ["conda-forge", "nodefaults"]

    [tool.envkit.severity]             # per-rule severity overrides
    unpinned = "error"

    [tool.envkit.pypi-names]           # extra conda name -> PyPI names for conda-pip-duplicate
    my-conda-pkg = ["my-pypi-project"]

Lookup: `.envkit.toml` then `pyproject.toml` (only when it has a `[tool.envkit]` table) in the
working directory and each parent up to the repository root (a directory holding `.git`).
Key spellings with `_` are accepted for `-`.  Unknown keys, unknown rule names and bad values are
errors (`ConfigError`, exit code 2) that name the file.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from envkit.errors import ConfigError as ConfigError  # defined low: envkit.audit.config raises it too
from envkit.errors import Where, clip

if TYPE_CHECKING:  # pragma: no cover
    from pathlib import Path


#: `audit` is `envkit audit`'s own table (envkit.audit.config reads it)
_KEYS = ("select", "ignore", "fail-on", "allowed-channels", "severity", "pypi-names", "audit")


@dataclass(frozen=True)
class Config:
    """Check configuration.  `select` None means every rule; `allowed_channels` None means any.

    `pypi_names` maps conda names (lowercase) to extra PyPI names; `source` is the file it came from.
    """

    select: tuple[str, ...] | None = None
    ignore: tuple[str, ...] = ()
    severity: dict[str, str] = field(default_factory=dict)
    allowed_channels: tuple[str, ...] | None = None
    pypi_names: dict[str, tuple[str, ...]] = field(default_factory=dict)
    fail_on: str | None = None
    source: str | None = None

    def __post_init__(self) -> None:
        """Check every field as `parse_config` checks the file's keys, so that a Config built in
        Python cannot hold what a config file may not: TypeError for a wrong type (a bare string
        where a list of names belongs), ConfigError for an unknown rule name, severity or fail-on
        level, or an empty `select`.  Lists become tuples and channel names canonical."""
        set_ = object.__setattr__  # the dataclass is frozen: store the normalized values once, here
        set_(self, "select", None if self.select is None else _names("select", self.select))
        set_(self, "ignore", _names("ignore", self.ignore))
        if self.select == ():
            raise ConfigError(
                "select is empty, so no rule would run",
                hint="name rules, or leave select as None to run every rule",
            )
        severity = _mapping("severity", self.severity, "a dict of rule name -> severity")
        for name, level in severity.items():
            if not isinstance(name, str) or not isinstance(level, str):
                raise TypeError(
                    f"Config severity must map rule names (str) to severities (str), "
                    f"not {type(name).__name__} to {type(level).__name__}"
                )
        set_(self, "severity", dict(severity))
        if self.severity or self.fail_on is not None:
            self._check_levels()
        _check_rule_names(select=self.select or (), ignore=self.ignore, severity=tuple(self.severity))
        if self.allowed_channels is not None:
            allowed = _names("allowed_channels", self.allowed_channels, what="channel names")
            if not all(c.strip() for c in allowed):
                raise ConfigError("allowed-channels holds an empty channel name")
            from envkit.conda.channels import parse_channel

            set_(self, "allowed_channels", tuple(parse_channel(c).name for c in allowed))
        pypi_names: dict[str, tuple[str, ...]] = {}
        for conda, pypi in _mapping(
            "pypi_names", self.pypi_names, "a dict of conda name -> PyPI names"
        ).items():
            if not isinstance(conda, str):
                raise TypeError(
                    f"Config pypi_names keys must be conda names (str), not {type(conda).__name__}"
                )
            pypi_names[conda.lower()] = _names(f"pypi_names[{conda!r}]", pypi, what="PyPI names")
        set_(self, "pypi_names", pypi_names)
        if self.source is not None and not isinstance(self.source, str):
            raise TypeError(f"Config source must be a str or None, not {type(self.source).__name__}")

    def _check_levels(self) -> None:
        from envkit.checks.core import SEVERITIES as levels

        for name, level in self.severity.items():
            if level not in levels:
                raise ConfigError(f"severity of {name} must be one of {', '.join(levels)}, not {level!r}")
        if self.fail_on is not None:
            if not isinstance(self.fail_on, str):
                raise TypeError(f"Config fail_on must be a str or None, not {type(self.fail_on).__name__}")
            if self.fail_on not in levels:
                raise ConfigError(f"fail-on must be one of {', '.join(levels)}, not {self.fail_on!r}")

    def is_selected(self, rule_name: str) -> bool:
        """Whether `rule_name` runs: in `select` (or no select given) and not in `ignore`."""
        if rule_name in self.ignore:
            return False
        return self.select is None or rule_name in self.select

    def merged(
        self,
        *,
        select: tuple[str, ...] | None = None,
        ignore: tuple[str, ...] = (),
        severity: dict[str, str] | None = None,
    ) -> Config:
        """This config with command-line choices on top: `select` replaces, `ignore` adds."""
        from dataclasses import replace

        sev = dict(self.severity)
        sev.update(severity or {})
        return replace(
            self,
            select=select if select is not None else self.select,
            ignore=tuple(dict.fromkeys(self.ignore + tuple(ignore))),
            severity=sev,
        )


def _check_rule_names(**named: tuple[str, ...]) -> None:
    """ConfigError for a name in `named` (key -> rule names) that is no rule's."""
    if not any(named.values()):
        return
    from envkit.checks.registry import rule_names

    for key, names in named.items():
        for name in names:
            if name not in rule_names():
                raise _unknown_rule(name, key)


def _unknown_rule(name: object, key: str, where: Where | None = None) -> ConfigError:
    return ConfigError(
        f"unknown rule {name!r} in {key}", where=where, hint="`envkit check --list-rules` lists the rules"
    )


def _names(key: str, value, *, what: str = "rule names") -> tuple[str, ...]:
    """`value` (a list or tuple of str) as a tuple; TypeError for anything else, a bare str above
    all (it would be taken one character at a time)."""
    if isinstance(value, (list, tuple)) and all(isinstance(x, str) for x in value):
        return tuple(value)
    if isinstance(value, (list, tuple)):
        bad = next(x for x in value if not isinstance(x, str))
        raise TypeError(f"Config {key} must hold {what} (str), not {type(bad).__name__}")
    hint = f" (one name goes in a tuple: ({value!r},))" if isinstance(value, str) else ""
    raise TypeError(f"Config {key} must be a tuple or list of {what}, not {type(value).__name__}{hint}")


def _mapping(key: str, value, expected: str):
    from collections.abc import Mapping

    if not isinstance(value, Mapping):
        raise TypeError(f"Config {key} must be {expected}, not {type(value).__name__}")
    return value


def find_config(start: str | os.PathLike[str] | None = None) -> Path | None:
    """The config file that applies in `start` (default: the working directory), or None."""
    # os.path, not pathlib, for the walk: every check runs it, and pathlib is a start-up cost
    d = os.path.realpath(os.fspath(start or os.getcwd()))
    while True:
        dot = os.path.join(d, ".envkit.toml")
        if os.path.isfile(dot):
            return _path(dot)
        py = os.path.join(d, "pyproject.toml")
        if os.path.isfile(py) and _has_tool_envkit(py):
            return _path(py)
        parent = os.path.dirname(d)
        if os.path.exists(os.path.join(d, ".git")) or parent == d:
            return None
        d = parent


def _path(path: str | os.PathLike[str]) -> Path:
    from pathlib import Path

    return Path(path)


def _has_tool_envkit(path: str) -> bool:
    try:
        with open(path, encoding="utf-8") as f:
            text = f.read()
    except (OSError, UnicodeDecodeError):
        return False
    # a `[tool.envkit]` (or `[tool.envkit.severity]`, ...) table header, not a mention in a comment
    return re.search(r"^[ \t]*\[[ \t]*tool\.envkit[ \t]*[\].]", text, re.M) is not None


def load_config(path: str | os.PathLike[str] | None = None, *, start: str | None = None) -> Config:
    """Read the configuration from `path`, or from the file `find_config(start)` finds; an empty
    Config when there is none.  Raises ConfigError for invalid TOML, unknown keys or rule names,
    and bad values."""
    p = _path(path) if path is not None else find_config(start)
    if p is None:
        return Config()
    from envkit.formats._toml import load_toml
    from envkit.formats._tomltable import table_at
    from envkit.io import read_text

    text = read_text(p)
    data = load_toml(text, str(p), "envkit configuration", error=ConfigError)
    keys = ("tool", "envkit") if p.name == "pyproject.toml" else ()
    table, prefix = table_at(data, keys, file=str(p), text=text), ".".join(keys)
    return parse_config(table, source=str(p), prefix=prefix, text=text)


def parse_config(
    table: dict, *, source: str | None = None, prefix: str = "", text: str | None = None
) -> Config:
    """Validate a `[tool.envkit]` table (already parsed from TOML, a table: load_config's table_at
    selects it) into a Config."""
    t = _Table(table, source=source, prefix=prefix, text=text)
    select = t.rule_list("select") if "select" in t.norm else None
    if select == ():
        # an empty selection runs no rule and passes every file: never what a project means
        raise ConfigError(
            "select is empty, so no rule would run",
            where=t.where("select"),
            hint="list rule names, or remove `select` to run every rule",
        )
    audit = t.norm.get("audit", {})
    if not isinstance(audit, dict):  # its keys are envkit.audit.config's to check, its type is ours
        dotted = f"{prefix}.audit" if prefix else "audit"
        raise ConfigError(f"[{dotted}] must be a table, not {clip(repr(audit))}", where=t.where("audit"))
    return Config(
        select=select,
        ignore=t.rule_list("ignore") if "ignore" in t.norm else (),
        severity=t.severity(),
        fail_on=t.fail_on(),
        allowed_channels=t.allowed_channels(),
        pypi_names=t.pypi_names(),
        source=source,
    )


class _Table:
    """A `[tool.envkit]` table with its keys normalized (`_` -> `-`, unknown ones refused), each
    value checked by the method of its key; errors name the file, line and key."""

    def __init__(self, table: dict, *, source: str | None, prefix: str, text: str | None) -> None:
        from envkit.formats._tomltable import KeyPlaces

        self.where = KeyPlaces(table, source=source, prefix=prefix, text=text)
        self.norm: dict[str, object] = {}
        for k, v in table.items():
            nk = k.replace("_", "-")
            if nk not in _KEYS:
                raise ConfigError(
                    f"unknown configuration key {k!r}",
                    where=self.where(k),
                    hint="known keys: " + ", ".join(_KEYS),
                )
            self.norm[nk] = v

    def rule_list(self, key: str) -> tuple[str, ...]:
        from envkit.checks.registry import rule_names

        value = self.norm[key]
        if isinstance(value, str):
            value = [value]
        if not isinstance(value, list) or not all(isinstance(x, str) for x in value):
            raise ConfigError(f"{key} must be a list of rule names", where=self.where(key))
        for name in value:
            if name not in rule_names():
                raise _unknown_rule(name, key, self.where(key))
        return tuple(value)

    def severity(self) -> dict[str, str]:
        from envkit.checks.core import SEVERITIES
        from envkit.checks.registry import rule_names

        severity: dict[str, str] = {}
        if "severity" not in self.norm:
            return severity
        sev = self.norm["severity"]
        if not isinstance(sev, dict):
            raise ConfigError(
                'severity must be a table of rule = "error|warning|info"', where=self.where("severity")
            )
        for name, level in sev.items():
            if name not in rule_names():
                raise _unknown_rule(name, "severity", self.where("severity"))
            if level not in SEVERITIES:
                raise ConfigError(
                    f"severity of {name} must be one of {', '.join(SEVERITIES)}, not {level!r}",
                    where=self.where("severity"),
                )
            severity[name] = level
        return severity

    def fail_on(self) -> str | None:
        from envkit.checks.core import SEVERITIES

        if "fail-on" not in self.norm:
            return None
        fail_on = self.norm["fail-on"]
        if not isinstance(fail_on, str) or fail_on not in SEVERITIES:
            raise ConfigError(
                f"fail-on must be one of {', '.join(SEVERITIES)}, not {fail_on!r}",
                where=self.where("fail-on"),
            )
        return fail_on

    def allowed_channels(self) -> tuple[str, ...] | None:
        if "allowed-channels" not in self.norm:
            return None
        value = self.norm["allowed-channels"]
        if not isinstance(value, list) or not all(isinstance(x, str) for x in value):
            raise ConfigError(
                "allowed-channels must be a list of channel names", where=self.where("allowed-channels")
            )
        if not all(x.strip() for x in value):
            raise ConfigError(
                "allowed-channels holds an empty channel name", where=self.where("allowed-channels")
            )
        from envkit.conda.channels import parse_channel

        return tuple(parse_channel(x).name for x in value)

    def pypi_names(self) -> dict[str, tuple[str, ...]]:
        names: dict[str, tuple[str, ...]] = {}
        if "pypi-names" not in self.norm:
            return names
        value = self.norm["pypi-names"]
        if not isinstance(value, dict):
            raise ConfigError(
                'pypi-names must be a table of conda-name = ["pypi-name", ...]',
                where=self.where("pypi-names"),
            )
        for conda, pypi in value.items():
            if isinstance(pypi, str):
                pypi = [pypi]
            if not isinstance(pypi, list) or not all(isinstance(x, str) and x for x in pypi):
                raise ConfigError(
                    f"pypi-names.{conda} must be a list of PyPI names", where=self.where("pypi-names")
                )
            names[conda.lower()] = tuple(pypi)
        return names
