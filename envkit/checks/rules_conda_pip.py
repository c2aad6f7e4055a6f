"""Rules about conda and pip installing the same project: duplicates, and pip overwriting conda."""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING

from envkit.checks._helpers import describe_conda_dep, describe_pip_dep
from envkit.checks.core import Context, Hit, Target, rule
from envkit.errors import ParseError
from envkit.model import EnvSpec, LiveEnv, LockedPackage, Resolved, pep503

if TYPE_CHECKING:  # pragma: no cover
    from envkit.conda.names import Duplicate

#: (the duplicate, its conda package, its pip package)
_PackageDuplicate = tuple["Duplicate", LockedPackage, LockedPackage]


@rule(
    "conda-pip-duplicate",
    order=1,
    severity="error",
    summary="The same project is requested or installed by both conda and pip.",
    description="""
        conda and pip keep separate records. When both install the same project (conda `numpy`
        and pip `numpy`, conda `pytorch` and pip `torch`, conda `pyyaml` and pip `PyYAML`), pip's
        copy overwrites or shadows conda's files, the conda solver cannot see the pip version, and
        the next `conda install` or `conda update` may silently break the environment.

        Names are matched through a conda-to-PyPI name map (conda-forge's mapping plus the names
        that differ in ML stacks: `pytorch`/`torch`, `py-opencv`/`opencv-python`, ...) with PEP 503
        normalization on the PyPI side; project entries can be added with `pypi-names` in the
        configuration.  In a live environment the map comes from the prefix itself: the
        `.dist-info` folders each conda package owns.  In a lock, each platform is checked.

        Fix: keep one of them - usually drop the pip entry and let conda install the project, or
        move the project to the pip section entirely.
        """,
    example="""
        channels: [conda-forge, nodefaults]
        dependencies:
          - python=3.11
          - numpy>=1.24
          - pip
          - pip:
            - numpy==1.26.4
        """,
    example_fixed="""
        channels: [conda-forge, nodefaults]
        dependencies:
          - python=3.11
          - numpy=1.26.4
          - pip
        """,
)
def conda_pip_duplicate(target: Target, ctx: Context) -> Iterator[Hit]:
    # an environment file (an export too) is judged by its entries, where the finding points and
    # as every other command's conda+pip warning judges it (envkit.commands._common.duplicates_of)
    spec = target.env_file
    if spec is not None:
        yield from _spec_duplicates(spec, ctx)
    elif target.view is not None:
        yield from _view_duplicates(target.view, ctx)


#: conda packages whose conda-forge and pytorch-channel recipes depend on conda's `pytorch`
#: (https://github.com/conda-forge/pytorch-lightning-feedstock, torchvision-feedstock,
#: torchaudio-feedstock, torchmetrics-feedstock, timm-feedstock): a spec listing one of them with
#: a pip `torch` gets torch twice, although it names `pytorch` nowhere.
_NEEDS_CONDA_PYTORCH = ("pytorch-lightning", "lightning", "torchvision", "torchaudio", "torchmetrics", "timm")


def _spec_duplicates(spec: EnvSpec, ctx: Context) -> Iterator[Hit]:
    pip_deps = [(p, p.name) for p in spec.pip if p.name]
    if not pip_deps or not spec.conda:
        return
    from envkit.conda.names import find_duplicates, spec_pip_finds_it_installed

    dups = find_duplicates(
        [d.name for d in spec.conda], [n for _, n in pip_deps], extra=ctx.config.pypi_names
    )
    if not any(d.project == "torch" for d in dups):
        yield from _transitive_torch(spec, pip_deps)
    if not dups:
        return
    conda_by = spec.conda_by_name()
    dups = [d for d in dups if not spec_pip_finds_it_installed(d, spec)]
    by_project: dict[str, list[str]] = {}
    for d in dups:
        by_project.setdefault(d.project, []).append(d.conda_name)
    seen: set[tuple[str, int | None]] = set()
    for p, pip_name in pip_deps:
        project = pep503(pip_name)
        for conda_name in by_project.get(project, ()):
            key = (conda_name, p.line)
            if key in seen:
                continue
            seen.add(key)
            c = conda_by[conda_name]
            yield Hit(
                p.line or c.line,
                f"{project} is installed by conda ({describe_conda_dep(c, project)}) and pip "
                f"({describe_pip_dep(p)})",
                (conda_name, pip_name),
            )


