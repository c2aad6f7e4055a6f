"""Rules about what installs what: conda and pip on the same project, pins, the pip section."""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING

from envkit._text import plural
from envkit.checks._helpers import describe_conda_dep, describe_pip_dep, join_names, pinned_series
from envkit.checks.core import Context, Hit, Target, rule
from envkit.model import EnvSpec, LiveEnv, LockedPackage, Resolved

if TYPE_CHECKING:  # pragma: no cover
    from envkit.conda.names import Duplicate

#: (the duplicate, its conda package, its pip package)
_PackageDuplicate = tuple["Duplicate", LockedPackage, LockedPackage]

# --------------------------------------------------------------------------------------------
# conda-pip-duplicate


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
    from envkit.conda.names import find_duplicates, pep503, spec_pip_finds_it_installed

    dups = find_duplicates([d.name for d in spec.conda], [n for _, n in pip_deps], extra=ctx.pypi_names)
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
    from envkit.conda.names import pep503

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
    pkgs: Iterable[LockedPackage], ctx: Context, owned: dict[str, tuple[str, ...]] | None = None
) -> list[_PackageDuplicate]:
    """(Duplicate, conda package, pip package) for each project that both conda and pip install
    in one set of locked or installed packages; `owned` is a live prefix's conda name -> the PyPI
    names its dist-info folders say it installs."""
    from envkit.conda.names import find_duplicates, pep503

    pips = [p for p in pkgs if p.manager == "pip"]
    if not pips:
        return []
    conda = {p.name: p for p in pkgs if p.manager == "conda"}
    pip_by: dict[str, LockedPackage] = {}
    for p in pips:
        pip_by.setdefault(pep503(p.name), p)
    dups = find_duplicates(list(conda), [p.name for p in pips], extra=ctx.pypi_names, owned=owned)
    return [(d, conda[d.conda_name], pip_by[d.project]) for d in dups]


def _view_duplicates(view: Resolved, ctx: Context) -> Iterator[Hit]:
    """The duplicates of a lock (on each platform) or a live environment (by the dist-info its
    conda packages own; one that pip installed over is pip-overwrote-conda's to report)."""
    from envkit.conda.names import pip_finds_it_installed

    overwritten = {c for c, _ in _overwrites(view.live, ctx)} if view.live is not None else set()
    from envkit.lock.metadata import lock_over_conda

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


def _live_duplicates(env: LiveEnv, ctx: Context) -> list[_PackageDuplicate]:
    return _package_duplicates(env.packages, ctx, owned=dict(env.pypi_names))


# --------------------------------------------------------------------------------------------
# pip-overwrote-conda


def _overwrites(env: LiveEnv, ctx: Context) -> list[tuple[str, LockedPackage]]:
    """(conda name, pip package) where pip installed over the conda package: the conda record is
    still there but the `.dist-info` it owns is gone from the prefix."""
    from envkit.conda.names import pep503

    out = []
    # the live reader already knows (pip name, conda name) pairs where pip replaced conda's
    # dist-info, including a same-version reinstall whose dist-info name did not change
    over = {(pep503(pip), conda) for pip, conda in getattr(env, "pip_over_conda", ())}
    for d, conda_pkg, pip_pkg in _live_duplicates(env, ctx):
        if (pep503(pip_pkg.name), d.conda_name) in over or _conda_dist_info_missing(
            env.prefix, conda_pkg, env.warnings
        ):
            out.append((d.conda_name, pip_pkg))
    return out


def _conda_dist_info_missing(prefix: str, pkg: LockedPackage, warnings: tuple[str, ...]) -> bool:
    """Whether conda package `pkg` owns a `.dist-info`/`.egg-info` that no longer exists in
    `prefix` (read from its conda-meta record).  When the prefix is not on this machine, the live
    reader's warnings are consulted instead."""
    import json

    record = os.path.join(prefix, "conda-meta", f"{pkg.name}-{pkg.version}-{pkg.build}.json")
    try:
        with open(record, "rb") as fh:
            data = json.loads(fh.read().decode("utf-8"))
    except (OSError, ValueError):
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


# --------------------------------------------------------------------------------------------
# unpinned / fuzzy-pin


