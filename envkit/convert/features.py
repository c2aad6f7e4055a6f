"""What a conversion can lose: the features a format can carry and hold (FEATURES, HOLDS,
CARRIES, the registry's facts), the writers' known gaps, and the documented loss matrix of
docs/commands/convert.md (`loss_table_markdown`, checked by tests/convert/test_convert.py)."""

from __future__ import annotations

from dataclasses import dataclass

from envkit.formats.registry import REGISTRY as _REGISTRY
from envkit.model import Lock, LockedPackage

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

#: the formats `convert` writes (file names tell most of them: envkit.formats.registry.format_of_name),
#: in the order of the docs' table
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
#: in the docs' table and reported by `convert` for the packages they concern (`gap_packages`)
_PATH_VERSION = "the version of a pip path install (`# pip NAME @ file:///dir` has none)"
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


def implied(target: str) -> set[str]:
    return {f for m, fs in _OF_MANAGER.items() if m not in HOLDS[target] for f in fs}


#: targets that hold one platform (several need --platform); targets whose entries need a platform
SINGLE_PLATFORM = ("env", "requirements", "explicit", "pylock", "conda-list-json", "conda-list-export")
NEEDS_PLATFORM = ("conda-lock", "pixi", "pixi-v7", "explicit", "env", "conda-list-json", "conda-list-export")


@dataclass(frozen=True, slots=True, kw_only=True)
class Loss:
    """Something the target format could not hold: `feature` (a FEATURES key), how many packages it
    concerned (0: the lock as a whole), and up to a few of them by name.  envkit.ops.convert keeps
    those that install the same (and what its read-back finds) as notes."""

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


def features_of(lock: Lock) -> dict[str, list[str]]:
    """feature -> the packages (name==version) that have it ([] for lock-wide features)."""
    out: dict[str, list[str]] = {}

    def add(f: str, p=None) -> None:
        out.setdefault(f, [])
        if p is not None:
            out[f].append(p.pin())

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


_ARCHIVES = (".whl", ".tar.gz", ".zip", ".tar.bz2")


def gap_packages(lock: Lock, why: str) -> list[str]:
    """The packages of `lock` a known writer gap (a KNOWN_GAPS reason) concerns: never silent."""

    pip = [p for p in lock.packages if p.manager == "pip"]
    local = [p for p in pip if (p.url or "").startswith("file:")]
    if why == _PATH_VERSION:  # a wheel or sdist file names its version: a directory does not
        return [p.pin() for p in local if not (p.url or "").split("#")[0].endswith(_ARCHIVES)]
    if why == _INDEX:
        return ["(the lock)"] if lock.pip_options else []
    if why == _PKG_INDEX:
        return [p.pin() for p in pip if p.index]
    if why == _PATH_REF:
        return [p.pin() for p in pip if p.url and "://" not in p.url]
    if why == _REQ_PATH:
        return [p.pin() for p in pip if p.version and p.url and source_tree(p)]
    if why == _UNNAMED:
        return [p.pin() for p in pip if p.editable and not p.version]
    raise AssertionError(f"no packages known for the gap {why!r}")


def feature_of(reason: str) -> str:
    for key, feature in (
        ("editable", "editable"),
        ("version", "pip-no-version"),
        ("hash", "hashes"),
        ("sha256", "hashes"),
    ):
        if key in reason:
            return feature
    return "urls"


def source_tree(p: LockedPackage) -> bool:
    """A pip package installed from a directory or a VCS checkout: PEP 751 writes it without a
    version (`[packages.directory]`, `[packages.vcs]`: "version ... MUST NOT be included when it
    cannot be guaranteed to be consistent with the code used")."""
    url = (p.url or "").split("#", 1)[0]
    if url.startswith(("git+", "hg+", "svn+", "bzr+")):
        return True
    return (
        bool(url)
        and not url.endswith(_ARCHIVES)
        and (p.editable or "://" not in url or url.startswith("file:"))
    )


def losses_of(
    lock: Lock, target: str, dropped: list[tuple[str, str]], source_format: str, *, left_out: bool
) -> tuple[Loss, ...]:
    """What writing `lock` as `target` lost: the features it has that the target cannot hold (the
    platforms not, when some were `left_out` on purpose), what the writer `dropped` (name, why),
    and the known gaps of (`source_format`, `target`) that concern its packages."""
    have = features_of(lock)
    losses = [
        Loss(feature=f, count=len(pk), packages=tuple(dict.fromkeys(pk))[:5])
        if pk or f != "channels"
        else Loss(feature=f, count=len(lock.channels), packages=tuple(c.name for c in lock.channels[:5]))
        for f, pk in have.items()
        if f not in HOLDS[target] and f not in implied(target) and not (f == "platforms" and left_out)
    ]
    pip_names = {p.pin() for p in lock.packages if p.manager == "pip"}
    for reason in dict.fromkeys(r for _, r in dropped):
        names = [n for n, r in dropped if r == reason]
        for manager in ("conda", "pip"):  # a writer's report names packages, not managers
            mine = [n for n in names if (n.split(" (", 1)[0] in pip_names) == (manager == "pip")]
            if mine:
                feature = f"{manager}-no-url" if "URL" in reason else feature_of(reason)
                losses.append(Loss(feature=feature, count=len(mine), packages=tuple(mine[:5]), detail=reason))
    for feature, why in KNOWN_GAPS.get((source_format, target), {}).items():
        hit = gap_packages(lock, why)
        if hit:
            losses.append(Loss(feature=feature, count=len(hit), packages=tuple(hit[:5]), detail=why))
    return tuple(merge_losses(losses))


def merge_losses(losses: list[Loss]) -> list[Loss]:
    """One Loss per feature (a writer's own report wins: it says why)."""
    out: dict[str, Loss] = {}
    for loss in losses:
        if loss.feature not in out or loss.detail:
            out[loss.feature] = loss
    return [out[f] for f in FEATURES if f in out]


# -- the documented matrix ----------------------------------------------------------------------


def pair_losses(source: str, target: str) -> list[str]:
    """The FEATURES keys a `source` file may have that `target` cannot hold (the docs' matrix)."""
    return [
        f for f in FEATURES if f in CARRIES[source] and f not in HOLDS[target] and f not in implied(target)
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
