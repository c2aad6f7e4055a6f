"""Rules about pins and the pip section: unpinned and fuzzy pins, a package listed twice, VCS
URLs without a commit, pip packages without pip."""

from __future__ import annotations

import re
from collections.abc import Iterator

from envkit._text import plural
from envkit.checks._helpers import conda_names, join_names, pinned_series, pip_pinned_version
from envkit.checks.core import Context, Hit, Target, rule
from envkit.model import EnvSpec


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
        if p.kind != "requirement" or not p.name or pip_pinned_version(p) is not None:
            continue
        spec_text = (p.specifier or "").strip()
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
    # a file meant as a lock: as in unpinned
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
    start = pinned_series(first)  # what the single-`=` pin starts with: `3.11.9` of `3.11.9.*`
    yield Hit(
        first.line,
        f"{plural(len(fuzzy), 'conda entry', 'conda entries')} pin with a single '=' "
        f"({join_names(d.name for d in fuzzy)}); conda reads '{example}' as "
        f"{first.version}, which matches {start} and the versions that extend it "
        f"(such as {start}.1), not exactly {start}",
        tuple(d.name for d in fuzzy),
    )


_SELECTOR_COMMENT = r"#\s*\[[^\[\]]+\]\s*$"


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
    comments = "#" in (target.text or "")  # a selector is a comment: without `#`, no line is read

    def selected(line: int | None) -> bool:
        return comments and re.search(_SELECTOR_COMMENT, target.line_text(line)) is not None

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


#: the most entries of one repeated name a finding quotes (a generated file may repeat one thousands of times)
_QUOTED = 5


def _twice(name: str, section: str, texts: list[str], deps: list) -> str:
    where = ", ".join(f"'{t}' (line {d.line})" for t, d in zip(texts[:_QUOTED], deps, strict=False))
    more = f" and {len(deps) - _QUOTED:,} more" if len(deps) > _QUOTED else ""
    return f"{name} is listed {len(deps):,} times in the {section} section: {where}{more}; keep one entry"


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
