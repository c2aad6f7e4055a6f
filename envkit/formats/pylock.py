"""pylock.toml (PEP 751): read into a pip-only Lock, write the pip part of a Lock.

A pylock.toml is one lock for every platform its markers allow: each `[[packages]]` entry becomes a
LockedPackage with manager "pip" and no platform; its `marker` and `index` are kept, its first
artifact (a wheel, else the sdist, or the archive / VCS / directory source) is `url`/`sha256`, and
the other artifacts are `other_files`.  Lock-level `requires-python` and `environments` go to
`Lock.metadata` (as JSON text) so that the check rules and the writer see them.

Validation is packaging's (`packaging.pylock`, packaging >= 26.0): a document that the fast mapping
below does not take is handed to `Pylock.from_dict`, whose error (with its key path) is turned into
a ParseError naming the file and the line of the entry.
"""

from __future__ import annotations

import json
import re

from envkit.errors import ParseError, UnsupportedVersionError, Where
from envkit.model import Lock, LockedPackage, pep503

#: The metadata keys the reader fills (values are JSON text).
META_REQUIRES_PYTHON = "requires-python"
META_ENVIRONMENTS = "environments"
META_CREATED_BY = "created-by"

_PKG_HEADER = re.compile(r"^\[\[packages\]\][ \t]*(?:#.*)?$", re.MULTILINE)


def read_pylock(text: str, filename: str | None = None) -> Lock:
    """Parse a pylock.toml into Lock(kind="pylock") of pip packages without a platform.

    Raises ParseError (file, line of the `[[packages]]` entry, key path) for a document PEP 751
    does not allow, and UnsupportedVersionError for a `lock-version` other than 1.x.
    """
    from envkit.formats._toml import load_toml

    data = load_toml(text, filename, "pylock.toml")
    version = data.get("lock-version")
    if isinstance(version, str) and not re.fullmatch(r"1(\.\d+)*", version):
        raise UnsupportedVersionError(
            f"pylock.toml lock-version {version!r} is not supported; envkit reads 1.x",
            where=Where(file=filename, line=line_of_key(text, "lock-version")),
        )
    pkgs = _fast_packages(data)
    if pkgs is None:
        _raise_validation(data, text, filename)
        pkgs = data.get("packages") or []  # packaging took it: only types it allows remain
    lines = header_lines(text, _PKG_HEADER)
    out = [_package(p, lines[i] if i < len(lines) else None) for i, p in enumerate(pkgs)]
    meta = json_metadata(data, (META_CREATED_BY, META_REQUIRES_PYTHON, META_ENVIRONMENTS))
    return Lock(kind="pylock", platforms=(), packages=tuple(out), metadata=meta, source=filename)


def json_metadata(data: dict, keys: tuple[str, ...]) -> tuple[tuple[str, str], ...]:
    """(key, its value as compact JSON text) for each of `keys` the document sets."""
    return tuple(
        (k, json.dumps(data[k], ensure_ascii=False, separators=(",", ":")))
        for k in keys
        if data.get(k) is not None
    )


def header_lines(text: str, pattern: re.Pattern) -> list[int]:
    """The line number of each match of `pattern` in `text` (counted incrementally: linear time)."""
    out, line, pos = [], 1, 0
    for m in pattern.finditer(text):
        line += text.count("\n", pos, m.start())
        pos = m.start()
        out.append(line)
    return out


def line_of_key(text: str, key: str) -> int | None:
    """The line of the top-level `key = ...` of a TOML text, None when it has none."""
    m = re.search(rf"^{re.escape(key)}\s*=", text, re.MULTILINE)
    return text.count("\n", 0, m.start()) + 1 if m else None


def _fast_packages(data: dict) -> list | None:
    """The `packages` list when every entry has the shape PEP 751 gives it (checked with plain type
    tests), else None."""
    if (
        type(data.get("lock-version")) is not str
        or type(data.get("created-by")) is not str
        or type(data.get("packages")) is not list
    ):
        return None
    pkgs = data["packages"]
    for p in pkgs:
        if type(p) is not dict or type(p.get("name")) is not str or not _texts_ok(p, _PACKAGE_TEXT):
            return None
        wheels, deps = p.get("wheels"), p.get("dependencies")
        if type(wheels or []) is not list or type(deps or []) is not list:
            return None
        if deps and not all(type(d) is dict for d in deps):
            return None
        direct = ("vcs" in p) + ("directory" in p) + ("archive" in p)
        dists = ("sdist" in p) + bool(wheels)
        if (dists and direct) or (not dists and direct != 1):
            return None
        for w in wheels or ():
            if type(w) is not dict or not _hashes_ok(w):
                return None
        for k in ("sdist", "archive"):
            if k in p and (type(p[k]) is not dict or not _hashes_ok(p[k])):
                return None
        for k in ("vcs", "directory"):
            if k in p and (type(p[k]) is not dict or not _texts_ok(p[k], _FILE_TEXT)):
                return None
        if type(p.get("directory", {}).get("editable", False)) is not bool:
            return None
    return pkgs


