"""environment.yml: hand-written specs and `conda env export` output (read and write).

Reading keeps everything the file says: name, channels (canonical, credentials removed), conda match
specs (parsed with conda's semantics), the pip section (PEP 508 and pip option lines), variables,
`prefix:`, conda-lock's `platforms:` and any other top-level key (`EnvSpec.extra`).  Positions go into
`EnvSpec.lines` (top-level keys by name, channels as `channel:<name>`, variables as `variable:<KEY>`,
platforms as `platform:<name>`, the `- pip:` item as `pip`) so that errors and comment-preserving
rewrites can point back at the file.

Writing emits the model in canonical key order (name, channels, dependencies, variables, platforms,
other keys, prefix) without reordering any list: sorting is `envkit.normalize`'s job.  A
`CommentMap` passed to `write_env` puts the user's comments back next to the entries they were
attached to.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from envkit.errors import InvalidSpecError, NotAnEnvironmentFile, ParseError, Where, raise_collected
from envkit.formats._util import block_yaml, comment_block, need_list, need_mapping, to_json, type_name
from envkit.formats._util import yscalar as scalar
from envkit.model import REDACTED, Channel, CondaDep, EnvSpec, PipDep, format_spec
from envkit.model import looks_exported as _looks_exported

if TYPE_CHECKING:
    from typing import Literal

    from envkit.formats._yamlcore import YamlMap

KNOWN_KEYS = ("name", "channels", "dependencies", "variables", "prefix", "platforms")


def read_env(text: str, filename: str | None = None, *, errors: list | None = None) -> EnvSpec:
    """Parse an environment.yml (hand-written or exported) into an EnvSpec.

    A malformed match spec or pip entry does not stop the reading: every one is collected (and the
    entry left out), then raised together (ParseErrors) at the end; with `errors` given they are
    appended there instead and the spec of what parsed is returned (`check` runs its rules on it).
    `kind` is "export" for a `conda env export` (`envkit.model.looks_exported`), else "spec".
    Raises ParseError / InvalidSpecError with file and line for anything unusable.
    """
    from envkit.formats._fastyaml import load_yaml
    from envkit.io import refuse_too_many_lines

    refuse_too_many_lines(text, filename, "an environment file")
    bad: list[InvalidSpecError] = [] if errors is None else errors
    data = load_yaml(text, filename=filename)
    if data is None:
        raise ParseError(
            "empty environment file",
            where=Where(file=filename, line=1),
            hint="an environment.yml needs at least a `dependencies:` list",
        )
    need_mapping(data, "an environment file", Where(file=filename, line=1))
    r = _EnvReader(data, filename)
    r.refuse_misspelled_keys()
    name = r.name()
    channels = r.channels()
    conda, pip, has_pip = r.dependencies(bad)
    variables = r.variables()
    prefix = r.prefix()
    platforms = r.platforms()
    if errors is None:
        raise_collected(bad)
    extra = tuple((str(k), to_json(v)) for k, v in data.items() if k not in KNOWN_KEYS)
    kind: Literal["spec", "export"] = (
        "export" if _looks_exported(conda, has_prefix=prefix is not None) else "spec"
    )
    return EnvSpec(
        name=name,
        channels=tuple(channels),
        conda=tuple(conda),
        pip=tuple(pip),
        variables=tuple(variables),
        prefix=prefix,
        platforms=tuple(platforms),
        kind=kind,
        has_pip_section=has_pip,
        source=filename,
        lines=tuple(r.lines.items()),
        extra=extra,
    )


def refuse_other_yaml(text: str, filename: str | None) -> None:
    """Raise NotAnEnvironmentFile when `text`, a file format detection took for an environment
    file, is some other YAML file (a `.pre-commit-config.yaml`, a GitHub workflow): no `channels:`
    or `dependencies:`, and top-level keys an environment file does not have.  Read as one, such a
    file would be an empty environment in every command.  A file the reader refuses anyway (not
    YAML, a duplicate or misspelt key) is left to it: its error says more."""
    from envkit._text import first_of

    text = text.removeprefix("\ufeff")
    try:
        spec = read_env(text, filename, errors=[])
    except ParseError:
        return
    keys = [k for k, _ in spec.lines if ":" not in k]
    if "channels" in keys or "dependencies" in keys:
        return
    other = [(k, ln) for k, ln in spec.lines if ":" not in k and k not in KNOWN_KEYS]
    if not other:
        return
    lines = text.splitlines()

    def written(key: str, line: int) -> str:
        # YAML 1.1 reads a workflow's `on:` as the boolean True: show the key as written
        raw = lines[line - 1] if 0 < line <= len(lines) else ""
        return raw.split(":", 1)[0].strip().strip("'\"") or key

    names = first_of([written(k, ln) for k, ln in other], 5)
    raise NotAnEnvironmentFile(
        f"not an environment file: no channels: or dependencies:, and top-level keys an "
        f"environment file does not have ({names})",
        where=Where(file=filename, line=other[0][1]),
        hint="envkit reads environment.yml, conda-lock.yml, pixi.lock, explicit "
        "files, requirements files and `conda list` output",
    )


class _EnvReader:
    """The top-level keys of one environment file, read one by one (in the order their errors are
    raised), with the position of each entry recorded for `EnvSpec.lines`."""

    def __init__(self, data: YamlMap, filename: str | None) -> None:
        self.data = data
        self.filename = filename
        self.lines: dict[str, int] = {}
        for k in data:
            self.mark(str(k), data.line_of(k))

    def mark(self, key: str, line: int | None) -> None:
        """Record the first line of `key` (a later duplicate keeps the first position)."""
        if line:
            self.lines.setdefault(key, line)

    def where(self, line: int | None, key: str) -> Where:
        return Where(file=self.filename, line=line, key=None if line else key)

    def at(self, key: str) -> Where:
        """Where the top-level `key` is."""
        return self.where(self.data.line_of(key), key)

    def items(self, key: str) -> list[tuple[int, object, int | None]]:
        """(index, entry, line) of each entry of the top-level list `key` ([] when it is absent)."""
        raw = self.data.get(key)
        if raw is None:
            return []
        need_list(raw, f"`{key}:`", self.at(key))
        return [(i, item, raw.line_of(i)) for i, item in enumerate(raw)]

    def refuse_misspelled_keys(self) -> None:
        """Other top-level keys are kept (`description:`), but one that is nearly a known key
        (`dependences:`, `chanels:`) is a typo whose entries conda would ignore without a word."""
        for k in self.data:
            key = str(k)
            if key in KNOWN_KEYS:
                continue
            import difflib  # only for a file with another key: most have none

            close = difflib.get_close_matches(key, KNOWN_KEYS, n=1, cutoff=0.8)
            if close:
                raise ParseError(
                    f"unknown top-level key `{key}:`",
                    where=self.at(key),
                    hint=f"did you mean `{close[0]}:`?",
                )

    def name(self) -> str | None:
        name = self.data.get("name")
        if name is not None and not isinstance(name, (str, int, float)):
            raise ParseError(f"`name:` must be text, got {type_name(name)}", where=self.at("name"))
        return None if name is None else str(name).strip() or None

    def channels(self) -> list[Channel]:
        from envkit.conda.channels import parse_channel

        channels: list[Channel] = []
        for i, c, ln in self.items("channels"):
            if not isinstance(c, str) or not c.strip():
                raise ParseError(
                    f"a channel must be a name or URL, got {type_name(c)}",
                    where=self.where(ln, f"channels[{i}]"),
                )
            ch = parse_channel(c.strip())
            channels.append(ch)
            self.mark(f"channel:{ch.name}", ln)
        return channels

    def dependencies(self, bad: list[InvalidSpecError]) -> tuple[list[CondaDep], list[PipDep], bool]:
        """(conda deps, pip deps, whether a `- pip:` item is there); malformed specs go to `bad`."""
        from envkit.conda.matchspec import parse_plain_specs, parse_spec

        conda: list[CondaDep] = []
        pip: list[PipDep] = []
        has_pip = False
        deps = self.data.get("dependencies")
        if deps is None:
            return conda, pip, has_pip
        need_list(deps, "`dependencies:`", self.at("dependencies"))
        _refuse_too_many(deps, self.at("dependencies"))
        lines = deps.lines  # (a YamlList: a line for each item)
        # the plain specs (most entries) all at once: a 100,000-entry file feels a cost per entry
        plain = parse_plain_specs(deps, lines)
        if all(plain):
            return plain, pip, has_pip  # type: ignore[return-value]
        for i, (item, ln, dep) in enumerate(zip(deps, lines, plain, strict=True)):
            if dep is not None:
                conda.append(dep)
                continue
            if isinstance(item, dict):
                has_pip = True
                pip += self.pip_section(item, ln, f"dependencies[{i}]", bad)
                continue
            if not isinstance(item, str):
                raise ParseError(
                    f"a dependency must be a match spec, got {type_name(item)}",
                    where=self.where(ln, f"dependencies[{i}]"),
                )
            try:
                conda.append(parse_spec(item, where=self.where(ln, f"dependencies[{i}]")))
            except InvalidSpecError as exc:
                bad.append(exc)
        return conda, pip, has_pip

    def pip_section(self, item: dict, ln: int | None, key: str, bad: list[InvalidSpecError]) -> list[PipDep]:
        """The entries of a `- pip:` item of `dependencies:` (at `key`, line `ln`)."""
        from envkit.formats.pipreq import parse_pip_entry

        if set(item) != {"pip"}:
            other = ", ".join(repr(k) for k in item if k != "pip")
            raise ParseError(
                f"unknown section {other} in dependencies (only `pip:` is allowed)",
                where=self.where(ln, key),
            )
        self.mark("pip", ln)
        section = item["pip"]
        pip: list[PipDep] = []
        if section is None:
            return pip
        need_list(section, "the `pip:` section", self.where(ln, f"{key}.pip"))
        _refuse_too_many(section, self.where(ln, f"{key}.pip"))
        for j, entry in enumerate(section):
            where = self.where(section.line_of(j), f"{key}.pip[{j}]")
            if not isinstance(entry, (str, int, float)) or isinstance(entry, bool):
                raise ParseError(f"a pip entry must be text, got {type_name(entry)}", where=where)
            try:
                pip.append(parse_pip_entry(str(entry), where))
            except InvalidSpecError as exc:
                bad.append(exc)
        return pip

    def variables(self) -> list[tuple[str, str]]:
        variables: list[tuple[str, str]] = []
        raw = self.data.get("variables")
        if raw is None:
            return variables
        need_mapping(raw, "`variables:`", self.at("variables"))
        for k, v in raw.items():
            if isinstance(v, (dict, list)):
                raise ParseError(
                    f"variable {k!r} must have a text value, got {type_name(v)}",
                    where=self.where(raw.line_of(k), f"variables.{k}"),
                )
            variables.append((str(k), _scalar_text(v)))
            self.mark(f"variable:{k}", raw.line_of(k))
        return variables

    def prefix(self) -> str | None:
        prefix = self.data.get("prefix")
        if prefix is not None and (isinstance(prefix, (dict, list, bool))):
            raise ParseError(f"`prefix:` must be a path, got {type_name(prefix)}", where=self.at("prefix"))
        return None if prefix is None else str(prefix)

    def platforms(self) -> list[str]:
        platforms: list[str] = []
        for i, p, ln in self.items("platforms"):
            if not isinstance(p, str):
                raise ParseError(
                    f"a platform must be text, got {type_name(p)}", where=self.where(ln, f"platforms[{i}]")
                )
            platforms.append(p.strip())
            self.mark(f"platform:{p.strip()}", ln)
        return platforms


def _refuse_too_many(items: list, where: Where) -> None:
    """A flow list on one line (`[a, b, ...]`) gets past the line count: count its entries."""
    from envkit.io import MAX_ENTRY_LINES

    if len(items) > MAX_ENTRY_LINES:
        raise ParseError(
            f"{len(items):,} entries; envkit reads at most {MAX_ENTRY_LINES:,} in one list",
            where=where,
            hint="environment files list packages, not data: check how the file was generated",
        )


def _scalar_text(v) -> str:
    if v is None:
        return ""
    if isinstance(v, bool):
        return "true" if v else "false"
    return str(v)


# --------------------------------------------------------------------------------------------
# Writing


@dataclass
class CommentMap:
    """Comments of a source file, keyed by the line of the entry they belong to.

    `leading[line]`: whole-line comments just above the entry; `inline[line]`: the comment at the end
    of its line; `trailing[line]`: more-indented comments after it (the tail of a block).  `header`
    are the comments before the first key; `footer` those after the last entry.  Writers `take()` a
    line's comments once; `leftover()` returns those never taken, so nothing is ever lost.
    """

    leading: dict[int, list[str]] = field(default_factory=dict)
    inline: dict[int, str] = field(default_factory=dict)
    trailing: dict[int, list[str]] = field(default_factory=dict)
    header: list[str] = field(default_factory=list)
    footer: list[str] = field(default_factory=list)
    _taken: set[int] = field(default_factory=set)

    def take(self, line: int | None) -> tuple[list[str], str | None, list[str]]:
        if not line or line in self._taken:
            return [], None, []
        self._taken.add(line)
        return self.leading.get(line, []), self.inline.get(line), self.trailing.get(line, [])

    def leftover(self) -> list[str]:
        out: list[tuple[int, str]] = []
        for ln in sorted(set(self.leading) | set(self.inline) | set(self.trailing)):
            if ln in self._taken:
                continue
            out += [(ln, c) for c in self.leading.get(ln, [])]
            if ln in self.inline:
                out.append((ln, self.inline[ln]))
            out += [(ln, c) for c in self.trailing.get(ln, [])]
        return [c for _, c in out]

    def merge(self, into: int | None, src: int | None) -> None:
        """Move the comments of line `src` (a removed duplicate) onto line `into`."""
        if not into or not src or into == src:
            return
        for table in (self.leading, self.trailing):
            moved = table.pop(src, [])
            if moved:
                table.setdefault(into, []).extend(moved)
        inl = self.inline.pop(src, None)
        if inl:
            cur = self.inline.get(into)
            if cur is None:
                self.inline[into] = inl
            elif inl not in cur:
                self.inline[into] = f"{cur}  {inl}"


def write_env(spec: EnvSpec, *, header: str | None = None, comments: CommentMap | None = None) -> str:
    """The environment.yml text of `spec`: keys in canonical order, lists in model order.

    `header` (text, one comment line per line) goes first; `comments` puts source comments back.
    Deterministic: equal models (and comments) give byte-identical text.
    """
    w = LineWriter(comments, header)
    line_of = spec.line_of
    if spec.name is not None:
        w.emit("", f"name: {scalar(spec.name)}", line_of("name"))
    if spec.channels or line_of("channels"):
        channels = [(f"- {scalar(channel_out(ch))}", line_of(f"channel:{ch.name}")) for ch in spec.channels]
        w.block("", "channels", line_of("channels"), channels)
    if spec.conda or spec.pip or spec.has_pip_section or spec.kind != "requirements":
        _write_dependencies(spec, w)
    if spec.variables:
        from envkit.urls import redact_variables

        # whatever the spec came from: a secret-named variable is written as `<TOKEN>`
        variables = redact_variables(spec.variables)
        items = [(f"{scalar(k)}: {scalar(v)}", line_of(f"variable:{k}")) for k, v in variables]
        w.block("", "variables", line_of("variables"), items)
    if spec.platforms:
        items = [(f"- {scalar(plat)}", line_of(f"platform:{plat}")) for plat in spec.platforms]
        w.block("", "platforms", line_of("platforms"), items)
    for k, v in spec.extra:
        # block style, as the rest of the file (JSON flow text would not always read back the same)
        import json  # here: few files have keys of their own

        first, *rest = block_yaml(k, json.loads(v), "", "  ")
        w.emit("", first, line_of(k))
        w.out.extend(rest)
    if spec.prefix is not None:
        w.emit("", f"prefix: {scalar(spec.prefix)}", line_of("prefix"))
    return "\n".join(w.lines()) + "\n"


class LineWriter:
    """The lines of a file being written: the `header` comment, the source's header comments, then
    each entry with its source comments put back around it."""

    def __init__(self, comments: CommentMap | None, header: str | None) -> None:
        self.cm = comments or CommentMap()
        self.out: list[str] = (comment_block(header).splitlines() if header else []) + self.cm.header

    def lines(self) -> list[str]:
        """Every line written, then the comments no entry took and the source's footer."""
        return self.out + self.cm.leftover() + self.cm.footer

    def emit(self, indent: str, text: str, line: int | None) -> None:
        lead, inl, trail = self.cm.take(line)
        self.out.extend(indent + c for c in lead)
        self.out.append(indent + text + (f"  {inl}" if inl else ""))
        self.out.extend(indent + c for c in trail)

    def block(self, indent: str, key: str, line: int | None, items: list[tuple[str, int | None]]) -> None:
        """`key:` and its `items` (text, source line) two spaces deeper, or `key: []` when none."""
        if not items:
            self.emit(indent, f"{key}: []", line)
            return
        self.emit(indent, f"{key}:", line)
        for text, item_line in items:
            self.emit(indent + "  ", text, item_line)


