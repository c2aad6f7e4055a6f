"""The records of `envkit check`: rules, hits, findings, targets; the `@rule` decorator.

The registry (which rules exist, in which order) is envkit.checks.registry; the engine that runs
them is envkit.checks.engine.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterable
from dataclasses import asdict, dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING, Any, NamedTuple

if TYPE_CHECKING:  # pragma: no cover
    from envkit.config import Config
    from envkit.errors import ParseError
    from envkit.machine.profile import MachineProfile
    from envkit.model import EnvSpec, LiveEnv, Lock, Resolved

#: Severities, most severe first.  `--fail-on` and the exit code compare with this order.
SEVERITIES = ("error", "warning", "info")
_RANK = {s: i for i, s in enumerate(SEVERITIES)}

TargetKind = str  # "spec" | "lock" | "live"


def severity_at_least(severity: str, threshold: str) -> bool:
    """True when `severity` is as severe as `threshold` or more ("error" >= "warning" >= "info")."""
    return _RANK[severity] <= _RANK[threshold]


@dataclass(frozen=True, slots=True, kw_only=True)
class Finding:
    """One problem found by one rule.

    `file` is the path as given on the command line (or the prefix of a live environment); `line`
    is 1-based, or None when the problem has no single line (a live environment, a whole lock).
    `packages` names the packages involved, each once, in a stable order.  `fixable` says `--fix`
    can repair it.
    """

    rule: str
    severity: str
    file: str
    line: int | None
    message: str
    packages: tuple[str, ...] = ()
    fixable: bool = False

    def as_dict(self) -> dict:
        """The finding as the JSON output writes it (keys in field order)."""
        return {**asdict(self), "packages": list(self.packages)}


class Hit(NamedTuple):
    """What a rule function yields: where, what, which packages.  `severity` lowers (or raises)
    the rule's default for this one hit; a configured severity override still wins."""

    line: int | None
    message: str
    packages: tuple[str, ...] = ()
    severity: str | None = None
    rank: int = 0  # orders one rule's hits on one line (a diff's ranking); the message breaks ties


@dataclass(frozen=True, slots=True, kw_only=True)
class Rule:
    """A registered rule.  `applies_to` lists target kinds ("spec", "lock", "live");
    `example` is an environment file that triggers the rule and `example_fixed` the same file
    without the problem (both checked by the test suite); rules that need a live environment
    describe their example in words (`example_kind="text"`).  `order` places the rule in the
    listing (`--list-rules`, docs/rules.md, SARIF); `needs_machine` rules judge a target against
    `check --machine` and run only with one.  A `per_file` rule's hits depend on the file alone
    (its text, path and kind), not on which of the file's environments a target is: the engine
    runs it once per file, not once per environment of a pixi.lock.  A `raw_text` rule reads only
    the raw text: it runs even when the model could not be built (a duplicated YAML key)."""

    name: str
    severity: str
    order: int
    summary: str
    description: str
    example: str
    example_fixed: str
    fn: Callable[[Target, Context], Iterable[Hit]]
    applies_to: tuple[str, ...] = ("spec", "lock", "live")
    example_file: str = "environment.yml"
    example_kind: str = "file"
    fixable: bool = False
    fix_summary: str = ""
    needs_machine: bool = False
    per_file: bool = False
    raw_text: bool = False


def rule(name: str, **fields: Any) -> Callable:
    """Decorator describing `fn(target, ctx) -> Iterable[Hit]` as rule `name`, with the other
    fields of Rule as keywords: it attaches the Rule to `fn.envkit_rule`; envkit.checks.registry
    imports the rule modules and collects them."""
    if fields["severity"] not in SEVERITIES:
        raise ValueError(f"bad severity {fields['severity']!r}")
    for key in ("description", "example", "example_fixed"):
        fields[key] = _dedent(fields[key])

    def wrap(fn: Callable) -> Callable:
        # a function attribute, which the registry reads back with getattr
        fn.__dict__["envkit_rule"] = Rule(name=name, fn=fn, **fields)
        return fn

    return wrap


def _dedent(text: str) -> str:
    """textwrap.dedent(text), stripped of blank first and last lines, with one line end; "" for a
    blank text.  Written out because importing textwrap (its regexes) is a start-up cost every
    rule module paid at import."""
    if not text.strip():
        return ""
    # as textwrap.dedent: lines of only spaces and tabs become empty; the margin is the longest
    # indentation that every other line starts with
    lines = ["" if not ln.strip(" \t") else ln for ln in text.split("\n")]
    margin = os.path.commonprefix([ln[: len(ln) - len(ln.lstrip(" \t"))] for ln in lines if ln])
    if margin:
        lines = [ln[len(margin) :] for ln in lines]
    return "\n".join(lines).strip("\n") + "\n"


