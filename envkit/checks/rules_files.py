"""Rules about what a file itself holds that breaks elsewhere: legacy channel URLs, a missing
`-r` file, values YAML reads as numbers."""

from __future__ import annotations

import os
import re
from collections.abc import Iterator

from envkit.checks.core import Context, Hit, Target, rule

_CONTINUUM = r"(?:https?://)?repo\.continuum\.io(?:/[^\s'\"#]*)?"


@rule(
    "legacy-url",
    order=27,
    severity="warning",
    summary="A `repo.continuum.io` channel or package URL (Anaconda's old name for repo.anaconda.com).",
    description="""
        `repo.continuum.io` is the host Anaconda's `defaults` channels had before they moved to
        `repo.anaconda.com` (2018).  It still redirects, but `free` and other old paths are frozen
        or gone, proxies and mirrors that allow repo.anaconda.com do not know it, and conda treats
        it as a different channel from `defaults` (so channel priority and `nodefaults` do not
        apply to it).  Reported in channel lists, in package and pip URLs, and in locks and
        explicit files.

        Fix: write the channel by name (`defaults`, `pkgs/main`), or use repo.anaconda.com.
        """,
    example="""
        channels:
          - https://repo.continuum.io/pkgs/main
        dependencies:
          - python=3.11
        """,
    example_fixed="""
        channels:
          - defaults
        dependencies:
          - python=3.11
        """,
    per_file=True,
)
def legacy_url(target: Target, ctx: Context) -> Iterator[Hit]:
    view = target.view
    if view is not None and not target.text:  # a live environment: its packages' URLs
        legacy = next((p for p in view.all_packages if p.url and "repo.continuum.io" in p.url), None)
        if legacy is not None and legacy.url:
            yield Hit(legacy.line, _legacy_message(legacy.url), ())
        return
    if not target.text or "repo.continuum.io" not in target.text:
        return
    found = [
        (n, re.search(_CONTINUUM, t))
        for n, t in enumerate(target.lines, 1)
        if "repo.continuum.io" in t and not t.lstrip().startswith("#")
    ]
    hits = [(n, mm.group(0)) for n, mm in found if mm]
    if not hits:
        return
    if view is not None and view.export is None and len(hits) > 1:  # a lock: its URLs repeat
        n, url = hits[0]
        yield Hit(n, f"{_legacy_message(url)} ({len(hits)} lines use it, the first here)", ())
        return
    for n, url in hits:
        yield Hit(n, _legacy_message(url), ())


def _legacy_message(url: str) -> str:
    return (
        f"{url} is on repo.continuum.io, the defaults channels' old host: use the channel name "
        f"(defaults, pkgs/main) or repo.anaconda.com"
    )


_REQ_OPTION = r"^(?:-r|--requirement|-c|--constraint)(?:\s*=\s*|\s+|(?<=-r)|(?<=-c))(?P<file>\S.*)$"


