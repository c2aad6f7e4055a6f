"""What `convert` refuses to write, each with the reason the target would install something else:
a uv.lock's conflicting sides together, a Python fork in a one-version target, lock-file markers
in a requirements file, platforms a conda lock cannot name."""

from __future__ import annotations

import re

from envkit.convert.features import HOLDS
from envkit.errors import UsageError
from envkit.model import Lock

_FILE_NAMES = {"pixi": "pixi.lock v6", "conda-lock": "conda-lock.yml"}


def refuse_unwritable(lock: Lock, target: str) -> None:
    """Raise UsageError when `target` cannot be written from `lock` so that it installs the same
    (each reason in its own function below)."""
    refuse_conflicts(lock, target)
    refuse_forks(lock, target)
    refuse_lock_file_markers(lock, target)
    refuse_platform_names(lock, target)


def refuse_platform_names(lock: Lock, target: str) -> None:
    """Raise UsageError when `target` (pixi.lock v6, conda-lock.yml) names platforms by conda subdir
    and `lock` has a platform of another name (pixi v7 names its own)."""
    if target not in ("pixi", "conda-lock"):
        return
    from envkit.conda.channels import KNOWN_SUBDIRS

    named = [pl for pl in lock.platforms if pl not in KNOWN_SUBDIRS]
    if named:
        raise UsageError(
            f"{_FILE_NAMES[target]} names platforms by conda subdir; {', '.join(named)} "
            f"{'is' if len(named) == 1 else 'are'} not one (a pixi v7 platform of its own name)",
            hint="convert to pixi-v7, which names platforms freely, or pick one with --platform "
            "for a one-platform format",
        )


def refuse_conflicts(lock: Lock, target: str) -> None:
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


def refuse_lock_file_markers(lock: Lock, target: str) -> None:
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


def refuse_forks(lock: Lock, target: str) -> None:
    """Raise UsageError when `lock` installs one pip name at several versions under markers (a
    uv.lock forked by Python version) and `target` holds one entry per name or no markers: which
    version to write depends on the Python, which the lock does not fix."""
    if "markers" in HOLDS[target] or target == "cyclonedx":  # an SBOM lists every version
        return
    seen: dict[tuple[str | None, str], set[str]] = {}
    for p in lock.packages:
        if p.manager == "pip" and p.marker:
            seen.setdefault((p.platform, p.name.lower()), set()).add(p.version)
    forked = sorted({name for (_, name), versions in seen.items() if len(versions) > 1})
    if forked:
        raise UsageError(
            f"the lock installs {', '.join(forked[:5])} at several versions, one per environment "
            f"marker (a resolution forked by Python version); {target} holds one version per name "
            "and no markers",
            hint="convert to requirements or pylock, which keep the markers",
        )