@rule(
    "unpinned",
    order=5,
    severity="warning",
    summary="In a file meant as a lock, a package without an exact version.",
    description="""
        An exported environment (`conda env export`, entries `name=version=build`) is meant
        to recreate the same environment.  An entry without a version in it - typically one added
        by hand afterwards - gets whatever is newest on the day the file is used, so two machines
        built from the same file differ.

        Applies to `conda env export` output: at least 5 conda entries `name=version=build` and
        at most one in ten anything else (the hand-added lines this rule is about), or
        `name=version` with a `prefix:` line (`--no-builds`).  Hand-written environment files,
        where loose constraints are intended, are not checked.

        Fix: pin it (`gdown==5.2.0` in the pip section, `name=version=build` in the conda list),
        or lock the environment with `envkit lock`.
        """,
    example="""
        name: analysis
        channels: [conda-forge, nodefaults]
        dependencies:
          - python=3.11.9=h0_0_cpython
          - numpy=1.26.4=py311h0_0
          - pip=24.0=pyhd8ed1ab_0
          - pip:
            - requests==2.32.3
            - gdown
        prefix: /opt/envs/analysis
        """,
    example_fixed="""
        name: analysis
        channels: [conda-forge, nodefaults]
        dependencies:
          - python=3.11.9=h0_0_cpython
          - numpy=1.26.4=py311h0_0
          - pip=24.0=pyhd8ed1ab_0
          - pip:
            - requests==2.32.3
            - gdown==5.2.0
        """,
    applies_to=("spec",),
)
def unpinned(target: Target, ctx: Context) -> Iterator[Hit]:
    # a file meant as a lock is a `conda env export` (with build strings or, with its `prefix:`
    # line, without): the resolved view's export.  A hand-written file never is, however tightly it
    # pins: there `python=3.11` is deliberate.
    spec = target.export
    if spec is None:
        return
    for d in spec.conda:
        if pinned_series(d) is None:
            what = f"'{d.version}'" if d.version else "no version"
            yield Hit(d.line, f"{d.name} has {what} in a file meant as a lock; pin one version", (d.name,))
    for p in spec.pip:
        if p.kind != "requirement" or not p.name:
            continue
        spec_text = (p.specifier or "").strip()
        if spec_text.startswith(("==", "===")) and "," not in spec_text and "*" not in spec_text:
            continue
        what = f"'{spec_text}'" if spec_text else "no version"
        yield Hit(
            p.line, f"pip package {p.name} has {what} in a file meant as a lock; pin it with ==", (p.name,)
        )


@rule(
    "fuzzy-pin",
    order=6,
    severity="info",
    summary="`name=1.2` in a file meant as a lock: conda reads it as 1.2.*, not exactly 1.2.",
    description="""
        In a conda match spec a single `=` is a prefix match: `numpy=1.26` means `1.26.*` and
        `openssl=1.1.1` also matches `1.1.1w`.  `conda env export --no-builds` writes every entry
        this way, so a file that looks exact is not.

        Applies to files meant as a lock (see `unpinned`); one finding lists every such entry, at
        the first one.  Hand-written environment files, where `python=3.11` is deliberate, are not
        checked.

        Fix: export with build strings, write `name==version`, or lock with `envkit lock`.
        """,
    example="""
        name: analysis
        channels: [conda-forge, nodefaults]
        dependencies:
          - python=3.11.9
          - openssl=1.1.1
          - numpy=1.26.4
        prefix: /opt/envs/analysis
        """,
    example_fixed="""
        name: analysis
        channels: [conda-forge, nodefaults]
        dependencies:
          - python==3.11.9
          - openssl==1.1.1w
          - numpy==1.26.4
        """,
    applies_to=("spec",),
)
def fuzzy_pin(target: Target, ctx: Context) -> Iterator[Hit]:
    # a file meant as a lock is a `conda env export` (with build strings or, with its `prefix:`
    # line, without): the resolved view's export.  A hand-written file never is, however tightly it
    # pins: there `python=3.11` is deliberate.
    spec = target.export
    if spec is None:
        return
    fuzzy = [
        d for d in spec.conda if d.version and d.version.endswith("*") and not d.build and pinned_series(d)
    ]
    if not fuzzy:
        return
    first = fuzzy[0]
    example = first.raw.strip() or first.spec()
    start = _prefix(first.version or "")
    yield Hit(
        first.line,
        f"{plural(len(fuzzy), 'conda entry', 'conda entries')} pin with a single '=' "
        f"({join_names(d.name for d in fuzzy)}); conda reads '{example}' as "
        f"{first.version}, which matches {start} and the versions that extend it "
        f"(such as {start}.1), not exactly {start}",
        tuple(d.name for d in fuzzy),
    )


