"""What a lock was solved from, recorded in it, so that a stale lock can say which entries changed.

The content hash says only *that* the spec changed.  envkit also records the spec's canonical
entries (channels, conda match specs, pip entries and options) under SPEC_KEY in the lock's
`custom_metadata`; `spec_changes` compares that record with today's spec and names each entry
added, removed or changed (from → to, with the line of today's file).
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass

from envkit.conda.names import pep503
from envkit.model import EnvSpec

#: The `custom_metadata` key of the spec record (JSON: conda and pip entries by name).
SPEC_KEY = "envkit.spec"


def _entries(spec: EnvSpec) -> dict[str, dict[str, list[str]]]:
    pip = [(("-e " if p.editable else "") + p.text, p.name) for p in spec.pip if p.kind != "option"]
    return {
        "conda": _by_name((d.name, d.spec()) for d in spec.conda),
        "pip": _by_name((pep503(name) if name else text, text) for text, name in pip),
    }


def _by_name(entries: Iterable[tuple[str, str]]) -> dict[str, list[str]]:
    """(name, text) pairs as name -> its texts, each once, in order."""
    out: dict[str, dict[str, None]] = {}
    for name, text in entries:
        out.setdefault(name, {})[text] = None
    return {name: list(texts) for name, texts in out.items()}


def spec_record(spec: EnvSpec) -> str:
    """The SPEC_KEY text of `spec`: its conda and pip entries by name, as compact, key-sorted JSON
    (the same spec, the same text).  Channels and pip options are not repeated: the lock records them."""
    return json.dumps(_entries(spec), sort_keys=True, separators=(",", ":"), ensure_ascii=False)


@dataclass(frozen=True, slots=True, kw_only=True)
class SpecChange:
    """One difference between the spec a lock was solved from and today's: `kind` is "added",
    "removed", "changed" (an entry of `section` "conda"/"pip"), or "channels" (the list changed);
    `old`/`new` the entries' text; `file`/`line` where today's entry is."""

    kind: str
    section: str
    name: str
    old: str | None = None
    new: str | None = None
    file: str | None = None
    line: int | None = None

    @property
    def where(self) -> str:
        if not self.file:
            return ""
        return f"{self.file}:{self.line}" if self.line else self.file

    def to_dict(self) -> dict[str, object]:
        return asdict(self)


def recorded_spec(custom: Mapping[str, object]) -> dict | None:
    """The spec record of a lock's custom_metadata, or None when it has none (or an unreadable one)."""
    from envkit.lock.metadata import recorded_json

    return recorded_json(custom, SPEC_KEY)


def spec_changes(recorded: Mapping, spec: EnvSpec, lock_channels: Sequence[str]) -> list[SpecChange]:
    """The entries of `spec` that differ from `recorded` (a `spec_record`), in today's file order,
    then the removed ones in name order; the channels compared with `lock_channels` (the lock's, by
    name)."""
    file = spec.source
    out: list[SpecChange] = []
    old_channels = list(lock_channels)
    new_channels = [c.name for c in spec.channels if c.name != "nodefaults"]
    if old_channels != new_channels:
        out.append(
            SpecChange(
                kind="channels",
                section="channels",
                name="channels",
                old=", ".join(old_channels),
                new=", ".join(new_channels),
                file=file,
                line=spec.line_of("channels"),
            )
        )
    lines = {("conda", d.name): d.line for d in spec.conda}
    lines.update(
        {("pip", pep503(p.name) if p.name else p.text): p.line for p in spec.pip if p.kind != "option"}
    )
    for section, after in _entries(spec).items():
        before: Mapping[str, list[str]] = recorded.get(section) or {}
        for name, texts in after.items():
            line = lines.get((section, name))
            if name not in before:
                out.append(
                    SpecChange(
                        kind="added", section=section, name=name, new=", ".join(texts), file=file, line=line
                    )
                )
            elif list(before[name]) != texts:
                out.append(
                    SpecChange(
                        kind="changed",
                        section=section,
                        name=name,
                        old=", ".join(before[name]),
                        new=", ".join(texts),
                        file=file,
                        line=line,
                    )
                )
        for name in sorted(set(before) - set(after)):
            out.append(
                SpecChange(kind="removed", section=section, name=name, old=", ".join(before[name]), file=file)
            )
    return out


#: The pip options of a spec that a lock keeps for `envkit create`: where pip finds the locked
#: artifacts.  Others (`-r`, `-c`, `--pre`, ...) shaped the resolution, which the lock now records.
_KEPT_PIP_OPTIONS = (
    "--index-url",
    "-i",
    "--extra-index-url",
    "--find-links",
    "-f",
    "--no-index",
    "--trusted-host",
)


def rebase_pip_options(options: Sequence[str], from_dir: str, to_dir: str) -> tuple[str, ...]:
    """`options` with each relative `--find-links`/`-f` path (relative to `from_dir`, the spec's
    directory) rewritten relative to `to_dir` (the lock's), so that `envkit create` finds it from
    the lock.  URLs and absolute paths are unchanged."""
    out = []
    for opt in options:
        m = re.match(r"^(?P<flag>--find-links|-f)(?P<sep>\s*=?\s*)(?P<path>\S+)$", opt.strip())
        if m and "://" not in m.group("path") and not os.path.isabs(m.group("path")):
            target = os.path.normpath(os.path.join(from_dir, m.group("path")))
            rel = os.path.relpath(target, to_dir)
            opt = f"{m.group('flag')} {rel if rel.startswith('.') else './' + rel}"
        out.append(opt)
    return tuple(out)


def lock_pip_options(spec: EnvSpec) -> tuple[str, ...]:
    """The pip options of `spec`'s pip section a lock records (`Lock.pip_options`), in file order:
    index and link options only (`--index-url`, `--extra-index-url`, `--find-links`, `--no-index`,
    `--trusted-host`), with credentials redacted as the spec model has them."""
    options = (p.text.strip() for p in spec.pip if p.kind == "option")
    return tuple(o for o in options if re.split(r"[\s=]", o, maxsplit=1)[0] in _KEPT_PIP_OPTIONS)
