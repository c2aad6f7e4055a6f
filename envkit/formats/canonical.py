"""Canonical form of environment files (pure functions; `envkit normalize` is the CLI side).

Canonical environment.yml: keys name, channels, dependencies, variables (then conda-lock's
`platforms:` and any other key, in file order); no `prefix:` (but for a --no-builds export that
only its `prefix:` line marks as one); channels by canonical name, in their
order (it is priority), duplicates dropped; conda dependencies in canonical match-spec form sorted by
name; the pip section's option lines first in their order, then entries sorted by PEP 503 name;
exact duplicates removed (not equal entries whose comments carry different conda-build
selectors, `# [linux]` / `# [win]`: conda-lock reads only a comment's last selector);
`variables:` in their order, a credential in a value replaced by a placeholder (`HF_TOKEN: <TOKEN>`,
`postgres://<USER>:<PASSWORD>@host/db`; see `envkit.urls.redact_variables`); other top-level keys
kept, credentials in their URLs redacted.
Comments stay next to the entry they were written above or beside, credentials in the URLs they
mention replaced by placeholders as well.
"""

from __future__ import annotations

import os
import re
from dataclasses import replace

from envkit.errors import UsageError
from envkit.formats import FORMATS, REGISTRY, detect_format, read_text, write_text
from envkit.formats._util import leading_comments, to_json
from envkit.formats.envyml import CommentMap
from envkit.model import CondaDep, EnvSpec, Lock, env_file, format_spec, looks_exported, resolved_view


def normalize(model: EnvSpec | Lock) -> EnvSpec | Lock:
    """The canonical form of `model`: `normalize_spec` for an EnvSpec, `normalize_lock` for a Lock.

    Raises TypeError for anything else (a LiveEnv has no canonical form: lock it first)."""
    spec = env_file(model)
    if spec is not None:  # an export too: its canonical form is still the file as written
        return normalize_spec(spec)
    view = resolved_view(model)
    if view is not None and view.lock is not None:
        return normalize_lock(view.lock)
    raise TypeError(f"normalize() takes an EnvSpec or a Lock, not {type(model).__name__}")


def normalize_spec(spec: EnvSpec, *, selectors: dict[int, str] | None = None) -> EnvSpec:
    """The canonical EnvSpec for `spec` (see the module docstring).  Idempotent.

    Variable values that hold a credential come back as placeholders: a file that is committed
    after normalizing must not carry the secret `envkit check` reports as leaked-secret.
    `selectors` (source line -> conda-build selector, see `text_selectors`) keeps equal entries
    under different selectors apart, as `normalize_text` does."""
    return _normalize_spec(spec, selectors)[0]


def _normalize_spec(
    spec: EnvSpec, selectors: dict[int, str] | None = None
) -> tuple[EnvSpec, list[tuple[int | None, int | None]]]:
    """`normalize_spec` plus the (kept line, removed duplicate line) pairs, for moving comments;
    an entry under a selector (`# [linux]`) is no duplicate of an equal one under another or none."""
    from envkit.urls import redact_variables

    merges: list[tuple[int | None, int | None]] = []
    sel = selectors or {}
    channels = tuple(dict.fromkeys(spec.channels))
    conda, repeated = _sorted_conda(spec.conda, sel)
    if repeated:  # (equal entries have equal names: without a repeated name there is no duplicate)
        conda = _dedupe(conda, merges, sel)
    options = _dedupe([p for p in spec.pip if p.kind == "option"], merges, sel)
    named = sorted((p for p in spec.pip if p.kind != "option" and p.key), key=lambda p: (p.key, p.text))
    unnamed = sorted((p for p in spec.pip if p.kind != "option" and not p.key), key=lambda p: p.text)
    pip = tuple(options) + tuple(_dedupe(named + unnamed, merges, sel))
    # A normalized export is still an export, resolved for diff, convert and check alike.  A
    # --no-builds export (`name=version` entries) that only its `prefix:` line marks as one (not
    # conda's sorted order with its `ca-certificates`; a hand-written `numpy=1.26` is a loose spec)
    # keeps that line, or the file would read back as a loose spec.  Every other file loses it.
    prefix = spec.prefix if spec.kind == "export" and not looks_exported(conda, has_prefix=False) else None
    # keys stay as written (comments are attached to `variable:<KEY>`); only secret values change
    variables = redact_variables(spec.variables)
    extra = tuple((k, _redact_json(v)) for k, v in spec.extra)
    return replace(
        spec,
        prefix=prefix,
        channels=channels,
        conda=tuple(conda),
        pip=pip,
        variables=variables,
        extra=extra,
    ), merges


