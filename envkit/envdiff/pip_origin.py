"""Where a pip package came from: an index, a VCS commit, a local path (editable or not), a URL; and
the names of pip entries written without one."""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from envkit.envdiff.keys import _pep503
from envkit.envdiff.sides import _Context, _Side
from envkit.model import LockedPackage
from envkit.urls import EGG_FRAGMENT, VCS_PREFIXES

_HEX = re.compile(r"^[0-9a-f]{7,64}$")


@dataclass(frozen=True, slots=True)
class PipOrigin:
    """A pip package's direct source (PEP 610 `direct_url.json`, or a `name @ URL` / `-e` entry).

    `kind` is "vcs", "path" (a local directory or file) or "url" (an archive); `base` is what is
    compared (credentials removed, no revision, no `.git`, host lower-cased); `text` is how it is
    shown (credentials redacted, the revision kept); `rev` is a VCS commit or ref."""

    kind: str
    base: str
    text: str
    vcs: str | None = None
    rev: str | None = None


def pip_origin(p: LockedPackage, dist=None) -> PipOrigin | None:
    """The direct source of pip package `p`, or None when it came from an index (or no source is
    recorded).  `p.url` is read as written (`git+URL@commit`, a `direct_url.json` URL, `file://`, a
    path); `dist` (the live env's PipDist) adds the VCS and commit that a bare URL lacks."""
    url = p.url or (dist.url if dist is not None else None)
    if not url:
        return None
    return _parse_origin(
        url.strip(), dist.vcs if dist is not None else None, dist.commit if dist is not None else None
    )


@lru_cache(maxsize=4096)
def _parse_origin(url: str, dist_vcs: str | None, dist_commit: str | None) -> PipOrigin:
    from urllib.parse import unquote, urlsplit

    from envkit.urls import redact_url, strip_credentials

    shown = redact_url(url)[0]
    plain = strip_credentials(url)
    plain, _, frag = plain.partition("#")
    shown = shown.partition("#")[0]
    sub = "".join(f"#{x}" for x in frag.split("&") if x.startswith("subdirectory="))
    vcs = None
    if plain.lower().startswith(VCS_PREFIXES):
        vcs = plain.split("+", 1)[0].lower()
        plain, shown = plain.split("+", 1)[1], shown.split("+", 1)[1]
    elif dist_vcs:
        vcs = dist_vcs.lower()
    if vcs:
        plain, rev = _split_rev(plain)
        shown, _ = _split_rev(shown)
        rev = rev or dist_commit
        base = _norm_url(plain)
        base = base[:-4] if base.endswith(".git") else base
        text = f"{vcs}+{shown}" + (f"@{rev}" if rev else "")
        return PipOrigin(kind="vcs", base=f"{vcs}+{base}{sub}", text=text, vcs=vcs, rev=rev)
    if plain.lower().startswith("file:"):
        path = unquote(urlsplit(plain).path)
        if re.match(r"^/[A-Za-z]:[\\/]", path):  # file:///C:/src/x
            path = path[1:]
        return PipOrigin(kind="path", base=_norm_path(path), text=path)
    if "://" not in plain:
        return PipOrigin(kind="path", base=_norm_path(plain), text=plain)
    return PipOrigin(kind="url", base=_norm_url(plain) + sub, text=shown)


def _split_rev(url: str) -> tuple[str, str | None]:
    """`https://host/me/x.git@3f1c0a9` -> (`https://host/me/x.git`, "3f1c0a9"): the revision is
    after the last `@` of the path (`user@host` belongs to the host part)."""
    scheme, sep, rest = url.partition("://")
    if not sep:
        scheme, rest = "", url
    host, slash, path = rest.partition("/")
    rev = None
    if "@" in path:
        path, _, rev = path.rpartition("@")
    return (f"{scheme}{sep}{host}{slash}{path}", rev or None)


def _norm_url(url: str) -> str:
    scheme, sep, rest = url.partition("://")
    if not sep:
        return url.rstrip("/")
    host, slash, path = rest.partition("/")
    return f"{scheme.lower()}://{host.lower()}{slash}{path}".rstrip("/")


