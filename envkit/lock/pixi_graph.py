"""pixi's walk of one locked platform (prefix-dev/pixi crates/pixi_core/src/lock_file/satisfiability,
`verify_platform_satisfiability` and `verify_solve_group_satisfiability`): from the manifest's
requests through every reached record's `depends` (conda) and `requires_dist` (PyPI, under the
platform's markers and the extras asked for), each requirement must be met by a locked record.

    lock_details(text)   what the walk needs that a Lock does not carry: each platform's recorded
                         virtual packages, a PyPI record's index, a conda record's purls and the
                         `sources:` of a source record
    walk(...)            the Changes of one environment on one platform

Offline and without building: a virtual package (`__glibc`, `__cuda`) is judged only where the
manifest declares it; a source package's own manifest is not read (only what the lock records of it).
"""

from __future__ import annotations

import posixpath
from dataclasses import dataclass, field

from envkit.conda.names import pep503
from envkit.conda.platform import marker_holds, wheel_tag_floor
from envkit.lock.changes import Change, stale
from envkit.lock.packages import accepts
from envkit.model import LockedPackage


@dataclass(frozen=True, slots=True)
class LockDetails:
    #: a version 7 lock's platform name -> its recorded virtual packages (`__cuda=12.0`)
    virtual_packages: dict[str, tuple[str, ...]] = field(default_factory=dict)
    #: a PyPI record's location -> the index it was locked from
    index: dict[str, str] = field(default_factory=dict)
    #: a conda record's location -> the PyPI names its purls give it
    purls: dict[str, tuple[str, ...]] = field(default_factory=dict)
    #: a source record's location -> {dependency name: its source location, relative to the record}
    sources: dict[str, dict[str, str]] = field(default_factory=dict)


def lock_details(text: str, filename: str | None) -> LockDetails:
    from envkit.formats.pixilock import _load

    data = _load(text, filename)
    out = LockDetails()
    for p in data.get("platforms") or ():
        if isinstance(p, dict) and isinstance(p.get("name"), str):
            out.virtual_packages[p["name"]] = tuple(str(v) for v in p.get("virtual-packages") or ())
    for e in data.get("packages") or ():
        if not isinstance(e, dict):
            continue
        # versions 4 and 5 write `kind:` and `url:`/`path:` where 6 and 7 write `conda:`/`pypi:`
        old = e.get("url") or e.get("path")
        pypi = e.get("pypi") or (old if e.get("kind") == "pypi" else None)
        if isinstance(pypi, str) and isinstance(e.get("index"), str):
            out.index[pypi] = e["index"]
        loc = e.get("conda") or (old if e.get("kind") == "conda" else None)
        if not isinstance(loc, str):
            continue
        names = [str(u)[9:].split("@", 1)[0].split("?", 1)[0] for u in e.get("purls") or ()]
        out.purls[loc] = tuple(pep503(n) for n in names if n)
        srcs = e.get("sources")
        if isinstance(srcs, dict):
            out.sources[loc] = {
                str(k): str(v.get("path") or v.get("git") or v.get("url") or "")
                for k, v in srcs.items()
                if isinstance(v, dict)
            }
    return out


def is_source(pkg: LockedPackage) -> bool:
    """A conda record pixi builds from source: its location is a path or repository, not an archive."""
    url = (pkg.url or "x.conda").split("#", 1)[0]
    return pkg.manager == "conda" and not url.endswith((".conda", ".tar.bz2"))


def source_matches(source: str, location: str) -> bool:
    """Whether a locked source record's location is the source a request names (a path, a git
    repository, a URL)."""
    if source.startswith("git+"):
        base = source[4:].split("@", 1)[0].split("#", 1)[0].rstrip("/")
        return location.startswith("git+") and base in location
    if "://" in source:
        return location.startswith(source.rstrip("/"))
    return "://" not in location and same_location(source, location)


def same_location(a: str, b: str) -> bool:
    return posixpath.normpath(a.strip().rstrip("/")) == posixpath.normpath(b.strip().rstrip("/"))


