"""The normalize and validate operations on the text of one file: its canonical form (same format,
comments kept), or what it holds, as result objects."""

from __future__ import annotations

from dataclasses import dataclass

from envkit._text import plural
from envkit.model import EnvSpec, Lock, env_file, resolved_view


@dataclass(frozen=True, slots=True, kw_only=True)
class NormalizeResult:
    """`original` (as read, a byte-order mark kept) and its canonical `text`, in `format`; the
    model read; the conda+pip duplicate warnings."""

    name: str
    original: str
    text: str
    format: str
    model: EnvSpec | Lock
    warnings: tuple[str, ...] = ()

    @property
    def changed(self) -> bool:
        return self.text != self.original


@dataclass(frozen=True, slots=True, kw_only=True)
class ValidateResult:
    """A one-line `summary` of a usable file, the models read from it (one per pixi.lock
    environment), and the conda+pip duplicate warnings."""

    name: str
    summary: str
    models: tuple[EnvSpec | Lock, ...]
    warnings: tuple[str, ...] = ()


def normalize_source(original: str, name: str, *, format: str | None = None) -> NormalizeResult:
    """The canonical form of `original`, the text of the file `name`, read as `format` (None:
    detected).  Raises the ParseError family,
    UsageError for a format envkit does not normalize (pixi.lock)."""
    from envkit.formats import detect_format, read_text
    from envkit.formats.canonical import render_normalized
    from envkit.ops._duplicates import duplicate_messages

    # the model is read without the byte-order mark; `changed` compares with the file as it is,
    # so that a BOM (which the canonical form has not) counts as a change
    text = original[1:] if original.startswith("\ufeff") else original
    kind = format or detect_format(text, name)
    model = read_text(text, filename=name, format=kind)
    warnings = tuple(f"{name}: {msg}" for msg in duplicate_messages(model))
    new = render_normalized(model, text, kind)
    return NormalizeResult(
        name=name, original=original, text=new, format=kind, model=model, warnings=warnings
    )


def validate_source(
    text: str, name: str, *, format: str | None = None, environment: str | None = None
) -> ValidateResult:
    """What the file `name` (its `text`) holds, read as `format` (None: detected); a pixi.lock's
    `environment` (None: every one).  Raises the ParseError family for a file that is not usable."""
    from envkit.formats import detect_format, read_text
    from envkit.ops._duplicates import duplicate_messages

    kind = format or detect_format(text, name)
    models: tuple[EnvSpec | Lock, ...]
    if kind == "pixi" and environment is None:
        from envkit.formats.pixilock import read_pixi_environments

        envs = read_pixi_environments(text, name)
        parts = [f"{env} ({_lock_summary(lock)})" for env, lock in envs.items()]
        summary = f"pixi.lock, {plural(len(parts), 'environment')}: " + ", ".join(parts)
        models = tuple(envs.values())
    else:
        model = read_text(text, filename=name, format=kind, environment=environment)
        models = (model,)
        summary = _summary(model, kind)
    warnings = tuple(
        f"{m.source}: {msg}" if m.source else msg for m in models for msg in duplicate_messages(m)
    )
    return ValidateResult(name=name, summary=summary, models=models, warnings=warnings)


def _summary(model: EnvSpec | Lock, kind: str) -> str:
    spec = env_file(model)
    if spec is not None:
        # pip's option lines (`--extra-index-url`, `--pre`, `-f`) are not packages
        options = sum(1 for p in spec.pip if p.kind == "option")
        packages = len(spec.pip) - options
        more = f" ({plural(options, 'pip option')})" if options else ""
        if kind == "requirements":
            return f"requirements, {plural(packages, 'entry', 'entries')}{more}"
        label = "environment export" if spec.kind == "export" else "environment spec"
        return f"{label}, {len(spec.conda)} conda, {packages} pip{more}"
    view = resolved_view(model)
    assert view is not None and view.lock is not None  # (what is no environment file is a Lock)
    return f"{kind}, {_lock_summary(view.lock)}"


def _lock_summary(lock: Lock) -> str:
    n = len(lock.packages)
    p = len(lock.platforms)
    plats = f" ({', '.join(lock.platforms)})" if lock.platforms else ""
    return f"{plural(n, 'package')}, {plural(p, 'platform')}{plats}"
