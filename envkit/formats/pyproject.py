"""pyproject.toml read as a spec: `[project]` dependencies, optional-dependencies and requires-python,
`[dependency-groups]` (PEP 735, `include-group` expanded) and uv's `[tool.uv]` (dev-dependencies,
sources, index, conflicts).

uv locks and solves the project (`uv lock`); envkit reads the manifest and judges its uv.lock.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from envkit.errors import EnvironmentNotFound, ParseError, Where
from envkit.formats._manifest import Entry, bad, check_keys, pip_dep
from envkit.formats._tomllines import Path, dotted, key_lines, line_of

PROJECT_KEYS = (
    *("name", "version", "description", "readme", "requires-python", "license", "license-files"),
    *("authors", "maintainers", "keywords", "classifiers", "urls", "scripts", "gui-scripts"),
    *("entry-points", "dependencies", "optional-dependencies", "dynamic", "import-names"),
    "import-namespaces",
)
UV_KEYS = (
    *("dev-dependencies", "sources", "index", "conflicts", "environments", "required-environments"),
    *("default-groups", "package", "workspace", "constraint-dependencies", "override-dependencies"),
    *("exclude-newer", "index-url", "extra-index-url", "find-links", "prerelease", "resolution"),
    *("managed", "build-constraint-dependencies", "dependency-metadata", "no-build-isolation-package"),
    *("cache-keys", "python-preference", "python-downloads", "index-strategy", "required-version"),
    *("build-backend", "config-settings", "no-binary-package", "no-build-package", "pip", "preview"),
    *("conflicting-groups", "no-sources", "extra-build-dependencies", "fork-strategy"),
)
#: the tables that make a TOML document a pyproject.toml envkit reads
_READ = ("project", "dependency-groups")


def load(text: str, filename: str | None) -> tuple[dict[str, Any], dict[Path, int]]:
    """The pyproject's TOML and its key lines; ParseError when it is not TOML, or is a TOML file
    that asks for no Python packages (a Cargo.toml, a pyproject.toml of tool settings only)."""
    from envkit.formats._toml import load_toml

    data = load_toml(text, filename, "pyproject.toml")
    lines = key_lines(text)
    tool: dict[str, Any] = data["tool"] if isinstance(data.get("tool"), dict) else {}
    if any(k in data for k in _READ) or "uv" in tool:
        check_types(data, lines, filename)
        check_keys(data.get("project") or {}, PROJECT_KEYS, ("project",), lines, filename)
        check_keys(tool.get("uv") or {}, UV_KEYS, ("tool", "uv"), lines, filename)
        return data, lines
    meta = data.get("metadata")
    if isinstance(meta, dict) and "lock_version" in meta and "package" in data:
        raise ParseError(
            "a PDM lock (pdm.lock): envkit does not read PDM's lock format",
            where=Where(file=filename, line=line_of(lines, ("metadata", "lock_version"))),
            hint="`pdm lock --check` says whether it is fresh for its pyproject.toml; "
            "`pdm export -f requirements` writes the locked packages in a file envkit reads",
        )
    if "poetry" in tool:
        raise ParseError(
            "a Poetry pyproject.toml: envkit reads [project], [dependency-groups] and [tool.uv], "
            "not [tool.poetry]",
            where=Where(file=filename, line=line_of(lines, ("tool", "poetry"))),
        )
    tables = ", ".join(sorted(data)) or "none"
    what = "a pyproject.toml with" if (filename or "").endswith("pyproject.toml") else "a TOML file with"
    raise ParseError(
        f"{what} no [project], [dependency-groups] or [tool.uv] table (top-level keys: {tables})",
        where=Where(file=filename),
        hint="envkit reads pixi.toml, pyproject.toml ([project], [tool.pixi], [tool.uv]), "
        "pylock.toml and uv.lock",
    )


def _toml_type(value: Any) -> str:
    if isinstance(value, bool):
        return "a boolean"
    names = {int: "an integer", float: "a float", str: "a string", list: "an array", dict: "a table"}
    return names.get(type(value), "a date or time")


def check_types(data: dict[str, Any], lines: dict[Path, int], filename: str | None) -> None:
    """ParseError (file, line, key) for a key envkit reads from a pyproject.toml whose value is of
    the wrong TOML type (`project = true`, `[project] name = 5`, `[tool.uv] conflicts = [5]`): PEP 621
    and uv's schema fix these types, and uv refuses such a file too ("invalid type")."""

    def need(value: Any, path: Path, ok: type | tuple[type, ...], what: str) -> None:
        if not isinstance(value, ok):
            raise bad(f"`{dotted(path)}` must be {what}, not {_toml_type(value)}", path, lines, filename)

    def table(path: Path) -> dict[str, Any]:
        """The table at `path` ({} when it is not written), checked to be one."""
        parent: Any = data
        for part in path:
            parent = parent.get(part, {})
        need(parent, path, dict, "a table")
        return parent

    def strings(value: Any, path: Path, what: str = "an array of strings") -> None:
        need(value, path, list, what)
        for i, item in enumerate(value):
            need(item, (*path, i), str, "a string")

    for path in (("project",), ("dependency-groups",), ("tool",), ("tool", "uv")):
        table(path)
    project, uv = table(("project",)), table(("tool", "uv"))
    for key in ("name", "requires-python"):
        if key in project:
            need(project[key], ("project", key), str, "a string")
    if "dynamic" in project:
        strings(project["dynamic"], ("project", "dynamic"))
    for extra, value in table(("project", "optional-dependencies")).items():
        need(value, ("project", "optional-dependencies", extra), list, "a list of requirements")
    for group, value in table(("dependency-groups",)).items():
        need(value, ("dependency-groups", group), list, "a list of requirements")
    for key in ("constraint-dependencies", "override-dependencies"):
        _entries(uv.get(key), ("tool", "uv", key), lines, filename)
    if "default-groups" in uv and uv["default-groups"] != "all":
        strings(uv["default-groups"], ("tool", "uv", "default-groups"), '"all" or an array of group names')
    if "package" in uv:
        need(uv["package"], ("tool", "uv", "package"), bool, "true or false")
    table(("tool", "uv", "workspace"))
    _check_uv_tables(uv, need)