# the text fields of a package, and of each of its artifacts, that the reader takes as they are
_PACKAGE_TEXT = ("version", "marker", "requires-python", "index")
_FILE_TEXT = ("url", "path", "name", "subdirectory", "type", "commit-id", "requested-revision")


def _texts_ok(d: dict, keys: tuple[str, ...]) -> bool:
    return all(type(d[k]) is str for k in keys if k in d)


def _hashes_ok(d: dict) -> bool:
    h = d.get("hashes")
    return (
        type(h) is dict
        and bool(h)
        and all(type(v) is str for v in h.values())
        and bool(d.get("url") or d.get("path"))
        and _texts_ok(d, _FILE_TEXT)
    )


def _raise_validation(data: dict, text: str, filename: str | None) -> None:
    """Raise packaging's verdict on `data` as a ParseError with file and line; return if it passes."""
    from packaging.pylock import Pylock, PylockUnsupportedVersionError, PylockValidationError

    try:
        Pylock.from_dict(data)
    except PylockUnsupportedVersionError as exc:
        raise UnsupportedVersionError(f"pylock.toml: {exc}", where=Where(file=filename)) from None
    except PylockValidationError as exc:
        key = exc.context or ""
        line = None
        m = re.match(r"packages\[(\d+)\]", key)
        if m:
            heads = header_lines(text, _PKG_HEADER)
            i = int(m.group(1))
            if i < len(heads):
                line = heads[i]
        elif key:
            line = line_of_key(text, key.split(".")[0])
        raise ParseError(
            f"not a valid pylock.toml: {exc.message}",
            where=Where(file=filename, line=line, key=key or None),
            hint="PEP 751 describes the format; `uv pip compile -o pylock.toml` writes one",
        ) from None


def _file_of(d: dict) -> tuple[str, str | None]:
    return d.get("url") or d.get("path") or "", (d.get("hashes") or {}).get("sha256")


def _package(p: dict, line: int | None) -> LockedPackage:
    files = [_file_of(w) for w in p.get("wheels") or ()]
    files += [_file_of(p[k]) for k in ("sdist", "archive") if p.get(k)]
    editable = False
    vcs = p.get("vcs")
    if vcs:
        url = vcs.get("url") or vcs.get("path") or ""
        commit, sub = vcs.get("commit-id"), vcs.get("subdirectory")
        url = f"{vcs.get('type', 'git')}+{url}" + (f"@{commit}" if commit else "")
        files.append((url + (f"#subdirectory={sub}" if sub else ""), None))
    d = p.get("directory")
    if d:
        files.append((d.get("path", ""), None))
        editable = bool(d.get("editable"))
    url, sha256 = files[0] if files else (None, None)
    depends = tuple((str(x.get("name", "")), "") for x in p.get("dependencies") or () if isinstance(x, dict))
    return LockedPackage(
        manager="pip",
        name=p["name"],
        version=p.get("version") or "",
        url=url or None,
        sha256=sha256,
        depends=depends,
        editable=editable,
        marker=p.get("marker"),
        index=p.get("index"),
        other_files=tuple(files[1:]),
        line=line,
    )


# -- writing ------------------------------------------------------------------------------------

HEADER = "generated by envkit; regenerate: envkit convert"


def write_pylock(
    lock: Lock,
    platform: str | None = None,
    *,
    header: str | None = None,
    dropped: list | None = None,
    created_by: str = "envkit",
) -> str:
    """pylock.toml (lock-version 1.0) text for the pip packages of `lock` (of `platform`), with hashes.

    A package that PEP 751 cannot hold as locked (no URL or path to install it from, or an archive
    without a sha256) is left out and named in `dropped` (as (name, reason)) when given; conda
    packages are not written (a pylock.toml is for Python packages only)."""
    from envkit.formats._util import pip_packages_for

    pkgs = pip_packages_for(lock, platform)
    meta = dict(lock.metadata)
    head = header if header is not None else HEADER
    out = [line if line.startswith("#") else f"# {line}" if line else "#" for line in head.splitlines()]
    out.append('lock-version = "1.0"')
    if META_ENVIRONMENTS in meta:
        markers = ", ".join(_toml_str(str(m)) for m in json.loads(meta[META_ENVIRONMENTS]))
        out.append(f"environments = [{markers}]")
    if META_REQUIRES_PYTHON in meta:
        out.append(f"requires-python = {_toml_str(json.loads(meta[META_REQUIRES_PYTHON]))}")
    out.append(f"created-by = {_toml_str(created_by)}")
    written = 0
    for p in sorted(pkgs, key=lambda p: (pep503(p.name), p.version, p.marker or "")):
        body = _package_toml(p)
        if isinstance(body, str):
            if dropped is not None:
                dropped.append((f"{p.name}=={p.version}", body))
            continue
        out.append("")
        out += body
        written += 1
    if not written:
        out.append("packages = []")  # PEP 751 requires the key
    return "\n".join(out) + "\n"


