"""pixi.lock (versions 1 to 7): read one environment into a Lock.

Versions 1 to 3 are conda-lock shaped (`metadata:` and a `package:` list, one entry per platform,
`dependencies:` a list or a mapping, `manager: conda`/`pypi`), with one environment, "default"; see
`read_conda_lock_shaped`.  Versions 4 and 5 have the layout of version 6, but a `packages:` entry
says `kind: conda`/`kind: pypi` and gives its location as `url:` (or `path:`), where version 6
writes `conda: URL`/`pypi: URL`.  (rattler_lock reads the same three families:
crates/rattler_lock/src/parse/v3.rs, models/v5, models/v6.)

Layout from version 4: `environments.<env>.packages.<platform>` lists references (`- conda: URL`, `- pypi: URL or
path`), and a top-level `packages:` list holds each package's data once (`conda:`/`pypi:` location,
hashes, depends, ...).  Version 7 adds a top-level `platforms:` list and per-environment `indexes:`;
everything envkit reads is otherwise the same.  Name, version and build of a conda package come from
its file name unless the entry states them.
"""

from __future__ import annotations

import re

from envkit._yaml import YamlList, YamlMap
from envkit.errors import EnvironmentNotFound, ParseError, UnsupportedVersionError, Where
from envkit.model import Lock, LockedPackage

SUPPORTED_VERSIONS = (1, 2, 3, 4, 5, 6, 7)
#: the versions shaped like conda-lock.yml (no `environments:`)
CONDA_LOCK_SHAPED = (1, 2, 3)
DEFAULT_ENVIRONMENT = "default"


def _shaped(data) -> bool:
    """Whether the document is a version shaped like conda-lock.yml (an int: YAML's `true` is no version)."""
    v = data.get("version")
    return type(v) is int and v in CONDA_LOCK_SHAPED


def check_version(version, filename: str | None, line: int | None = None) -> None:
    """Raise unless `version` is a pixi.lock version envkit reads (1 to 7)."""
    if type(version) is int and version in SUPPORTED_VERSIONS:  # `True in (1, ...)` holds
        return
    where = Where(file=filename, line=line)
    if version is None:
        raise ParseError("not a pixi.lock: no `version:` key", where=where)
    newest = SUPPORTED_VERSIONS[-1]
    if isinstance(version, int) and version < SUPPORTED_VERSIONS[0]:
        raise UnsupportedVersionError(
            f"pixi.lock version {version} is too old; envkit reads versions "
            f"{SUPPORTED_VERSIONS[0]} to {newest} (newest supported: {newest})",
            where=where,
            hint="run `pixi lock` with a recent pixi to rewrite it",
        )
    raise UnsupportedVersionError(
        f"pixi.lock version {version!r} is not supported; the newest version envkit reads is {newest}",
        where=where,
        hint="upgrade envkit, or lock with a pixi that writes this version",
    )


def environments(text: str, filename: str | None = None) -> list[str]:
    """The environment names a pixi.lock defines, in file order."""
    return list(read_pixi_environments(text, filename))


def read_pixi_environments(text: str, filename: str | None = None) -> dict[str, Lock]:
    """Every environment of a pixi.lock, name -> Lock(kind="pixi"), in file order (one YAML parse)."""
    data = _load(text, filename)
    if _shaped(data):
        return {DEFAULT_ENVIRONMENT: read_conda_lock_shaped(data, text, filename)}
    envs = _environments(data, filename)
    index = _index(data, filename)
    parsed: dict = {}  # shared: environments share most of their packages
    return {
        str(name): _read_env(data, envs.mapping(name), str(name), filename, index, parsed)
        for name in envs.data
    }


def _load(text: str, filename: str | None):
    from envkit.formats._fastyaml import Unsupported, load_yaml

    try:
        data = _load_layout(text, filename)
    except (Unsupported, RecursionError):
        data = load_yaml(text, filename=filename)
    if not isinstance(data, dict):
        raise ParseError("not a pixi.lock: the document is not a mapping", where=Where(file=filename))
    check_version(data.get("version"), filename, data.line_of("version"))
    return data


