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
