"""Rules that read a file's raw text: credentials and machine paths that should not be committed.

They scan text, not the model, so they also find a token in a comment or in a commented-out
channel line, and they run on files whose YAML could not be read (a duplicated key).
"""
from __future__ import annotations

import re
from typing import Iterator, NamedTuple

from envkit.checks.core import Context, Hit, Target, raw_text_rule, rule

# cheap pre-filter over the whole text: only lines matching it are looked at closely
_CANDIDATE = re.compile(
    r"/t/[^/\s]+/|://[^/\s@]+@|[?&](?:token|access_token|auth|api_key|apikey|password|secret)=",
    re.IGNORECASE)
_URL = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*://[^\s'\"<>`]+")
_USERINFO = re.compile(r"^(?P<scheme>[A-Za-z][A-Za-z0-9+.-]*)://(?P<info>[^/@\s]+)@")
_T_TOKEN = re.compile(r"/t/(?P<tok>[^/\s]+)/")
_QUERY = re.compile(r"[?&](?:token|access_token|auth|api_key|apikey|password|secret)=(?P<v>[^&#\s]+)",
                    re.IGNORECASE)
_ENVREF = re.compile(r"^\$\{?[A-Za-z_][A-Za-z0-9_]*\}?$")
_TOKEN_PREFIXES = ("ghp_", "gho_", "ghs_", "ghu_", "github_pat_", "glpat-", "xox", "pypi-", "npm_")
_PLACEHOLDERS = ("<TOKEN>", "<USER>", "<PASSWORD>", "***", "xxx", "XXX", "...")


class Secret(NamedTuple):
    url: str  # as written
    redacted: str  # with every credential replaced by a placeholder
    kind: str  # "token", "user:password", "query token"


def _comment_start(line: str) -> int:
    """Index where a `#` comment starts (`#` at the start or after whitespace, outside quotes), or
    len(line).  A `#md5` fragment glued to a URL is not a comment."""
    quote = None
    for i, ch in enumerate(line):
        if quote:
            if ch == quote:
                quote = None
        elif ch in "'\"":
            quote = ch
        elif ch == "#" and (i == 0 or line[i - 1] in " \t"):
            return i
    return len(line)


def _placeholder(value: str) -> bool:
    return bool(_ENVREF.match(value)) or any(p in value for p in _PLACEHOLDERS) or value in ("", "token")


def _looks_like_token(info: str) -> bool:
    """A user part without a password that is an access token rather than a user name."""
    if info.startswith(_TOKEN_PREFIXES):
        return True
    return len(info) >= 20 and any(c.isdigit() for c in info) and any(c.isalpha() for c in info)


def find_secrets(line: str) -> list[Secret]:
    """Credentials in the URLs of one line of text (see leaked-secret's description)."""
    from envkit.urls import redact_url

    out = []
    comment_at = _comment_start(line)
    for m in _URL.finditer(line):
        url = m.group(0).rstrip(".,;)")
        kinds = []
        um = _USERINFO.match(url)
        if um:
            info = um.group("info")
            scheme = um.group("scheme").lower()
            if ":" in info:
                user, _, pw = info.partition(":")
                if pw and not _placeholder(pw) and not (_placeholder(user) and not pw):
                    kinds.append("user:password")
            elif "ssh" not in scheme and not _placeholder(info) and _looks_like_token(info):
                kinds.append("token")
        tm = _T_TOKEN.search(url)
        if tm and not _placeholder(tm.group("tok")):
            host = url.split("://", 1)[1].split("/", 1)[0].lower()
            # `/t/<token>/` is anaconda.org's (and Anaconda Server's) token path; in a comment,
            # only trust it on an anaconda host (a forum link `.../t/topic/123` is not a token)
            if "anaconda" in host or m.start() < comment_at:
                kinds.append("token")
        qm = _QUERY.search(url)
        if qm and not _placeholder(qm.group("v")):
            kinds.append("query token")
        if kinds:
            out.append(Secret(url, redact_url(url)[0], kinds[0]))
    return out


# --------------------------------------------------------------------------------------------
# credentials in `variables:` values

_QUOTED = r"\"(?:[^\"\\]|\\.)*\"|'(?:[^']|'')*'"
_KEY = rf"(?P<key>{_QUOTED}|[A-Za-z_][A-Za-z0-9_.-]*)"
# `  HF_TOKEN: hf_abc  # comment` (a `#` glued to the value is part of it)
_BLOCK_PAIR = re.compile(rf"^\s*{_KEY}\s*:[ \t]+(?P<val>{_QUOTED}|[^\s#\"'{{\[](?:.*?\S)?)(?:[ \t]+#.*)?\s*$")
# `variables: {HF_TOKEN: hf_abc, OMP_NUM_THREADS: 4}`
_FLOW_PAIR = re.compile(rf"[{{,]\s*{_KEY}\s*:[ \t]+(?P<val>{_QUOTED}|[^\s,{{}}#\"'][^,{{}}]*?)\s*(?=[,}}])")


class VariablePair(NamedTuple):
    key: str
    value: str  # unquoted
    start: int  # the value as written (quotes included) is line[start:end]
    end: int


