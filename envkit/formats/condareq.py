"""conda's requirements format (CEP 23): one conda MatchSpec per line, read into an EnvSpec.

`conda export --format requirements` (conda 26) and `conda create --file spec.txt` use it:

    # platform: linux-64
    # created-by: conda 26.7.1
    # Note: This is a conda requirements file (MatchSpec format)
    main::bn==1.0=h0_7
    python=3.11
    libblas=3.9.0[build=*openblas]

It is not a pip requirements.txt: `python=3.11`, `bn==1.0=h0_7`, `main::bn` and `[build=...]` are
not PEP 508, and pip packages have no place in it.  No `@EXPLICIT` line (that is an explicit file).
Every line pinned to one build (`[channel::]name==version=build`, as conda exports an environment)
reads as kind "export", compared like a `conda env export`; anything looser as kind "spec".
"""

from __future__ import annotations

import re
from typing import Literal

from envkit.errors import Where
from envkit.formats.explicit import PLATFORM_LINE
from envkit.model import EnvSpec

#: conda's own header line (conda/plugins/environment_exporters/requirements_txt.py)
MARKER = "# Note: This is a conda requirements file"
# What only a conda MatchSpec line has, never a PEP 508 requirement: `channel::`, a single `=`
# after the name (`python=3.11`), a build after an `==` version (`bn==1.0=h0_7`; not pip's
# `===1.0`), a bare version after a space (`numpy 1.26.*`), a `key=value` bracket
# (`[build=*openblas]`; pip extras have no `=`).  The name is matched whole, never given back (a
# lookahead and its backreference: an atomic group), so a long line is read once, not once for each
# shorter name.
_CONDA_ONLY = re.compile(
    r"^(?:[^\s:#]+::|(?=([A-Za-z0-9_][A-Za-z0-9._+-]*))\1"
    r"(?:\s*=[^=]|\s*==[^=\s]+=|\s+[0-9*]|[^#\[]*\[[^\]]*=))"
)
# The shape of a conda MatchSpec line: optional `channel[/subdir]::`, a name, then a version,
# build or bracket part; no pip option (`-e`), URL requirement (`@ https://`) or marker (`;`).
_SPEC_LINE = re.compile(r"^(?:[^\s:#]+::)?[A-Za-z0-9_][A-Za-z0-9._+-]*(?:[\s=<>!~\[*][^;@#]*)?$")


def looks_conda(lines) -> bool:
    """True when content lines (stripped, no comments) are conda MatchSpecs, at least one of them
    in a form pip's requirements.txt cannot hold (so `numpy` alone stays a pip file)."""
    seen = False
    for c in lines:
        if not _SPEC_LINE.match(c):
            return False
        seen = seen or bool(_CONDA_ONLY.match(c))
    return seen


def _exact(d) -> bool:
    v, b = d.version or "", d.build or ""
    return (
        v.startswith("==")
        and not any(ch in v[2:] for ch in "*,|<>!~ ")
        and bool(b)
        and not any(ch in b for ch in "*?")
    )


def read_conda_requirements(text: str, filename: str | None = None) -> EnvSpec:
    """Parse a conda requirements file into an EnvSpec: its MatchSpecs in `conda` (each with its
    `channel::`), the `# platform:` line in `platforms`.

    Raises InvalidSpecError with file and line for a line that is not a MatchSpec."""
    from envkit.conda.matchspec import parse_spec
    from envkit.formats.requirements import refuse_nul
    from envkit.io import refuse_too_many_lines

    refuse_too_many_lines(text, filename, "a conda requirements file")
    refuse_nul(text, filename)
    conda = []
    platforms: list[str] = []
    for i, raw in enumerate(text.splitlines(), 1):
        s = raw.strip()
        if s.startswith("#"):
            m = PLATFORM_LINE.match(s)
            if m and not platforms:
                platforms.append(m.group("p"))
            continue
        s = s.split(" #", 1)[0].strip()  # conda's yield_lines drops a trailing comment
        if s:
            conda.append(parse_spec(s, where=Where(file=filename, line=i)))
    kind: Literal["spec", "export"] = "export" if conda and all(_exact(d) for d in conda) else "spec"
    # no channel list: the file has none (like an explicit file); each spec keeps its `channel::`
    return EnvSpec(conda=tuple(conda), platforms=tuple(platforms), kind=kind, source=filename)
