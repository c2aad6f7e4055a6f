"""Helpers shared by the format modules: conda package file names and URLs, header comments."""
from __future__ import annotations

import json
from functools import lru_cache

from envkit.errors import ParseError, Where

CONDA_EXTS = (".conda", ".tar.bz2")


def split_filename(fn: str) -> tuple[str, str, str] | None:
    """`numpy-1.26.4-py311h0_0.conda` -> ("numpy", "1.26.4", "py311h0_0"); None when not a conda
    package file name."""
    for ext in CONDA_EXTS:
        if fn.endswith(ext):
            stem = fn[: -len(ext)]
            break
    else:
        return None
    parts = stem.rsplit("-", 2)
    if len(parts) != 3 or not all(parts):
        return None
    return parts[0], parts[1], parts[2]


@lru_cache(maxsize=65536)
def url_parts(url: str) -> tuple[str | None, str | None, tuple[str, str, str] | None]:
    """A conda package URL -> (canonical channel name, subdir, (name, version, build))."""
    from envkit.conda.channels import channel_of_url

    base = url.split("#", 1)[0]
    fn = base.rstrip("/").rpartition("/")[2]
    nvb = split_filename(fn)
    try:
        channel, subdir = channel_of_url(base)
        chan = channel.name or None
    except Exception:  # an odd URL is not a reason to refuse a lock
        chan, subdir = None, None
    return chan, subdir, nvb


def build_number_of(build: str | None) -> int | None:
    """The build number a conda build string ends with (`py311h0_3` -> 3), or None."""
    if not build:
        return None
    tail = build.rpartition("_")[2]
    return int(tail) if tail.isdigit() else None


def comment_block(text: str) -> str:
    """A header string -> `# ...` lines (each line of `text` prefixed with `# ` unless it already is a
    comment), ending with a newline."""
    out = []
    for line in text.splitlines():
        if line.startswith("#"):
            out.append(line.rstrip())
        else:
            out.append(("# " + line).rstrip())
    return "\n".join(out) + "\n" if out else ""


def leading_comments(text: str) -> str | None:
    """The comment block a file starts with (its `#` lines before the first other line), or None."""
    out = []
    for line in text.splitlines():
        s = line.strip()
        if s.startswith("#"):
            out.append(s)
        elif s:
            break
        elif out:
            out.append("#")
    while out and out[-1] == "#":
        out.pop()
    return "\n".join(out) if out else None


def need_mapping(data, what: str, where: Where):
    if not isinstance(data, dict):
        raise ParseError(f"{what} must be a mapping, got {type_name(data)}", where=where)
    return data


def need_list(data, what: str, where: Where):
    if not isinstance(data, list):
        raise ParseError(f"{what} must be a list, got {type_name(data)}", where=where)
    return data


def type_name(value) -> str:
    if value is None:
        return "nothing"
    if isinstance(value, dict):
        return "a mapping"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, str):
        return f"text {value!r}"
    return f"{type(value).__name__} {value!r}"


def to_json(value) -> str:
    """Canonical JSON text of a YAML value (for keeping unknown keys in a model)."""
    return json.dumps(value, sort_keys=False, ensure_ascii=False, separators=(",", ":"), default=str)
