"""`envkit convert`'s core: any format envkit reads -> any format it writes, saying what is lost.

    conversion = convert(model, "pixi", platform=None)
    conversion.text        the output text
    conversion.losses      what the target could not hold (Loss records), empty when lossless

What a target can hold is a set of features (FEATURES) per writer (HOLDS); what a source can carry
is a set per reader (CARRIES).  A conversion's losses are the features the model actually has that
the target does not hold, plus the packages a writer had to leave out (no artifact URL, no hash).
The same two tables give the lossless / dropped matrix of docs/commands/convert.md
(`loss_table_markdown`, checked by tests/convert/test_convert.py).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, replace

from envkit.errors import UsageError
from envkit.formats.registry import REGISTRY as _REGISTRY
from envkit.model import EnvSpec, Lock, LockedPackage, resolved_view

#: feature -> how the docs and messages name it
FEATURES = {
    "conda": "conda packages",
    "pip": "pip packages",
    "platforms": "several platforms",
    "hashes": "hashes",
    "urls": "conda artifact URLs",
    "pip-urls": "pip artifact URLs",
    "depends": "dependencies",
    "channels": "channel order",
    "indexes": "package indexes",
    "editable": "editable installs",
    "markers": "environment markers",
    "conda-no-url": "conda packages without an artifact URL",
    "pip-no-url": "pip packages without an artifact URL",
    "pip-no-version": "pip packages without a version",
}

#: the formats `convert` writes (file names tell most of them; see target_from_name), in the order
#: of the docs' table
TARGETS = tuple(
    name for _rank, name in sorted((f.convert_rank, f.name) for f in _REGISTRY if f.convert_rank is not None)
)
#: what a file written in each target can hold, and what a file read in each format can carry
#: (tests/convert/test_convert.py::test_loss_table_cells_hold_on_real_conversions writes a file with
#: all of it and reads it back): the registry's facts, envkit.formats.registry
HOLDS: dict[str, set[str]] = {f.name: set(f.holds) for f in _REGISTRY if f.name in TARGETS}
CARRIES: dict[str, set[str]] = {f.name: set(f.carries) for f in _REGISTRY if f.reads and f.carries}

#: (source, target) -> {feature: why}: what a conversion loses beyond the table's HOLDS, found by
#: tests/convert/test_convert.py::test_loss_table_cells_hold_on_real_conversions; writer gaps to fix, listed
#: in the docs' table and reported by `convert` for the packages they concern (`_gap_packages`)
_PATH_VERSION = "the version of a pip path install (`# pip NAME @ file:///dir` has none)"
_LOCAL_DIR = "a pip install from a local directory that is not editable, silently"
_INDEX = "the lock's `--index-url` (pylock.toml names an index per package)"
_PKG_INDEX = "the index each package came from (the target names the lock's indexes only)"
_UNNAMED = "the name of an `-e PATH` install without a version"
_PATH_REF = "the location of a path install (an SBOM reference must be a URL)"
_REQ_PATH = "the version of a path install (`-e PATH` and `name @ PATH` pin none)"
KNOWN_GAPS: dict[tuple[str, str], dict[str, str]] = {
    ("conda-lock", "explicit"): {"pip": _PATH_VERSION, "pip-urls": _PATH_VERSION},
    ("pixi", "explicit"): {"pip": _PATH_VERSION, "pip-urls": _PATH_VERSION},
    ("env", "pylock"): {"indexes": _INDEX},
    ("conda-lock", "pylock"): {"indexes": _INDEX},
    ("pixi", "pylock"): {"indexes": _INDEX},
    # a package's own index (pylock.toml `index`, requirements `--index-url`) is not carried over
    **{("pylock", t): {"indexes": _PKG_INDEX} for t in ("conda-lock", "env", "pixi", "pixi-v7")},
    ("pylock", "explicit"): {"pip": _PATH_VERSION, "pip-urls": _PATH_VERSION},
    ("pylock", "requirements"): {"indexes": _PKG_INDEX, "pip": _REQ_PATH, "editable": _REQ_PATH},
    ("pylock", "cyclonedx"): {"pip-urls": _PATH_REF},
    ("requirements", "conda-lock"): {"pip": _UNNAMED},
    ("requirements", "pixi"): {"pip": _UNNAMED},
    ("requirements", "pylock"): {"indexes": _INDEX},
}


#: features that only packages of one manager have: a target that drops that manager's packages
#: drops them with it (not listed again)
_OF_MANAGER = {
    "conda": ("urls", "conda-no-url"),
    "pip": ("pip-urls", "pip-no-url", "pip-no-version", "editable", "markers"),
}


def _implied(target: str) -> set[str]:
    return {f for m, fs in _OF_MANAGER.items() if m not in HOLDS[target] for f in fs}


#: targets that hold one platform (several need --platform); targets whose entries need a platform
SINGLE_PLATFORM = ("env", "requirements", "explicit", "pylock", "conda-list-json", "conda-list-export")
NEEDS_PLATFORM = ("conda-lock", "pixi", "pixi-v7", "explicit", "env", "conda-list-json", "conda-list-export")


@dataclass(frozen=True, slots=True, kw_only=True)
class Loss:
    """Something the target format could not hold: `feature` (a FEATURES key), how many packages it
    concerned (0: the lock as a whole), and up to a few of them by name."""

    feature: str
    count: int = 0
    packages: tuple[str, ...] = ()
    detail: str = ""

    def as_dict(self) -> dict:
        return {
            "feature": self.feature,
            "what": FEATURES[self.feature],
            "count": self.count,
            "packages": list(self.packages),
            "detail": self.detail,
        }


@dataclass(frozen=True, slots=True, kw_only=True)
class Conversion:
    text: str
    source_format: str
    target: str
    platform: str | None
    losses: tuple[Loss, ...] = ()
    #: platforms of the source not written (a single-platform target, chosen with --platform)
    left_out_platforms: tuple[str, ...] = ()
    #: what was written: the source's lock (or spec) for the platforms written, to diff the output
    #: against (envkit.ops.convert reads the output back)
    written_from: Lock | EnvSpec | None = None
    #: a pixi.lock of several environments written whole (pixi targets): each environment's name
    #: and what was written from it (`written_from` is then None)
    environments: tuple[tuple[str, Lock], ...] = ()


def target_from_name(path: str) -> str | None:
    """The target format a file name asks for, or None when it does not tell."""
    import os

    from envkit.formats.registry import get

    base = os.path.basename(path).lower()
    for name in ("cyclonedx", "pixi", "pylock"):  # the registry's file names, most specific first
        if get(name).named(base):
            return name
    if base.endswith(("conda-lock.yml", "conda-lock.yaml")):
        return "conda-lock"
    if base.endswith((".yml", ".yaml")):
        return "env"
    if base.startswith("requirements") and base.endswith((".txt", ".in")):
        return "requirements"
    if base.endswith(".lock") or "explicit" in base or base.startswith("spec-file"):
        return "explicit"
    return None


def features_of(lock: Lock) -> dict[str, list[str]]:
    """feature -> the packages (name==version) that have it ([] for lock-wide features)."""
    out: dict[str, list[str]] = {}

    def add(f: str, p=None) -> None:
        out.setdefault(f, [])
        if p is not None:
            out[f].append(f"{p.name}=={p.version}" if p.version else p.name)

    for p in lock.packages:
        add(p.manager, p)
        if p.sha256 or p.md5:
            add("hashes", p)
        if p.url:
            add("urls" if p.manager == "conda" else "pip-urls", p)
        else:
            add("conda-no-url" if p.manager == "conda" else "pip-no-url", p)
        if p.manager == "pip" and not p.version:
            add("pip-no-version", p)
        if p.depends:
            add("depends", p)
        if p.editable:
            add("editable", p)
        if p.marker:
            add("markers", p)
        if p.index:
            add("indexes", p)
    if len(lock.platforms) > 1:
        add("platforms")
    if lock.channels:
        add("channels")
    if lock.pip_options:
        add("indexes")
    return out


def convert(model, target: str, *, source_format: str, platform: str | None = None) -> Conversion:
    """`model` (what envkit.formats.read_text returned for `source_format`) written as `target`.
    A mapping of environment names to Locks (every environment of a pixi.lock,
    envkit.formats.pixilock.read_pixi_environments) is written whole to a pixi target; to another
    target only when one environment has packages (`convert_environments`).

    Raises UsageError for an unknown target, a model the target cannot be made from, and a lock with
    several platforms written to a one-platform target without `platform`."""
    if target not in TARGETS:
        raise UsageError(f"unknown target format {target!r}; choose one of: {', '.join(TARGETS)}")
    if isinstance(model, Mapping):
        return convert_environments(model, target, source_format=source_format, platform=platform)
    view = resolved_view(model, platform)
    if view is not None and view.lock is not None:
        lock = view.lock
    elif model.kind == "spec" and target in ("env", "requirements"):
        return _spec_convert(model, target, source_format)
    elif source_format == "requirements":
        from envkit.formats.requirements import requirements_to_lock

        lock = requirements_to_lock(model)
    else:
        raise UsageError(
            "this environment file is a spec (loose versions), not a lock; it converts only to "
            "env or requirements",
            hint="lock it first: envkit lock -f FILE",
        )
    left_out: tuple[str, ...] = ()
    if platform is not None and lock.platforms:
        if platform not in lock.platforms:
            raise UsageError(
                f"the lock has no platform {platform!r}", hint=f"one of: {', '.join(lock.platforms)}"
            )
        if target in SINGLE_PLATFORM:
            left_out = tuple(p for p in lock.platforms if p != platform)
            lock = replace(
                lock,
                platforms=(platform,),
                packages=lock.for_platform(platform),
                content_hash=tuple((k, v) for k, v in lock.content_hash if k == platform),
            )
    elif len(lock.platforms) > 1 and target in SINGLE_PLATFORM and not _same_pip(lock, target):
        raise UsageError(
            f"the lock has {len(lock.platforms)} platforms ({', '.join(lock.platforms)}); {target} holds one",
            hint="choose one with --platform",
        )
    if not lock.platforms and target in NEEDS_PLATFORM:
        if any(p.manager == "pip" for p in lock.packages) and platform is None:
            raise UsageError(
                f"a {source_format} lock names no platform; {target} locks packages per platform",
                hint="say which with --platform (e.g. --platform linux-64)",
            )
        if platform is not None:
            lock = replace(
                lock,
                platforms=(platform,),
                packages=tuple(replace(p, platform=platform) for p in lock.packages),
            )
    _refuse_conflicts(lock, target)
    _refuse_forks(lock, target)
    _refuse_lock_file_markers(lock, target)
    if target in ("pixi", "conda-lock"):
        from envkit.conda.channels import KNOWN_SUBDIRS

        named = [pl for pl in lock.platforms if pl not in KNOWN_SUBDIRS]
        if named:
            raise UsageError(
                f"{_FILE_NAMES[target]} names platforms by conda subdir; {', '.join(named)} "
                f"{'is' if len(named) == 1 else 'are'} not one (a pixi v7 platform of its own name)",
                hint="convert to pixi-v7, which names platforms freely, or pick one with --platform "
                "for a one-platform format",
            )
    dropped: list[tuple[str, str]] = []
    text = _write(lock, target, dropped)
    have = features_of(lock)
    if target == "pylock" and "pip-no-version" in have:  # a source tree is written without one
        keep = [p.name for p in lock.packages if p.manager == "pip" and not p.version and not _source_tree(p)]
        have["pip-no-version"] = keep
        if not keep:
            del have["pip-no-version"]
    losses = [
        Loss(feature=f, count=len(pk), packages=tuple(dict.fromkeys(pk))[:5])
        if pk or f != "channels"
        else Loss(feature=f, count=len(lock.channels), packages=tuple(c.name for c in lock.channels[:5]))
        for f, pk in have.items()
        if f not in HOLDS[target] and f not in _implied(target) and not (f == "platforms" and left_out)
    ]
    pip_names = {
        f"{p.name}=={p.version}" if p.version else p.name for p in lock.packages if p.manager == "pip"
    }
    for reason in dict.fromkeys(r for _, r in dropped):
        names = [n for n, r in dropped if r == reason]
        for manager in ("conda", "pip"):  # a writer's report names packages, not managers
            mine = [n for n in names if (n.split(" (", 1)[0] in pip_names) == (manager == "pip")]
            if mine:
                feature = f"{manager}-no-url" if "URL" in reason else _feature_of(reason)
                losses.append(Loss(feature=feature, count=len(mine), packages=tuple(mine[:5]), detail=reason))
    for feature, why in KNOWN_GAPS.get((source_format, target), {}).items():
        hit = _gap_packages(lock, why)
        if hit:
            losses.append(Loss(feature=feature, count=len(hit), packages=tuple(hit[:5]), detail=why))
    return Conversion(
        text=text,
        source_format=source_format,
        target=target,
        platform=platform,
        losses=tuple(_merge(losses)),
        left_out_platforms=left_out,
        written_from=lock,
    )


_FILE_NAMES = {"pixi": "pixi.lock v6", "conda-lock": "conda-lock.yml"}


def convert_environments(
    envs: Mapping[str, Lock], target: str, *, source_format: str, platform: str | None = None
) -> Conversion:
    """Every environment of a pixi.lock (name -> Lock) written as `target`: all of them to a pixi
    target (with every platform), else the one environment that has packages.  Raises UsageError,
    naming the environments and `--env NAME`, when that is ambiguous or nothing is locked: a
    conversion of the `default` environment alone would drop the others silently."""
    from envkit.errors import Remedy, Where

    full = {n: lk for n, lk in envs.items() if lk.packages}
    if len(envs) > 1 and full and target in ("pixi", "pixi-v7"):
        return _convert_all(envs, target, source_format)
    if len(full) == 1 and (len(envs) == 1 or "default" in full):  # nothing else to lose
        return convert(next(iter(full.values())), target, source_format=source_format, platform=platform)
    source = next(iter(envs.values())).source if envs else None
    listed = ", ".join(
        f"{n} ({', '.join(lk.platforms)})" if lk.packages else f"{n} (no packages)" for n, lk in envs.items()
    )
    if not full:
        message = "the pixi.lock has no packages in any environment" + (f" ({listed})" if envs else "")
        raise UsageError(message, where=Where(file=source))
    if "default" not in full:  # as `envkit create` says it: the environment asked for is empty
        others = ", ".join(f"{n} ({', '.join(lk.platforms)})" for n, lk in full.items())
        message = f"pixi.lock environment 'default' has no packages; its other environments: {others}"
    else:
        message = f"the pixi.lock has {len(envs)} environments ({listed}); {target} holds one"
    raise UsageError(
        message,
        where=Where(file=source),
        hint="choose one with {}" + (" (pixi and pixi-v7 keep them all)" if len(full) > 1 else ""),
        remedy=Remedy(option="environment", metavar="NAME"),
    )


def _convert_all(envs: Mapping[str, Lock], target: str, source_format: str) -> Conversion:
    """Every environment of a pixi.lock written to one pixi.lock of `target`'s version; the losses
    are those of each environment's own conversion, merged."""
    from envkit.formats.pixiwrite import write_pixi_environments

    done = {n: convert(lk, target, source_format=source_format) for n, lk in envs.items()}
    written = {n: c.written_from for n, c in done.items() if isinstance(c.written_from, Lock)}
    text = write_pixi_environments(written, version=7 if target == "pixi-v7" else 6)
    by_feature: dict[str, list[Loss]] = {}
    for c in done.values():
        for loss in c.losses:
            by_feature.setdefault(loss.feature, []).append(loss)
    losses = []
    for feature, same in by_feature.items():
        names = tuple(dict.fromkeys(n for x in same for n in x.packages))
        losses.append(
            Loss(feature=feature, count=max(x.count for x in same), packages=names[:5], detail=same[0].detail)
        )
    return Conversion(
        text=text,
        source_format=source_format,
        target=target,
        platform=None,
        losses=tuple(losses),
        environments=tuple(written.items()),
    )