def _prefix(version: str) -> str:
    """`3.11.9` of `3.11.9.*` (what a single-`=` pin starts with)."""
    return version[:-2] if version.endswith(".*") else version.rstrip("*")


# --------------------------------------------------------------------------------------------
# listed-twice

_SELECTOR_COMMENT = re.compile(r"#\s*\[[^\[\]]+\]\s*$")


@rule(
    "listed-twice",
    order=7,
    severity="warning",
    summary="A package listed twice in one section (`scikit-learn` and `scikit-learn==1.3.0`).",
    description="""
        conda and pip combine the two entries into one constraint, so the looser one says
        nothing; usually one was added later and the other forgotten, and whoever updates the pin
        edits one and not the other.  Entries with a platform selector (`# [linux]`, `# [win]`),
        pip entries with an environment marker, and pip entries that differ in their extras
        (`ray==1.1` and `ray[rllib]`) are alternatives or additions, not repeats.

        Fix: keep one entry with the constraint you mean.
        """,
    example="""
        name: analysis
        channels: [conda-forge, nodefaults]
        dependencies:
          - python=3.11
          - scikit-learn
          - numpy
          - scikit-learn==1.3.0
        """,
    example_fixed="""
        name: analysis
        channels: [conda-forge, nodefaults]
        dependencies:
          - python=3.11
          - numpy
          - scikit-learn==1.3.0
        """,
    applies_to=("spec",),
)
def listed_twice(target: Target, ctx: Context) -> Iterator[Hit]:
    spec = target.env_file
    if spec is None:
        return
    from envkit.checks._helpers import conda_names

    comments = "#" in (target.text or "")  # a selector is a comment: without `#`, no line is read

    def selected(line: int | None) -> bool:
        return comments and _SELECTOR_COMMENT.search(target.line_text(line)) is not None

    conda: dict[str, list] = {}  # entries are read only when a (lowercased) name repeats
    for d in spec.conda if len(conda_names(target, spec)[0]) < len(spec.conda) else ():
        if not selected(d.line):
            conda.setdefault(d.name, []).append(d)
    for name, deps in conda.items():
        if len(deps) > 1:
            yield Hit(
                deps[1].line, _twice(name, "conda", [d.raw.strip() or d.spec() for d in deps], deps), (name,)
            )
    pip: dict[tuple[str, tuple[str, ...]], list] = {}
    for p in spec.pip:
        if p.kind != "requirement" or not p.key or p.marker:
            continue
        if not selected(p.line):
            pip.setdefault((p.key, tuple(sorted(p.extras))), []).append(p)
    for (key, _), reqs in pip.items():
        if len(reqs) > 1:
            yield Hit(reqs[1].line, _twice(reqs[0].name or key, "pip", [r.text for r in reqs], reqs), (key,))


def _twice(name: str, section: str, texts: list[str], deps: list) -> str:
    where = ", ".join(f"'{t}' (line {d.line})" for t, d in zip(texts, deps, strict=True))
    return f"{name} is listed {len(deps)} times in the {section} section: {where}; keep one entry"


# --------------------------------------------------------------------------------------------
# vcs-unpinned


