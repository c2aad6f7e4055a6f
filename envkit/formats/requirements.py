"""requirements.txt (the pip side): read into EnvSpec(kind="requirements"), write back.

Follows pip's line rules: `#` starts a comment at the start of a line or after whitespace, a
trailing backslash joins the next line, blank lines are ignored.  Every entry (requirement, URL,
path, `-e`, option line) is kept in order as a PipDep.
"""

from __future__ import annotations

import re

from envkit.errors import ParseError, UsageError, Where
from envkit.model import EnvSpec, Lock, LockedPackage

_COMMENT = re.compile(r"(^|\s+)#.*$")


def logical_lines(text: str) -> list[tuple[int, str, str | None]]:
    """(first line number, content without comment, the comment or None) for each logical line
    (continuations joined); lines with only a comment have empty content."""
    out: list[tuple[int, str, str | None]] = []
    buf: list[str] = []
    start = 0
    for i, physical in enumerate(text.splitlines(), 1):
        line = physical.rstrip("\r")
        if not buf:
            start = i
        m = _COMMENT.search(line)
        comment = None
        if m:
            comment = m.group(0).strip()
            line = line[: m.start()]
        if line.endswith("\\") and comment is None:
            # pip strips every trailing backslash of a continued line (`x\\` is `x` continued)
            buf.append(line.rstrip("\\"))
            continue
        buf.append(line)
        out.append((start, " ".join(b.strip() for b in buf).strip(), comment))
        buf = []
    if buf:
        out.append((start, " ".join(b.strip() for b in buf).strip(), None))
    return out


def refuse_nul(text: str, filename: str | None) -> None:
    """Raise ParseError at the first NUL character: a text file never holds one (pip would stop
    at it), and writing it back would hand the next tool a binary file."""
    i = text.find("\x00")
    if i >= 0:
        raise ParseError(
            "a NUL character (U+0000) is not text",
            where=Where(file=filename, line=text.count("\n", 0, i) + 1),
            hint="the file is binary or corrupt: save it again as UTF-8 text",
        )


def read_requirements(text: str, filename: str | None = None) -> EnvSpec:
    """Parse a requirements file into EnvSpec(kind="requirements") with every entry in `pip`.

    Raises InvalidSpecError with file and line for a malformed requirement."""
    from envkit.formats.pipreq import parse_pip_entry
    from envkit.io import refuse_too_many_lines

    refuse_too_many_lines(text, filename, "a requirements file")
    refuse_nul(text, filename)
    pip = []
    for line, content, _comment in logical_lines(text):
        if content:
            pip.append(parse_pip_entry(content, Where(file=filename, line=line)))
    return EnvSpec(kind="requirements", pip=tuple(pip), has_pip_section=True, source=filename)


def write_requirements(spec: EnvSpec, *, header: str | None = None, comments=None) -> str:
    """The requirements.txt text of `spec.pip`, one entry per line in model order.

    `comments` (an envyml.CommentMap keyed by source line) puts the user's comments back."""
    from envkit.formats.envyml import LineWriter

    w = LineWriter(comments, header)
    for p in spec.pip:
        w.emit("", p.text, p.line)
    out = w.lines()
    return "\n".join(out) + "\n" if out else ""


# -- hashes: a requirements file as a lock ------------------------------------------------------

#: a requirement's `--hash=sha256:hex` option
_SHA256 = re.compile(r"--hash[= ](?i:sha256):(?P<hex>[0-9A-Fa-f]+)")


def requirements_to_lock(spec: EnvSpec) -> Lock:
    """A pinned requirements file (`name==version`, with `--hash` where given: what `pip-compile
    --generate-hashes` and `uv pip compile --generate-hashes` write) as a pip-only Lock(kind=
    "requirements"), each package's first sha256 its `sha256`.  URL, VCS and path entries keep their
    URL; editable ones are marked.  Raises UsageError naming the line of an entry that is not pinned
    to one version (such a file is a spec, not a lock)."""
    pkgs = []
    options = []
    for d in spec.pip:
        if d.kind == "option":
            options.append(d.text)
            continue
        sha = next((m.group("hex").lower() for m in _SHA256.finditer(d.text)), None)
        version = ""
        if d.kind == "requirement":
            m = re.fullmatch(r"===?\s*([^,\s]+)", d.specifier or "")
            if not m or "*" in m.group(1):
                where = f"{spec.source or '<requirements>'}:{d.line}: " if d.line else ""
                raise UsageError(
                    f"{where}{d.text.split(' --')[0]!r} is not pinned to one version; a requirements "
                    f"file converts to a lock only when every entry is `name==version`",
                    hint="pin it (`uv pip compile --generate-hashes`), or lock it with `envkit lock`",
                )
            version = m.group(1)
        url = d.url
        if d.kind == "path" and url is None:  # `-e ./dir`, `./dir`: the path is where it comes from
            url = d.text.split(None, 1)[1] if d.text.startswith("-e ") else d.text
            url = url.split(" ;", 1)[0].split(";", 1)[0].strip()
        pkgs.append(
            LockedPackage(
                manager="pip",
                name=d.name or d.url or d.text,
                version=version,
                # `-e .#egg=name` installs `.`: the fragment only names the project
                url=re.sub(r"#egg=[A-Za-z0-9._-]+$", "", url) if d.editable and url else url,
                sha256=sha,
                editable=d.editable,
                marker=d.marker,
                line=d.line,
            )
        )
    return Lock(
        kind="requirements",
        platforms=(),
        packages=tuple(pkgs),
        pip_options=tuple(options),
        source=spec.source,
    )


def write_requirements_lock(lock: Lock, platform: str | None = None, *, header: str | None = None) -> str:
    """A pinned requirements file of the pip packages of `lock` (of `platform`): `name==version` with
    a `--hash=sha256:...` per known artifact (pip's hash-checking mode), `name @ URL` for a package
    installed from a URL without a version, `-e PATH` for editable ones; markers kept; the lock's pip
    options (index URLs) first."""
    from envkit.formats._util import comment_block, pip_packages_for

    pkgs = pip_packages_for(lock, platform)
    out = comment_block(header).splitlines() if header else []
    out += list(lock.pip_options)
    for p in sorted(pkgs, key=lambda p: (p.name.lower(), p.version)):
        marker = f" ; {p.marker}" if p.marker else ""
        if p.editable and p.url:
            # `#egg=` names a path install (`-e .` says nothing of the project) for pip and uv
            egg = f"#egg={p.name}" if "egg=" not in p.url and p.name and p.name != p.url else ""
            out.append(f"-e {p.url}{egg}{marker}")
            continue
        if not p.version and p.url:
            out.append(f"{p.name} @ {p.url}{marker}")
            continue
        hashes = [h for h in dict.fromkeys([p.sha256] + [s for _, s in p.other_files]) if h]
        line = f"{p.name}=={p.version}{marker}"
        if lock.kind == "uv-lock" and not p.index and p.url and "://" in p.url:
            # a uv.lock package from a URL (`source = { url = ... }`) is on no index: name the URL,
            # as `uv export` does
            line = f"{p.name} @ {p.url}{marker}"
        out.append(line + "".join(f" \\\n    --hash=sha256:{h}" for h in hashes))
    return "\n".join(out) + "\n" if out else ""
