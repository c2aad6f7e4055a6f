"""Two concrete sides compared package by package."""

from __future__ import annotations

from envkit.conda.buildstr import decode
from envkit.envdiff.categories import category_of
from envkit.envdiff.impact import _classify
from envkit.envdiff.keys import _index, _pep503
from envkit.envdiff.pip_origin import _dist, _source_change, _url_pinned, pip_origin
from envkit.envdiff.records import Change, DuplicateInfo, PackageState
from envkit.envdiff.sides import _Context, _Side
from envkit.envdiff.versions import _split_local, compare_versions
from envkit.model import LockedPackage


def _duplicates(side: _Side) -> tuple[DuplicateInfo, ...]:
    from envkit.conda.names import find_duplicates

    if side.spec is not None:
        conda = [d.name for d in side.spec.conda]
        pip = [p.name for p in side.spec.pip if p.name]
    else:
        conda = [p.name for p in side.packages if p.manager == "conda"]
        pip = [p.name for p in side.packages if p.manager == "pip"]
    if not conda or not pip:
        return ()
    return tuple(
        DuplicateInfo(conda=d.conda_name, pip=d.pip_name, project=d.project)
        for d in find_duplicates(conda, pip, owned=side.owned)
    )


def _state(
    p: LockedPackage, *, labels: bool = True, side: _Side | None = None, extra: tuple[str, ...] = ()
) -> PackageState:
    lab: tuple[str, ...] = ()
    if labels:
        lab = tuple(decode(p.build, p.version, p.name).labels())
    url = None
    if p.manager == "pip":
        origin = pip_origin(p, _dist(side, p) if side is not None else None)
        url = origin.text if origin is not None else None
    return PackageState(
        name=p.name,
        manager=p.manager,
        version=p.version,
        build=p.build,
        channel=p.channel,
        labels=lab + extra,
        url=url,
        editable=p.editable if p.manager == "pip" else False,
    )


def _diff_concrete(sa: _Side, sb: _Side, dups_a, dups_b, cross: bool):
    from envkit.conda.names import conda_names_for_pypi, pypi_names_for_conda

    ia, ib = _index(sa.packages), _index(sb.packages)
    ctx = _Context(sa, sb, cross)
    changes: list[Change] = []
    unchanged: list[PackageState] = []
    a_only: dict[tuple[str, str], LockedPackage] = {}
    for k, pa in ia.items():
        pb = ib.get(k)
        if pb is None:
            a_only[k] = pa
            continue
        ch = _compare(pa, pb, ctx)
        if ch is None:
            unchanged.append(_state(pa, labels=False, side=sa))
        else:
            changes.append(ch)
    b_only = {k: p for k, p in ib.items() if k not in ia}
    # conda <-> pip moves: a conda package on one side, the PyPI project it installs on the other
    for k, pa in list(a_only.items()):
        if pa.manager == "conda":
            owned = (sa.owned or {}).get(pa.name)
            cands = [("pip", n) for n in (owned or pypi_names_for_conda(pa.name))]
        else:
            cands = [("conda", n) for n in conda_names_for_pypi(pa.name)]
        for ck in cands:
            pb = b_only.get(ck)
            if pb is not None:
                del a_only[k]
                del b_only[ck]
                moved = _compare(pa, pb, ctx)
                assert moved is not None  # a manager move always differs
                changes.append(moved)
                break
    # a side whose format cannot hold pip packages (an explicit file) says nothing about them: the
    # other side's pip packages are not "removed" or "added" (counted, and said once instead)
    skipped = 0
    for side, only, other, dups in (("a", a_only, sb, dups_a), ("b", b_only, sa, dups_b)):
        dup_keys = {("conda", d.conda.lower()) for d in dups} | {("pip", _pep503(d.pip)) for d in dups}
        for k, p in only.items():
            if p.manager == "pip" and not other.info.records_pip:
                skipped += 1
                continue
            changes.append(_one_sided(p, side, ctx, k in dup_keys))
    return changes, unchanged, skipped


def _compare(pa: LockedPackage, pb: LockedPackage, ctx: _Context) -> Change | None:
    if pa.channel is None or pb.channel is None or pa.channel == pb.channel:
        same_channel = True
    else:
        from envkit.conda.channels import parse_channel  # here: most pairs share the channel text

        same_channel = parse_channel(pa.channel).name == parse_channel(pb.channel).name
    src = None
    url_pinned = False
    if pa.manager == pb.manager == "pip":
        src = _source_change(pa, pb, ctx)
        # `mylib @ git+URL@commit` (no version) is satisfied by what was installed from that URL
        url_pinned = (_url_pinned(pa) or _url_pinned(pb)) and bool(pa.version or pb.version)
    if (
        pa.manager == pb.manager
        and (pa.version == pb.version or url_pinned)
        and pa.build == pb.build
        and same_channel
        and src is None
    ):
        fields = () if ctx.cross or pa.manager != "conda" else record_differences(pa, pb)
        if not fields:
            return None
        return _record_change(pa, pb, fields, ctx)
    tags: list[str] = []
    kind = None
    if pa.manager != pb.manager:
        tags.append("manager")
        kind = "manager"
    kind, ia, ib = _release_change(pa, pb, url_pinned, tags, kind)
    if src is not None:
        tags.append(src.tag)
        kind = kind or ("rebuilt" if src.tag == "commit" else "source")
    if not same_channel:
        tags.append("channel")
        # another channel's build is another build: the channel is the change, not a rebuild
        kind = "channel" if kind in (None, "rebuilt") else kind
    if kind is None:
        return None  # equal versions written differently (1.0 vs 1.0.0), no build information
    name = pb.name if pb.manager == "conda" and pa.manager == "pip" else pa.name
    sta = _state(pa, side=ctx.sa, extra=src.labels_a if src else ())
    stb = _state(pb, side=ctx.sb, extra=src.labels_b if src else ())
    return _classify(name, kind, sta, stb, tags, ia, ib, ctx, source=src)