def _transitive_torch(spec: EnvSpec, pip_deps) -> Iterator[Hit]:
    """A pip `torch` beside a conda package that pulls in conda's `pytorch`."""
    torch = next((p for p, name in pip_deps if pep503(name) == "torch"), None)
    if torch is None or any(d.name == "pytorch" for d in spec.conda):
        return
    via = next((d for d in spec.conda if d.name in _NEEDS_CONDA_PYTORCH), None)
    if via is None:
        return
    yield Hit(
        torch.line or via.line,
        f"torch is installed by conda (pytorch, which conda's {via.name} at line {via.line} depends on) "
        f"and pip ({describe_pip_dep(torch)}): pip's torch replaces conda's files; install "
        f"{via.name} with pip too, or torch with conda",
        (via.name, torch.name or "torch"),
    )


def _pkg_desc(pkg: LockedPackage, project: str) -> str:
    return pkg.version if pkg.name == project else f"{pkg.name} {pkg.version}"


def _package_duplicates(
    pkgs: Iterable[LockedPackage], ctx: Context, owned: dict[str, tuple[str, ...]] | None
) -> list[_PackageDuplicate]:
    """(Duplicate, conda package, pip package) for each project that both conda and pip install
    in one set of locked or installed packages; `owned` is a live prefix's conda name -> the PyPI
    names its dist-info folders say it installs."""
    from envkit.conda.names import find_duplicates

    pips = [p for p in pkgs if p.manager == "pip"]
    if not pips:
        return []
    conda = {p.name: p for p in pkgs if p.manager == "conda"}
    pip_by: dict[str, LockedPackage] = {}
    for p in pips:
        pip_by.setdefault(pep503(p.name), p)
    dups = find_duplicates(list(conda), [p.name for p in pips], extra=ctx.config.pypi_names, owned=owned)
    return [(d, conda[d.conda_name], pip_by[d.project]) for d in dups]


def _view_duplicates(view: Resolved, ctx: Context) -> Iterator[Hit]:
    """The duplicates of a lock (on each platform) or a live environment (by the dist-info its
    conda packages own; one that pip installed over is pip-overwrote-conda's to report)."""
    from envkit.conda.names import pip_finds_it_installed
    from envkit.lock.metadata import lock_over_conda

    overwritten = {c for c, _ in _overwrites(view.live, ctx)} if view.live is not None else set()
    # what a lock records as installed over conda's files, `envkit create` installs so again
    forced = frozenset(lock_over_conda(view.lock)) if view.lock is not None else frozenset()
    found: dict[tuple[str, str], list] = {}
    for platform, pkgs in view.by_platform().items():
        for d, conda_pkg, pip_pkg in _package_duplicates(pkgs, ctx, owned=view.owned):
            if d.conda_name in overwritten:
                continue
            # installing the lock, pip finds conda's copy of that very version and installs nothing
            if (
                view.live is None
                and d.project not in forced
                and pip_finds_it_installed(d, conda_pkg.version, pip_pkg.version)
            ):
                continue
            entry = found.setdefault((d.conda_name, d.project), [conda_pkg, pip_pkg, []])
            entry[2].append(platform)
    for (conda_name, project), (c, p, platforms) in found.items():
        # a live environment is one platform, and says so nowhere in its findings
        named = [x for x in platforms if x] if view.lock is not None else []
        where = f" on {', '.join(named)}" if named else ""
        yield Hit(
            p.line or c.line,
            f"{project} is installed by conda ({_pkg_desc(c, project)}) and pip ({p.version}){where}",
            (conda_name, p.name),
        )


def _overwrites(env: LiveEnv, ctx: Context) -> list[tuple[str, LockedPackage]]:
    """(conda name, pip package) where pip installed over the conda package: the conda record is
    still there but the `.dist-info` it owns is gone from the prefix."""
    out = []
    # the live reader already knows (pip name, conda name) pairs where pip replaced conda's
    # dist-info, including a same-version reinstall whose dist-info name did not change
    over = {(pep503(pip), conda) for pip, conda in env.pip_over_conda}
    for d, conda_pkg, pip_pkg in _package_duplicates(env.packages, ctx, owned=dict(env.pypi_names)):
        if (pep503(pip_pkg.name), d.conda_name) in over or _conda_dist_info_missing(
            env.prefix, conda_pkg, env.warnings
        ):
            out.append((d.conda_name, pip_pkg))
    return out


