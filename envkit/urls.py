"""URL hygiene: find and redact credentials (anaconda.org `/t/<token>/`, `user:password@`, token
query parameters) in channel and package-index URLs."""

from __future__ import annotations

import re

TOKEN = "<TOKEN>"
USERINFO = "<USER>:<PASSWORD>"

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
    `https://tok3n@host/simple` -> `https://<TOKEN>@host/simple`; `?token=x` -> `?token=<TOKEN>`.
    Environment-variable references (`${PIP_TOKEN}`, `$TOKEN`) and user names (`git@`) are kept.
    The rule is envkit.secrets' (what leaked-secret reports), so what is redacted is what is reported.
    """
    from envkit.secrets import redact_url as redact

    return redact(url)


def strip_credentials(url: str) -> str:
    """`url` with credentials removed entirely (no placeholder): for comparing and for base URLs."""
    out = _T_ANY.sub("", url)
    out = _USERINFO.sub(lambda m: m.group("scheme"), out)
    out = _QUERY_SECRET.sub("", out)
    return out


def has_placeholder(url: str) -> bool:
    """True when `url` holds a credential placeholder (an already redacted credential)."""
    return TOKEN in url or USERINFO in url


def _is_env_ref(text: str) -> bool:
    parts = re.split(r"[:]", text)
    return all(re.fullmatch(r"\$\{?[A-Za-z_][A-Za-z0-9_]*\}?", p) for p in parts if p)


# ---------------------------------------------------------------------------------------------
# Environment variables (`variables:`, `conda env config vars`) whose value is a credential

# A name part that says "credential": HF_TOKEN, API_TOKEN, WANDB_API_KEY, AWS_SECRET_ACCESS_KEY,
# DB_PASSWORD, PGPASSWORD, SERVICE_CREDENTIALS.  `TOKEN` must end a word (TOKENIZERS_PARALLELISM
# is not a secret); a bare `KEY` or `PWD` (the working directory) says nothing.
_SECRET_NAME = re.compile(
    r"PASSWORD|PASSWD|PASSPHRASE|SECRET|CREDENTIALS?|TOKENS?(?![A-Z])"
    r"|(?:API|ACCESS|PRIVATE|AUTH|SIGNING|ENCRYPTION|MASTER|LICENSE|SERVICE|ACCOUNT)_?KEY(?![A-Z])",
    re.IGNORECASE,
)
# ...unless the name says the value is only where the credential lives (HF_TOKEN_PATH)
_NOT_SECRET_SUFFIX = re.compile(r"_(?:PATH|FILE|DIR|DIRECTORY|HOME|LOCATION|NAME|CACHE)$", re.IGNORECASE)
# a value that is the path of a file holding the credential
# (`GOOGLE_APPLICATION_CREDENTIALS: ~/.config/gcloud/key.json`): no secret itself
_KEY_FILE = re.compile(
    r"(?:~|\.{1,2}|\$\{?[A-Za-z_][A-Za-z0-9_]*\}?|[A-Za-z]:)?[\\/][^\s]*\.(?:json|pem|key|p12|pfx|crt|txt|ya?ml|toml|ini|cfg)"
)
_TRIVIAL_VALUES = frozenset({"", "true", "false", "yes", "no", "on", "off", "none", "null", "0", "1"})


def is_secret_name(name: str) -> bool:
    """True when an environment variable's name says its value is a credential (`HF_TOKEN`,
    `WANDB_API_KEY`, `AWS_SECRET_ACCESS_KEY`, `*PASSWORD*`); False for `TOKENIZERS_PARALLELISM`,
    `HF_TOKEN_PATH` and the like."""
    return bool(_SECRET_NAME.search(name)) and not _NOT_SECRET_SUFFIX.search(name)


def is_placeholder_value(value: str) -> bool:
    """True for a value that holds no credential itself: empty, a boolean-like word, an
    environment-variable reference (`${HF_TOKEN}`, `$TOKEN`) or a placeholder (`<TOKEN>`, `***`)."""
    v = value.strip().strip("'\"").strip()
    if v.lower() in _TRIVIAL_VALUES:
        return True
    if _is_env_ref(v):
        return True
    if re.fullmatch(r"<[^<>\s]*>", v) or has_placeholder(v) or _KEY_FILE.fullmatch(v):
        return True
    return bool(re.fullmatch(r"\*+|x{3,}|X{3,}|\.{3,}", v))


def is_secret_variable(name: str, value: str) -> bool:
    """True when the variable `name=value` holds a credential in clear (a secret-looking name with a
    real value: not a `${VAR}` reference or a placeholder)."""
    return is_secret_name(name) and not is_placeholder_value(value)


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