def _write_dependencies(spec: EnvSpec, w: LineWriter) -> None:
    if not spec.conda and not spec.pip and not spec.has_pip_section:
        w.emit("", "dependencies: []", spec.line_of("dependencies"))
        return
    w.emit("", "dependencies:", spec.line_of("dependencies"))
    _emit_conda(spec.conda, w)
    if spec.pip or spec.has_pip_section:
        w.block("  ", "- pip", spec.line_of("pip"), [(f"- {scalar(p.text)}", p.line) for p in spec.pip])


def _emit_conda(conda: tuple[CondaDep, ...], w: LineWriter) -> None:
    """The `- spec` lines of `conda`; a line without comments is written as it is, not through
    `emit` (a 100,000-entry file feels a call per entry)."""
    from envkit.formats._yamlcore import scalars

    texts = scalars(list(map(format_spec, conda)))
    cm = w.cm
    commented = cm.leading.keys() | cm.inline.keys() | cm.trailing.keys()
    if not commented:
        w.out += ["  - " + t for t in texts]
        return
    for d, t in zip(conda, texts, strict=True):
        if d.line in commented:
            w.emit("  ", f"- {t}", d.line)
        else:
            w.out.append("  - " + t)


def channel_out(ch: Channel) -> str:
    """How a channel is written: its canonical name; a channel whose URL carried credentials keeps
    them where they were, as placeholders (`https://conda.anaconda.org/t/<TOKEN>/name`,
    `https://<USER>:<PASSWORD>@host/name`) or environment-variable references (`${TOKEN}`)."""
    if ch.redacted_url:
        return ch.redacted_url
    if not ch.had_credentials:
        return ch.name
    from envkit.conda.channels import ANACONDA_ORG

    url = ch.url or ch.name
    if url.startswith(ANACONDA_ORG + "/"):
        return f"{ANACONDA_ORG}/t/{REDACTED}/{url[len(ANACONDA_ORG) + 1 :]}"
    scheme, sep, rest = url.partition("://")
    if sep:
        return f"{scheme}://{REDACTED}@{rest}"
    return url
