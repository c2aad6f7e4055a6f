"""URL hygiene: find and redact credentials (anaconda.org `/t/<token>/`, `user:password@`, token
query parameters) in channel and package-index URLs."""

from __future__ import annotations

import re

# the placeholders, the secret-variable rule and URL redaction live in envkit.secrets; importable
# from here too
from envkit.secrets import (  # noqa: F401
    QUERY_SECRET,
    SCHEME_START,
    TOKEN,
    USERINFO,
    has_placeholder,
    is_placeholder_value,
    is_secret_name,
    is_secret_variable,
    redact_url,
)

# a token or its placeholder: both go when stripping; `//t/` is a host named t, not a token path
# (one character looked behind, which no removal changes: stripping twice strips nothing more)
_T_ANY = re.compile(r"(?<!/)/t/[^/\s]+(?=/)")
# the user part runs to the last `@` before the path (`https://a:b@c:d@host`: all of `a:b@c:d`, as
# urllib reads it); the scheme starts a run of scheme characters (see SCHEME_START): linear
_USERINFO = re.compile(SCHEME_START + r"(?P<scheme>[A-Za-z][A-Za-z0-9+.-]*://)[^/\s]*@")
#: text that starts with a URL's `scheme://` (`https://`, `git+ssh://`, `file://`)
SCHEME_PREFIX = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*://")
#: how pip's VCS URLs start (`git+https://host/repo.git@v1`)
VCS_PREFIXES = ("git+", "hg+", "svn+", "bzr+")
#: pip's `#egg=name` URL fragment (`&egg=` after another fragment key), the project it names
EGG_FRAGMENT = re.compile(r"[#&]egg=(?P<name>[A-Za-z0-9][A-Za-z0-9._-]*)")


def strip_credentials(url: str) -> str:
    """`url` with credentials removed entirely (no placeholder): for comparing and for base URLs.

    One pass removes them all (`strip_credentials(strip_credentials(u)) == strip_credentials(u)`):
    query secrets go first, then `/t/<token>` paths, then user parts, an order in which no
    removal can join the text around it into a credential an earlier step would have removed."""
    out = QUERY_SECRET.sub("", url)
    out = _T_ANY.sub("", out)
    return _USERINFO.sub(lambda m: m.group("scheme"), out)


def redact_variable(name: str, value: str) -> tuple[str, bool]:
    """Return the value of variable `name` with any credential replaced by a placeholder, and whether
    one was found: the whole value becomes `<TOKEN>` when the name looks secret
    (`is_secret_variable`); otherwise credentials in a URL value are redacted as `redact_url` does
    (`PIP_INDEX_URL=https://u:p@host/simple`)."""
    if is_secret_variable(name, value):
        return TOKEN, True
    if "://" in value:
        return redact_url(value)
    return value, False


def redact_variables(pairs) -> tuple[tuple[str, str], ...]:
    """`(name, value)` pairs, in their order, with every value passed through `redact_variable`."""
    return tuple((k, redact_variable(k, v)[0]) for k, v in pairs)
