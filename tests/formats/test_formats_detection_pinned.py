"""detect_format of every file under tests/data (the corpus, recorded answers, fixtures) is pinned:
the format registry may change how detection is written, never what it answers."""

from __future__ import annotations

import json

from conftest import DATA

from envkit.errors import EnvkitError
from envkit.formats import detect_format

PINNED = DATA / "detected-formats.json"


def _detected() -> dict[str, str | None]:
    out: dict[str, str | None] = {}
    for path in sorted(DATA.rglob("*")):
        if not path.is_file() or path == PINNED:
            continue
        try:
            text = path.read_bytes().decode("utf-8").removeprefix("\ufeff")
        except UnicodeDecodeError:
            continue  # not text (the UTF-16 exports): detected after decoding, elsewhere
        try:
            out[str(path.relative_to(DATA))] = detect_format(text, path.name)
        except EnvkitError:
            out[str(path.relative_to(DATA))] = None
    return out


def test_every_data_file_is_detected_as_pinned():
    pinned = json.loads(PINNED.read_text())
    detected = _detected()
    # files added later are pinned when the pin is refreshed; a pinned one must answer the same
    assert {k: detected.get(k, "missing") for k, v in pinned.items() if detected.get(k, "missing") != v} == {}
    assert len(pinned) >= 90