# -- the fast path ------------------------------------------------------------------------------
#
# Most of a pixi.lock is its top-level `packages:` list, in one layout: each entry a `- conda: URL`
# or `- pypi: URL` line followed by `key: value` lines and `- item` lines (a list under the key
# before them) at indent 2, nothing deeper.  `_load_layout` reads that list with one regular
# expression per entry and keeps of each entry only the keys this module reads (KEPT), each value
# converted as the fast YAML reader converts it, with its line; every other value is checked as that
# reader would check it, and dropped (licenses, purls, sizes, timestamps, constrains: half the text).
# Everything before the list goes through the fast YAML reader.  Anything else raises Unsupported
# and the whole document is read as YAML: the Locks are the same either way, lines and errors
# included (tests/test_formats_fastyaml.py proves it).

#: the keys of a `packages:` entry that this module reads (see _index, _pick, _conda_fields, _pypi_fields)
KEPT = frozenset(
    {
        "conda",
        "pypi",
        "name",
        "version",
        "build",
        "build_number",
        "subdir",
        "md5",
        "sha256",
        "depends",
        "requires_dist",
        "editable",
    }
)

_NOT_TEXT_FIRST = frozenset("yYnNtTfFoO~<=+-.0123456789")  # a key starting otherwise is text
_ENTRY = re.compile(r"- (conda|pypi): ([^ \n][^\n]*)\n((?:  [^ \n][^\n]*\n)*)")
_BODY_LINE = re.compile(
    r"^  (?:([A-Za-z0-9_][A-Za-z0-9_.\-/]*):(?: ([^ \n][^\n]*))?|- ([^ \n][^\n]*))$", re.MULTILINE
)

# The lines of an entry body that are certainly in the fast YAML reader's subset, one match per key
# (C speed): `key: value`, or `key:` followed by `- value` items, at indent 2, where each key and
# value is one the reader takes without a doubt (a plain word that is text, an integer, a hex
# digest, '...' or "..." without escapes, [] or {}).  When the matches cover the whole body, only
# the KEPT values need reading; any other body is read line by line.
_WORDS = "yes|Yes|YES|no|No|NO|true|True|TRUE|false|False|FALSE|on|On|ON|off|Off|OFF|null|Null|NULL"
_SAFE_KEY = rf"(?!(?:{_WORDS}):)[A-Za-z_][A-Za-z0-9_.\-/]*+"
# text: starts with a letter or _, is not one of YAML 1.1's bool/null words, and has no tab, no
# `: `, no ` #`, no two spaces and no trailing `:` or space
_SAFE_WORD = rf"(?!(?:{_WORDS})\n)[A-Za-z_][^\n: \t]*+(?:[: ][^\n:# \t][^\n: \t]*+)*+"
_SAFE_VALUE = (
    rf"(?:{_SAFE_WORD}|0|[1-9][0-9]*+|[0-9a-f]*[ac-f][0-9a-f]*+|\[\]|\{{\}}|'[^'\n]*+'"
    rf"|\"[^\"\\\t\n]*+\")"
)
_SAFE_KEY_LINES = re.compile(
    rf"^  ({_SAFE_KEY}):(?: ({_SAFE_VALUE})\n|\n((?:  - {_SAFE_VALUE}\n)*+))", re.MULTILINE
).findall


