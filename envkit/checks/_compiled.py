"""A requirements file compiled from a `.in` file (`pip-compile docs.in`, `uv pip compile
requirements.in -o requirements.txt`): paired with its input by the command its header records,
and judged as a lock of it - every requirement of the `.in` pinned in the `.txt`, and satisfied by
that pin.  The verdict's problems are the lock rules' (`lock-unsatisfied`, at the `.in`'s line)."""

from __future__ import annotations

import os
import re
from typing import TYPE_CHECKING

from envkit.model import EnvSpec, pep503

if TYPE_CHECKING:  # pragma: no cover
    from envkit.checks.core import Target

#: the command line pip-compile and `uv pip compile` write into their output's header comment
_COMMAND = re.compile(r"^#\s+(?:pip-compile|uv pip compile)\b(?P<args>.*)$")
#: pip-compile writes its command within the first lines of its header
_HEADER_LINES = 12


def compiled_inputs(text: str | None) -> list[str]:
    """The `.in` files a pip-compile / `uv pip compile` output names in its header command, as
    written there (relative to where it ran); [] for any other file."""
    if not text or "compile" not in text[:2000]:
        return []
    for line in text.splitlines()[:_HEADER_LINES]:
        m = _COMMAND.match(line.strip())
        if m:
            import shlex

            try:
                words = shlex.split(m.group("args"))
            except ValueError:
                words = m.group("args").split()
            return [w for w in words if not w.startswith("-") and w.endswith(".in")]
    return []


def pair_compiled(targets: list[Target]) -> None:
    """Pair each compiled requirements target with the `.in` target its header names (relative
    to the compiled file's folder, where pip-compile is run), in place: the `.in` is the spec, the
    compiled file its lock."""
    specs = {os.path.realpath(t.path): t for t in targets if t.kind == "spec" and t.lock is None}
    for t in targets:
        if t.kind != "spec" or t.env_file is None or t.env_file.kind != "requirements":
            continue
        folder = os.path.dirname(t.path)
        for name in compiled_inputs(t.text):
            spec = specs.get(os.path.realpath(os.path.join(folder, name)))
            if spec is not None and spec is not t:
                spec.lock = t
                t.spec = t.spec or spec


def is_compiled(target: Target) -> bool:
    """Whether `target` is a requirements file pip-compile or `uv pip compile` wrote."""
    env = target.env_file
    return env is not None and env.kind == "requirements" and bool(compiled_inputs(target.text))


def compiled_problems(spec: EnvSpec, compiled: EnvSpec) -> list:
    """The LockProblems of a `.in` file and the requirements file compiled from it: a requirement
    with no pin (the `.in` gained it after the last compile), and a pin its requirement rejects
    (the `.in` changed its bound).  An entry with an environment marker that has no pin is not
    reported: the compile ran for one environment, which the marker may exclude."""
    from packaging.specifiers import InvalidSpecifier, SpecifierSet

    from envkit.formats.pipreq import pip_version_satisfies
    from envkit.lock.check import LockProblem

    pins = {}
    for d in compiled.pip:
        if d.name and d.kind in ("requirement", "url", "vcs", "path"):
            m = re.fullmatch(r"===?\s*([^,\s]+)", d.specifier or "")
            pins[pep503(d.name)] = (d, m.group(1) if m else None)
    out = []
    for dep in spec.pip:
        if dep.kind == "option" or not dep.name:
            continue
        pinned = pins.get(pep503(dep.name))
        if pinned is None:
            if not dep.marker:
                message = f"pip {dep.text}: no pin in the compiled file; compile it again"
                out.append(
                    LockProblem(kind="missing", platform=None, message=message, name=dep.name, line=dep.line)
                )
            continue
        pin, version = pinned
        if dep.kind != "requirement" or not dep.specifier or version is None:
            continue
        try:
            ok = pip_version_satisfies(SpecifierSet(dep.specifier), version)
        except InvalidSpecifier:
            continue
        if not ok:
            pinned_at = f"{pin.name}=={version} (line {pin.line})"
            message = f"pip {dep.text}: the compiled file pins {pinned_at}; compile it again"
            out.append(
                LockProblem(kind="unsatisfied", platform=None, message=message, name=dep.name, line=dep.line)
            )
    return out