def _package_toml(p: LockedPackage) -> list[str] | str:
    """The `[[packages]]` lines of `p`, or the reason it cannot be written."""
    files = ([(p.url, p.sha256)] if p.url else []) + list(p.other_files)
    if not files:
        return "no URL or path to install it from"
    lines = ["[[packages]]", f"name = {_toml_str(pep503(p.name))}"]
    if p.version:
        lines.append(f"version = {_toml_str(p.version)}")
    if p.marker:
        lines.append(f"marker = {_toml_str(p.marker)}")
    if p.depends:
        deps = ", ".join(
            f"{{ name = {_toml_str(pep503(n))} }}" for n in dict.fromkeys(n for n, _ in p.depends)
        )
        lines.append(f"dependencies = [{deps}]")
    first = files[0][0]
    if first.startswith(("git+", "hg+", "svn+", "bzr+")):
        return _vcs_toml(lines, first)
    archive = first.split("#", 1)[0].endswith((".whl", ".tar.gz", ".zip", ".tar.bz2"))
    if p.editable or (not archive and ("://" not in first or first.startswith("file:"))):
        return _directory_toml(lines, first, p.editable)
    hashed = [(u, sha) for u, sha in files if sha]
    if len(hashed) != len(files):
        return "no sha256 (PEP 751 needs a hash for every archive)"
    if p.index:
        lines.insert(3 if p.version else 2, f"index = {_toml_str(p.index)}")
    wheels = [f for f in hashed if _basename(f[0]).endswith(".whl")]
    sdists = [f for f in hashed if not _basename(f[0]).endswith(".whl")]
    named = [f for f in sdists if _is_sdist_name(_basename(f[0]), p.name)]
    if not wheels and not named:
        return lines + [
            "[packages.archive]",
            _where(first),
            f"hashes = {{ sha256 = {_toml_str(hashed[0][1])} }}",
        ]
    tables = [("[packages.sdist]", named[0])] if named else []
    for table, (u, h) in tables + [("[[packages.wheels]]", f) for f in wheels]:
        lines += [
            table,
            f"name = {_toml_str(_basename(u))}",
            _where(u),
            f"hashes = {{ sha256 = {_toml_str(h)} }}",
        ]
    return lines


def _vcs_toml(lines: list[str], first: str) -> list[str] | str:
    """`lines` with the `[packages.vcs]` table of the VCS URL `first` (`git+URL@commit`, a
    `#subdirectory=` kept), or the reason it cannot be written."""
    vcs_type, _, rest = first.partition("+")
    m = re.match(r"^(?P<url>.+?)@(?P<rev>[0-9a-f]{7,40})(?:#.*)?$", rest)
    if not m:
        return "a VCS URL without a commit (PEP 751 needs `commit-id`)"
    url, commit = m.group("url"), m.group("rev")
    sub = re.search(r"#(?:.*&)?subdirectory=([^&]+)", rest)
    return lines + [
        "[packages.vcs]",
        f"type = {_toml_str(vcs_type)}",
        f"url = {_toml_str(url)}",
        f"commit-id = {_toml_str(commit)}",
        *([f"subdirectory = {_toml_str(sub.group(1))}"] if sub else []),
    ]


def _directory_toml(lines: list[str], first: str, editable: bool) -> list[str]:
    """`lines` with the `[packages.directory]` table of the path (or `file:` URL) `first`."""
    if first.startswith("file:"):  # a local directory by URL: PEP 751 names it by path
        from urllib.parse import unquote, urlsplit

        first = unquote(urlsplit(first).path) or first
    return (
        lines
        + ["[packages.directory]", f"path = {_toml_str(first)}"]
        + (["editable = true"] if editable else [])
    )


def _where(u: str) -> str:
    return f"url = {_toml_str(u)}" if "://" in u else f"path = {_toml_str(u)}"


def _basename(u: str) -> str:
    from urllib.parse import unquote, urlparse

    path = urlparse(u).path if "://" in u else u
    return unquote(path.rstrip("/").rsplit("/", 1)[-1])


def _is_sdist_name(base: str, name: str) -> bool:
    from packaging.utils import InvalidSdistFilename, canonicalize_name, parse_sdist_filename

    try:
        return parse_sdist_filename(base)[0] == canonicalize_name(name)
    except InvalidSdistFilename:
        return False


def _toml_str(s: str) -> str:
    return json.dumps(s, ensure_ascii=False)