def _load_layout(text: str, filename: str | None):
    """The document as the YAML readers would give it, but each `packages:` entry holding only the
    KEPT keys; Unsupported for text outside the layout (see above)."""
    from envkit.formats import _fastyaml
    from envkit.formats._fastyaml import Unsupported, split_layout

    data, start = split_layout(text, "packages", filename)
    if text[-1] != "\n":
        text += "\n"
    key_line = text.count("\n", 0, start) + 1
    pos, end = start + len("packages:\n"), len(text)
    line = key_line + 1
    memo: dict = {}
    scalar = _fastyaml._scalar
    is_not_text = _fastyaml.is_not_text
    match, body_lines = _ENTRY.match, _BODY_LINE.findall
    safe_lines = _SAFE_KEY_LINES
    entries = YamlList()
    entries.line = line
    entry_lines = entries.lines
    new_map, new_list = dict.__new__, list.__new__

    def value_of(raw: str, no: int):
        v = memo.get(raw)
        if v is None:
            v = scalar(raw.rstrip(" ") if raw[-1] == " " else raw)
            if type(v) is YamlMap or type(v) is YamlList:
                v.line = no  # {} or []: a new one each time, as the tree reader makes it
                return v
            memo[raw] = v
        return v

    while pos < end:
        m = match(text, pos)
        if m is None:
            if text[pos:].strip(" \n"):
                raise Unsupported
            break
        kind, loc, body = m.groups()
        location = value_of(loc, line)
        entry = new_map(YamlMap)  # as _fastyaml builds it
        entry.line = line
        entry.lines = lines = {kind: line}
        entry[kind] = location
        seen = {kind}
        no = line
        safe = safe_lines(body)
        if safe:
            for key, raw, block in safe:
                no += 1
                if key in seen:
                    raise Unsupported  # a duplicate key: the tree reader reports it
                seen.add(key)
                if key in KEPT:
                    lines[key] = no
                    if raw:
                        entry[key] = value_of(raw, no)
                    elif block:
                        items = new_list(YamlList)
                        items.line = no + 1
                        items.lines = list(range(no + 1, no + 1 + block.count("\n")))
                        for item in block[4:-1].split("\n  - "):
                            no += 1
                            items.append(value_of(item, no))
                        entry[key] = items
                    else:
                        entry[key] = None
                elif block:
                    no += block.count("\n")
            if no - line == body.count("\n"):
                entries.append(entry)
                entry_lines.append(line)
                line = no + 1
                pos = m.end()
                continue
            # some line is none of the certainly safe ones: read the entry again, line by line
            entry = new_map(YamlMap)
            entry.line = line
            entry.lines = lines = {kind: line}
            entry[kind] = location
            seen = {kind}
            no = line
        items = None  # where `- item` lines go: a list, False (a list not kept), None (no list open)
        open_key = None  # a key without a value whose list has not begun
        for key, raw, item in body_lines(body):
            no += 1
            if key:
                if open_key is not None:
                    if open_key in KEPT:
                        entry[open_key] = None
                    open_key = None
                items = None
                if key in seen or (key[0] in _NOT_TEXT_FIRST and is_not_text(key)):
                    raise Unsupported  # a duplicate key (the tree reader reports it), or not text
                seen.add(key)
                if key in KEPT:
                    lines[key] = no
                    if raw:
                        entry[key] = value_of(raw, no)
                    else:
                        open_key = key
                elif raw:
                    value_of(raw, no)  # checked as the tree reader would, not kept
                else:
                    open_key = key
                continue
            if item[0] in "-." and (item.startswith(("- ", "---", "...")) or item.rstrip(" ") == "-"):
                raise Unsupported  # what _fastyaml._tokens refuses in a sequence item
            if open_key is not None:  # the first item of a list
                if open_key in KEPT:
                    items = new_list(YamlList)
                    items.line = no
                    items.lines = []
                    entry[open_key] = items
                else:
                    items = False
                open_key = None
            elif items is None:
                raise Unsupported  # an item where the tree reader finds no list
            if items is False:
                value_of(item, no)
            else:
                items.append(value_of(item, no))
                items.lines.append(no)
        if no - line != body.count("\n"):
            raise Unsupported  # a line that is neither `key: value` nor `- item` at indent 2
        if open_key is not None and open_key in KEPT:
            entry[open_key] = None
        entries.append(entry)
        entry_lines.append(line)
        line = no + 1
        pos = m.end()
    if "packages" in data.lines:
        raise Unsupported
    data["packages"] = entries
    data.lines["packages"] = key_line
    return data


def read_pixi_lock(text: str, filename: str | None = None, environment: str | None = None) -> Lock:
    """Parse one environment (default "default") of a pixi.lock into Lock(kind="pixi").

    Conda packages keep URL, hashes, build number (0 when not written) and depends (as (name, spec)
    pairs); PyPI packages become manager "pip" (editable ones marked).  `platforms` are those the
    environment has packages for.  Raises UnsupportedVersionError for another lock version and
    EnvironmentNotFound (naming the ones there are) for an unknown environment.
    """
    data = _load(text, filename)
    env_name = environment or DEFAULT_ENVIRONMENT
    if _shaped(data):
        if env_name != DEFAULT_ENVIRONMENT:
            raise EnvironmentNotFound(
                f"pixi.lock has no environment {env_name!r} (it has: default)",
                where=Where(file=filename),
                hint="choose one with --env NAME",
            )
        return read_conda_lock_shaped(data, text, filename)
    envs = _environments(data, filename)
    key = next((k for k in envs.data if str(k) == env_name), None)
    if key is None:
        names = ", ".join(str(k) for k in envs.data) or "none"
        raise EnvironmentNotFound(
            f"pixi.lock has no environment {env_name!r} (it has: {names})",
            where=Where(file=filename, line=data.line_of("environments")),
            hint="choose one with --env NAME",
        )
    return _read_env(data, envs.mapping(key), env_name, filename, _index(data, filename))


