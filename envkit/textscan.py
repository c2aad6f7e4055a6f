"""Line-finding in large texts: the lines a pattern matches on, found in one scan."""

from __future__ import annotations

import re


def find_all(text: str, needle: str, shift: int = 0) -> list[int]:
    """The offset of each occurrence of `needle` in `text`, plus `shift` (1 past a newline: where
    the next line starts, added in the loop rather than in a second pass over a large text)."""
    out = []
    find = text.find
    i = find(needle)
    while i >= 0:
        out.append(i + shift)
        i = find(needle, i + 1)
    return out


def line_offsets(text: str) -> list[int]:
    """The offset where each line of `text` starts."""
    return [0, *find_all(text, "\n", 1)]


def candidate_lines(text: str, pattern: re.Pattern, guard: tuple[str, ...] = ()) -> list[int]:
    """1-based numbers of the lines where `pattern` matches, scanning the whole text once; none
    without a scan when `guard` (substrings one of which every match holds) is given and the text
    holds none of them."""
    import bisect

    if not text:
        return []
    if guard and not holds_any(text, guard):
        return []
    matches = [m.start() for m in pattern.finditer(text)]
    if not matches:
        return []
    offs = line_offsets(text)
    return sorted({bisect.bisect_right(offs, pos) for pos in matches})


def holds_any(text: str, needles: tuple[str, ...]) -> bool:
    """Whether one of `needles` is in `text`.  A needle with a character the text lacks is ruled
    out by a scan for that one character (memchr, several times faster on a large text than a
    search for the needle); the characters present are found at their first occurrence."""
    return any(all(c in text for c in g) and g in text for g in needles)
