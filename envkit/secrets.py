"""Secret detection and redaction: the one home of "is this a credential" for envkit.

`find_secrets(line)` finds the credentials of one line: in its URLs (anaconda.org `/t/<token>/`,
`user:password@`, a token user part `https://TOKEN@host/`, `?token=`) and the well-known token
formats wherever they stand (`ghp_...`, `hf_...`, `xoxb-...`, `pypi-AgE...`); `find_all_secrets`
adds percent-encoded URLs (a purl's `repository_url=https%3A%2F%2F...`); `secret_variables(line)`
the credentials in `KEY: value` pairs of a `variables:` mapping.  The leaked-secret rule reports
what they find, and `redact_text(text)` replaces exactly that with placeholders: normalize applies
it to what it writes, the CLI's output streams, the atomic file writer and the error family pass
everything through it, so what envkit redacts is what check reports, and no secret envkit can
detect is ever printed or written.  `redact_url` is the same rule for one URL.
"""

from __future__ import annotations

import re
from typing import NamedTuple

from envkit.textscan import candidate_lines, find_all, holds_any, line_offsets

# cheap pre-filter over the whole text: only lines matching it are looked at closely
_CANDIDATE = re.compile(
    r"/t/[^/\s]+/|://[^/\s@]+@|[?&](?:token|access_token|auth|api_key|apikey|password|secret)=", re.IGNORECASE
)
# A scheme starts where a run of scheme characters starts (the look-behind): an unanchored
# `[A-Za-z][A-Za-z0-9+.-]*://` would rescan a long run from each of its positions (quadratic).
SCHEME_START = r"(?<![A-Za-z0-9+.-])"
_URL = SCHEME_START + r"[A-Za-z][A-Za-z0-9+.-]*://[^\s'\"<>`]+"
_T_TOKEN = re.compile(r"/t/(?P<tok>[^/\s]+)/")
_BARE_QUERY = (
    r"(?i)(?P<key>[?&](?:token|access_token|auth|api_key|apikey|password|secret)=)(?P<v>[^&#\s'\"<>()]+)"
)
_ENVREF = r"^\$\{?[A-Za-z_][A-Za-z0-9_]*\}?$"
_TOKEN_PREFIXES = ("ghp_", "gho_", "ghs_", "ghu_", "github_pat_", "glpat-", "xox", "pypi-", "npm_", "hf_")
_PLACEHOLDERS = ("<TOKEN>", "<USER>", "<PASSWORD>", "***", "xxx", "XXX", "...")
# user names that stand without a password in real URLs (`git+https://git@github.com/...`) or that
# services pair with a token as the password: alone they hold nothing.  Any other user part
# without a password is taken for an access token (GitHub, GitLab and most indexes read
# `https://TOKEN@host/`): redacted and reported alike.
_SERVICE_USERS = frozenset(
    {"git", "oauth2", "__token__", "x-access-token", "gitlab-ci-token", "x-token-auth"}
)
# schemes whose user part is a login name (the key authenticates), never a token
_SSH_SCHEMES = ("ssh", "sftp", "scp")


class Secret(NamedTuple):
    url: str  # as written (a URL, or a bare token)
    redacted: str  # with every credential replaced by a placeholder
    kind: str  # "token", "user:password", "query token", or a bare token's label ("GitHub token")
    in_comment: bool = False


def _comment_start(line: str) -> int:
    """Index where a `#` comment starts (`#` at the start or after whitespace, outside quotes), or
    len(line).  A `#md5` fragment glued to a URL is not a comment."""
    if "#" not in line:  # most lines: no scan
        return len(line)
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
    return bool(re.match(_ENVREF, value)) or any(p in value for p in _PLACEHOLDERS) or value in ("", "token")


def userinfo_kind(scheme: str, info: str) -> str | None:
    """What the user part `info` of a `scheme://info@host` URL holds: "user:password", "token",
    or None (a user name, a placeholder, an environment-variable reference, an ssh login)."""
    if ":" in info:
        user, _, pw = info.partition(":")
        if pw and not _placeholder(pw):
            return "user:password"
        if not pw and not _placeholder(user) and _is_token(user):
            return "token"
        return None
    if any(s in scheme.lower() for s in _SSH_SCHEMES) or _placeholder(info):
        return None
    return "token" if _is_token(info) else None


def _is_token(info: str) -> bool:
    """A user part without a password that is an access token rather than a user name."""
    return info.startswith(_TOKEN_PREFIXES) or info.lower() not in _SERVICE_USERS