def _unquote(text: str) -> str:
    if len(text) >= 2 and text[0] == text[-1] and text[0] in "'\"":
        inner = text[1:-1]
        return inner.replace("''", "'") if text[0] == "'" else inner
    return text


def variable_pairs(line: str) -> list[VariablePair]:
    """`KEY: value` pairs written on one line of a `variables:` mapping, block style
    (`  HF_TOKEN: hf_abc`) or flow style (`variables: {HF_TOKEN: hf_abc, X: y}`)."""
    if "{" in line:
        return [VariablePair(_unquote(m.group("key")), _unquote(m.group("val")), m.start("val"), m.end("val"))
                for m in _FLOW_PAIR.finditer(line)]
    m = _BLOCK_PAIR.match(line)
    if m is None:
        return []
    return [VariablePair(_unquote(m.group("key")), _unquote(m.group("val")), m.start("val"), m.end("val"))]


def secret_variables(line: str) -> list[VariablePair]:
    """The pairs of `variable_pairs(line)` whose value is a credential (envkit.urls.is_secret_variable)."""
    from envkit.urls import is_secret_variable

    return [p for p in variable_pairs(line) if is_secret_variable(p.key, p.value)]


def redact_variable_line(line: str) -> str:
    """`line` with the value of every secret variable on it replaced by `<TOKEN>` (quotes kept)."""
    from envkit.urls import TOKEN

    for p in reversed(secret_variables(line)):
        written = line[p.start:p.end]
        new = f"{written[0]}{TOKEN}{written[0]}" if written[:1] in ("'", '"') else TOKEN
        line = line[:p.start] + new + line[p.end:]
    return line


def _variables_block_lines(target: Target) -> list[int]:
    """Line numbers of a top-level `variables:` mapping, read from the raw text (for a file whose
    YAML could not be read): the `variables:` line itself and the indented lines under it."""
    out: list[int] = []
    inside = False
    for n, line in enumerate(target.lines, 1):
        if inside:
            if not line.strip() or line.lstrip().startswith("#"):
                continue
            if line[:1] in (" ", "\t"):
                out.append(n)
                continue
            inside = False
        if line.startswith("variables") and re.match(r"^variables\s*:", line):
            out.append(n)
            inside = True
    return out


def _variable_hits(target: Target) -> Iterator[Hit]:
    """leaked-secret's findings on `variables:` values: secret-looking names (`HF_TOKEN`,
    `WANDB_API_KEY`, `*PASSWORD*`) with a real value (not `${VAR}`, not a placeholder)."""
    from envkit.checks.fix import VARIABLE_SECRET
    from envkit.model import EnvSpec
    from envkit.urls import TOKEN, is_secret_variable

    m = target.model
    if isinstance(m, EnvSpec):
        for k, v in m.variables:
            if is_secret_variable(k, v):
                line = m.line_of(f"variable:{k}") or m.line_of("variables")
                yield Hit(line, f"{VARIABLE_SECRET}: {k}: {TOKEN}")
        return
    if target.parse_error is None or "variables" not in (target.text or ""):
        return
    for n in _variables_block_lines(target):
        for p in secret_variables(target.line_text(n)):
            yield Hit(n, f"{VARIABLE_SECRET}: {p.key}: {TOKEN}")


def _line_offsets(text: str) -> list[int]:
    offs = [0]
    find = text.find
    i = find("\n")
    while i >= 0:
        offs.append(i + 1)
        i = find("\n", i + 1)
    return offs


def candidate_lines(text: str, pattern: re.Pattern) -> list[int]:
    """1-based numbers of the lines where `pattern` matches, scanning the whole text once."""
    import bisect

    if not text:
        return []
    guard = _GUARDS.get(pattern)
    if guard is not None and not any(g in text for g in guard):
        return []
    matches = [m.start() for m in pattern.finditer(text)]
    if not matches:
        return []
    offs = _line_offsets(text)
    return sorted({bisect.bisect_right(offs, pos) for pos in matches})


#: substrings without which a pattern cannot match (a plain `in` test is much cheaper than a scan)
_GUARDS: dict = {}