def _norm_path(path: str) -> str:
    import posixpath

    p = path.replace("\\", "/")
    return posixpath.normpath(p) if p else p


def _dist(side: _Side | None, p: LockedPackage):
    if side is None or not side.dists or p.manager != "pip":
        return None
    return side.dists.get(_pep503(p.name))


def _revs_differ(a: str | None, b: str | None) -> bool:
    """Whether two VCS revisions are known to differ: commits compare by prefix (a short hash
    names the full one); unknown (None) is not a difference."""
    if not a or not b:
        return False
    a, b = a.lower(), b.lower()
    if _HEX.match(a) and _HEX.match(b):
        return not (a.startswith(b) or b.startswith(a))
    return a != b


def _short(rev: str) -> str:
    return rev[:7] if _HEX.match(rev.lower()) else rev


@dataclass(frozen=True, slots=True)
class _SourceChange:
    tag: str  # "commit" (the same repository, another commit) or "source"
    impact: str
    reason: str
    short: str  # the reason's core, appended to a version change's reason
    labels_a: tuple[str, ...]
    labels_b: tuple[str, ...]


def _origin_labels(o: PipOrigin | None, editable: bool) -> tuple[str, ...]:
    if o is None:
        out = ("index",)
    elif o.kind == "vcs":
        out = (f"{o.vcs} {_short(o.rev)}" if o.rev else o.vcs or "vcs",)
    elif o.kind == "path":
        out = ("local",)
    else:
        out = ("URL",)
    return out + (("editable",) if editable else ())


def _url_pinned(p: LockedPackage) -> bool:
    """A pip entry without a version that names its source (`mylib @ git+URL@commit`, `-e PATH`):
    the source stands in for the version."""
    return not p.version and (bool(p.url) or p.editable)


def _source_change(pa: LockedPackage, pb: LockedPackage, ctx: _Context) -> _SourceChange | None:
    """How the sources of one pip package differ between the sides, or None (the same, or not
    comparable: an archive URL a lock records against an index install; a side whose format does
    not record pip sources, such as `conda env export`'s `name==version`)."""
    sa, sb = ctx.sa, ctx.sb
    oa, ob = pip_origin(pa, _dist(sa, pa)), pip_origin(pb, _dist(sb, pb))
    ea, eb = pa.editable, pb.editable
    direct_a = oa is not None and oa.kind != "url"
    direct_b = ob is not None and ob.kind != "url"
    unpinned = not pa.version or not pb.version
    if not (direct_a or direct_b or ea != eb or (unpinned and oa and ob)):
        return None
    # a side that records no pip source at all cannot say "from an index"
    if (oa is None and not ea and not sa.pip_sources) or (ob is None and not eb and not sb.pip_sources):
        return None
    la, lb = _origin_labels(oa, ea), _origin_labels(ob, eb)
    if oa is not None and ob is not None and (oa.kind, oa.base) == (ob.kind, ob.base):
        if oa.kind == "vcs" and oa.rev and ob.rev and _revs_differ(oa.rev, ob.rev):
            core = f"another {oa.vcs} commit ({_short(oa.rev)} → {_short(ob.rev)})"
            same = "same version, " if pa.version == pb.version else ""
            return _SourceChange(
                "commit", "medium", f"{same}{core} of {_no_rev(ob)}: the code may differ", core, la, lb
            )
        if ea == eb:
            return None
        where = oa.text if oa.kind != "vcs" else _no_rev(oa)
        if ea:
            reason = (
                f"an editable install on A (runs the code in {where} as it is now), a regular "
                "install on B (a copy made when it was installed)"
            )
        else:
            reason = (
                f"a regular install on A (a copy made when it was installed), an editable install "
                f"on B (runs the code in {where} as it is now)"
            )
        return _SourceChange(
            "source", "medium", reason, "editable " + ("on A only" if ea else "on B only"), la, lb
        )
    core = f"installed from {_from(oa, ea)} on A, from {_from(ob, eb)} on B"
    return _SourceChange("source", "medium", core + ": the code may differ", core, la, lb)