@rule(
    "vcs-unpinned",
    order=8,
    severity="warning",
    summary="A pip VCS requirement (`git+https://...`) without a commit or tag, or naming a file.",
    description="""
        `git+https://github.com/org/project` installs whatever the default branch holds on the
        day the environment is built, so two builds of the same file differ, and a force-push or
        a renamed branch breaks it.  `@<commit>` (or `@<tag>`) makes it reproducible.

        Fix: append the commit you tested, `git+https://github.com/org/project@1a2b3c4`
        (`git ls-remote URL HEAD` prints the current one).

        A `git+` URL that names a file (`git+https://github.com/org/project/releases/download/
        v1/pkg-1.0-py3-none-any.whl`) is an error: pip runs `git clone` on it, which fails.  The
        plain `https://` URL installs that file.
        """,
    example="""
        name: analysis
        channels: [conda-forge, nodefaults]
        dependencies:
          - python=3.11
          - pip
          - pip:
            - git+https://github.com/facebookincubator/submitit
        """,
    example_fixed="""
        name: analysis
        channels: [conda-forge, nodefaults]
        dependencies:
          - python=3.11
          - pip
          - pip:
            - git+https://github.com/facebookincubator/submitit@v1.5.1
        """,
    applies_to=("spec",),
)
def vcs_unpinned(target: Target, ctx: Context) -> Iterator[Hit]:
    spec = target.env_file
    if spec is None:
        return
    for p in spec.pip:
        if p.kind != "vcs" or not p.url:
            continue
        url = p.url.split("#", 1)[0]
        _, _, rest = url.partition("+")
        path = _url_path(rest or url)
        if path is None:
            continue
        if path.lower().endswith(_ARCHIVES):
            scheme = p.url.partition("+")[0]
            yield Hit(
                p.line,
                f"{p.url} is the download URL of a file, not a repository: pip runs `{scheme} clone` "
                f"on it and fails; drop the `{scheme}+` (pip installs the file at that URL)",
                tuple(n for n in (p.name,) if n),
                severity="error",
            )
            continue
        if "@" in path:
            continue
        yield Hit(
            p.line,
            f"{p.url} has no commit or tag (`@rev`): it installs whatever the default branch holds "
            "when the environment is built; pin the commit",
            tuple(n for n in (p.name,) if n),
        )


#: what a download URL ends with where a `git+` URL names a repository
_ARCHIVES = (".whl", ".tar.gz", ".tgz", ".tar.bz2", ".tar.xz", ".zip")


def _url_path(url: str) -> str | None:
    """urllib.parse.urlsplit(url).path, None where it raises (a bad IPv6 host); written out for
    the common shapes because urllib.parse (with ipaddress) is a start-up cost of every check."""
    if "[" in url or "]" in url or any(c in url for c in "\t\r\n") or url[:1] <= " ":
        from urllib.parse import urlsplit

        try:
            return urlsplit(url).path
        except ValueError:
            return None
    scheme, colon, rest = url.partition(":")
    if (
        colon
        and scheme[:1].isascii()
        and scheme[:1].isalpha()
        and all(c.isascii() and (c.isalnum() or c in "+-.") for c in scheme)
    ):
        url = rest
    if url[:2] == "//":
        cut = min((i for i in (url.find(c, 2) for c in "/?#") if i >= 0), default=len(url))
        url = url[cut:]
    return url.split("#", 1)[0].split("?", 1)[0]


# --------------------------------------------------------------------------------------------
# pip-without-pip


@rule(
    "pip-without-pip",
    order=22,
    severity="warning",
    summary="A pip section without `pip` among the conda dependencies.",
    description="""
        conda installs the `pip:` section with the environment's own pip.  When `pip` is not in
        the conda dependencies, conda warns, and depending on the Python package and the channel
        it may run a pip from outside the environment or fail.

        Fix: add `pip` to the conda dependencies (`--fix` inserts it just before the `- pip:`
        section).
        """,
    example="""
        channels: [conda-forge, nodefaults]
        dependencies:
          - python=3.11
          - pip:
            - requests==2.32.3
        """,
    example_fixed="""
        channels: [conda-forge, nodefaults]
        dependencies:
          - python=3.11
          - pip
          - pip:
            - requests==2.32.3
        """,
    applies_to=("spec",),
    fixable=True,
    fix_summary="inserts `- pip` before the `- pip:` section",
)
def pip_without_pip(target: Target, ctx: Context) -> Iterator[Hit]:
    spec = target.env_file
    if spec is None or not spec.has_pip_section or spec.kind == "requirements":
        return
    if any(d.name == "pip" for d in spec.conda):
        return
    line = spec.line_of("pip") or spec.line_of("dependencies")
    yield Hit(
        line,
        "the pip section is installed with pip, but pip is not among the conda dependencies; "
        + _add_pip(spec),
        ("pip",),
    )


def _add_pip(spec: EnvSpec) -> str:
    """What to add for pip-without-pip: `- pip`, or the version the pip section pins pip to (a conda
    `pip` of another version would be a conda+pip duplicate).  `--fix` inserts the entry named."""
    from envkit.conda.names import exact_pip_version

    own = next((p for p in spec.pip if p.key == "pip"), None)
    if own is None:
        return "add `- pip`"
    version = exact_pip_version(own.specifier)
    if version is None:
        return f"add `- pip` and drop `{own.text}` from the pip section (line {own.line})"
    return f"add `- pip=={version}` (the version the pip section pins)"