def _release_change(
    pa: LockedPackage, pb: LockedPackage, url_pinned: bool, tags: list[str], kind: str | None
):
    """`_compare`'s verdict on versions, builds and variants: the kind of change (`kind` when one
    is already known), each side's decoded build; the tags found are added to `tags`."""
    va, vb = pa.version, pb.version
    if pa.manager == "pip" or pb.manager == "pip":
        # a local version (+cu121, +cpu) is a build variant, not a newer release
        (va, la), (vb, lb) = _split_local(va), _split_local(vb)
    else:
        la = lb = ""
    cmp = (
        0
        if url_pinned
        else compare_versions(va, vb, "pip" if pa.manager == "pip" and pb.manager == "pip" else "conda")
    )
    if cmp != 0:
        tags.append("version")
        kind = kind or ("upgraded" if cmp == -1 else "downgraded" if cmp == 1 else "changed")
    ia = decode(pa.build, pa.version, pa.name)
    ib = decode(pb.build, pb.version, pb.name)
    builds_differ = (pa.build is not None and pb.build is not None and pa.build != pb.build) or la != lb
    # a decoded build holds only what makes a variant (not the hash or build number)
    if builds_differ or (ia != ib and pa.build and pb.build):
        if ia != ib:
            tags.append("variant")
            kind = kind or "variant"
        elif builds_differ:
            tags.append("build")
            kind = kind or "rebuilt"
    return kind, ia, ib


def _deps(pairs) -> frozenset[str]:
    """A package's depends as one constraint set per name, so that the same requirements written
    differently compare equal: `python >=3.10` and `python <4` (a pixi.lock lists both) are the
    `python >=3.10,<4` a conda-lock.yml mapping holds, and `python` adds nothing to `python >=3.10`.
    conda writes `zlib ` (a trailing space) where rattler writes `zlib`: the same dependency."""
    versions: dict[str, set[str]] = {}
    builds: dict[str, set[str]] = {}
    for n, s in pairs:
        name, *rest = f"{n} {s}".split()
        versions.setdefault(name, set())
        builds.setdefault(name, set())
        if rest:
            versions[name].update(c for c in rest[0].split(",") if c and c != "*")
            builds[name].update(rest[1:])
    return frozenset(
        " ".join([n, ",".join(sorted(versions[n])), *sorted(builds[n])]).strip() for n in versions
    )


def record_differences(pa: LockedPackage, pb: LockedPackage) -> tuple[str, ...]:
    """`field: A → B` for each record field of two conda packages with the same name, version,
    build and channel that differs in a way that changes what conda does: build_number (the
    solver prefers the higher), depends and constrains (what it solves against), md5/sha256 and
    url (another artifact), subdir.  A field one side does not record (None, or no depends from
    an explicit file) is not compared."""
    if (
        pa.sha256 == pb.sha256
        and pa.md5 == pb.md5
        and pa.url == pb.url
        and pa.build_number == pb.build_number
        and pa.subdir == pb.subdir
        and pa.depends == pb.depends
        and pa.constrains == pb.constrains
    ):
        return ()  # the same record, as most packages of two solves are: nothing to normalize
    out = []
    for field in ("build_number", "subdir", "url", "md5", "sha256"):
        va, vb = getattr(pa, field), getattr(pb, field)
        if va is not None and vb is not None and va != vb:
            out.append(f"{field} {va} → {vb}")
    # equal as recorded is equal normalized: only a pair that differs is normalized
    sets: list[tuple[str, frozenset[str], frozenset[str]]] = []
    if pa.depends != pb.depends:
        sets.append(("depends", _deps(pa.depends), _deps(pb.depends)))
    if pa.constrains != pb.constrains:
        sets.append(("constrains", frozenset(pa.constrains), frozenset(pb.constrains)))
    for field, fa, fb in sets:
        if fa and fb and fa != fb:
            gone, new = sorted(fa - fb), sorted(fb - fa)
            out.append(f"{field} " + ", ".join([f"-{d}" for d in gone] + [f"+{d}" for d in new]))
    return tuple(out)


def _record_change(pa: LockedPackage, pb: LockedPackage, fields: tuple[str, ...], ctx: _Context) -> Change:
    cat = category_of(pa.name)
    tags = ["record"] + ([cat] if cat else [])
    reason = (
        "same name, version and build, but the package records differ ("
        + "; ".join(fields)
        + "): conda sees another package and may replace it"
    )
    return Change(
        name=pa.name,
        kind="rebuilt",
        a=_state(pa, side=ctx.sa),
        b=_state(pb, side=ctx.sb),
        tags=tuple(tags),
        impact="medium",
        reason=reason,
        group="matter",
        category=cat,
    )


def _one_sided(p: LockedPackage, side: str, ctx: _Context, duplicate: bool) -> Change:
    st = _state(p, side=ctx.sa if side == "a" else ctx.sb)
    kind = "duplicate" if duplicate else "removed" if side == "a" else "added"
    tags = ["duplicate"] if duplicate else []
    info = decode(p.build, p.version, p.name)
    if side == "a":
        return _classify(p.name, kind, st, None, tags, info, None, ctx)
    return _classify(p.name, kind, None, st, tags, None, info, ctx)
