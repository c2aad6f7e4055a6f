"""The envkit error family.

Library code raises these; only the CLI turns them into `error: ...` / `hint: ...` lines and an exit
code.  Every error can say where it happened (file, line, key path) and show the offending text.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Where:
    """A position in an input: file name, 1-based line, and a key path like `dependencies[3].pip[0]`."""

    file: str | None = None
    line: int | None = None
    key: str | None = None

    def __str__(self) -> str:
        parts = []
        if self.file:
            parts.append(self.file)
        if self.line:
            parts.append(str(self.line))
        text = ":".join(parts)
        if self.key:
            text = f"{text} ({self.key})" if text else self.key
        return text


#: The longest piece of user input an error message quotes.
MAX_QUOTED = 200


def clip(text: str, limit: int = MAX_QUOTED) -> str:
    """`text` cut to `limit` characters with an ellipsis, for quoting user input in messages."""
    if len(text) <= limit:
        return text
    return text[: limit - 1] + "…"


#: How much of another program's output an error quotes: its last lines, where tools put the cause.
TOOL_LINES = 8
TOOL_WIDTH = 300


def last_lines(text: str, lines: int = TOOL_LINES, width: int = TOOL_WIDTH) -> str:
    """The last `lines` non-empty lines of a program's output, each cut at a word boundary past
    `width` characters: the cause a tool prints last, never a slice from its middle."""
    kept = [ln.rstrip() for ln in text.strip().splitlines() if ln.strip()][-lines:]
    return "\n".join(_cut(ln, width) for ln in kept)


def _cut(line: str, width: int) -> str:
    if len(line) <= width:
        return line
    head = line[: width - 1]
    space = head.rfind(" ")
    return (head[:space] if space > width // 2 else head) + "…"


def _quoted(text: str) -> str:
    """Quoted text as an error shows it: one line clipped, another program's output (several lines)
    as its last lines, where tools print the cause."""
    if "\n" not in text.strip():
        return clip(text)
    return last_lines(text)


def _redact(text: str) -> str:
    if not isinstance(text, str) or not any(c in text for c in ("://", "_", "-", "?", "&")):
        return text
    from envkit.secrets import redact_text

    return redact_text(text)


@dataclass(frozen=True, slots=True, kw_only=True)
class Remedy:
    """A known fix as data: give the operation's option `option` the value `value`.

    `option` is the library's keyword (envkit.ops, `import envkit`): `format`, `environment`,
    `platform`.  The CLI words a remedy as its flag (`--input-format pixi`, envkit.output.cli_hint),
    the library as the keyword (`format="pixi"`, `EnvkitError.hint`), so neither names the other's
    options.  `value` True is a switch (`--cpu`, `cpu=True`); None is the option alone, or
    `metavar` where the user picks the value (`--env NAME`, `environment=NAME`).  `many`: the
    keyword takes a list (`platforms=["linux-64"]`) where the flag is given once per item.
    """

    option: str
    value: str | bool | None = None
    metavar: str | None = None
    many: bool = False

    def as_keyword(self) -> str:
        """The remedy as a keyword argument: `format="pixi"`, `cpu=True`, `environment=NAME`."""
        if self.value is True or self.value is False:
            value = str(self.value)
        elif self.value is None:
            value = self.metavar or "..."
        else:
            value = '"' + self.value.replace("\\", "\\\\").replace('"', '\\"') + '"'
        if self.many and not isinstance(self.value, bool):
            value = f"[{value}]"
        return f"{self.option}={value}"

    def as_flag(self, flag: str) -> str:
        """The remedy as the command-line option `flag`: `--input-format pixi`, `--cpu`, `--env NAME`."""
        if self.value is True or (self.value is None and self.metavar is None):
            return flag
        return f"{flag} {self.metavar if self.value is None else self.value}"


#: where a hint's text takes its remedies, in order
SLOT = "{}"


class EnvkitError(Exception):
    """Base of every error envkit raises on purpose.

    `hint` is an optional known fix, printed on its own line.  `remedies` are the options it names,
    as data (Remedy): the hint's text holds one `{}` per remedy, worded as a keyword by `hint` and
    as a flag by the CLI (a remedy without text is `pass <remedy>`).  The exit code is the CLI's: 2
    for every class (envkit.cli).
    """

    def __init__(
        self,
        message: str,
        *,
        where: Where | None = None,
        hint: str | None = None,
        text: str | None = None,
        remedy: Remedy | Iterable[Remedy] | None = None,
    ) -> None:
        # redacted before anything else sees them (and before clipping, which could cut a
        # credential so that it is no longer recognised)
        message = _redact(message)
        super().__init__(message)
        self.message = message
        self.where = where
        self.remedies: tuple[Remedy, ...] = (
            (remedy,) if isinstance(remedy, Remedy) else tuple(remedy) if remedy is not None else ()
        )
        self._hint = _redact(hint) if hint else hint
        self.text = _quoted(_redact(text)) if text is not None else None

    @property
    def hint(self) -> str | None:
        """The hint as the library words it: each remedy as a keyword argument."""
        return self.worded(Remedy.as_keyword)

    @hint.setter
    def hint(self, value: str | None) -> None:
        self._hint = _redact(value) if value else value
        self.remedies = ()

    def worded(self, word: Callable[[Remedy], str]) -> str | None:
        """The hint with each remedy worded by `word` (a keyword, a flag)."""
        if not self.remedies:
            return self._hint
        words = [word(r) for r in self.remedies]
        if not self._hint:
            return _redact("pass " + " or ".join(words))
        parts = self._hint.split(SLOT)
        out = [parts[0]]
        for i, part in enumerate(parts[1:]):
            out.append(words[i] if i < len(words) else SLOT)
            out.append(part)
        return _redact("".join(out))

    def __str__(self) -> str:
        loc = str(self.where) if self.where else ""
        msg = f"{loc}: {self.message}" if loc else self.message
        if self.text is not None:
            msg = f"{msg}: {self.text!r}" if "\n" not in self.text else f"{msg}\n{self.text}"
        return msg


class ParseError(EnvkitError):
    """An input file (or string) could not be read as the format it claims to be."""


class NotAnEnvironmentFile(ParseError):
    """A YAML file format detection took for an environment file is some other YAML file (a GitHub
    workflow, a `.pre-commit-config.yaml`): see envkit.formats.envyml.refuse_other_yaml."""


class UnsupportedVersionError(ParseError):
    """A versioned format (conda-lock.yml, pixi.lock) has a version envkit does not read."""


class InvalidSpecError(ParseError):
    """A conda match spec or a pip requirement is malformed."""


class ParseErrors(InvalidSpecError):
    """Several malformed entries of one input, reported together: the first MAX_REPORTED, each on
    its own `error:` line, then how many more.  `errors` holds them all; `where`, `hint` and the
    message are the first one's."""

    MAX_REPORTED = 20

    def __init__(self, errors: Iterable[EnvkitError]) -> None:
        errors = tuple(errors)
        first = errors[0]
        super().__init__(first.message, where=first.where, hint=first._hint, remedy=first.remedies)
        self.text = first.text
        self.errors = errors

    def __str__(self) -> str:
        shown = [str(e) for e in self.errors[: self.MAX_REPORTED]]
        more = len(self.errors) - len(shown)
        if more:
            where = self.where.file if self.where and self.where.file else "the input"
            shown.append(f"and {more} more malformed entries in {where} ({len(self.errors)} in all)")
        # the CLI prints `error: ` before the first line: the others get theirs here
        return "\nerror: ".join(shown)


def raise_collected(errors: Sequence[EnvkitError]) -> None:
    """Raise the one error of `errors` as it is, several as ParseErrors; nothing when empty."""
    if len(errors) == 1:
        raise errors[0]
    if errors:
        raise ParseErrors(errors)


class ConfigError(EnvkitError):
    """The configuration file is malformed or names something that does not exist."""


class UsageError(EnvkitError):
    """The command line asks for something that cannot be done."""


class EnvironmentNotFound(EnvkitError):
    """A named environment or prefix does not exist."""


class BackendError(EnvkitError):
    """An external tool (conda, mamba, micromamba, pip, ssh) is missing or failed."""


class SolveError(EnvkitError):
    """A spec could not be solved for a platform."""


class IntegrityError(EnvkitError):
    """A downloaded or cached artifact does not match its recorded hash."""


class SmokeError(EnvkitError):
    """The smoke test could not run at all."""
