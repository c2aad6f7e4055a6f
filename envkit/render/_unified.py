"""A unified diff of two lists of lines: difflib's, with a bounded fallback where difflib's search
is quadratic.

difflib's recursion is quadratic on inputs with many short equal blocks (every 10th line of 35,000
changed), so its search gets a budget of index lookups linear in the input's size.  Inputs over
_EXACT_LINES lines, and those whose search runs over the budget, get the anchored (patience) search
that git's `--patience` uses: linear per level, and as readable a diff.
"""

from __future__ import annotations

from bisect import bisect_left
from collections import Counter
from difflib import Match, SequenceMatcher
from itertools import accumulate

_NO_NEWLINE = "\n\\ No newline at end of file\n"


class _OverBudget(Exception):
    """difflib's search would go on for longer than the input's size allows."""


class _Budget:
    """Index lookups difflib's searches may still make (shared by the searches of one diff)."""

    __slots__ = ("left",)

    def __init__(self, left: int) -> None:
        self.left = left


class _Blocks(SequenceMatcher):
    """difflib's opcodes and hunks from matching blocks found elsewhere."""

    def __init__(self, a: list[str], b: list[str], blocks: list[Match]) -> None:
        self.a, self.b = a, b  # no super().__init__: it would index b
        self.matching_blocks, self.opcodes = blocks, None


class _Budgeted(SequenceMatcher):
    """difflib.SequenceMatcher as difflib.unified_diff makes it, which gives up (_OverBudget) once
    its searches have looked at `budget` index entries."""

    def __init__(self, a: list[str], b: list[str], budget: _Budget) -> None:
        super().__init__(None, a, b)
        b2j: dict[str, list[int]] = vars(self)["b2j"]  # difflib's index of b (typeshed omits it)
        # the index entries a search over old lines [alo, ahi) looks at
        self._cost = list(accumulate((len(b2j.get(line, ())) for line in a), initial=0))
        self._budget = budget
        self._sizes = len(a), len(b)

    def find_longest_match(
        self, alo: int = 0, ahi: int | None = None, blo: int = 0, bhi: int | None = None
    ) -> Match:
        if ahi is None:
            ahi = self._sizes[0]
        self._budget.left -= self._cost[ahi] - self._cost[alo] + 1
        if self._budget.left < 0:
            raise _OverBudget
        return super().find_longest_match(alo, ahi, blo, self._sizes[1] if bhi is None else bhi)


#: inputs of more lines (both sides) get the anchored search without trying difflib's first
_EXACT_LINES = 20_000


def _matcher(a: list[str], b: list[str]) -> SequenceMatcher:
    """difflib's matcher, or (for inputs over _EXACT_LINES lines, and where difflib's search
    would run over its budget) one with the blocks of _anchored_blocks."""
    lines = len(a) + len(b)
    if lines <= _EXACT_LINES:
        # what difflib needs on real files (a 7,000-line conda-lock.yml whose every version is
        # requoted), with room to spare
        m = _Budgeted(a, b, _Budget(50 * lines + 200_000))
        try:
            m.get_matching_blocks()
            return m
        except _OverBudget:
            pass
    # difflib's search in the ranges without anchors: their lines repeat, and a few lookups
    # a line are what a readable diff of them needs
    return _Blocks(a, b, _anchored_blocks(a, b, _Budget(4 * lines + 50_000)))


def _anchored_blocks(a: list[str], b: list[str], budget: _Budget) -> list[Match]:
    """Matching blocks as patience diff finds them (linear per level, as git's `--patience`):
    the common head and tail of a range, then the lines that occur once in each side, kept
    where their order agrees (the longest increasing run of their new positions), and the same
    between each two of them.  A range without such a line gets difflib's search while the
    budget lasts, else stays unmatched (a `replace`)."""
    blocks: list[tuple[int, int, int]] = []
    todo = [(0, len(a), 0, len(b))]
    while todo:
        alo, ahi, blo, bhi = todo.pop()
        i, j = alo, blo
        while i < ahi and j < bhi and a[i] == b[j]:
            i, j = i + 1, j + 1
        if i > alo:
            blocks.append((alo, blo, i - alo))
        alo, blo = i, j
        i, j = ahi, bhi
        while i > alo and j > blo and a[i - 1] == b[j - 1]:
            i, j = i - 1, j - 1
        if i < ahi:
            blocks.append((i, j, ahi - i))
        ahi, bhi = i, j
        if alo == ahi or blo == bhi:
            continue
        sa, sb = a[alo:ahi], b[blo:bhi]
        if len(sa) == 1 or len(sb) == 1:  # one line against a range: its first match
            if len(sa) == 1 and sa[0] in sb:
                blocks.append((alo, blo + sb.index(sa[0]), 1))
            elif len(sb) == 1 and sb[0] in sa:
                blocks.append((alo + sa.index(sb[0]), blo, 1))
            continue
        common = set(sa).intersection(sb)
        if not common:
            continue  # nothing to match
        anchors = _unique_anchors(sa, sb, alo, blo, common)
        if anchors:
            pi, pj = alo, blo
            for i, j in anchors:
                todo.append((pi, i, pj, j))
                blocks.append((i, j, 1))
                pi, pj = i + 1, j + 1
            todo.append((pi, ahi, pj, bhi))
            continue
        try:
            found = _Budgeted(sa, sb, budget).get_matching_blocks()
        except _OverBudget:
            continue
        blocks.extend((alo + x, blo + y, k) for x, y, k in found if k)
    blocks.sort()
    merged: list[Match] = []
    for i, j, k in blocks:
        if merged and merged[-1].a + merged[-1].size == i and merged[-1].b + merged[-1].size == j:
            merged[-1] = Match(merged[-1].a, merged[-1].b, merged[-1].size + k)
        else:
            merged.append(Match(i, j, k))
    merged.append(Match(len(a), len(b), 0))
    return merged