def t_token_kind(token: str) -> str | None:
    """ "token" when `token` of a `/t/<token>/` path is a credential (not a placeholder)."""
    return None if _placeholder(token) or re.match(_ENVREF, token) else "token"


def query_kind(value: str) -> str | None:
    """ "query token" when the value of a `?token=` (`&password=`, ...) parameter is a credential."""
    return None if _placeholder(value) else "query token"


def find_secrets(line: str) -> list[Secret]:
    """Every credential on one line of text (see leaked-secret's description): in its URLs and as
    a well-known token anywhere (`ghp_...`, `hf_...`, `xoxb-...`, in a comment too)."""
    out = []
    comment_at = _comment_start(line)
    spans: list[tuple[int, int]] = []
    for m in re.finditer(_URL, line):
        url = m.group(0).rstrip(".,;)")
        kinds = []
        um = _USERINFO.match(url)
        if um:
            kind = userinfo_kind(um.group("scheme"), um.group("info"))
            if kind:
                kinds.append(kind)
        tm = _T_TOKEN.search(url)
        if tm and t_token_kind(tm.group("tok")):
            host = url.split("://", 1)[1].split("/", 1)[0].lower()
            # `/t/<token>/` is anaconda.org's (and Anaconda Server's) token path; in a comment,
            # only trust it on an anaconda host (a forum link `.../t/topic/123` is not a token)
            if "anaconda" in host or m.start() < comment_at:
                kinds.append("token")
        qm = QUERY_SECRET.search(url)
        if qm and query_kind(qm.group("v")):
            kinds.append("query token")
        if kinds:
            out.append(Secret(url, redact_url(url)[0], kinds[0], m.start() >= comment_at))
            spans.append((m.start(), m.start() + len(url)))
    if "=" in line:
        # a query secret outside a full URL: tools print the path of a request alone (pip's retry
        # warning: `... connection broken by ...: /simple?token=SECRET/name/`)
        for m in re.finditer(_BARE_QUERY, line):
            if not any(a <= m.start() < b for a, b in spans) and query_kind(m.group("v")):
                out.append(Secret(m.group(0), m.group("key") + TOKEN, "query token", m.start() >= comment_at))
    if any(g in line for g in _BARE_GUARD):
        for m in re.finditer(_BARE_TOKEN, line):
            if any(a <= m.start() < b for a, b in spans):
                continue  # part of a URL reported above
            label = next(label for prefix, label in _BARE_LABELS if m.group(0).startswith(prefix))
            out.append(Secret(m.group(0), TOKEN, label, m.start() >= comment_at))
    return out


def may_hold_credentials(url: str) -> bool:
    """False when none of `redact_url`'s patterns can match `url` (most package URLs): it is then
    its own redaction."""
    return "/t/" in url or "@" in url or "?" in url or "&" in url or any(g in url for g in _BARE_GUARD)


def redact_url(url: str) -> tuple[str, bool]:
    """`url` with every credential replaced by a placeholder, and whether one was found (the rule of
    `find_secrets`, for one URL: `envkit.urls.redact_url` is this).

    `https://conda.anaconda.org/t/abc-123/chan` -> `https://conda.anaconda.org/t/<TOKEN>/chan`;
    `https://u:p@host/simple` -> `https://<USER>:<PASSWORD>@host/simple`;
    `https://tok3n@host/simple` -> `https://<TOKEN>@host/simple`; `?token=x` -> `?token=<TOKEN>`.
    Environment-variable references (`${PIP_TOKEN}`, `$TOKEN`) and user names (`git@`) are kept."""
    if not may_hold_credentials(url):
        return url, False
    # every placeholder differs from the credential it replaces (one that is already a
    # placeholder is kept), so a credential was found exactly where the text changed
    out = _T_TOKEN.sub(lambda m: f"/t/{TOKEN}/" if t_token_kind(m.group("tok")) else m.group(0), url)
    out = _USERINFO.sub(_userinfo_sub, out)
    out = QUERY_SECRET.sub(lambda m: m.group("key") + TOKEN if query_kind(m.group("v")) else m.group(0), out)
    if any(g in out for g in _BARE_GUARD):
        out = re.sub(_BARE_TOKEN, TOKEN, out)
    return out, out != url