def _no_rev(o: PipOrigin) -> str:
    return o.text[: -(len(o.rev) + 1)] if o.rev and o.text.endswith("@" + o.rev) else o.text


_ENTRY_OPTION = re.compile(r"^(?:-e|--editable)(?:\s+|=)")


_ARCHIVE_NAME = re.compile(
    r"^(?P<name>[A-Za-z0-9][A-Za-z0-9._]*?)-\d[^/]*\.(?:whl|tar\.gz|zip|tar\.bz2|tgz)$"
)


def entry_source(text: str, base_dir: str | None = None) -> str:
    """The path or URL of a pip entry that names no project (`-e /home/me/src/tool`, `./pkg`,
    `git+https://host/x.git@v1`): without `-e`/`--editable`, a relative path made absolute against
    `base_dir` (the directory of the file it is written in) when that is known."""
    import posixpath

    target = _ENTRY_OPTION.sub("", text.strip()).split(" ")[0]
    if "://" in target or target.lower().startswith(VCS_PREFIXES):
        return target
    if base_dir and not target.startswith(("/", "~")) and not re.match(r"^[A-Za-z]:[\\/]", target):
        return posixpath.normpath(posixpath.join(base_dir.replace("\\", "/"), target))
    return target


def name_from_source(source: str) -> str | None:
    """The project a pip source names by itself: `#egg=name`, a wheel or sdist file name, else the
    last component of the path or repository (`/home/me/src/tool` -> `tool`, `.../mylib.git@v1` ->
    `mylib`); None when there is none."""
    m = EGG_FRAGMENT.search(source)
    if m:
        return m.group("name")
    body = source.split("#", 1)[0].split("?", 1)[0]
    if body.lower().startswith(VCS_PREFIXES):
        body = _split_rev(body.split("+", 1)[1])[0]
    last = body.rstrip("/\\").replace("\\", "/").rsplit("/", 1)[-1]
    m = _ARCHIVE_NAME.match(last)
    if m:
        return m.group("name")
    last = last[:-4] if last.endswith(".git") else last
    return last if re.fullmatch(r"[A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?", last) else None


def _is_entry_text(name: str) -> bool:
    """A pip package "named" by its entry text (a nameless `-e PATH`, path or URL entry)."""
    return bool(re.search(r"[/\\\s:]", name)) or name.startswith(("-", "."))


def _installed_from(source: str, side: _Side) -> LockedPackage | None:
    """The pip package of `side` installed from `source` (the same path, repository or URL)."""
    want = _parse_origin(source, None, None)
    for q in side.packages:
        if q.manager != "pip":
            continue
        o = pip_origin(q, _dist(side, q))
        if o is not None and (o.kind, o.base) == (want.kind, want.base):
            return q
    return None


def _name_pip_entries(side: _Side, other: _Side) -> None:
    """Give a name to the pip entries of `side` that were written without one (`-e PATH`, a path or
    URL without `#egg=`): the other side's package installed from that source, else the name the
    source itself gives (`tool` for `/home/me/src/tool`).  Their source goes into `url`."""
    from dataclasses import replace

    if not any(p.manager == "pip" and _is_entry_text(p.name) for p in side.packages):
        return
    out = []
    for p in side.packages:
        if p.manager == "pip" and _is_entry_text(p.name):
            source = p.url or entry_source(p.name, side.base_dir)
            found = _installed_from(source, other)
            name = found.name if found is not None else name_from_source(source)
            if name:
                p = replace(p, name=name, url=source)
        out.append(p)
    side.packages = tuple(out)


def _from(o: PipOrigin | None, editable: bool) -> str:
    if o is None:
        return "an editable checkout" if editable else "a package index"
    text = o.text if o.kind != "vcs" or not o.rev else f"{_no_rev(o)}@{_short(o.rev)}"
    return f"{text} (editable)" if editable else text