def _sorted_conda(conda: tuple[CondaDep, ...], selectors: dict[int, str]) -> tuple[list[CondaDep], bool]:
    """`conda` sorted by name, and entries of one name by their canonical text; entries of one name
    under selectors keep their file order (which of them applies on a platform is the selectors'
    business, and a reader that ignores selectors takes the last one).  Sorted by name first: the
    text of an entry is only needed where a name is repeated.  With whether one is."""
    from operator import attrgetter

    by_name = sorted(conda, key=attrgetter("name"))
    if len({d.name for d in by_name}) == len(by_name):
        return by_name, False
    from itertools import groupby

    selected = {d.name for d in conda if d.line in selectors}
    out: list[CondaDep] = []
    for name, group in groupby(by_name, key=attrgetter("name")):
        run = list(group)
        if len(run) > 1 and name not in selected:
            run.sort(key=format_spec)
        out += run
    return out, True


def _redact_json(text: str) -> str:
    """The canonical JSON text of another top-level key's value with `redact_comment` applied to
    every string in it (a mirror URL with a password in a key envkit does not know)."""
    if "://" not in text:
        return text
    import json

    def walk(v):
        if isinstance(v, str):
            return redact_comment(v)
        if isinstance(v, list):
            return [walk(x) for x in v]
        if isinstance(v, dict):
            return {k: walk(x) for k, x in v.items()}
        return v

    return to_json(walk(json.loads(text)))


def _dedupe(items: list, merges: list, selectors: dict[int, str]) -> list:
    out: list = []
    first: dict = {}
    for it in items:
        key = (it, selectors.get(it.line))
        if key in first:
            merges.append((first[key].line, it.line))
            continue
        first[key] = it
        out.append(it)
    return out


_SELECTOR = re.compile(r"\[([^\[\]]+)\]")


def comment_selector(comment: str | None) -> str | None:
    """The conda-build selector an end-of-line comment carries (`# [linux]` -> "linux"), or None.

    Like conda-lock's selector pattern, the LAST `[...]` of the comment is the one that counts."""
    if not comment:
        return None
    found = _SELECTOR.findall(comment)
    return " ".join(found[-1].split()) if found else None


def _selectors(cm: CommentMap) -> dict[int, str]:
    return {line: s for line, c in cm.inline.items() if (s := comment_selector(c)) is not None}


def text_selectors(text: str, fmt: str = "env") -> dict[int, str]:
    """Source line -> the selector its end-of-line comment carries, for an environment.yml
    (`fmt="env"`) or requirements file (`fmt="requirements"`)."""
    return _selectors(yaml_comments(text) if fmt == "env" else requirements_comments(text))


def normalize_lock(lock: Lock) -> Lock:
    """`lock` with packages in canonical order (platform in lock order, conda first, name)."""
    from envkit.formats.condalock import sort_lock

    return sort_lock(lock)


# --------------------------------------------------------------------------------------------
# Text


def normalize_text(
    text: str, *, filename: str | os.PathLike[str] | None = None, format: str | None = None
) -> str:
    """`text` rewritten in canonical form, in the same format, with the user's comments kept.

    Works for environment.yml (spec or export), requirements.txt, conda-lock.yml, explicit files
    and `conda list` outputs.  Raises UsageError for pixi.lock (pixi owns that file) and the readers'
    ParseError family for bad input.
    """
    if text.startswith("\ufeff"):
        text = text[1:]
    fmt = format or detect_format(text, filename)
    _refuse_owned(fmt)  # before reading: a pixi.lock is refused whatever it holds
    model = read_text(text, filename=filename, format=fmt)
    return render_normalized(model, text, fmt)