@rule(
    "missing-requirements-file",
    order=28,
    severity="error",
    summary="A pip `-r FILE` (or `-c FILE`) whose file is not there beside the environment file.",
    description="""
        conda runs the `pip:` section from the environment file's folder, and pip reads a
        requirements file's `-r`/`-c` relative to that file, so `-r requirements.txt` must sit
        beside it.  When it does not (the file was copied without it, or the path is wrong),
        `conda env create` fails after solving and installing every conda package.

        Paths with environment variables (`${HOME}`) and URLs are not checked; nor is standard
        input.
        """,
    example="""
        channels: [conda-forge, nodefaults]
        dependencies:
          - python=3.11
          - pip
          - pip:
            - -r requirements-that-do-not-exist.txt
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
)
def missing_requirements_file(target: Target, ctx: Context) -> Iterator[Hit]:
    from envkit.stdin import STDIN_LABEL

    spec = target.env_file
    if spec is None or target.path in ("-", STDIN_LABEL):
        return
    base = os.path.dirname(target.path) or "."
    for p in spec.pip:
        if p.kind != "option":
            continue
        m = re.match(_REQ_OPTION, (p.raw or p.text).strip())
        if m is None:
            continue
        name = m.group("file").split(" #", 1)[0].strip().strip("'\"")
        if not name or "$" in name or "://" in name:
            continue
        path = os.path.join(base, os.path.expanduser(name)) if not os.path.isabs(name) else name
        if not os.path.isfile(path):
            # pip reads a requirements file's -r relative to that file; conda runs the pip section
            # from the environment file's folder: the same folder either way
            how = "which names it" if spec.kind == "requirements" else "where conda runs pip"
            yield Hit(
                p.line,
                f"`{p.text}`: there is no file {name} relative to the folder of "
                f"{os.path.basename(target.path)}, {how}, so pip fails",
                (),
            )


# a plain scalar YAML may read as a number that does not print back as written: `3.10`, `010`, `1_0`
_NUMBER_QUICK = re.compile(
    r"(?<![\w.'\"=<>!~*/+-])[-+]?(?:\d[\d_]*\.[\d_]*0|0[0-7_]+|\d+_[\d_]*|\.\d+)"
    r"(?![\w.'\"-])"
)


def _number_classes() -> bytes:
    """A bytes.translate table for ASCII text: `d` a digit or `.`, `s` a sign, `w` a character
    the quick pattern's lookbehind refuses, `b` the other characters."""
    table = bytearray(b"b" * 256)
    for c in b"0123456789.":
        table[c] = ord("d")
    for c in b"+-":
        table[c] = ord("s")
    for c in b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz_'\"=<>!~*/":
        table[c] = ord("w")
    return bytes(table)


_NUMBER_CLASSES = _number_classes()


def _holds_number(text: str) -> bool:
    """Whether _NUMBER_QUICK matches in `text`.  In ASCII text its match starts after the text's
    start or a character its lookbehind accepts (`b`), with an optional sign, at a digit or `.`:
    the pattern is tried at those places only, found by bytes scans (C loops), not at every
    character with its lookbehind (a cost that grows with a multi-megabyte lock)."""
    if not text.isascii():  # Unicode digits and word characters: the pattern itself decides
        return _NUMBER_QUICK.search(text) is not None
    classes = b"b" + text.encode("ascii").translate(_NUMBER_CLASSES)
    match = _NUMBER_QUICK.match
    for start in (b"bd", b"bsd"):
        # classes[i] is the class of text[i - 1]: the number would start at text[i]
        i = classes.find(start)
        while i >= 0:
            if match(text, i):
                return True
            i = classes.find(start, i + 1)
    return False


@rule(
    "yaml-number",
    order=29,
    severity="error",
    summary="An unquoted `3.10` that YAML reads as the number 3.1 (a version, a name, a variable).",
    description="""
        YAML reads an unquoted `3.10` as the floating-point number 3.1, `1.20` as 1.2 and `010` as
        8, so what conda (and envkit) get is not what the file says: a lock's `version: 3.10` is
        Python 3.1, a variable `PYTHON_VERSION: 3.10` is set to `3.1`, an environment `name: 3.10`
        is called `3.1`.  Reported for every value whose number does not print back as written.

        Fix: quote it (`version: '3.10'`).
        """,
    example="""
        channels: [conda-forge, nodefaults]
        dependencies:
          - python=3.10
        variables:
          PYTHON_VERSION: 3.10
        """,
    example_fixed="""
        channels: [conda-forge, nodefaults]
        dependencies:
          - python=3.10
        variables:
          PYTHON_VERSION: '3.10'
        """,
    applies_to=("spec", "lock"),
    per_file=True,
)
def yaml_number(target: Target, ctx: Context) -> Iterator[Hit]:
    text = target.text
    if not text or not _holds_number(text) or not _is_yaml(target):
        return
    from envkit.errors import ParseError
    from envkit.formats._yaml import load

    numbers: list = []
    try:
        load(text, filename=target.path, numbers=numbers)
    except ParseError:
        return
    for line, written, value in numbers:
        key = target.line_text(line).split(":", 1)[0].strip(" -") if ":" in target.line_text(line) else ""
        what = f"`{key}: {written}`" if key and key != written else f"`{written}`"
        yield Hit(
            line,
            f"{what} is read by YAML as the number {value!r}, so it becomes '{value}', not "
            f"'{written}'; quote it: '{written}'",
            (),
        )


def _is_yaml(target: Target) -> bool:
    spec = target.env_file
    if spec is not None:
        return spec.kind != "requirements"
    view = target.view
    return view is not None and view.kind in ("conda-lock", "pixi")