def _check_uv_tables(uv: dict[str, Any], need: Callable[[Any, Path, Any, str], None]) -> None:
    """`[tool.uv]` sources, index and conflicts: the tables and strings uv's schema says they are."""
    base = ("tool", "uv")
    need(uv.get("sources", {}), (*base, "sources"), dict, "a table")
    for name, value in uv.get("sources", {}).items():
        path: Path = (*base, "sources", name)
        need(value, path, (dict, list), "a table or an array of tables")
        for i, source in enumerate(value) if isinstance(value, list) else [(None, value)]:
            at = path if i is None else (*path, i)
            need(source, at, dict, "a table")
            for key in ("index", "git", "path", "url", "marker", "extra", "group"):
                if key in source:
                    need(source[key], (*at, key), str, "a string")
    need(uv.get("index", []), (*base, "index"), list, "an array of tables")
    for i, index in enumerate(uv.get("index", [])):
        need(index, (*base, "index", i), dict, "a table")
        for key in ("name", "url"):
            if key in index:
                need(index[key], (*base, "index", i, key), str, "a string")
    need(uv.get("conflicts", []), (*base, "conflicts"), list, "an array of conflict sets")
    for i, conflict in enumerate(uv.get("conflicts", [])):
        need(
            conflict,
            (*base, "conflicts", i),
            list,
            "an array of `{ extra = ... }` / `{ group = ... }` tables",
        )
        for j, item in enumerate(conflict):
            need(item, (*base, "conflicts", i, j), dict, "a table (`{ extra = ... }` or `{ group = ... }`)")
            for key, value in item.items():
                need(value, (*base, "conflicts", i, j, key), str, "a string")


def _entry(text: Any, path: Path, lines: dict[Path, int], filename: str | None) -> Entry:
    from packaging.requirements import InvalidRequirement, Requirement

    if not isinstance(text, str):
        raise bad("a requirement must be a string", path, lines, filename)
    try:
        r = Requirement(text)
    except InvalidRequirement as exc:
        raise bad(f"invalid requirement {text!r}: {exc}", path, lines, filename) from None
    return Entry(
        manager="pypi",
        name=r.name,
        spec=text,
        version=str(r.specifier) or "*",
        extras=tuple(sorted(r.extras)),
        marker=str(r.marker) if r.marker else None,
        source=r.url,
        key=dotted(path),
        line=line_of(lines, path),
    )


def _entries(value: Any, path: Path, lines: dict[Path, int], filename: str | None) -> list[Entry]:
    if value is None:
        return []
    if not isinstance(value, list):
        raise bad(f"`{dotted(path)}` must be a list of requirements", path, lines, filename)
    return [_entry(v, (*path, i), lines, filename) for i, v in enumerate(value)]


def project_entries(
    data: dict[str, Any],
    lines: dict[Path, int],
    key: str,
    extra: str | None = None,
    filename: str | None = None,
) -> list[Entry]:
    """`[project] dependencies` (key "dependencies"), or one extra of optional-dependencies."""
    project = data.get("project") or {}
    if extra is None:
        return _entries(project.get(key), ("project", key), lines, filename)
    return _entries((project.get(key) or {}).get(extra), ("project", key, extra), lines, filename)