def _refuse_owned(fmt: str) -> None:
    """Raise the refusal to rewrite a file another tool owns (pixi.lock, uv.lock), from the registry."""
    for f in REGISTRY:
        if f.name == fmt and f.owner:
            file = f.file_names[0] if f.file_names else fmt  # the owner's own name for its file
            raise UsageError(
                f"envkit reads {file} but does not rewrite it ({f.owner} owns that file)",
                hint=f"`envkit validate {file}` checks it; "
                + (f"`{f.owner} add` edits it" if f.spec else f"`{f.owner} lock` rewrites it"),
            )


def render_normalized(model, text: str, fmt: str) -> str:
    """The canonical text of `model`, read from `text` (format `fmt`), with `text`'s comments.
    Every credential in it is a placeholder (package URLs of a lock or an explicit file included):
    a normalized file passes leaked-secret.  Raises UsageError for pixi.lock (pixi owns that file)
    and an unknown format."""
    from envkit.secrets import redact_text

    return redact_text(_render(model, text, fmt))


#: the formats `_render` writes through write_text with a header: format -> the header lines the
#: writer puts back from the model (None: a format without a header)
_REWRITTEN = {
    "conda-lock": (),
    "explicit": ("platform:", "input_hash:"),
    "conda-list-export": ("platform:",),
    "conda-list-json": None,
}


def _render(model, text: str, fmt: str) -> str:
    if fmt in ("env", "requirements"):
        cm = redact_comments(yaml_comments(text) if fmt == "env" else requirements_comments(text))
        spec, merges = _normalize_spec(model, _selectors(cm))
        for into, src in merges:
            cm.merge(into, src)
        return write_text(spec, fmt, comments=cm)
    if fmt in _REWRITTEN:
        keys = _REWRITTEN[fmt]
        return write_text(model, fmt) if keys is None else write_text(model, fmt, header=_header(text, *keys))
    if fmt == "pylock":
        import json

        from envkit.formats.pylock import write_pylock

        created_by = json.loads(dict(model.metadata).get("created-by", '"envkit"'))
        return write_pylock(model, header=_header(text) or "", created_by=created_by)
    _refuse_owned(fmt)
    if fmt == "conda-requirements":
        raise UsageError(
            "envkit reads conda's requirements format (MatchSpec lines) but does not rewrite it",
            hint="`envkit diff` compares it; `conda create --file` installs it",
        )
    # (every other format envkit reads is rewritten or owned above)
    raise UsageError(f"unknown format {fmt!r}; choose one of: {', '.join(FORMATS)}")


def redact_comment(text: str) -> str:
    """`text` (comment lines) with every credential in a URL replaced by its placeholder, found as
    `envkit check`'s leaked-secret rule finds them (so a normalized file passes that rule): a
    `user:password@`, a token user part, an anaconda.org `/t/<token>/`, a `?token=` parameter."""
    if "://" not in text:
        return text  # no URL, nothing to find (and envkit.secrets is not imported)
    from envkit.secrets import redact_text

    return redact_text(text)


def redact_comments(cm: CommentMap) -> CommentMap:
    """`cm` with `redact_comment` applied to every comment it holds (in place; returned)."""
    cm.header[:] = [redact_comment(c) for c in cm.header]
    cm.footer[:] = [redact_comment(c) for c in cm.footer]
    for table in (cm.leading, cm.trailing):
        for line, comments in table.items():
            table[line] = [redact_comment(c) for c in comments]
    for line, comment in cm.inline.items():
        cm.inline[line] = redact_comment(comment)
    return cm


def _header(text: str, *keys: str) -> str | None:
    """The comment block `text` starts with, credentials redacted, less its lines that start with
    one of `keys` (what the writer puts back from the model)."""
    head = leading_comments(text)
    if head is None:
        return None
    if not keys:
        return redact_comment(head)
    kept = [ln for ln in head.splitlines() if not ln.lstrip("# ").startswith(keys)]
    while kept and kept[-1] == "#":
        kept.pop()
    return redact_comment("\n".join(kept) if kept else "")