@rule(
    "leaked-secret",
    severity="error",
    summary="A credential in a committed file: a `/t/<token>/` channel, `user:password@`, a token "
            "in a pip index URL, a secret in `variables:`.",
    description="""
        Private channels and package indexes are often written with their credentials in the
        URL: `https://conda.anaconda.org/t/<token>/my-channel`, `https://user:pass@pypi.example.org/simple`,
        `https://ghp_...@github.com/org/repo.git`, `...?token=...`.  Committed, the file hands the
        credential to everyone who can read the repository (and to its forks, CI logs and
        caches).  Comments are scanned too: a commented-out channel line leaks just as well.
        `variables:` (what `conda env config vars` sets on activation) is checked too: a variable
        whose name says it holds a credential (`HF_TOKEN`, `API_TOKEN`, `WANDB_API_KEY`,
        `AWS_SECRET_ACCESS_KEY`, `*PASSWORD*`, `*SECRET*`) must not have its value in the file.

        Not reported: environment-variable references (`${PIP_TOKEN}`), placeholders
        (`<TOKEN>`), user names without a password (`git+ssh://git@github.com/...`), variables
        that only name where a credential is (`HF_TOKEN_PATH`) or merely contain the word
        (`TOKENIZERS_PARALLELISM`).

        Fix: `--fix` replaces the credential with a placeholder (`<TOKEN>`, `<USER>:<PASSWORD>`);
        then revoke it, and supply it at install time (`conda token set`, `PIP_INDEX_URL`, a
        `.netrc`, or `${VAR}` references, which conda and pip expand), or for a variable set it
        on each machine (`conda env config vars set HF_TOKEN=...`) instead of in the file.
        """,
    example="""
        channels:
          - https://conda.anaconda.org/t/ab-12345678-abcd-1234-abcd-1234567890ab/my-private
          - conda-forge
        dependencies:
          - python=3.11
          - pip
          - pip:
            - --extra-index-url https://deploy:s3cr3t@pypi.example.org/simple
            - internal-tool==1.0
        variables:
          HF_TOKEN: hf_aBcDeFgHiJkLmNoPqRsTuVwXyZ012345
        """,
    example_fixed="""
        channels:
          - https://conda.anaconda.org/t/${ANACONDA_TOKEN}/my-private
          - conda-forge
        dependencies:
          - python=3.11
          - pip
          - pip:
            - --extra-index-url https://${PIP_USER}:${PIP_PASSWORD}@pypi.example.org/simple
            - internal-tool==1.0
        """,
    applies_to=("spec", "lock"),
    fixable=True,
    fix_summary="replaces the credential with a placeholder",
)
@raw_text_rule
def leaked_secret(target: Target, ctx: Context) -> Iterator[Hit]:
    text = target.text
    if not text:
        return
    for n in candidate_lines(text, _CANDIDATE):
        for s in find_secrets(target.line_text(n)):
            what = {"token": "an access token", "user:password": "a user name and password",
                    "query token": "a token"}[s.kind]
            yield Hit(n, f"{what} in a URL: {s.redacted}")
    yield from _variable_hits(target)


# --------------------------------------------------------------------------------------------
# leaked-prefix

_PREFIX_LINE = re.compile(r"^prefix\s*:\s*\S")
_HOME = re.compile(r"(?<![\w.~])(?:/home/|/Users/|[A-Za-z]:[\\/]{1,2}Users[\\/]{1,2})(?![<$%{~*])"
                   r"(?P<user>[^/\\\s'\"<>]+)")
_HOME_QUICK = re.compile(r"/home/|/Users/|:\\{1,2}Users\\")
_GUARDS[_HOME_QUICK] = ("/home/", "/Users/", "Users\\")
_GUARDS[_CANDIDATE] = ("/t/", "@", "?", "&")


@rule(
    "leaked-prefix",
    severity="warning",
    summary="A `prefix:` line or an absolute home path in a committed file.",
    description="""
        `conda env export` ends with `prefix: /home/alice/miniconda3/envs/project`.  That path
        exists on one machine only; it publishes a user name and directory layout, and
        `conda env create -f` uses it as the install location when no `-n`/`-p` is given, which
        fails (or writes into someone else's path) everywhere else.  Other absolute home paths
        (`/home/<user>/...`, `/Users/<user>/...`, `C:\\Users\\<user>\\...`), such as a local wheel or an
        editable install, have the same problem.

        Fix: `--fix` removes the `prefix:` line (conda then uses `-n`/`-p` or the `name:`); replace
        other home paths with relative paths or URLs.
        """,
    example="""
        name: analysis
        channels: [conda-forge, nodefaults]
        dependencies:
          - python=3.11
          - pip
          - pip:
            - /home/alice/src/mytool
        prefix: /home/alice/miniconda3/envs/analysis
        """,
    example_fixed="""
        name: analysis
        channels: [conda-forge, nodefaults]
        dependencies:
          - python=3.11
          - pip
          - pip:
            - ./src/mytool
        """,
    applies_to=("spec", "lock"),
    fixable=True,
    fix_summary="removes the `prefix:` line",
)
@raw_text_rule
def leaked_prefix(target: Target, ctx: Context) -> Iterator[Hit]:
    text = target.text
    if not text:
        return
    prefix_lines = set()
    if target.kind == "spec" and "prefix" in text:
        for n, line in enumerate(target.lines, 1):
            if line.startswith("prefix") and _PREFIX_LINE.match(line):
                prefix_lines.add(n)
                path = line.split(":", 1)[1].strip().strip("'\"")
                yield Hit(n, f"`prefix: {path}` is the path of one machine's environment; remove "
                             f"it (conda uses -n/-p or `name:` instead)")
    for n in candidate_lines(text, _HOME_QUICK):
        if n in prefix_lines:
            continue
        m = _HOME.search(target.line_text(n))
        if m:
            path = target.line_text(n)[m.start():].split()[0].strip("'\",")
            yield Hit(n, f"absolute home path {path} (user {m.group('user')}) only exists on one "
                         f"machine")
