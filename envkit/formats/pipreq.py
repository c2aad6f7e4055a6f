"""One pip entry (a line of a requirements file or of an environment.yml `pip:` section) -> PipDep.

Shared by `envyml` and `requirements`.  PEP 508 parsing is `packaging`'s; on top of it this module
knows what pip accepts in a requirements file besides PEP 508: option lines (`-r`, `--index-url`,
`-f`, `--pre`, ...), editable installs (`-e`), VCS URLs (`git+https://...#egg=name`), bare archive
URLs, local paths, and per-requirement options after the requirement (`pkg --no-binary x`).

Old pins that PEP 440 no longer accepts (`torch-scatter==latest+cu101`, accepted by pip < 24) are kept
as raw text with their name, never dropped and never a crash; an entry that is not even that
(`numpy>=1.2,,<2`) is an InvalidSpecError naming the file and line.
"""

from __future__ import annotations

import re
from dataclasses import replace
from typing import TYPE_CHECKING

from envkit.errors import InvalidSpecError, Where
from envkit.model import PipDep
from envkit.urls import EGG_FRAGMENT, SCHEME_PREFIX, VCS_PREFIXES, redact_url

if TYPE_CHECKING:  # pragma: no cover
    from typing import Literal

# `name` or `name OP version` with a plain release number: what packaging's Requirement makes of
# it is this text without spaces, so the common pin needs no import of packaging (a start-up cost)
_SIMPLE = re.compile(
    r"(?P<name>[A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?)(?:\s*(?P<op>==|!=|>=|<=|>|<)\s*(?P<v>[0-9]+(?:\.[0-9]+)*))?"
)
# pip < 24 accepted any version text after an operator (LegacyVersion); such a pin is kept as text.
# The version must start with a letter or digit (`latest+cu101`, `1.0-beta`): `numpy>=>1` or
# `numpy==<2` is a typo, not an old version.
_LEGACY = (
    r"^(?P<name>[A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?)\s*(?:\[[A-Za-z0-9._,\s-]*\])?\s*"
    r"(?:(?:===|==|!=|<=|>=|~=|<|>)\s*[A-Za-z0-9][^,;\s]*)"
    r"(?:\s*,\s*(?:===|==|!=|<=|>=|~=|<|>)\s*[A-Za-z0-9][^,;\s]*)*"
    r"\s*(?:;.*)?$"
)
_WHEEL = r"(?:^|/)(?P<name>[A-Za-z0-9][A-Za-z0-9._]*)-[^/-]+(?:-[^/-]+)?-[^/-]+-[^/-]+-[^/-]+\.whl(?:$|[#?])"
_SDIST = (
    r"(?:^|/)(?P<name>[A-Za-z0-9][A-Za-z0-9._-]*?)-(?P<version>\d[^/-]*)"
    r"\.(?:tar\.gz|zip|tar\.bz2|tgz)(?:$|[#?])"
)
_DRIVE = re.compile(r"^[A-Za-z]:[\\/]")
# pip options that take an argument (pip/_internal/req/req_file.py)
_NEEDS_VALUE = frozenset(
    {
        "-e",
        "--editable",
        "-r",
        "--requirement",
        "-c",
        "--constraint",
        "-i",
        "--index-url",
        "--extra-index-url",
        "-f",
        "--find-links",
        "--trusted-host",
        "--no-binary",
        "--only-binary",
        "--hash",
        "--config-settings",
        "--global-option",
    }
)