def yaml_comments(text: str) -> CommentMap:
    """The comments of a YAML file, attached to the line of the entry they belong to.

    A whole-line comment belongs to the next entry below it, unless it is indented deeper than that
    entry: then it is the tail of the block above (`trailing` of the previous entry).  Comments before
    the first entry are the header (blank lines between them kept); comments after the last entry at
    column 0 are the footer.
    """
    cm = CommentMap()
    if "#" not in text:
        return cm  # no comment anywhere (and no line to walk through)
    pending: list[tuple[int, str]] = []  # (indent, comment)
    prev = 0  # the line of the last entry (0: none yet)
    block_indent: int | None = None  # inside a block scalar (| or >): lines deeper than this are text
    header_blank = False
    for i, physical in enumerate(text.splitlines(), 1):
        line = physical.rstrip("\r")
        stripped = line.strip()
        indent = len(line) - len(line.lstrip())
        if block_indent is not None:
            if not stripped or indent > block_indent:
                continue
            block_indent = None
        if not stripped:
            if not prev and cm.header:
                header_blank = True
            continue
        if stripped.startswith("#"):
            if not prev:
                if header_blank:
                    cm.header.append("")
                    header_blank = False
                cm.header.append(stripped)
            else:
                pending.append((indent, stripped))
            continue
        header_blank = False
        content, comment = split_inline_comment(line)
        if pending:
            rest = _close_block(cm, pending, prev, indent)
            if rest:
                cm.leading.setdefault(i, []).extend(rest)
            pending = []
        if comment:
            cm.inline[i] = comment
        if content.rstrip().endswith(("|", ">", "|-", ">-", "|+", ">+")):
            block_indent = indent
        prev = i
    # the tail of the file: deeper comments close the last block, the rest is the footer
    cm.footer.extend(_close_block(cm, pending, prev, 0))
    return cm


def _close_block(cm: CommentMap, pending: list[tuple[int, str]], prev: int, indent: int) -> list[str]:
    """Give entry `prev` the pending comments indented deeper than `indent` (the tail of its block);
    the others, which belong below."""
    k = 0
    while k < len(pending) and pending[k][0] > indent:
        k += 1
    if k:
        cm.trailing.setdefault(prev, []).extend(c for _, c in pending[:k])
    return [c for _, c in pending[k:]]


def split_inline_comment(line: str) -> tuple[str, str | None]:
    """Split a YAML line into its content and its end-of-line comment (`# ...`, or None).

    Quotes are honoured where YAML honours them: at the start of a value."""
    if "#" not in line:  # most lines: no scan
        return line.rstrip(), None
    n = len(line)
    i = 0
    expect_value = True
    while i < n:
        c = line[i]
        if c in " \t":
            i += 1
            continue
        if expect_value and c in "\"'":
            i = _end_quote(line, i) + 1
            expect_value = False
            continue
        if c == "#" and (i == 0 or line[i - 1] in " \t"):
            return line[:i].rstrip(), line[i:].rstrip()
        if c == "-" and expect_value and (i + 1 == n or line[i + 1] in " \t"):
            i += 1
            continue
        if c == ":" and (i + 1 == n or line[i + 1] in " \t"):
            expect_value = True
            i += 1
            continue
        expect_value = False
        i += 1
    return line.rstrip(), None


def _end_quote(line: str, start: int) -> int:
    q = line[start]
    i = start + 1
    n = len(line)
    while i < n:
        c = line[i]
        if q == '"' and c == "\\":
            i += 2
            continue
        if c == q:
            if q == "'" and i + 1 < n and line[i + 1] == "'":
                i += 2
                continue
            return i
        i += 1
    return n


def requirements_comments(text: str) -> CommentMap:
    """The comments of a requirements file, attached to the entry below (or beside) them."""
    from envkit.formats.requirements import logical_lines

    cm = CommentMap()
    pending: list[str] = []
    seen_entry = False
    for line, content, comment in logical_lines(text):
        if not content:
            if comment:
                (pending if seen_entry else cm.header).append(comment)
            continue
        if pending:
            cm.leading.setdefault(line, []).extend(pending)
            pending = []
        if comment:
            cm.inline[line] = comment
        seen_entry = True
    cm.footer.extend(pending)
    return cm


__all__ = [
    "normalize",
    "normalize_spec",
    "normalize_lock",
    "normalize_text",
    "yaml_comments",
    "requirements_comments",
    "split_inline_comment",
    "redact_comment",
    "redact_comments",
    "comment_selector",
    "text_selectors",
]