def _environments(data, filename: str | None):
    """The `environments:` mapping as Fields."""
    from envkit.formats._util import Fields

    return Fields(data, filename, "").mapping("environments")


def _index(data, filename: str | None) -> dict[tuple[str, str], list]:
    """The top-level `packages:` list indexed by (kind, location) -> [(entry, its Where)]; a location
    can carry several variants (rare), told apart by the name/version an environment's reference
    gives."""
    from envkit.formats._util import Fields

    index: dict[tuple[str, str], list] = {}
    top = Fields(data, filename, "")
    raw_pkgs = top.get("packages")
    if raw_pkgs is not None and not isinstance(raw_pkgs, list):
        top.items("packages")  # raises the error naming the key
    line_of = getattr(raw_pkgs, "line_of", None)
    for i, raw in enumerate(raw_pkgs or ()):
        where = Where(file=filename, line=line_of(i) if line_of else None, key=f"packages[{i}]")
        key = _location(raw)
        if key is None:  # not the plain shape pixi writes: say what is wrong
            p = Fields(raw, filename, where.key, line=where.line, what="a package entry")
            kind = "conda" if "conda" in p else "pypi" if "pypi" in p else None
            if kind is None and "kind" in p:  # versions 4 and 5
                kind = p.text("kind")
                if kind not in ("conda", "pypi"):
                    raise ParseError(
                        f"unknown package kind {kind!r} (expected conda or pypi)", where=p.where("kind")
                    )
                loc = p.text("url") or p.text("path")
                if not loc:
                    raise ParseError("a package entry needs `url:` or `path:`", where=where)
                key = (kind, loc)
            elif kind is None:
                raise ParseError("a package entry needs `conda:` or `pypi:`", where=where)
            else:
                key = (kind, p.text(kind, required=True, what="a package entry"))
        index.setdefault(key, []).append((raw, where))
    return index


def _location(raw) -> tuple[str, str] | None:
    """(kind, location) of a package entry or reference written the way pixi writes it, else None."""
    if type(raw) is not YamlMap:
        return None
    loc = raw.get("conda")
    if type(loc) is str:
        return ("conda", loc)
    if loc is None:
        loc = raw.get("pypi")
        if type(loc) is str:
            return ("pypi", loc)
        kind = raw.get("kind")  # a version 4 or 5 entry
        if kind == "conda" or kind == "pypi":
            loc = raw.get("url") or raw.get("path")
            if type(loc) is str:
                return (kind, loc)
    return None