def parse_pip_entry(text: str, where: Where | None = None) -> PipDep:
    """Parse one pip entry as written (no comment, no line continuation) into a PipDep.

    Raises InvalidSpecError (with `where` and the text) for an empty or malformed entry.
    """
    raw = text
    s = " ".join(str(text).split())
    line = where.line if where else None
    if not s:
        raise InvalidSpecError("empty pip requirement", where=where, text=raw)
    editable = False
    if s.startswith(("-e ", "--editable ", "--editable=", "-e=")):
        editable = True
        s = s.split("=", 1)[1].strip() if s.startswith(("--editable=", "-e=")) else s.split(" ", 1)[1]
        # pip splits an option's value as a shell does: `-e ".[dev]"` is the path `.[dev]`
        if len(s) > 1 and s[0] == s[-1] and s[0] in "'\"":
            s = s[1:-1].strip()
        if not s:
            raise InvalidSpecError("-e needs a path or URL", where=where, text=raw)
    elif s.startswith("-"):
        if " " not in s and "=" not in s and s in _NEEDS_VALUE:
            # pip refuses these alone ("-r option requires 1 argument"): say so here, with the line
            raise InvalidSpecError(f"pip option {s} needs a value", where=where, text=raw)
        return PipDep(kind="option", text=redact_url(s)[0], raw=raw, line=line)
    # per-requirement options after the requirement (`pkg --hash=sha256:...`, `pkg --no-binary x`)
    tokens = s.split(" ")
    # pip cuts at the first `-` token even after a marker (`x==1 ; python_version >= "3.8" --hash=...`,
    # what pip-compile writes); a marker's own `-1` is kept, a `--option` is not
    cut = next(
        (
            i
            for i, t in enumerate(tokens)
            if i
            and t.startswith("-")
            and len(t) > 1
            and (t.startswith("--") or not any(";" in x for x in tokens[:i]))
        ),
        len(tokens),
    )
    head, opts = " ".join(tokens[:cut]), " ".join(tokens[cut:])
    if "--hash" in opts:
        _check_hashes(tokens[cut:], where, raw)
    dep = _parse_target(head, where, raw)
    text_out = dep.text
    if opts:
        text_out = f"{text_out} {redact_url(opts)[0]}"
    if editable:
        text_out = f"-e {text_out}"
    return replace(dep, text=text_out, editable=editable, raw=raw, line=line)


def _check_hashes(tokens: list[str], where: Where | None, raw: str) -> None:
    """InvalidSpecError for a `--hash` that pip could not verify (`envkit.formats._digest`):
    `create` refuses such a lock, so reading one is refused alike."""
    from envkit.formats._digest import pip_hash_problem

    for i, t in enumerate(tokens):
        value = t[len("--hash=") :] if t.startswith("--hash=") else None
        if t == "--hash":
            value = tokens[i + 1] if i + 1 < len(tokens) else ""
        problem = value is not None and pip_hash_problem(value)
        if problem:
            raise InvalidSpecError(problem, where=where, text=raw)


def _name_from_url(url: str) -> str | None:
    m = EGG_FRAGMENT.search(url) or re.search(_WHEEL, url) or re.search(_SDIST, url)
    return m.group("name") if m else None


def _parse_target(s: str, where: Where | None, raw: str) -> PipDep:
    vcs = s.lower().startswith(VCS_PREFIXES)
    if vcs or SCHEME_PREFIX.match(s):
        url = redact_url(s)[0]
        return PipDep(kind="vcs" if vcs else "url", text=url, name=_name_from_url(s), url=url)
    if (
        s.startswith((".", "/", "~", "\\"))
        or _DRIVE.match(s)
        or ("/" in s and " @ " not in s and "@" not in s.split("/")[0])
    ):
        return PipDep(kind="path", text=s, name=_name_from_url(s), url=None)
    simple = _SIMPLE.fullmatch(s)
    if simple:
        name, op, version = simple.group("name", "op", "v")
        spec = f"{op}{version}" if op else ""
        return PipDep(kind="requirement", text=name + spec, name=name, specifier=spec)
    from packaging.requirements import InvalidRequirement, Requirement

    try:
        req = Requirement(s)
    except InvalidRequirement as exc:
        legacy = re.match(_LEGACY, s)
        if legacy:
            return PipDep(kind="requirement", text=s, name=legacy.group("name"))
        first = str(exc).splitlines()[0]
        raise InvalidSpecError(f"invalid pip requirement {s!r}: {first}", where=where) from None
    extras = tuple(sorted(req.extras))
    marker = str(req.marker) if req.marker is not None else None
    if req.url:
        url = redact_url(req.url)[0]
        text = f"{req.name}{'[' + ','.join(extras) + ']' if extras else ''} @ {url}"
        if marker:
            text = f"{text} ; {marker}"
        kind: Literal["vcs", "url"] = "vcs" if url.lower().startswith(VCS_PREFIXES) else "url"
        return PipDep(kind=kind, text=text, name=req.name, extras=extras, marker=marker, url=url)
    return PipDep(
        kind="requirement",
        text=str(req),
        name=req.name,
        specifier=str(req.specifier),
        extras=extras,
        marker=marker,
    )


def pip_version_satisfies(specifiers, version: str) -> bool:
    """Whether an installed pip `version` satisfies `specifiers` (a packaging SpecifierSet), pre-
    releases included.  A version PEP 440 cannot read satisfies only `==` / `===` with exactly its
    text: it cannot be ordered, only named."""
    from packaging.version import InvalidVersion, Version

    try:
        parsed = Version(version)
    except InvalidVersion:
        return any(s.operator in ("==", "===") and s.version == version for s in specifiers)
    return specifiers.contains(parsed, prereleases=True)