def _conda_dist_info_missing(prefix: str, pkg: LockedPackage, warnings: tuple[str, ...]) -> bool:
    """Whether conda package `pkg` owns a `.dist-info`/`.egg-info` that no longer exists in
    `prefix` (read from its conda-meta record).  When the prefix is not on this machine, the live
    reader's warnings are consulted instead."""
    from envkit.formats._json import load_json  # here: only a live prefix has records to read

    record = os.path.join(prefix, "conda-meta", f"{pkg.name}-{pkg.version}-{pkg.build}.json")
    try:
        with open(record, "rb") as fh:
            data = load_json(fh.read().decode("utf-8"), record)
    except (OSError, ValueError, ParseError):
        needle = f"'{pkg.name}'"
        return any(needle in w and "overwrote" in w for w in warnings)
    dists = set()
    for f in data.get("files") or ():
        for marker in (".dist-info/", ".egg-info"):
            i = f.find(marker)
            if i >= 0:
                dists.add(f[: i + len(marker.rstrip("/"))])
    return any(not os.path.exists(os.path.join(prefix, d)) for d in dists)


@rule(
    "pip-overwrote-conda",
    order=2,
    severity="error",
    summary="In a live environment, pip installed over the files of a conda package.",
    description="""
        `pip install -U numpy` in a conda environment uninstalls conda's numpy files (conda's
        `.dist-info` included) and installs its own, but conda's record of the package stays in
        `conda-meta/`.  conda now believes a version is installed that is not; `conda list`,
        `conda env export` and every solve are wrong, and removing or updating the package with
        conda deletes pip's files.

        Detected in a live environment (`-n NAME` / `-p PREFIX`): a conda package owns a
        `.dist-info` that is gone, or that pip has rewritten in place (a same-version
        `pip install --force-reinstall`: its `INSTALLER` now says pip), and pip has installed the
        same project.

        Fix: `pip uninstall` the project, then `conda install --force-reinstall` the conda
        package (or remove it with conda and keep pip's).
        """,
    example="""
        $ conda create -p ./env python=3.11 numpy=1.26.4
        $ ./env/bin/pip install -U numpy==2.0.0
        $ envkit check -p ./env
        ./env: error pip-overwrote-conda: pip installed numpy 2.0.0 over conda's numpy 1.26.4 ...
        """,
    example_fixed="""
        $ ./env/bin/pip uninstall -y numpy
        $ conda install -p ./env --force-reinstall numpy=1.26.4
        """,
    applies_to=("live",),
    example_kind="text",
)
def pip_overwrote_conda(target: Target, ctx: Context) -> Iterator[Hit]:
    env = target.view.live if target.view is not None else None
    if env is None:
        return
    conda = {p.name: p for p in env.conda_packages()}
    for conda_name, pip_pkg in _overwrites(env, ctx):
        c = conda[conda_name]
        yield Hit(
            None,
            f"pip installed {pip_pkg.name} {pip_pkg.version} over conda's {c.name} "
            f"{c.version}: conda's files are gone but its record remains in conda-meta; "
            f"repair: {_repair(env.prefix, c, pip_pkg.name)}",
            (conda_name, pip_pkg.name),
        )


def _repair(prefix: str, conda_pkg: LockedPackage, pip_name: str) -> str:
    """The two commands that give the prefix back conda's files for its record (pip's copy out,
    conda's exact build reinstalled), ready to paste."""
    import shlex

    py = os.path.join(prefix, "python.exe" if os.name == "nt" else os.path.join("bin", "python"))
    spec = f"{conda_pkg.name}={conda_pkg.version}={conda_pkg.build}"
    q = shlex.quote
    # the channel by -c, not `channel::spec`: conda refuses a spec channel when none is configured
    where = f" --override-channels -c {q(conda_pkg.channel)}" if conda_pkg.channel else ""
    return (
        f"`{q(py)} -m pip uninstall -y {q(pip_name)}`, then "
        f"`conda install -p {q(prefix)} --force-reinstall --no-deps{where} {q(spec)}`"
    )
