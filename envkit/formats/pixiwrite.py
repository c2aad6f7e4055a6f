"""Writing pixi.lock: version 6 (what conda's conda-lockfiles plugin reads) and version 7 (pixi's
default since May 2026).

The layout is the one `envkit.formats.pixilock` reads: one environment (the Lock's `environment`,
else "default"), or several (`write_pixi_environments`), whose `packages.<platform>` lists reference
entries of the top-level `packages:` list, each written once (a noarch package shared by several
platforms is one entry).  Version 7 adds the top-level `platforms:` list.  Deterministic:
platforms in lock order, references and entries sorted by kind and location.

What a pixi.lock cannot hold is left out and reported through `dropped` as (package, reason): a
package without an artifact URL (pixi locks artifacts), and the editable flag of a pip package (pixi
takes editability from its manifest, not the lock; the package is written as its path).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace

from envkit.formats._util import split_filename
from envkit.formats._util import yscalar as scalar
from envkit.model import Lock, LockedPackage

VERSIONS = (6, 7)


def _channel_url(ch) -> str:
    url = ch.redacted_url or ch.url
    if not url:
        from envkit.conda.channels import parse_channel

        url = parse_channel(ch.name).url or f"https://conda.anaconda.org/{ch.name}"
    return url.rstrip("/") + "/"


def write_pixi_lock(
    lock: Lock, *, version: int = 6, dropped: list | None = None, strict: bool = False
) -> str:
    """pixi.lock text (version 6 or 7) of `lock`; raises ValueError for another version.

    Every package needs a platform (a pylock.toml read has none: give the Lock one first).  What
    the file cannot hold goes to `dropped`; with `strict` a package left out raises UsageError
    instead (envkit.write_text: a library call must not lose packages silently)."""
    # a pixi environment keeps its name; a conda environment's name is not a pixi environment's
    env = (lock.environment if lock.kind == "pixi" else None) or "default"
    lost: list = []
    text = write_pixi_environments({env: lock}, version=version, dropped=lost)
    out = left_out(lost) if strict else []
    if out:
        from envkit.errors import Remedy, UsageError

        names = ", ".join(n for n, _ in out[:5]) + (f", ... ({len(out)} in all)" if len(out) > 5 else "")
        raise UsageError(
            f"pixi.lock cannot hold {names}: {out[0][1]}",
            hint="envkit convert writes the rest and lists what it left out ({})",
            remedy=Remedy(option="allow_loss", value=True),
        )
    if dropped is not None:
        dropped += lost
    return text


def write_pixi_environments(
    envs: Mapping[str, Lock], *, version: int = 6, dropped: list | None = None
) -> str:
    """pixi.lock text (version 6 or 7) of several environments (name -> Lock), in that order; each
    package entry is written once, whichever environments and platforms reference it.  What the
    file cannot hold goes to `dropped` (once per package, however many environments have it)."""
    if version not in VERSIONS:
        raise ValueError(f"pixi.lock version {version} is not written; envkit writes {VERSIONS}")
    entries: dict[Key, LockedPackage] = {}
    sections: list[str] = ["environments:"]
    lost: list = []
    every: list[str] = []
    for name, lock in envs.items():
        platforms = _platforms_of(lock)
        every += [pl for pl in platforms if pl not in every]
        mine, refs = _entries(lock, platforms, version, lost)
        for key, p in mine.items():
            entries.setdefault(key, p)
        sections += _environment(name, lock, platforms, refs)
    if dropped is not None:
        dropped += list(dict.fromkeys(lost))
    out = [f"version: {version}"]
    if version >= 7:
        out.append("platforms:" if every else "platforms: []")
        for pl in every:
            out.append(f"- name: {scalar(pl)}")
            sub = _subdir_of(tuple(p for lk in envs.values() for p in lk.packages), pl)
            if sub != pl:  # a named platform (pixi's `p1` for win-64 with CUDA): rattler needs it
                out.append(f"  subdir: {scalar(sub)}")
    out += sections
    out.append("packages:" if entries else "packages: []")
    for (kind, url), p in sorted(entries.items()):
        out += _conda_entry(p, url) if kind == "conda" else _pypi_entry(p, url)
    return "\n".join(out) + "\n"


def _platforms_of(lock: Lock) -> tuple[str, ...]:
    return lock.platforms or tuple(dict.fromkeys(p.platform for p in lock.packages if p.platform))


def _subdir_of(packages: tuple[LockedPackage, ...], platform: str) -> str:
    """The conda subdir of `platform`: itself when it is one, else the subdir its packages were
    built for (pixi v7 names platforms freely: `- name: p1` with `subdir: win-64`)."""
    from collections import Counter

    from envkit.conda.channels import KNOWN_SUBDIRS

    if platform in KNOWN_SUBDIRS:
        return platform
    subs = Counter(p.subdir for p in packages if p.platform == platform and p.subdir not in (None, "noarch"))
    return subs.most_common(1)[0][0] if subs else platform


#: (kind, location) of a package: the key of a `packages:` entry and of its references
Key = tuple[str, str]


def _entries(
    lock: Lock, platforms: tuple[str, ...], version: int, dropped: list | None
) -> tuple[dict[Key, LockedPackage], dict[str, list[Key]]]:
    """(the top-level entries by key, each platform's references) of the packages a pixi.lock of
    `version` can hold; the others go to `dropped`."""
    entries: dict[Key, LockedPackage] = {}
    refs: dict[str, list[Key]] = {pl: [] for pl in platforms}
    per_platform: dict[Key, dict[str, tuple[tuple[str, str], ...]]] = {}
    for p in lock.packages:
        if not p.url:
            _drop(dropped, p, "no artifact URL (a pixi.lock references every package by its URL)")
            continue
        if p.platform not in refs:
            _drop(dropped, p, "no platform")
            continue
        kind = "conda" if p.manager == "conda" else "pypi"
        if kind == "pypi" and not p.version and version < 7:
            _drop(dropped, p, "no version (pixi.lock v6 needs one for a pypi package; v7 does not)")
            continue
        if p.editable:
            _drop(
                dropped,
                p,
                "editable: written as a plain path package (pixi takes editability from its manifest)",
            )
        if kind == "conda" and not p.url.split("#", 1)[0].endswith((".conda", ".tar.bz2")):
            # a pixi source package (`conda: .`, `conda_source:`): pixi builds it from its recipe
            # and locks what it was built from (`input`, `package_build_source`), which the Lock
            # does not hold; rattler reads such an entry as a binary package and refuses it
            _drop(dropped, p, "a source package: no artifact URL (pixi builds it from its recipe)")
            continue
        key = (kind, p.url)
        entries.setdefault(key, p)
        if kind == "pypi":
            per_platform.setdefault(key, {})[p.platform] = p.depends
        if key not in refs[p.platform]:
            refs[p.platform].append(key)
    for key, needs in per_platform.items():
        if len(set(needs.values())) > 1:
            entries[key] = replace(entries[key], depends=_marked_depends(needs))
    return entries, refs


def _marked_depends(needs: dict[str, tuple[tuple[str, str], ...]]) -> tuple[tuple[str, str], ...]:
    """One `requires_dist` for a wheel several platforms share, from each platform's needs (locked
    with the wheel's markers evaluated for it): a need of only some platforms gets a marker that
    holds on those platforms, so pixi reaches it where the wheel's metadata says."""
    from envkit.conda.platform import target_markers

    def marker(platform: str) -> str:
        m = target_markers(platform, "3")
        return f"(sys_platform == '{m['sys_platform']}' and platform_machine == '{m['platform_machine']}')"

    out: dict[tuple[str, str], list[str]] = {}
    for platform, deps in needs.items():
        for dep in deps:
            out.setdefault(dep, []).append(platform)
    merged = []
    for (name, spec), platforms in out.items():
        if len(platforms) < len(needs):
            spec = f"{'' if spec.strip() == '*' else spec}; {' or '.join(map(marker, platforms))}"
        merged.append((name, spec))
    return tuple(merged)


def _environment(env: str, lock: Lock, platforms: tuple[str, ...], refs: dict[str, list[Key]]) -> list[str]:
    """One environment of the `environments:` section: its channels, indexes and references."""
    out = [f"  {scalar(env)}:"]
    out += (
        ["    channels:"] + [f"    - url: {scalar(_channel_url(c))}" for c in lock.channels]
        if lock.channels
        else ["    channels: []"]
    )
    indexes = [
        o.split(None, 1)[1] for o in lock.pip_options if o.startswith(("--index-url ", "--extra-index-url "))
    ]
    if indexes:
        out += ["    indexes:"] + [f"    - {scalar(u)}" for u in indexes]
    links = [o.split(None, 1)[1] for o in lock.pip_options if o.startswith("--find-links ")]
    if links:
        out += ["    find-links:"] + [
            f"    - url: {scalar(u)}" if "://" in u else f"    - path: {scalar(u)}" for u in links
        ]
    out.append("    packages:" if any(refs.values()) else "    packages: {}")
    for pl in platforms:
        if refs[pl]:
            out.append(f"      {scalar(pl)}:")
            out += [f"      - {k}: {scalar(u)}" for k, u in sorted(refs[pl])]
    return out


#: the start of a `dropped` reason for a package that is written, only without something
KEPT_REASON = "editable"


def _drop(dropped, p: LockedPackage, reason: str) -> None:
    if dropped is not None:
        dropped.append((p.pin() + (f" ({p.platform})" if p.platform else ""), reason))


def left_out(dropped: list) -> list[tuple[str, str]]:
    """The (package, reason) entries of `dropped` whose package is not in the file at all."""
    return [(n, r) for n, r in dropped if not r.startswith(KEPT_REASON)]


def _conda_entry(p: LockedPackage, url: str) -> list[str]:
    """The `packages:` entry of conda package `p`, whose artifact is at `url` (its `url`)."""
    out = [f"- conda: {scalar(url)}"]
    nvb = split_filename(url.rsplit("/", 1)[-1])
    # name, version and build are read from the file name; written only when it does not tell them
    if nvb is None or nvb[0] != p.name:
        out.append(f"  name: {scalar(p.name)}")
    if nvb is None or nvb[1] != p.version:
        out.append(f"  version: {scalar(p.version)}")
    if p.build and (nvb is None or nvb[2] != p.build):
        out.append(f"  build: {scalar(p.build)}")
    if p.build_number:
        out.append(f"  build_number: {p.build_number}")
    subdir = p.subdir or (url.rsplit("/", 2)[-2] if url.count("/") >= 2 else None)
    # rattler derives the subdir from an http(s) URL only: a file:// channel's entry needs it
    # written (py-rattler reads such a lock otherwise as "missing field subdir")
    if subdir and (f"/{subdir}/" not in url or not url.startswith(("https://", "http://"))):
        out.append(f"  subdir: {scalar(subdir)}")
    out += _hashes(p)
    if p.depends:
        out.append("  depends:")
        out += [f"  - {scalar(f'{n} {s}'.strip())}" for n, s in p.depends]
    if p.constrains:  # a live record's; conda's rattler-lock-v6 export writes them too
        out.append("  constrains:")
        out += [f"  - {scalar(c)}" for c in p.constrains]
    return out


def _pypi_entry(p: LockedPackage, url: str) -> list[str]:
    """The `packages:` entry of pip package `p`, whose artifact is at `url` (its `url`)."""
    out = [f"- pypi: {scalar(url)}", f"  name: {scalar(p.name)}"]
    if p.version:  # a path package may have none (pixi reads it from the source)
        out.append(f"  version: {scalar(p.version)}")
    out += _hashes(p)
    if p.depends:
        out.append("  requires_dist:")
        out += [f"  - {scalar(_requirement(n, s))}" for n, s in p.depends]
    return out


def _hashes(p: LockedPackage) -> list[str]:
    return [f"  {k}: {scalar(v)}" for k, v in (("sha256", p.sha256), ("md5", p.md5)) if v]


def _requirement(name: str, spec: str) -> str:
    """A PEP 508 requirement from a (name, spec) pair as the readers keep it: conda-lock writes `*`
    for "any version" and a bare version for `==`, which PEP 508 does not allow; a spec that is not
    PEP 508 at all (conda-lock copies poetry's `>=4.12,<5.0.0 || >=5.1.0`) is left out, keeping the
    name: rattler refuses the lock otherwise."""
    from packaging.requirements import InvalidRequirement, Requirement

    spec = spec.strip()
    if spec in ("", "*"):
        return name
    if spec[0].isdigit():  # conda-lock writes an exact pin as the bare version
        text = f"{name}=={spec}"
    else:
        text = f"{name}{spec}" if spec[0] in "[;<>=!~(@" else f"{name} {spec}"
    try:
        Requirement(text)
    except InvalidRequirement:
        return name
    return text