@dataclass
class _Walk:
    env: str
    platform: str
    conda: dict[str, LockedPackage]
    pip: dict[str, LockedPackage]
    details: LockDetails
    declared_vps: dict[str, str]
    markers: dict[str, str]
    #: pypi-options.dependency-overrides: a PyPI name -> the specifier that replaces every other
    overrides: dict[str, str] = field(default_factory=dict)
    out: list[Change] = field(default_factory=list)
    #: a requested name -> (its manifest line, key): where a Change about it points
    lines: dict[str, tuple[int | None, str]] = field(default_factory=dict)
    #: conda names reached from conda requests / from PyPI requests; names expected as source
    by_conda: set[str] = field(default_factory=set)
    by_pypi: set[str] = field(default_factory=set)
    sources: set[str] = field(default_factory=set)

    def stale(self, what: str, name: str, message: str, line: int | None = None, key=None) -> None:
        if line is None:
            line, key = self.lines.get(name, (None, None))
        self.out.append(
            stale(
                what=what,
                environment=self.env,
                platform=self.platform,
                name=name,
                line=line,
                key=key,
                message=message,
            )
        )

    def conda_dep(self, name: str, spec: str, by: LockedPackage) -> None:
        from envkit.conda.matchspec import parse_spec

        if name.startswith("__"):
            want = self.declared_vps.get(name)
            if want is not None and spec and not _version_ok(name, spec, want):
                self.stale("dependency", name, f"{by.name} needs {name} {spec}; the platform has {want}")
            return
        source = self.details.sources.get(by.url or "", {}).get(name)
        pkg = self.conda.get(name)
        if source is not None:
            self.sources.add(name)
            expected = posixpath.join(posixpath.dirname((by.url or "").rstrip("/")), source)
            if pkg is None or not is_source(pkg):
                self.stale(
                    "source", name, f"{by.name} needs {name} built from {expected}; it is locked as binary"
                )
            elif not same_location(pkg.url or "", expected):
                self.stale(
                    "source", name, f"{by.name} needs {name} from {expected}; it is locked from {pkg.url}"
                )
            self.reach(pkg)
            return
        try:
            dep = parse_spec(f"{name} {spec}".strip())
        except Exception:  # a spec envkit cannot parse (a `[when=...]` condition): not judged
            return
        if pkg is None:
            self.stale("dependency", name, f"{by.name} needs {name} {spec}".rstrip() + ": not locked")
            return
        # a source record's version is known once built: its name is what counts
        if not (is_source(pkg) or accepts(dep, pkg)):
            self.stale("dependency", name, f"{by.name} needs {name} {spec}; locked {pkg.name} {pkg.version}")
        self.reach(pkg)

    def reach(self, pkg: LockedPackage | None) -> None:
        if pkg is None or pkg.name in self.by_conda:
            return
        self.by_conda.add(pkg.name)
        for name, spec in pkg.depends:
            self.conda_dep(name, spec, pkg)

    def pypi(self, requests: list[tuple[str, tuple[str, ...]]]) -> None:
        """Walk PyPI (name, extras) from the manifest's requests through `requires_dist`."""
        from packaging.requirements import InvalidRequirement, Requirement

        from envkit.formats.pipreq import pip_version_satisfies

        purl = {n: p for p in self.conda.values() for n in self.details.purls.get(p.url or "", ())}
        seen: set[tuple[str, str]] = set()
        queue = list(requests)
        while queue:
            name, extras = queue.pop()
            key = pep503(name)
            pkg = self.pip.get(key)
            if pkg is None:
                if key in purl:
                    self.by_pypi.add(purl[key].name)
                continue  # a missing direct request is reported with its line by the caller
            for dname, rest in pkg.depends:
                try:
                    req = Requirement(f"{dname}{rest}")
                except InvalidRequirement:
                    continue
                holds = req.marker is None or marker_holds(req.marker, self.markers, ("", *extras))
                dkey = pep503(req.name)
                wanted = (dkey, ",".join(sorted(req.extras)))
                if not holds or wanted in seen:
                    continue
                seen.add(wanted)
                got = self.pip.get(dkey)
                if dkey in self.overrides:
                    req.specifier = _specifier(self.overrides[dkey])
                if got is None and dkey not in purl:
                    self.stale("dependency", req.name, f"{pkg.name} needs {req}: not locked")
                    continue
                if (
                    got is not None
                    and req.specifier
                    and not pip_version_satisfies(req.specifier, got.version)
                ):
                    self.stale(
                        "dependency", req.name, f"{pkg.name} needs {req}; locked {got.name} {got.version}"
                    )
                queue.append((req.name, tuple(sorted(req.extras))))


def _specifier(text: str):
    from packaging.specifiers import InvalidSpecifier, SpecifierSet

    try:
        return SpecifierSet(text if text != "*" else "")
    except InvalidSpecifier:  # not a plain specifier (a table): the override is not judged
        return SpecifierSet()