def _refuse_conflicts(lock: Lock, target: str) -> None:
    """Raise UsageError when `lock` (a uv.lock) declares conflicting extras or groups and locks a pip
    name once per side (`torch 2.8.0+cpu` for the `cpu` extra, `2.8.0+cu126` for `gpu`).  uv picks
    a side at install time (`uv sync --extra cpu`) from dependency markers on the lock's own
    `extra-N-project-cpu` names, which no requirements file, pylock.toml or conda lock can carry:
    written as it is, the output would ask for every side at once (https://github.com/astral-sh/uv/issues/14540
    shows such a lock).  An SBOM lists what the lock holds, all sides, and is written."""
    from envkit.formats.uvlock import conflict_sets

    sets = conflict_sets(lock) if lock.kind == "uv-lock" and target != "cyclonedx" else ()
    if not sets:
        return
    from collections import Counter

    from envkit.conda.names import pep503

    # a uv.lock read with its project's selection has these sides decided (envkit.formats.uvselect):
    # only a name still told apart by uv's own conflict markers is installed once per side
    sides = re.compile(r"extra\s*[!=]=\s*['\"](?:extra|group)-\d+-")
    count = Counter(
        pep503(p.name) for p in lock.packages if p.manager == "pip" and sides.search(p.marker or "")
    )
    # the most-forked name first: the accelerator package (torch) rather than a Python fork
    forked = sorted((n for n, k in count.items() if k > 1), key=lambda n: (-count[n], n))
    if not forked:
        return  # one version per name: every side together installs what the lock pins
    versions = dict.fromkeys(
        p.version
        for p in lock.packages
        if p.manager == "pip" and pep503(p.name) == forked[0] and sides.search(p.marker or "")
    )
    first = sets[0][0]
    choose = (
        f"--extra {first.split('[', 1)[1][:-1]}"
        if first.endswith("]")
        else f"--group {first.split(':', 1)[1]}"
    )
    raise UsageError(
        "the uv.lock declares extras or groups that cannot be installed together ("
        + "; ".join("{" + ", ".join(s) + "}" for s in sets)
        + f") and locks {len(forked)} name(s) at several versions ({forked[0]}: {', '.join(versions)}"
        + (f"; {', '.join(forked[1:4])}{', ...' if len(forked) > 4 else ''}" if len(forked) > 1 else "")
        + f"); {target} would install every side at once",
        hint=f"pick one side with uv, then convert that: uv export --frozen {choose} -o requirements.txt "
        "(or -o pylock.toml)",
    )


