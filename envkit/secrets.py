"""Secret detection and redaction: the one home of "is this a credential" for envkit.

`find_secrets(line)` finds credentials in the URLs of one line (anaconda.org `/t/<token>/`,
`user:password@`, a token user part, `?token=`), `secret_variables(line)` the credentials in
`KEY: value` pairs of a `variables:` mapping; the leaked-secret rule reports what they find.
`redact_text(text)` replaces every credential in any text with a placeholder: normalize applies
it to what it writes, the CLI's output streams, the atomic file writer and the error family pass
everything through it, so no secret envkit can detect is ever printed or written.
"""

from __future__ import annotations

import re
from typing import NamedTuple

# cheap pre-filter over the whole text: only lines matching it are looked at closely
_CANDIDATE = re.compile(
    r"/t/[^/\s]+/|://[^/\s@]+@|[?&](?:token|access_token|auth|api_key|apikey|password|secret)=", re.IGNORECASE
)
_URL = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*://[^\s'\"<>`]+")
_USERINFO = re.compile(r"^(?P<scheme>[A-Za-z][A-Za-z0-9+.-]*)://(?P<info>[^/@\s]+)@")
_T_TOKEN = re.compile(r"/t/(?P<tok>[^/\s]+)/")
_QUERY = re.compile(
    r"[?&](?:token|access_token|auth|api_key|apikey|password|secret)=(?P<v>[^&#\s]+)", re.IGNORECASE
)
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
        return [
            VariablePair(_unquote(m.group("key")), _unquote(m.group("val")), m.start("val"), m.end("val"))
            for m in _FLOW_PAIR.finditer(line)
        ]
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
        written = line[p.start : p.end]
        new = f"{written[0]}{TOKEN}{written[0]}" if written[:1] in ("'", '"') else TOKEN
        line = line[: p.start] + new + line[p.end :]
    return line


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
_GUARDS[_CANDIDATE] = ("/t/", "@", "?", "&")


# --------------------------------------------------------------------------------------------
# redaction of any text: the choke point every printed or written byte passes

#: Well-known access-token formats, redacted wherever they stand (not only in a URL): PyPI API
#: tokens (`pypi-AgE...`, a macaroon), GitHub, GitLab, Hugging Face, Slack and npm tokens.
_BARE_TOKEN = re.compile(
    r"(?<![A-Za-z0-9_-])(?:pypi-AgE[A-Za-z0-9_-]{16,}|gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,}"
    r"|glpat-[A-Za-z0-9_-]{20,}|hf_[A-Za-z0-9]{20,}|xox[abprs]-[A-Za-z0-9-]{10,}|npm_[A-Za-z0-9]{20,})"
)
_BARE_GUARD = ("pypi-AgE", "gh", "github_pat_", "glpat-", "hf_", "xox", "npm_")


def redact_line(line: str) -> str:
    """One line with every credential `find_secrets` finds in it replaced by its placeholder."""
    for secret in find_secrets(line):
        line = line.replace(secret.url, secret.redacted)
    return line


def redact_text(text: str) -> str:
    """`text` with every credential envkit detects replaced by a placeholder (`<TOKEN>`,
    `<USER>:<PASSWORD>`); text without one comes back unchanged (the same object).

    Only lines the cheap candidate scan selects are looked at closely, so this is linear in the
    text and fast when nothing is found.  Idempotent."""
    if not text:
        return text
    out = text
    if "://" in text and any(g in text for g in _GUARDS[_CANDIDATE]):
        pieces: list[str] = []
        last = 0
        for m in _CANDIDATE.finditer(text):
            if m.start() < last:
                continue  # on a line already redacted
            start = text.rfind("\n", 0, m.start()) + 1
            end = text.find("\n", m.end())
            end = len(text) if end < 0 else end
            pieces.append(text[last:start])
            pieces.append(redact_line(text[start:end]))
            last = end
        if pieces:
            pieces.append(text[last:])
            out = "".join(pieces)
    if any(g in out for g in _BARE_GUARD):
        out = _BARE_TOKEN.sub("<TOKEN>", out)
    return out if out != text else text


def redact_document_line(line: str) -> str:
    """`redact_line` plus the values of secret `KEY: value` pairs (`HF_TOKEN: hf_...`) on the
    line, wherever it stands: for showing a file's own lines (a diff's `-` side)."""
    line = redact_line(line)
    if ":" in line:
        body = line.rstrip("\r\n")
        line = redact_variable_line(body) + line[len(body) :]
    return line