def _userinfo_sub(m: re.Match) -> str:
    kind = userinfo_kind(m.group("scheme"), m.group("info"))
    if kind is None:
        return m.group(0)
    return f"{m.group('scheme')}://{USERINFO if kind == 'user:password' else TOKEN}@"


TOKEN = "<TOKEN>"
USERINFO = "<USER>:<PASSWORD>"
# the user part runs to the last `@` before the path: `https://a:b@c:d@host` holds `a:b@c:d`
_USERINFO = re.compile(SCHEME_START + r"(?P<scheme>[A-Za-z][A-Za-z0-9+.-]*)://(?P<info>[^/\s]*[^/@\s])@")
#: a credential in a URL's query: `?token=...`, `&password=...` (its `key=` and its value `v`)
QUERY_SECRET = re.compile(
    r"(?P<key>[?&](?:token|access_token|auth|api_key|apikey|password|secret)=)(?P<v>[^&#\s]+)",
    re.IGNORECASE,
)


# --------------------------------------------------------------------------------------------
# credentials in `variables:` values

_QUOTED = r"\"(?:[^\"\\]|\\.)*\"|'(?:[^']|'')*'"
_KEY = rf"(?P<key>{_QUOTED}|[A-Za-z_][A-Za-z0-9_.-]*)"
# `  HF_TOKEN: hf_abc  # comment` (a `#` glued to the value is part of it)
_BLOCK_PAIR = rf"^\s*{_KEY}\s*:[ \t]+(?P<val>{_QUOTED}|[^\s#\"'{{\[](?:.*?\S)?)(?:[ \t]+#.*)?\s*$"
# `variables: {HF_TOKEN: hf_abc, OMP_NUM_THREADS: 4}`
_FLOW_PAIR = rf"[{{,]\s*{_KEY}\s*:[ \t]+(?P<val>{_QUOTED}|[^\s,{{}}#\"'][^,{{}}]*?)\s*(?=[,}}])"


def has_placeholder(url: str) -> bool:
    """True when `url` holds a credential placeholder (an already redacted credential)."""
    return TOKEN in url or USERINFO in url


# ---------------------------------------------------------------------------------------------
# Environment variables (`variables:`, `conda env config vars`) whose value is a credential

# A name part that says "credential": HF_TOKEN, API_TOKEN, WANDB_API_KEY, AWS_SECRET_ACCESS_KEY,
# DB_PASSWORD, PGPASSWORD, SERVICE_CREDENTIALS.  `TOKEN` must end a word (TOKENIZERS_PARALLELISM
# is not a secret); a bare `KEY` or `PWD` (the working directory) says nothing.
_SECRET_NAME = (
    r"(?i)PASSWORD|PASSWD|PASSPHRASE|SECRET|CREDENTIALS?|TOKENS?(?![A-Z])"
    r"|(?:API|ACCESS|PRIVATE|AUTH|SIGNING|ENCRYPTION|MASTER|LICENSE|SERVICE|ACCOUNT)_?KEY(?![A-Z])"
)
# ...unless the name says the value is only where the credential lives (HF_TOKEN_PATH)
_NOT_SECRET_SUFFIX = r"(?i)_(?:PATH|FILE|DIR|DIRECTORY|HOME|LOCATION|NAME|CACHE)$"
# a value that is the path of a file holding the credential
# (`GOOGLE_APPLICATION_CREDENTIALS: ~/.config/gcloud/key.json`): no secret itself
_KEY_FILE = (
    r"(?:~|\.{1,2}|\$\{?[A-Za-z_][A-Za-z0-9_]*\}?|[A-Za-z]:)?[\\/][^\s]*"
    r"\.(?:json|pem|key|p12|pfx|crt|txt|ya?ml|toml|ini|cfg)"
)
_TRIVIAL_VALUES = frozenset({"", "true", "false", "yes", "no", "on", "off", "none", "null", "0", "1"})


def is_secret_name(name: str) -> bool:
    """True when an environment variable's name says its value is a credential (`HF_TOKEN`,
    `WANDB_API_KEY`, `AWS_SECRET_ACCESS_KEY`, `*PASSWORD*`); False for `TOKENIZERS_PARALLELISM`,
    `HF_TOKEN_PATH` and the like."""
    return bool(re.search(_SECRET_NAME, name)) and not re.search(_NOT_SECRET_SUFFIX, name)