def _refuse_lock_file_markers(lock: Lock, target: str) -> None:
    """Raise UsageError when a pylock.toml's markers test `extras` or `dependency_groups` (PEP 751's
    lock-file markers) and `target` is a requirements file: pip evaluates no such variable there
    (packaging: "UndefinedEnvironmentName 'dependency_groups'"), so the file would not install."""
    if target != "requirements":
        return
    names = [
        p.name
        for p in lock.packages
        if p.manager == "pip" and re.search(r"\b(dependency_groups|extras)\b", p.marker or "")
    ]
    if names:
        raise UsageError(
            f"the lock installs {', '.join(names[:3])}{', ...' if len(names) > 3 else ''} "
            f"({len(names)} in all) "
            "under markers on `extras` or `dependency_groups`, which only a lock file (pylock.toml) can "
            "evaluate; requirements would not install",
            hint="convert to pylock, or export the groups wanted from the tool that wrote the lock",
        )


def _refuse_forks(lock: Lock, target: str) -> None:
    """Raise UsageError when `lock` installs one pip name at several versions under markers (a
    uv.lock forked by Python version) and `target` holds one entry per name or no markers: which
    version to write depends on the Python, which the lock does not fix."""
    if "markers" in HOLDS[target] and target != "cyclonedx":
        return
    seen: dict[tuple[str | None, str], set[str]] = {}
    for p in lock.packages:
        if p.manager == "pip" and p.marker:
            seen.setdefault((p.platform, p.name.lower()), set()).add(p.version)
    forked = sorted({name for (_, name), versions in seen.items() if len(versions) > 1})
    if forked and target != "cyclonedx":
        raise UsageError(
            f"the lock installs {', '.join(forked[:5])} at several versions, one per environment "
            f"marker (a resolution forked by Python version); {target} holds one version per name "
            "and no markers",
            hint="convert to requirements or pylock, which keep the markers",
        )