def group_entries(
    data: dict[str, Any], lines: dict[Path, int], filename: str | None
) -> dict[str, list[Entry]]:
    """Every dependency group, `include-group` expanded (a cycle or unknown group is an error);
    uv's `tool.uv.dev-dependencies` join the `dev` group, as uv reads them."""
    raw = data.get("dependency-groups") or {}  # a table: `check_types` saw to it
    out: dict[str, list[Entry]] = {}

    def expand(name: str, stack: tuple[str, ...]) -> list[Entry]:
        if name in stack:
            raise bad(
                f"dependency group {name!r} includes itself", ("dependency-groups", name), lines, filename
            )
        items = raw.get(name)
        if not isinstance(items, list):
            raise bad(f"no dependency group {name!r}", ("dependency-groups", *stack[-1:]), lines, filename)
        got: list[Entry] = []
        for i, item in enumerate(items):
            if isinstance(item, dict) and isinstance(item.get("include-group"), str):
                got.extend(expand(item["include-group"], (*stack, name)))
            else:
                got.append(_entry(item, ("dependency-groups", name, i), lines, filename))
        return got

    for name in raw:
        out[name] = expand(name, ())
    uv = (data.get("tool") or {}).get("uv") or {}
    dev = _entries(uv.get("dev-dependencies"), ("tool", "uv", "dev-dependencies"), lines, filename)
    if dev:
        out["dev"] = out.get("dev", []) + dev
    return out


def pdm_groups(data: dict[str, Any], lines: dict[Path, int], filename: str | None) -> dict[str, list[Entry]]:
    """PDM's `[tool.pdm.dev-dependencies]` groups (its dev groups before PEP 735), which `pdm
    install` installs by default; an editable local path (`-e file:///...`) is the project's own
    tree, not a requirement, and is left out."""
    pdm = (data.get("tool") or {}).get("pdm") or {}
    raw = pdm.get("dev-dependencies") if isinstance(pdm, dict) else None
    if not isinstance(raw, dict):
        return {}
    out: dict[str, list[Entry]] = {}
    for name, items in raw.items():
        path = ("tool", "pdm", "dev-dependencies", name)
        if not isinstance(items, list):
            raise bad(f"`{dotted(path)}` must be a list of requirements", path, lines, filename)
        out[name] = [
            _entry(v, (*path, i), lines, filename)
            for i, v in enumerate(items)
            if not (isinstance(v, str) and v.lstrip().startswith("-e"))
        ]
    return out


def default_groups(data: dict[str, Any], groups: dict[str, list[Entry]]) -> list[str]:
    """The groups `uv sync` installs without flags: `tool.uv.default-groups`, else `dev`."""
    chosen = ((data.get("tool") or {}).get("uv") or {}).get("default-groups")
    if chosen == "all":
        return list(groups)
    if chosen is not None:  # an array of names: `check_types` saw to it
        return list(chosen)
    return ["dev"] if "dev" in groups else []


def read_pyproject(text: str, filename: str | None = None, *, environment: str | None = None):
    """The pyproject's requirements as an EnvSpec of pip entries: `[project] dependencies` and the
    default groups, or, with `environment`, the dependencies and that extra or group.  Raises
    ParseError (file, line, key) and EnvironmentNotFound for an unknown extra or group."""
    from envkit.model import EnvSpec

    data, lines = load(text, filename)
    groups = group_entries(data, lines, filename)
    pdm = {k: v for k, v in pdm_groups(data, lines, filename).items() if k not in groups}
    groups.update(pdm)
    entries = project_entries(data, lines, "dependencies", filename=filename)
    extras = (data.get("project") or {}).get("optional-dependencies") or {}
    if environment is None:
        for g in dict.fromkeys([*default_groups(data, groups), *pdm]):
            entries += groups.get(g, [])
    elif environment in groups:
        entries += groups[environment]
    elif environment in extras:
        entries += project_entries(data, lines, "optional-dependencies", environment, filename)
    else:
        names = sorted({*groups, *extras}) or ["(none)"]
        raise EnvironmentNotFound(
            f"no extra or dependency group {environment!r} in the pyproject.toml",
            hint=f"one of: {', '.join(names)}",
        )
    pip = tuple(pip_dep(e) for e in entries)
    name = (data.get("project") or {}).get("name")
    key_lines = [(k, ln) for k in ("project", "dependency-groups") if (ln := line_of(lines, (k,)))]
    return EnvSpec(
        name=name if isinstance(name, str) else None,
        pip=pip,
        kind="requirements",
        has_pip_section=bool(pip),
        source=filename,
        lines=tuple(key_lines),
    )