def is_placeholder_value(value: str) -> bool:
    """True for a value that holds no credential itself: empty, a boolean-like word, an
    environment-variable reference (`${HF_TOKEN}`, `$TOKEN`) or a placeholder (`<TOKEN>`, `***`)."""
    v = value.strip().strip("'\"").strip()
    if v.lower() in _TRIVIAL_VALUES or all(re.fullmatch(_ENVREF, p) for p in v.split(":") if p):
        return True
    if re.fullmatch(r"<[^<>\s]*>", v) or has_placeholder(v) or re.fullmatch(_KEY_FILE, v):
        return True
    return bool(re.fullmatch(r"\*+|x{3,}|X{3,}|\.{3,}", v))


def is_secret_variable(name: str, value: str) -> bool:
    """True when the variable `name=value` holds a credential in clear (a secret-looking name with a
    real value: not a `${VAR}` reference or a placeholder)."""
    return is_secret_name(name) and not is_placeholder_value(value)


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
        return [
            VariablePair(_unquote(m.group("key")), _unquote(m.group("val")), m.start("val"), m.end("val"))
            for m in re.finditer(_FLOW_PAIR, line)
        ]
    m = re.match(_BLOCK_PAIR, line)
    if m is None:
        return []
    return [VariablePair(_unquote(m.group("key")), _unquote(m.group("val")), m.start("val"), m.end("val"))]


def secret_variables(line: str) -> list[VariablePair]:
    """The pairs of `variable_pairs(line)` whose value is a credential (is_secret_variable)."""
    return [p for p in variable_pairs(line) if is_secret_variable(p.key, p.value)]


def redact_variable_line(line: str) -> str:
    """`line` with the value of every secret variable on it replaced by `<TOKEN>` (quotes kept)."""
    for p in reversed(secret_variables(line)):
        written = line[p.start : p.end]
        new = f"{written[0]}{TOKEN}{written[0]}" if written[:1] in ("'", '"') else TOKEN
        line = line[: p.start] + new + line[p.end :]
    return line


#: substrings without which a pattern cannot match (a plain `in` test is much cheaper than a scan)
# "://", not "@": a user part is only a candidate after a scheme, and "@" alone is in every
# `@@` line of a diff and every e-mail address
_CANDIDATE_GUARD = ("/t/", "://", "?", "&")


# --------------------------------------------------------------------------------------------
# redaction of any text: the choke point every printed or written byte passes

#: Well-known access-token formats, redacted wherever they stand (not only in a URL): PyPI API
#: tokens (`pypi-AgE...`, a macaroon), GitHub, GitLab, Hugging Face, Slack and npm tokens.
_BARE_TOKEN = (
    r"(?<![A-Za-z0-9_-])(?:pypi-AgE[A-Za-z0-9_-]{16,}|gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,}"
    r"|glpat-[A-Za-z0-9_-]{20,}|hf_[A-Za-z0-9]{20,}|xox[abprs]-[A-Za-z0-9-]{10,}|npm_[A-Za-z0-9]{20,})"
)
_BARE_GUARD = ("pypi-AgE", "gh", "github_pat_", "glpat-", "hf_", "xox", "npm_")
_BARE_LABELS = (
    ("pypi-", "PyPI token"),
    ("gh", "GitHub token"),
    ("github_pat_", "GitHub token"),
    ("glpat-", "GitLab token"),
    ("hf_", "Hugging Face token"),
    ("xox", "Slack token"),
    ("npm_", "npm token"),
)


#: a URL percent-encoded into another value (a purl's `repository_url=https%3A%2F%2F...`)
_ENCODED_URL = "(?i)" + SCHEME_START + r"[A-Za-z][A-Za-z0-9+.-]*%3A%2F%2F[A-Za-z0-9%._~!$'()*+,;=:@/-]+"
_ENCODED_GUARD = ("%3A%2F%2F", "%3a%2f%2f")


def _find_encoded(line: str) -> list[Secret]:
    """Credentials in percent-encoded URLs on `line`, each with its redaction encoded the same way."""
    from urllib.parse import quote, unquote

    out = []
    for m in re.finditer(_ENCODED_URL, line):
        encoded = m.group(0)
        decoded = unquote(encoded)
        found = find_secrets(decoded)
        if not found:
            continue
        redacted = decoded
        for sec in found:
            redacted = redacted.replace(sec.url, sec.redacted)
        safe = "".join(dict.fromkeys(c for c in encoded if not c.isalnum() and c != "%"))
        out.append(Secret(encoded, quote(redacted, safe=safe), found[0].kind + " (percent-encoded)"))
    return out


