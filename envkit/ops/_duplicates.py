"""The conda+pip duplicate warnings every operation that reads an environment reports: as data
(lines of text), which the CLI prints on stderr and the library returns in its results."""

from __future__ import annotations

from typing import TYPE_CHECKING

from envkit.conda.names import (
    Duplicate,
    duplicate_warning,
    find_duplicates,
    pip_finds_it_installed,
    spec_pip_finds_it_installed,
)
from envkit.model import EnvSpec, LiveEnv, Lock, env_file, pep503, resolved_view

if TYPE_CHECKING:  # pragma: no cover
    from envkit.config import Config


def duplicates_of(
    env: EnvSpec | Lock | LiveEnv, *, extra: dict[str, tuple[str, ...]] | None = None
) -> list[Duplicate]:
    """Projects that both conda and pip provide in `env`: an environment file (an export too) by
    its entries, as check's conda-pip-duplicate judges it; a lock on each of its platforms; a
    live environment with the prefix's own dist-info ownership (`Resolved.owned`)."""
    spec = env_file(env)
    if spec is not None:
        conda = [d.name for d in spec.conda]
        pip = [p.name for p in spec.pip if p.name]
        dups = find_duplicates(conda, pip, extra=extra)
        return [d for d in dups if not spec_pip_finds_it_installed(d, spec)]
    view = resolved_view(env)
    if view is None:  # (only an environment file is not concrete: answered above)
        return []
    owned = view.owned
    from envkit.lock.metadata import lock_over_conda

    # what a lock records as installed over conda's files, `envkit create` installs so again
    forced = frozenset(lock_over_conda(view.lock)) if view.lock is not None else frozenset()
    found: dict[tuple[str, str], Duplicate] = {}
    for pkgs in view.by_platform().values():
        conda_version = {p.name: p.version for p in pkgs if p.manager == "conda"}
        pip = [p.name for p in pkgs if p.manager == "pip"]
        pip_version = {pep503(p.name): p.version for p in pkgs if p.manager == "pip"}
        for d in find_duplicates(conda_version, pip, extra=extra, owned=owned):
            same = pip_finds_it_installed(d, conda_version[d.conda_name], pip_version[d.project])
            if view.live is None and same and d.project not in forced:
                continue  # installing the lock, pip finds conda's copy of that version
            found.setdefault((d.conda_name, d.project), d)
    return sorted(found.values(), key=lambda d: (d.project, d.conda_name))


RULE = "conda-pip-duplicate"


def duplicate_messages(env: EnvSpec | Lock | LiveEnv, *, config: Config | None = None) -> list[str]:
    """The conda+pip warnings for `env`, one per project, minus those the user silenced the way
    `check` is silenced: `conda-pip-duplicate` not selected (or ignored) in the configuration, or an
    inline `# envkit: ignore[conda-pip-duplicate]` (or bare `# envkit: ignore`) on the line of the
    pip entry (the line check reports), in the file `env` was read from.  `config` defaults to the
    one found from the working directory.  The one place every command decides this."""
    if config is None:
        config = _config_here()
    if not config.is_selected(RULE):
        return []
    dups = duplicates_of(env, extra=config.pypi_names or None)
    if not dups:
        return []
    lines = None
    out = []
    for d in dups:
        line = _line_of(env, d)
        if line:
            if lines is None:
                lines = _source_lines(env)
            if 0 < line <= len(lines):
                from envkit.checks.core import suppressions  # only for a duplicate with a line

                sup = suppressions(lines[line - 1])
                if sup is not None and (not sup or RULE in sup):
                    continue
        out.append(duplicate_warning(d))
    return out


def _config_here() -> Config:
    """The configuration of the working directory; a broken one is `check`'s to report, so other
    commands fall back to the defaults rather than fail."""
    from envkit.config import Config, load_config
    from envkit.errors import EnvkitError

    try:
        return load_config()
    except EnvkitError:
        return Config()


def _line_of(env: EnvSpec | Lock | LiveEnv, d: Duplicate) -> int | None:
    """The line of the pip entry (else the conda entry) behind duplicate `d`."""
    spec = env_file(env)
    if spec is not None:
        pip = next((p for p in spec.pip if p.name and pep503(p.name) == d.project), None)
        if pip is not None:
            return pip.line
        return next((c.line for c in spec.conda if c.name == d.conda_name), None)
    view = resolved_view(env)
    if view is None or view.lock is None:  # a live environment has no lines
        return None
    return next(
        (p.line for p in view.lock.packages if p.manager == "pip" and pep503(p.name) == d.project), None
    )


def _source_lines(env: EnvSpec | Lock | LiveEnv) -> list[str]:
    source = getattr(env, "source", None)
    if not source or source == "-":
        return []
    from envkit.errors import EnvkitError
    from envkit.io import read_text

    try:
        return read_text(source).splitlines()
    except (OSError, EnvkitError):
        return []
