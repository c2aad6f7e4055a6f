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
from pathlib import Path

from envkit.errors import EnvkitError, Where


class ConfigError(EnvkitError):
    """The configuration file is malformed or names something that does not exist."""


_KEYS = ("select", "ignore", "fail-on", "allowed-channels", "severity", "pypi-names")


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

    def is_selected(self, rule_name: str) -> bool:
        """Whether `rule_name` runs: in `select` (or no select given) and not in `ignore`."""
        if rule_name in self.ignore:
            return False
        return self.select is None or rule_name in self.select

    def severity_of(self, rule_name: str, default: str) -> str:
        return self.severity.get(rule_name, default)

    def merged(self, *, select: tuple[str, ...] | None = None, ignore: tuple[str, ...] = (),
               severity: dict[str, str] | None = None) -> "Config":
        """This config with command-line choices on top: `select` replaces, `ignore` adds."""
        from dataclasses import replace

        sev = dict(self.severity)
        sev.update(severity or {})
        return replace(self, select=select if select is not None else self.select,
                       ignore=tuple(dict.fromkeys(self.ignore + tuple(ignore))), severity=sev)


def find_config(start: str | os.PathLike[str] | None = None) -> Path | None:
    """The config file that applies in `start` (default: the working directory), or None."""
    here = Path(start or os.getcwd()).resolve()
    for d in (here, *here.parents):
        dot = d / ".envkit.toml"
        if dot.is_file():
            return dot
        py = d / "pyproject.toml"
        if py.is_file() and _has_tool_envkit(py):
            return py
        if (d / ".git").exists():
            break
    return None


def _has_tool_envkit(path: Path) -> bool:
    try:
        text = path.read_text("utf-8")
    except (OSError, UnicodeDecodeError):
        return False
    # a `[tool.envkit]` (or `[tool.envkit.severity]`, ...) table header, not a mention in a comment
    return re.search(r"^[ \t]*\[[ \t]*tool\.envkit[ \t]*[\].]", text, re.M) is not None


def load_config(path: str | os.PathLike[str] | None = None, *, start: str | None = None) -> Config:
    """Read the configuration from `path`, or from the file `find_config(start)` finds; an empty
    Config when there is none.  Raises ConfigError for invalid TOML, unknown keys or rule names,
    and bad values."""
    p = Path(path) if path is not None else find_config(start)
    if p is None:
        return Config()
    try:
        import tomllib
    except ModuleNotFoundError:  # Python 3.10
        import tomli as tomllib  # type: ignore[no-redef]
    from envkit.io import read_text

    text = read_text(p)
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"invalid TOML: {exc}", where=Where(file=str(p))) from None
    if p.name == "pyproject.toml":
        table = data.get("tool", {}).get("envkit", {})
        prefix = "tool.envkit"
    else:
        table = data
        prefix = ""
    return parse_config(table, source=str(p), prefix=prefix, text=text)


def parse_config(table: dict, *, source: str | None = None, prefix: str = "",
                 text: str | None = None) -> Config:
    """Validate a `[tool.envkit]` table (already parsed from TOML) into a Config."""
    from envkit.checks.core import SEVERITIES, all_rules

    rules = all_rules()

    def where(key: str) -> Where:
        full = f"{prefix}.{key}" if prefix else key
        return Where(file=source, line=_line_of(text, key), key=full)

    if not isinstance(table, dict):
        raise ConfigError("[tool.envkit] must be a table", where=Where(file=source))
    norm: dict[str, object] = {}
    for k, v in table.items():
        nk = k.replace("_", "-")
        if nk not in _KEYS:
            raise ConfigError(f"unknown configuration key {k!r}", where=where(k),
                              hint="known keys: " + ", ".join(_KEYS))
        norm[nk] = v

    def rule_list(key: str) -> tuple[str, ...]:
        value = norm[key]
        if isinstance(value, str):
            value = [value]
        if not isinstance(value, list) or not all(isinstance(x, str) for x in value):
            raise ConfigError(f"{key} must be a list of rule names", where=where(key))
        for name in value:
            if name not in rules:
                raise ConfigError(f"unknown rule {name!r} in {key}", where=where(key),
                                  hint="`envkit check --list-rules` lists the rules")
        return tuple(value)

    select = rule_list("select") if "select" in norm else None
    if select == ():
        # an empty selection runs no rule and passes every file: never what a project means
        raise ConfigError("select is empty, so no rule would run", where=where("select"),
                          hint="list rule names, or remove `select` to run every rule")
    ignore = rule_list("ignore") if "ignore" in norm else ()
    severity: dict[str, str] = {}
    if "severity" in norm:
        sev = norm["severity"]
        if not isinstance(sev, dict):
            raise ConfigError("severity must be a table of rule = \"error|warning|info\"",
                              where=where("severity"))
        for name, level in sev.items():
            if name not in rules:
                raise ConfigError(f"unknown rule {name!r} in severity", where=where("severity"),
                                  hint="`envkit check --list-rules` lists the rules")
            if level not in SEVERITIES:
                raise ConfigError(f"severity of {name} must be one of {', '.join(SEVERITIES)}, "
                                  f"not {level!r}", where=where("severity"))
            severity[name] = level
    fail_on = None
    if "fail-on" in norm:
        fail_on = norm["fail-on"]
        if fail_on not in SEVERITIES:
            raise ConfigError(f"fail-on must be one of {', '.join(SEVERITIES)}, not {fail_on!r}",
                              where=where("fail-on"))
    allowed = None
    if "allowed-channels" in norm:
        value = norm["allowed-channels"]
        if not isinstance(value, list) or not all(isinstance(x, str) and x for x in value):
            raise ConfigError("allowed-channels must be a list of channel names",
                              where=where("allowed-channels"))
        from envkit.conda.channels import parse_channel

        allowed = tuple(parse_channel(x).name for x in value)
    names: dict[str, tuple[str, ...]] = {}
    if "pypi-names" in norm:
        value = norm["pypi-names"]
        if not isinstance(value, dict):
            raise ConfigError("pypi-names must be a table of conda-name = [\"pypi-name\", ...]",
                              where=where("pypi-names"))
        for conda, pypi in value.items():
            if isinstance(pypi, str):
                pypi = [pypi]
            if not isinstance(pypi, list) or not all(isinstance(x, str) and x for x in pypi):
                raise ConfigError(f"pypi-names.{conda} must be a list of PyPI names",
                                  where=where("pypi-names"))
            names[conda.lower()] = tuple(pypi)
    return Config(select=select, ignore=ignore, severity=severity, allowed_channels=allowed,
                  pypi_names=names, fail_on=fail_on, source=source)


def _line_of(text: str | None, key: str) -> int | None:
    """Best-effort line of `key` in the TOML text, for error messages."""
    if not text:
        return None
    import re

    pat = re.compile(rf"^\s*(?:\[[^\]]*\b{re.escape(key)}\]|\"?{re.escape(key)}\"?\s*=)")
    for i, line in enumerate(text.splitlines(), 1):
        if pat.match(line):
            return i
    return None