def find_all_secrets(line: str) -> list[Secret]:
    """`find_secrets(line)` plus the credentials of percent-encoded URLs on it."""
    out = find_secrets(line)
    if any(g in line for g in _ENCODED_GUARD) or ("%" in line and "%3A%2F%2F" in line.upper()):
        out += _find_encoded(line)
    return out


#: what a line must hold to be looked at closely, all shapes together
_ANY_CANDIDATE_TEXT = (
    _CANDIDATE.pattern + r"|pypi-AgE|gh[pousr]_|github_pat_|glpat-|hf_|xox[abprs]-|npm_|%3A%2F%2F"
)
_ANY_CANDIDATE = "(?i)" + _ANY_CANDIDATE_TEXT
#: the same, case-sensitive, for lowered ASCII text (its only escape, \s, has no case): on ASCII
#: the two match at the same places, and without re.IGNORECASE the engine skips ahead to a
#: possible first character (which matters on a large report)
_ANY_CANDIDATE_LOWER = re.compile(_ANY_CANDIDATE_TEXT.lower())
_ANY_GUARD = (*_CANDIDATE_GUARD, *_BARE_GUARD, "%3A", "%3a")


#: a literal of each branch of _ANY_CANDIDATE_LOWER, which every match of that branch holds (a
#: user part needs its `@`, a query token its `?` or `&`)
_ANY_LITERALS = (
    "/t/",
    "@",
    "?",
    "&",
    "pypi-age",
    "gh",
    "github_pat_",
    "glpat-",
    "hf_",
    "xox",
    "npm_",
    "%3a%2f",
)


def secret_lines(text: str) -> list[int]:
    """1-based numbers of the lines of `text` that may hold a credential (`find_all_secrets`):
    those where the candidate pattern matches.  In ASCII text it is tried on the lines that hold
    one of its literals (str.find), not at every character: on a multi-megabyte lock the scan of
    the whole text with the pattern's dozen branches is most of `check`'s time."""
    if not text or not text.isascii():
        return candidate_lines(text, re.compile(_ANY_CANDIDATE), _ANY_GUARD)
    import bisect

    low = text.lower()  # lowered, the same places match without re.IGNORECASE (see redact_text)
    at = [i for literal in _ANY_LITERALS for i in find_all(low, literal)]
    if not at:
        return []
    offs = line_offsets(text)
    ends = [*offs[1:], len(text)]
    search = _ANY_CANDIDATE_LOWER.search
    lines = sorted({bisect.bisect_right(offs, i) for i in at})
    return [n for n in lines if search(low, offs[n - 1], ends[n - 1]) is not None]


def redact_line(line: str) -> str:
    """One line with every credential `find_all_secrets` finds in it replaced by its placeholder."""
    for secret in find_all_secrets(line):
        line = line.replace(secret.url, secret.redacted)
    return line


def redact_text(text: str) -> str:
    """`text` with every credential envkit detects replaced by a placeholder (`<TOKEN>`,
    `<USER>:<PASSWORD>`); text without one comes back unchanged (the same object).

    Only lines the cheap candidate scan selects are looked at closely, so this is linear in the
    text and fast when nothing is found.  Idempotent."""
    if not text or not holds_any(text, _ANY_GUARD):
        return text
    pieces: list[str] = []
    last = 0
    # str.isascii() is O(1): CPython keeps the flag
    scan = (
        _ANY_CANDIDATE_LOWER.finditer(text.lower()) if text.isascii() else re.finditer(_ANY_CANDIDATE, text)
    )
    for m in scan:
        if m.start() < last:
            continue  # on a line already redacted
        start = text.rfind("\n", 0, m.start()) + 1
        end = text.find("\n", m.end())
        end = len(text) if end < 0 else end
        pieces.append(text[last:start])
        pieces.append(redact_line(text[start:end]))
        last = end
    if not pieces:
        return text
    pieces.append(text[last:])
    out = "".join(pieces)
    return out if out != text else text


def redact_document_line(line: str) -> str:
    """`redact_line` plus the values of secret `KEY: value` pairs (`HF_TOKEN: hf_...`) on the
    line, wherever it stands: for showing a file's own lines (a diff's `-` side)."""
    line = redact_line(line)
    if ":" in line:
        body = line.rstrip("\r\n")
        line = redact_variable_line(body) + line[len(body) :]
    return line