_ARCHIVES = (".whl", ".tar.gz", ".zip", ".tar.bz2")


def _gap_packages(lock: Lock, why: str) -> list[str]:
    """The packages of `lock` a known writer gap (a KNOWN_GAPS reason) concerns: never silent."""

    def label(p: LockedPackage) -> str:
        return f"{p.name}=={p.version}" if p.version else p.name

    pip = [p for p in lock.packages if p.manager == "pip"]
    local = [p for p in pip if (p.url or "").startswith("file:")]
    if why == _PATH_VERSION:  # a wheel or sdist file names its version: a directory does not
        return [label(p) for p in local if not (p.url or "").split("#")[0].endswith(_ARCHIVES)]
    if why == _LOCAL_DIR:
        return [
            label(p) for p in local if not p.editable and not (p.url or "").split("#")[0].endswith(_ARCHIVES)
        ]
    if why == _INDEX:
        return ["(the lock)"] if lock.pip_options else []
    if why == _PKG_INDEX:
        return [label(p) for p in pip if p.index]
    if why == _PATH_REF:
        return [label(p) for p in pip if p.url and "://" not in p.url]
    if why == _REQ_PATH:
        return [label(p) for p in pip if p.version and p.url and _source_tree(p)]
    if why == _UNNAMED:
        return [label(p) for p in pip if p.editable and not p.version]
    raise AssertionError(f"no packages known for the gap {why!r}")