def _version_ok(name: str, spec: str, version: str) -> bool:
    from envkit.conda.matchspec import matches, parse_spec

    try:
        return matches(parse_spec(f"{name} {spec}"), name=name, version=version)
    except Exception:  # an unreadable version: not judged
        return True


def walk(
    env: str,
    platform: str,
    subdir: str,
    requested: list,
    pkgs,
    details: LockDetails,
    declared_vps: dict[str, str],
    overrides: dict[str, str],
    reached: tuple[set[str], set[str]],
) -> list[Change]:
    """The Changes of `env` on `platform`: the requirements of the reached records that no locked
    record meets, and sources locked as something else.  `requested` are the manifest Entries that
    apply on the platform (their own match is the caller's); the conda names that conda and PyPI
    requests reach are added to `reached` (see conda_for_pypi)."""
    from envkit.conda.platform import target_markers

    conda = {p.name: p for p in pkgs if p.manager == "conda"}
    python = conda.get("python")
    w = _Walk(
        env=env,
        platform=platform,
        conda=conda,
        pip={pep503(p.name): p for p in pkgs if p.manager == "pip"},
        details=details,
        declared_vps=declared_vps,
        markers=target_markers(subdir, python.version if python else "3"),
        overrides={pep503(k): v for k, v in overrides.items()},
    )
    pypi: list[tuple[str, tuple[str, ...]]] = []
    w.lines = {e.name: (e.line, e.key) for e in requested}
    for e in requested:
        if e.manager != "conda":
            pypi.append((e.name, e.extras))
            continue
        pkg = conda.get(e.name)
        if e.source is not None:
            w.sources.add(e.name)
            if pkg is not None and not (is_source(pkg) and source_matches(e.source, pkg.url or "")):
                how = "from " + pkg.url if is_source(pkg) else "as binary"
                w.stale("source", e.name, f"{e.spec}: locked {how}", e.line, e.key)
        w.reach(pkg)
    w.pypi(pypi)
    for p in conda.values():
        if is_source(p) and p.name not in w.sources:
            w.stale(
                "source", p.name, f"{p.name} is locked as source (from {p.url}), but only asked for as binary"
            )
    reached[0].update(w.by_conda)
    reached[1].update(w.by_pypi)
    return w.out


def conda_for_pypi(env: str, platform: str, reached: tuple[set[str], set[str]]) -> list[Change]:
    """pixi's solve-group rule: a conda record that PyPI requests reach must be reached by a conda
    request of some environment of the group too (else it should have been a PyPI package)."""
    by_conda, by_pypi = reached
    return [
        stale(
            what="conda-for-pypi",
            environment=env,
            platform=platform,
            name=name,
            message=f"{name} is locked as a conda package but only PyPI requests ask for it",
        )
        for name in sorted(by_pypi - by_conda)
    ]


def wheel_tags(env: str, platform: str, pkgs, declared_vps: dict[str, str], line: int | None) -> list[Change]:
    """pixi's PypiWheelTagsCheck, on what the manifest declares: a locked wheel whose every platform
    tag needs a newer glibc (`manylinux_2_28`) or macOS (`macosx_14_0`) than the platform's
    system-requirements give is not installable there.  Undeclared versions are not judged."""
    from packaging.utils import InvalidWheelFilename, parse_wheel_filename

    limits = {
        kind: tuple(int(x) for x in declared_vps[vp].split(".")[:2] if x.isdigit())
        for kind, vp in (("manylinux", "__glibc"), ("macosx", "__osx"))
        if vp in declared_vps
    }
    out: list[Change] = []
    for p in pkgs:
        file = (p.url or "").split("#", 1)[0].rsplit("/", 1)[-1]
        if p.manager != "pip" or not file.endswith(".whl") or not limits:
            continue
        try:
            tags = parse_wheel_filename(file)[3]
        except InvalidWheelFilename:
            continue
        needs = [wheel_tag_floor(t.platform) for t in tags]
        if all(n is not None and n[0] in limits and n[1] > limits[n[0]] for n in needs):
            kind, version = min(n for n in needs if n is not None)
            have = ".".join(map(str, limits[kind]))
            msg = f"{file} needs {kind} {'.'.join(map(str, version))}; the system-requirements give {have}"
            out.append(
                stale(
                    what="wheel-tags",
                    environment=env,
                    platform=platform,
                    name=p.name,
                    line=line,
                    message=msg,
                )
            )
    return out
