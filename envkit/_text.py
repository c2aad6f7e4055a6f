"""Small wording helpers shared by renderers, rules and commands (stdlib only)."""

from __future__ import annotations


def plural(n: int, word: str, many: str | None = None) -> str:
    """`1 file` / `2 files`: the count and the word, plural (`many`, else `word + "s"`) unless n == 1."""
    return f"{n} {word}" if n == 1 else f"{n} {many or word + 's'}"


def first_of(items: list[str], limit: int) -> str:
    """`a, b, c` - at most `limit` items, then `, ...`."""
    return ", ".join(items[:limit]) + (", ..." if len(items) > limit else "")


_UNREACHABLE = (
    "Name or service not known",
    "Temporary failure in name resolution",
    "nodename nor servname provided",
    "Connection refused",
    "Network is unreachable",
    "No route to host",
    "timed out",
    "NewConnectionError",
    "ConnectTimeoutError",
    "ProxyError",
    "Tunnel connection failed",
    "SSLError",
    "CERTIFICATE_VERIFY_FAILED",
    "error sending request",
    "dns error",
)
_HOST = (
    r"host='([^']+)'",
    r"\bhttps?://([A-Za-z0-9.-]+(?::\d+)?)",
)


def unreachable_hint(output: str) -> str | None:
    """The network hint for a program's output that says a host could not be reached (pip, rattler,
    conda, conda-lock), naming the host when the output does; None when the output is about
    something else (a hint about proxies would send the user looking in the wrong place)."""
    import re

    if not any(sign in output for sign in _UNREACHABLE):
        return None
    hosts = list(dict.fromkeys(m.group(1) for pattern in _HOST for m in re.finditer(pattern, output)))
    where = f"{', '.join(hosts[:3])} could not be reached" if hosts else "a host could not be reached"
    return (
        f"{where}: check the network, and for a proxy set HTTPS_PROXY / HTTP_PROXY (pip and "
        "py-rattler read them; conda reads proxy_servers in .condarc)"
    )