def _read_env(
    data, env, env_name: str, filename: str | None, index: dict, parsed: dict | None = None
) -> Lock:
    from envkit.formats._util import Fields, as_text, read_channels, to_json

    channels = read_channels(env, filename)
    pip_options = []
    for j, u in enumerate(env.texts("indexes")):
        pip_options.append(f"--index-url {u}" if j == 0 else f"--extra-index-url {u}")
    for _i, u, where in env.items("find-links"):
        if isinstance(u, dict):
            f = Fields(u, filename, where.key, line=where.line)
            target = f.text("url") or f.text("path")
        else:
            target = as_text(u, "a find-links entry", where)
        if target:
            pip_options.append(f"--find-links {target}")
    per_platform = env.mapping("packages")
    platforms = tuple(str(k) for k in per_platform.data)
    out: list[LockedPackage] = []
    if parsed is None:
        parsed = {}  # id(entry) -> its fields: an entry serves many references
    for platform, key in zip(platforms, per_platform.data, strict=False):
        refs = per_platform.data[key]
        if refs is not None and not isinstance(refs, list):
            per_platform.items(key)  # raises the error naming the key
        line_of = getattr(refs, "line_of", None)
        for i, raw in enumerate(refs or ()):
            line = line_of(i) if line_of else None
            loc_key = _location(raw)
            ref = None
            if loc_key is None or len(raw) > 1:
                ref = Fields(
                    raw, filename, f"{per_platform.key(key)}[{i}]", line=line, what="a package reference"
                )
                kind = "conda" if "conda" in ref else "pypi" if "pypi" in ref else None
                if kind is None:
                    raise ParseError("a package reference needs `conda:` or `pypi:`", where=ref.where())
                loc_key = (kind, ref.text(kind, required=True, what="a package reference"))
            kind, loc = loc_key
            candidates = index.get(loc_key)
            if not candidates:
                where = (
                    ref.where(kind)
                    if ref
                    else Where(file=filename, line=line, key=f"{per_platform.key(key)}[{i}].{kind}")
                )
                raise ParseError(
                    f"package {loc!r} is referenced but not listed under `packages:`", where=where
                )
            entry, where = _pick(candidates, raw, platform)
            fields = parsed.get(id(entry))
            if fields is None:
                fields = parsed[id(entry)] = (_conda_fields if kind == "conda" else _pypi_fields)(
                    entry, loc, where
                )
            if kind == "conda":
                name, version, build, build_number, channel, subdir, md5, sha256, depends = fields
                out.append(
                    LockedPackage(
                        manager="conda",
                        name=name,
                        version=version,
                        build=build,
                        build_number=build_number,
                        channel=channel,
                        platform=platform,
                        subdir=subdir,
                        url=loc,
                        md5=md5,
                        sha256=sha256,
                        depends=depends,
                        line=line,
                    )
                )
            else:
                name, version, md5, sha256, depends, editable = fields
                if ref is not None and "editable" in ref:
                    editable = ref.flag("editable") or _is_path(loc)
                out.append(
                    LockedPackage(
                        manager="pip",
                        name=name,
                        version=version,
                        platform=platform,
                        url=loc,
                        sha256=sha256,
                        md5=md5,
                        depends=depends,
                        editable=editable,
                        line=line,
                    )
                )
    meta = [("version", str(data.get("version")))]
    if env.get("options"):
        meta.append(("options", to_json(env.get("options"))))
    return Lock(
        kind="pixi",
        platforms=platforms,
        packages=tuple(out),
        channels=tuple(channels),
        environment=env_name,
        pip_options=tuple(pip_options),
        metadata=tuple(meta),
        source=filename,
    )


def _conda_fields(entry, loc: str, where: Where) -> tuple:
    """(name, version, build, build_number, channel, subdir, md5, sha256, depends) of a conda entry;
    name, version and build come from the file name unless the entry states them."""
    from envkit.formats._util import Fields, url_parts

    chan, subdir, nvb = url_parts(loc)
    if nvb is not None and type(entry) is YamlMap:
        # the fast path: the shape pixi writes (name etc. from the file name, plain types)
        get = entry.get
        name, version, build, bn = get("name"), get("version"), get("build"), get("build_number")
        sub, md5, sha256, deps = get("subdir"), get("md5"), get("sha256"), get("depends")
        if (
            (name is None or type(name) is str)
            and (version is None or type(version) is str)
            and (build is None or type(build) is str)
            and (bn is None or type(bn) is int)
            and (sub is None or type(sub) is str)
            and (md5 is None or type(md5) is str)
            and (sha256 is None or type(sha256) is str)
            and (deps is None or type(deps) is YamlList)
        ):
            depends = ()
            if deps:
                depends = tuple(_split_dep(d) for d in deps if type(d) is str)
            if len(depends) == len(deps or ()):
                return (
                    name or nvb[0],
                    version or nvb[1],
                    build or nvb[2],
                    bn or 0,
                    chan,
                    sub or subdir or None,
                    md5,
                    sha256,
                    depends,
                )
    p = Fields(entry, where.file, where.key, line=where.line, what="a package entry")
    name = p.text("name") or (nvb[0] if nvb else None)
    version = p.text("version") or (nvb[1] if nvb else None)
    build = p.text("build") or (nvb[2] if nvb else None)
    if name is None or version is None:
        raise ParseError(
            f"cannot tell name and version of {loc!r}",
            where=p.where("conda"),
            hint="the entry needs `name:` and `version:`, or a conda package file name",
        )
    depends = tuple(_split_dep(d) for d in p.texts("depends"))
    sub = p.text("subdir") or subdir
    return (
        name,
        version,
        build,
        p.integer("build_number") or 0,
        chan,
        sub or None,
        p.text("md5"),
        p.text("sha256"),
        depends,
    )