def _unique_anchors(
    sa: list[str], sb: list[str], alo: int, blo: int, common: set[str]
) -> list[tuple[int, int]]:
    """The (i, j) of lines once in `sa` (the old lines from `alo` on) and once in `sb` (the new
    ones from `blo` on), of the lines `common` to both: the longest run of them whose order is
    the same on both sides (ties to the earliest)."""
    ca, cb = Counter(sa), Counter(sb)
    unique = {line for line in common if ca[line] == 1 and cb[line] == 1}
    if len(unique) <= 16:  # a few: list.index finds them at C speed
        pairs = sorted((alo + sa.index(line), blo + sb.index(line)) for line in unique)
    else:
        where = {line: j for j, line in enumerate(sb, blo) if line in unique}
        pairs = [(i, where[line]) for i, line in enumerate(sa, alo) if line in where]
    if not pairs:
        return []
    # longest increasing subsequence of the j's (patience sorting), with back links
    tops: list[int] = []  # j at the top of each pile
    top_at: list[int] = []  # index into pairs of that top
    back = [-1] * len(pairs)
    for n, (_, j) in enumerate(pairs):
        k = bisect_left(tops, j)
        back[n] = top_at[k - 1] if k else -1
        if k == len(tops):
            tops.append(j)
            top_at.append(n)
        else:
            tops[k], top_at[k] = j, n
    out = []
    n = top_at[-1]
    while n >= 0:
        out.append(pairs[n])
        n = back[n]
    out.reverse()
    return out


def _range(start: int, stop: int) -> str:
    """A hunk's `start,length` as difflib writes it."""
    length = stop - start
    if length == 1:
        return str(start + 1)
    return f"{start + 1 if length else start},{length}"


def _marked(lines: list[str], plain_newlines: bool) -> list[str]:
    """`lines` with difflib's `\\ No newline at end of file` after each line that does not end
    in LF.  The mapping is one-to-one (a line from splitlines holds no LF but at its end), so
    lines compare after it as before."""
    if plain_newlines:  # only the last line may lack its LF
        if lines and not lines[-1].endswith("\n"):
            return [*lines[:-1], lines[-1] + _NO_NEWLINE]
        return lines
    return [line if line.endswith("\n") else line + _NO_NEWLINE for line in lines]


def unified_diff_text(
    old: list[str], new: list[str], fromfile: str, tofile: str, *, plain_newlines: bool = False
) -> str:
    """`"".join(difflib.unified_diff(old, new, fromfile, tofile))` with a `\\ No newline at end
    of file` line after each line that lacks its LF; `plain_newlines` says LF is the only line
    separator in `old` and `new` (the common case, which needs no look at each line)."""
    a, b = _marked(old, plain_newlines), _marked(new, plain_newlines)
    out: list[str] = []
    for group in _matcher(a, b).get_grouped_opcodes(3):
        if not out:
            out.append(f"--- {fromfile}\n+++ {tofile}\n")
        out.append(f"@@ -{_range(group[0][1], group[-1][2])} +{_range(group[0][3], group[-1][4])} @@\n")
        for tag, i1, i2, j1, j2 in group:
            # every line ends in a line break, so "-".join(lines) puts "-" before each
            if tag == "equal":
                out.append(" " + " ".join(a[i1:i2]))
                continue
            if i1 < i2:
                out.append("-" + "-".join(a[i1:i2]))
            if j1 < j2:
                out.append("+" + "+".join(b[j1:j2]))
    return "".join(out)