def _feature_of(reason: str) -> str:
    for key, feature in (
        ("editable", "editable"),
        ("version", "pip-no-version"),
        ("hash", "hashes"),
        ("sha256", "hashes"),
    ):
        if key in reason:
            return feature
    return "urls"


def _merge(losses: list[Loss]) -> list[Loss]:
    """One Loss per feature (a writer's own report wins: it says why)."""
    out: dict[str, Loss] = {}
    for loss in losses:
        if loss.feature not in out or loss.detail:
            out[loss.feature] = loss
    return [out[f] for f in FEATURES if f in out]


def _same_pip(lock: Lock, target: str) -> bool:
    if target != "pylock" and target != "requirements":
        return False
    sets = {
        tuple((p.name, p.version, p.url) for p in lock.for_platform(pl) if p.manager == "pip")
        for pl in lock.platforms
    }
    return len(sets) == 1


def _spec_convert(spec: EnvSpec, target: str, source_format: str) -> Conversion:
    from envkit.formats import write_text

    if target == "requirements" and spec.conda:
        raise UsageError("an environment spec with conda dependencies cannot be written as requirements.txt")
    return Conversion(
        text=write_text(spec, target),
        source_format=source_format,
        target=target,
        platform=None,
        written_from=spec,
    )


def _write(lock: Lock, target: str, dropped: list) -> str:
    header = "generated by envkit convert"
    if "pip-no-version" not in HOLDS[target] and target not in ("pixi",):
        keep = []
        for p in lock.packages:
            if p.manager == "pip" and not p.version and not (target == "pylock" and _source_tree(p)):
                dropped.append((p.name, f"no version ({target} needs one for every package)"))
            else:
                keep.append(p)
        lock = replace(lock, packages=tuple(keep))
    if target not in ("pixi", "pixi-v7", "cyclonedx"):
        # a pixi source package (`conda: .`, `conda_source: ...`) is built from a path: only a
        # pixi.lock holds it
        keep = []
        for p in lock.packages:
            if p.manager == "conda" and p.url and not p.url.split("#")[0].endswith((".conda", ".tar.bz2")):
                label = f"{p.name}=={p.version}" if p.version else p.name
                dropped.append((label, f"a source package: no artifact URL (pixi builds it from {p.url})"))
            else:
                keep.append(p)
        lock = replace(lock, packages=tuple(keep))
    if target in ("pixi", "pixi-v7"):
        from envkit.formats.pixiwrite import write_pixi_lock

        return write_pixi_lock(lock, version=7 if target == "pixi-v7" else 6, dropped=dropped)
    if target == "pylock":
        from envkit.formats.pylock import write_pylock

        return write_pylock(lock, header=header, dropped=dropped)
    if target == "cyclonedx":
        from envkit.formats.cyclonedx import render_cyclonedx

        return render_cyclonedx(lock)
    if target == "requirements":
        from envkit.formats.requirements import write_requirements_lock

        return write_requirements_lock(lock, header=header)
    if target in ("conda-lock", "explicit"):
        # these writers refuse a package they cannot hold: leave it out and say so
        keep = []
        for p in lock.packages:
            if not p.url:
                dropped.append(
                    (f"{p.name}=={p.version}", "no artifact URL (the format lists artifacts by URL)")
                )
            elif target == "conda-lock" and p.manager == "conda" and not p.md5:
                # conda-lock's parser refuses a conda package without one ("hashes must use MD5")
                dropped.append(
                    (f"{p.name}=={p.version}", "no md5 hash (conda-lock.yml needs one per conda package)")
                )
            else:
                keep.append(p)
        lock = replace(lock, packages=tuple(keep))
    if target == "explicit":
        from envkit.formats.explicit import write_explicit

        return write_explicit(lock, lock.platforms[0] if len(lock.platforms) == 1 else None, header=header)
    from envkit.formats import write_text

    opts = {"header": header} if "header" in _write_options(target) else {}
    if target != "conda-lock" and len(lock.platforms) == 1:
        opts["platform"] = lock.platforms[0]
    return write_text(lock, target, **opts)