def _pypi_fields(entry, loc: str, where: Where) -> tuple:
    """(name, version, md5, sha256, requires_dist, editable) of a pypi entry."""
    from envkit.formats._util import Fields

    p = Fields(entry, where.file, where.key, line=where.line, what="a package entry")
    name = p.text("name")
    if not name:
        raise ParseError(f"pypi package {loc!r} has no name", where=p.where("pypi"))
    depends = tuple(_split_req(d) for d in p.texts("requires_dist"))
    editable = p.flag("editable") or _is_path(loc)
    return name, p.text("version") or "", p.text("md5"), p.text("sha256"), depends, editable


def _pick(candidates: list, ref, platform: str):
    """The (entry, where) a reference means among the entries at its location."""
    if len(candidates) == 1:
        return candidates[0]
    for c, where in candidates:
        if all(c.get(k) == ref.get(k) for k in ("name", "version", "build", "subdir") if k in ref):
            if c.get("subdir") in (None, platform, "noarch"):
                return c, where
    return candidates[0]


def _is_path(loc: str) -> bool:
    return "://" not in loc


def _split_dep(text) -> tuple[str, str]:
    name, _, rest = str(text).strip().partition(" ")
    return name, rest.strip()


def _split_req(text) -> tuple[str, str]:
    import re

    s = str(text).strip()
    m = re.match(r"^([A-Za-z0-9][A-Za-z0-9._-]*)(.*)$", s)
    if not m:
        return s, ""
    return m.group(1), m.group(2).strip()


def read_conda_lock_shaped(data, text: str, filename: str | None) -> Lock:
    """The one environment of a pixi.lock version 1 to 3 (conda-lock shaped; see the module doc) as
    Lock(kind="pixi"), checked by conda-lock's rules (digests, platforms, no entry twice)."""
    from envkit.formats._util import Fields, read_channels, url_parts
    from envkit.formats.condalock import validate_packages

    top = Fields(data, filename, "")
    meta = top.mapping("metadata")
    channels = read_channels(meta, filename)
    platforms = list(meta.texts("platforms"))
    out: list[LockedPackage] = []
    for _i, raw, where in top.items("package"):
        p = Fields(raw, filename, where.key, line=where.line, what="a package entry")
        manager = p.text("manager", required=True, what="a package entry")
        if manager not in ("conda", "pip", "pypi"):
            raise ParseError(
                f"unknown manager {manager!r} (expected conda or pypi)", where=p.where("manager")
            )
        name = p.text("name", required=True, what="a package entry")
        version = p.text("version", required=True, what="a package entry")
        platform = p.text("platform", required=True, what="a package entry")
        url = p.text("url", required=True, what="a package entry")
        h = p.mapping("hash")
        depends = _legacy_depends(p, manager)
        if platform not in platforms:
            platforms.append(platform)
        if manager == "conda":
            chan, subdir, nvb = url_parts(url)
            out.append(
                LockedPackage(
                    manager="conda",
                    name=name,
                    version=version,
                    build=p.text("build") or (nvb[2] if nvb else None),
                    build_number=p.integer("build_number") or 0,
                    channel=chan,
                    platform=platform,
                    subdir=p.text("subdir") or subdir,
                    url=url,
                    md5=h.text("md5"),
                    sha256=h.text("sha256"),
                    depends=depends,
                    category=p.text("category") or "main",
                    line=where.line,
                )
            )
        else:
            out.append(
                LockedPackage(
                    manager="pip",
                    name=name,
                    version=version,
                    platform=platform,
                    url=url,
                    md5=h.text("md5"),
                    sha256=h.text("sha256"),
                    depends=depends,
                    category=p.text("category") or "main",
                    editable=_is_path(url),
                    line=where.line,
                )
            )
    lock = Lock(
        kind="pixi",
        platforms=tuple(platforms),
        packages=tuple(out),
        channels=tuple(channels),
        environment=DEFAULT_ENVIRONMENT,
        metadata=(("version", str(data.get("version"))),),
        source=filename,
    )
    validate_packages(lock, text, filename)
    return lock


def _legacy_depends(p, manager: str) -> tuple[tuple[str, str], ...]:
    """`dependencies:` of a version 1-3 entry: a list of specs or a name -> constraint mapping (both
    are written, as rattler reads both); pypi entries may say `requires_dist:` instead."""
    key = "dependencies" if "dependencies" in p or manager == "conda" else "requires_dist"
    value = p.get(key)
    if isinstance(value, dict):
        deps = p.mapping(key)
        return tuple((str(k), deps.text(k) or "") for k in deps.data)
    split = _split_dep if manager == "conda" else _split_req
    return tuple(split(d) for d in p.texts(key))
