"""pixi's dependency values (`numpy = ">=1.26"`, `torch = { version = "*", channel = "pytorch" }`,
`pkg = { path = ".", editable = true }`) as manifest Entries.  ValueError for a value of the wrong
kind; the manifest reader words it with file, line and key."""

from __future__ import annotations

from typing import Any, Literal

from envkit.formats._manifest import Entry

_CONDA_SOURCES = ("path", "git", "url")
_GIT_REF = ("rev", "tag", "branch")


def _source(value: dict[str, Any]) -> str | None:
    if "git" in value:
        ref = next((str(value[k]) for k in _GIT_REF if k in value), "")
        sub = f"#subdirectory={value['subdirectory']}" if "subdirectory" in value else ""
        return f"git+{value['git']}" + (f"@{ref}" if ref else "") + sub
    for key in ("path", "url"):
        if key in value:
            return str(value[key])
    return None


def _plain(manager: Literal["conda", "pypi"], name: str, value: str, head: str, where) -> Entry:
    """A version-string value: `*` (any version) or a spec written after `head`."""
    v = value.strip()
    spec = name if v in ("", "*") else f"{head}{v}"
    return Entry(manager=manager, name=name, spec=spec, version=v or "*", key=where[0], line=where[1])


def conda_entry(name: str, value: Any, where: tuple[str, int | None]) -> Entry:
    """A `[dependencies]` value: a version spec, or a table of match-spec fields or a source."""
    key, line = where
    if isinstance(value, str):
        return _plain("conda", name, value, f"{name} ", where)
    if not isinstance(value, dict):
        raise ValueError(f"conda dependency {name!r} must be a version string or a table")
    source = _source(value) if any(k in value for k in _CONDA_SOURCES) else None
    version = str(value.get("version", "*"))
    build = value.get("build")
    spec = name if version == "*" and not build else f"{name} {version}"
    if build:
        spec += f" {build}"
    if isinstance(value.get("channel"), str):
        spec = f"{value['channel']}::{spec}"
    when = value.get("when")
    return Entry(
        manager="conda",
        name=name,
        spec=spec,
        version=version,
        source=source,
        when=when if isinstance(when, str) else None,
        key=key,
        line=line,
    )


def pypi_entry(name: str, value: Any, where: tuple[str, int | None]) -> Entry:
    """A `[pypi-dependencies]` value: a PEP 440 specifier, or a table (version, extras, git, path,
    url, editable, index)."""
    key, line = where
    if isinstance(value, str):
        return _plain("pypi", name, value, name, where)
    if not isinstance(value, dict):
        raise ValueError(f"PyPI dependency {name!r} must be a version specifier or a table")
    extras = value.get("extras", [])
    if not isinstance(extras, list) or not all(isinstance(x, str) for x in extras):
        raise ValueError(f"`extras` of {name!r} must be a list of names")
    version = str(value.get("version", "*"))
    head = name + (f"[{','.join(extras)}]" if extras else "")
    source = _source(value)
    spec = head if version == "*" else f"{head}{version}"
    if source is not None:
        spec = f"{head} @ {source}"
    return Entry(
        manager="pypi",
        name=name,
        spec=spec,
        version=version,
        extras=tuple(extras),
        source=source,
        editable=bool(value.get("editable", False)),
        marker=value["env-markers"] if isinstance(value.get("env-markers"), str) else None,
        index=value["index"] if isinstance(value.get("index"), str) else None,
        key=key,
        line=line,
    )