def _source_tree(p: LockedPackage) -> bool:
    """A pip package installed from a directory or a VCS checkout: PEP 751 writes it without a
    version (`[packages.directory]`, `[packages.vcs]`: "version ... MUST NOT be included when it
    cannot be guaranteed to be consistent with the code used")."""
    url = (p.url or "").split("#", 1)[0]
    if url.startswith(("git+", "hg+", "svn+", "bzr+")):
        return True
    return (
        bool(url)
        and not url.endswith((".whl", ".tar.gz", ".zip", ".tar.bz2"))
        and (p.editable or "://" not in url or url.startswith("file:"))
    )


def _write_options(target: str) -> tuple[str, ...]:
    from envkit.formats import WRITE_OPTIONS

    return WRITE_OPTIONS.get(target, ())


# -- the documented matrix ----------------------------------------------------------------------


def pair_losses(source: str, target: str) -> list[str]:
    """The FEATURES keys a `source` file may have that `target` cannot hold (the docs' matrix)."""
    return [
        f for f in FEATURES if f in CARRIES[source] and f not in HOLDS[target] and f not in _implied(target)
    ]


def loss_table_markdown() -> str:
    """The lossless / dropped table of docs/commands/convert.md: a row per reader, a column per
    target."""
    rows = ["| from \\ to | " + " | ".join(TARGETS) + " |", "|---|" + "---|" * len(TARGETS)]
    for src in CARRIES:
        cells = []
        for tgt in TARGETS:
            lost = pair_losses(src, tgt)
            cells.append("lossless" if not lost else "drops " + ", ".join(FEATURES[f] for f in lost))
        rows.append(f"| {src} | " + " | ".join(cells) + " |")
    notes = [
        f"- {src} to {tgt} also drops {FEATURES[f]}: {why}"
        for (src, tgt), gaps in KNOWN_GAPS.items()
        for f, why in gaps.items()
        if f != "pip-urls"
    ]
    if notes:
        rows += [
            "",
            "Known gaps (the tests find these; `convert` reports them as losses when a file has them):",
            "",
        ] + notes
    return "\n".join(rows) + "\n"