# --------------------------------------------------------------------------------------------
# targets


@dataclass(eq=False)
class Target:
    """One thing to check.

    `kind` is "spec" (EnvSpec), "lock" (Lock) or "live" (LiveEnv).  `text` is the file's text (None
    for a live environment).  `parse_error` is set (and `model` None) when the file could not be
    read because a YAML key is duplicated: the duplicate-key rule reports it and only the rules
    that read raw text run.  `entry_errors` are the malformed entries left out of the model (an
    environment file's bad match specs): the rules run on the rest, and `check` reports them.
    `lock` is the lock paired with a spec or a live environment; `spec` the spec paired with a
    lock.  `cache` holds results shared by several rules.
    """

    path: str
    kind: TargetKind
    model: EnvSpec | Lock | LiveEnv | None
    text: str | None = None
    parse_error: ParseError | None = None
    entry_errors: list = field(default_factory=list, repr=False)
    lock: Target | None = None
    spec: Target | None = None
    cache: dict = field(default_factory=dict, repr=False)
    _lines: list[str] | None = field(default=None, repr=False)

    @property
    def lines(self) -> list[str]:
        """The raw text lines of the file (no line ends); empty for a live environment."""
        if self._lines is None:
            self._lines = self.text.splitlines() if self.text else []
        return self._lines

    def line_text(self, line: int | None) -> str:
        if not line or line > len(self.lines):
            return ""
        return self.lines[line - 1]

    def line_of_key(self, key: str) -> int | None:
        """The first line of the file where a `key:` mapping entry starts (at any indent), or None
        (no text, or no such line)."""
        if not self.text or key not in self.text:
            return None
        pat = re.compile(rf"^\s*{re.escape(key)}\s*:")
        for n, line in enumerate(self.lines, 1):
            if pat.match(line):
                return n
        return None

    @cached_property
    def yaml(self):
        """The file's YAML tree (YamlMap) for a YAML spec; None for other targets or non-YAML text.

        Only specs are parsed a second time (they are small); locks never are."""
        if self.kind != "spec" or self.text is None or self.parse_error is not None:
            return None
        from envkit.errors import ParseError
        from envkit.formats._yaml import load

        try:
            data = load(self.text, filename=self.path)
        except ParseError:
            return None
        return data if isinstance(data, dict) else None

    @cached_property
    def view(self) -> Resolved | None:
        """The target's resolved view (a lock, a live environment, a `conda env export`: its
        packages per platform), or None for a loose spec and a file that did not parse.  Rules
        about packages branch once: this, or `loose`."""
        from envkit.model import resolved_view

        return resolved_view(self.model)

    @property
    def loose(self) -> EnvSpec | None:
        """The target's model when it is a loose spec (hand-written, requirements), else None."""
        return self.env_file if self.view is None else None

    @property
    def lock_model(self) -> Lock | None:
        """The Lock the target is (a lock file: conda-lock.yml, pixi.lock, an explicit file, ...),
        else None.  An export reads as a Lock too, but its target is the file as written (`export`)."""
        view = self.view
        return view.lock if view is not None and view.export is None else None

    @property
    def export(self) -> EnvSpec | None:
        """The `conda env export` the target is (resolved, and also a file as written), else None."""
        view = self.view
        return view.export if view is not None else None

    @property
    def env_file(self) -> EnvSpec | None:
        """The environment file as written (a loose spec or an export), for rules about what the
        file itself says: its channel list, keys, pip options, variables.  None for a lock or a
        live environment."""
        from envkit.model import env_file

        return env_file(self.model)


@dataclass
class Context:
    """What rules may consult besides their target: the configuration, the MachineProfile the
    machine-* rules judge against (None: they find nothing), and `cache`, results made once per
    run for every target."""

    config: Config
    machine: MachineProfile | None = None
    cache: dict = field(default_factory=dict, repr=False)


# --------------------------------------------------------------------------------------------
# engine

_SUPPRESS = r"(?i)#\s*envkit:\s*ignore(?:\[(?P<rules>[^\]]*)\])?"


def suppressions(line_text: str) -> frozenset[str] | None:
    """Rules suppressed by an inline `# envkit: ignore[a, b]` comment on `line_text`; the empty set
    means every rule (`# envkit: ignore`); None when there is no suppression comment."""
    if "envkit" not in line_text:
        return None
    m = re.search(_SUPPRESS, line_text)
    if m is None:
        return None
    names = m.group("rules")
    if names is None:
        return frozenset()
    return frozenset(n.strip() for n in names.split(",") if n.strip())


def summarize(findings: Iterable[Finding]) -> dict[str, int]:
    """Counts per severity, in SEVERITIES order."""
    counts = {s: 0 for s in SEVERITIES}
    for f in findings:
        counts[f.severity] += 1
    return counts
