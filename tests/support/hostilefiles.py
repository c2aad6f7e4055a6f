"""Hostile inputs for every reader: files whose cost has no bound unless the reader bounds it.

Each entry: (file name, text).  The YAML ones are tiny (an alias inside the collection it names; an
alias bomb); the JSON and TOML ones nest 200,000 levels (`conda list --json`, pylock.toml, uv.lock).
"""

from __future__ import annotations

DEEP = 200_000

#: a billion laughs: 9 levels of 9 aliases each (387 million values once expanded)
_LAUGHS = "a0: &a0 [lol]\n" + "".join(
    f"a{i}: &a{i} [{', '.join([f'*a{i - 1}'] * 9)}]\n" for i in range(1, 10)
)

HOSTILE: dict[str, tuple[str, str]] = {
    "alias-cycle-env": ("environment.yml", "dependencies: &x\n  - *x\n"),
    "alias-cycle-conda-lock": ("conda-lock.yml", "version: 1\nmetadata: &x\n  m: *x\npackage: []\n"),
    "alias-cycle-pixi": ("pixi.lock", "version: 6\nenvironments: &x\n  default: *x\npackages: []\n"),
    "billion-laughs-env": ("environment.yml", "name: t\ndependencies: [python]\n" + _LAUGHS),
    "deep-json": ("conda-list.json", "[" * DEEP + "]" * DEEP),
    "deep-toml-arrays": ("pylock.toml", 'lock-version = "1.0"\nx = ' + "[" * DEEP + "]" * DEEP + "\n"),
    "deep-toml-tables": ("uv.lock", "version = 1\nx = " + "{a = " * DEEP + "1" + "}" * DEEP + "\n"),
}

#: the first line of the error each one gives (after `error: FILE:`)
_CYCLE = "YAML alias refers to the {} that holds it, which would never end; refused"
ERRORS = {
    "alias-cycle-env": "1: " + _CYCLE.format("sequence"),
    "alias-cycle-conda-lock": "2: " + _CYCLE.format("mapping"),
    "alias-cycle-pixi": "2: " + _CYCLE.format("mapping"),
    "billion-laughs-env": "1: YAML document expands to more than 2,000,000 values (alias bomb?); refused",
    "deep-json": "1: JSON nested more than 64 levels deep; refused",
    "deep-toml-arrays": "2: TOML (pylock.toml) nested more than 64 levels deep; refused",
    "deep-toml-tables": "2: TOML (uv.lock) nested more than 64 levels deep; refused",
}


def _lock_entry(name: str, version: str, url: str) -> str:
    """A conda-lock.yml of one conda package entry (its line is 8) with these values."""
    return (
        "version: 1\nmetadata:\n  content_hash: {}\n  channels: []\n  platforms: [linux-64]\n"
        "  sources: []\npackage:\n"
        f"- name: {name}\n  version: '{version}'\n  manager: conda\n  platform: linux-64\n"
        f"  dependencies: {{}}\n  url: {url}\n  hash:\n    md5: {'a' * 32}\n"
        "  category: main\n  optional: false\n"
    )


_ZLIB = "https://conda.anaconda.org/conda-forge/linux-64/zlib-1.3.1-h4ab18f5_1.conda"

#: Lock entries conda cannot link (issue 40: each ended in exit 3): (name, version, url) and the
#: key the error names.
BAD_LOCK_ENTRIES: dict[str, tuple[tuple[str, str, str], str]] = {
    "name-escapes": (("../../x", "1.3.1", _ZLIB), "name"),
    "version-escapes": (("zlib", "1.0/../..", _ZLIB), "version"),
    "url-not-an-archive": (("zlib", "1.3.1", "https://conda.anaconda.org/conda-forge/linux-64/"), "url"),
}
LOCK_TEXTS = {k: _lock_entry(*entry) for k, (entry, _key) in BAD_LOCK_ENTRIES.items()}

#: A 400 KB channel string (issue 40: quadratic in `urls.strip_credentials`, 30 s and more).
LONG_CHANNEL = "https://" + "a" * 400_000 + "/conda-forge"
LONG_CHANNEL_SCHEMES = "http:" * 80_000

#: `--hash` values that are not a digest pip can verify (`validate` accepted them; `create` not).
BAD_HASHES = ("sha256:abc", "sha256:" + "0" * 63, "sha256:" + "g" * 64, "md5:" + "0" * 32, "sha256:")

#: conda-meta records envkit refuses, here and over ssh alike: (record text, the error's start
#: after `FILE`).
BAD_RECORDS = {
    "truncated": (
        '{"name": "zlib", "version": "1.3.1", "bu',
        ": corrupt conda package record: invalid JSON: Unterminated string",
    ),
    "name-is-a-number": (
        '{"name": 5, "version": "1.3.1"}',
        " (name): corrupt conda package record: name must be a string, not a number",
    ),
}
