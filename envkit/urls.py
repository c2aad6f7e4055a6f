"""URL hygiene: find and redact credentials (anaconda.org `/t/<token>/`, `user:password@`, token
query parameters) in channel and package-index URLs."""
from __future__ import annotations

import re

TOKEN = "<TOKEN>"
USERINFO = "<USER>:<PASSWORD>"

_T_TOKEN = re.compile(r"/t/(?!<TOKEN>/)[^/\s]+(?=/)")
_T_ANY = re.compile(r"/t/[^/\s]+(?=/)")  # a token or its placeholder: both go when stripping
_USERINFO = re.compile(r"(?P<scheme>[A-Za-z][A-Za-z0-9+.-]*://)(?P<userinfo>[^/@\s]+)@")
_QUERY_SECRET = re.compile(
    r"(?P<key>[?&](?:token|access_token|auth|api_key|apikey|password|secret)=)(?P<value>[^&#\s]+)",
    re.IGNORECASE,
)


def redact_url(url: str) -> tuple[str, bool]:
    """Return `url` with every credential replaced by a placeholder, and whether one was found.

    `https://conda.anaconda.org/t/abc-123/chan` -> `https://conda.anaconda.org/t/<TOKEN>/chan`;
    `https://u:p@host/simple` -> `https://<USER>:<PASSWORD>@host/simple`;
    `https://tok@host/simple` -> `https://<TOKEN>@host/simple`; `?token=x` -> `?token=<TOKEN>`.
    Environment-variable references (`${PIP_TOKEN}`, `$TOKEN`) are not secrets and are kept.
    """
    found = False

    def t_sub(m: re.Match) -> str:
        nonlocal found
        if _is_env_ref(m.group(0)[3:]):
            return m.group(0)
        found = True
        return f"/t/{TOKEN}"

    def user_sub(m: re.Match) -> str:
        nonlocal found
        info = m.group("userinfo")
        if info in (USERINFO, TOKEN) or _is_env_ref(info):
            return m.group(0)
        found = True
        return m.group("scheme") + (USERINFO if ":" in info else TOKEN) + "@"

    def q_sub(m: re.Match) -> str:
        nonlocal found
        if m.group("value") == TOKEN or _is_env_ref(m.group("value")):
            return m.group(0)
        found = True
        return m.group("key") + TOKEN

    out = _T_TOKEN.sub(t_sub, url)
    out = _USERINFO.sub(user_sub, out)
    out = _QUERY_SECRET.sub(q_sub, out)
    return out, found


def strip_credentials(url: str) -> str:
    """`url` with credentials removed entirely (no placeholder): for comparing and for base URLs."""
    out = _T_ANY.sub("", url)
    out = _USERINFO.sub(lambda m: m.group("scheme"), out)
    out = _QUERY_SECRET.sub("", out)
    return out


def has_credentials(url: str) -> bool:
    return redact_url(url)[1]


def has_placeholder(url: str) -> bool:
    """True when `url` holds a credential placeholder (an already redacted credential)."""
    return TOKEN in url or USERINFO in url


def _is_env_ref(text: str) -> bool:
    parts = re.split(r"[:]", text)
    return all(re.fullmatch(r"\$\{?[A-Za-z_][A-Za-z0-9_]*\}?", p) for p in parts if p)
