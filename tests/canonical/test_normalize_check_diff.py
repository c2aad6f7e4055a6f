"""`envkit normalize --check`'s diff: difflib's, on the inputs users have; a valid diff, in linear
time, where difflib's search is quadratic."""

from __future__ import annotations

import difflib
import random
import re

import pytest
from conftest import corpus_files

import envkit.render._unified as unified
from envkit.io import read_text
from envkit.secrets import redact_document_line


def _difflib(old: list[str], new: list[str], fromfile: str = "a", tofile: str = "b") -> str:
    """What normalize --check printed before it had its own diff: difflib's lines, and the `\\ No
    newline at end of file` marker after a line without its LF."""
    return "".join(
        line if line.endswith("\n") else line + "\n\\ No newline at end of file\n"
        for line in difflib.unified_diff(old, new, fromfile, tofile)
    )


def _apply(old: list[str], diff: str) -> list[str]:
    """`old` patched by the unified `diff`, asserting each context and removed line."""
    out: list[str] = []
    pos = 0
    for line in diff.splitlines(keepends=True)[2:]:
        if line.startswith("@@"):
            start, length = re.match(r"@@ -(\d+)(?:,(\d+))? ", line).groups()
            start = int(start) - (length != "0")  # an empty range names the line before it
            out += old[pos:start]
            pos = start
        elif line[0] == " ":
            assert old[pos] == line[1:], (pos, line)
            out.append(old[pos])
            pos += 1
        elif line[0] == "-":
            assert old[pos] == line[1:], (pos, line)
            pos += 1
        else:
            assert line[0] == "+", line
            out.append(line[1:])
    return out + old[pos:]


def _random_pair(rnd: random.Random) -> tuple[list[str], list[str]]:
    n = rnd.choice([0, 1, 3, 10, 50, 250, 600])
    alphabet = rnd.choice([2, 5, 30, 1000])  # few symbols: "popular" lines past 200 lines
    old = [f"l{rnd.randrange(alphabet)}\n" for _ in range(n)]
    new = list(old)
    for _ in range(rnd.randrange(n // 3 + 4)):
        op = rnd.randrange(3)
        if op == 0 and new:
            del new[rnd.randrange(len(new))]
        elif op == 1:
            new.insert(rnd.randrange(len(new) + 1), f"l{rnd.randrange(alphabet)}\n")
        elif new:
            new[rnd.randrange(len(new))] = f"m{rnd.randrange(alphabet)}\n"
    if old and rnd.random() < 0.3:
        old[-1] = old[-1].rstrip("\n")
    if new and rnd.random() < 0.3:
        new[-1] = new[-1].rstrip("\n")
    return old, new


@pytest.mark.parametrize("seed", range(8))
def test_the_diff_is_difflibs_text(seed):
    rnd = random.Random(seed)
    for _ in range(150):
        old, new = _random_pair(rnd)
        plain = rnd.random() < 0.5
        if not plain and old:
            old[0] = old[0].rstrip("\n") + "\r"  # a lone CR ends a line too
        assert unified.unified_diff_text(old, new, "a", "b", plain_newlines=plain) == _difflib(old, new)


@pytest.mark.parametrize("seed", range(4))
def test_the_anchored_search_gives_a_diff_that_patches_old_into_new(seed, monkeypatch):
    monkeypatch.setattr(unified, "_EXACT_LINES", 0)
    rnd = random.Random(seed)
    for _ in range(150):
        old, new = _random_pair(rnd)
        old, new = [x.rstrip("\n") + "\n" for x in old], [x.rstrip("\n") + "\n" for x in new]
        diff = unified.unified_diff_text(old, new, "a", "b", plain_newlines=True)
        assert _apply(old, diff) == new
        assert (diff == "") == (old == new)


#: the lock files their own tools write, which normalize refuses to rewrite
OWNED = ("pixi.lock", "uv.lock")


@pytest.mark.parametrize(
    "path", [p for p in corpus_files() if not p.name.endswith(OWNED)], ids=lambda p: p.name
)
def test_normalize_check_prints_difflibs_diff_of_each_corpus_file(envkit_cli, path):
    normalized = envkit_cli("normalize", str(path))
    assert normalized.exit_code == 0, normalized.stderr
    raw = read_text(path, keep_bom=True)  # with its BOM and CR LFs, as --check reads it
    old = [redact_document_line(line) for line in raw.splitlines(keepends=True)]
    expected = _difflib(old, normalized.stdout.splitlines(keepends=True), str(path), f"{path} (normalized)")
    r = envkit_cli("normalize", "--check", str(path))
    assert (r.exit_code, r.stdout) == (1 if expected else 0, expected)


def _every_tenth_line_reindented(n: int) -> tuple[list[str], list[str]]:
    old = [f"    - pkg-{i:05d}=1.0\n" for i in range(n)]
    return old, [x.replace("    -", "  -") if i % 10 == 0 else x for i, x in enumerate(old)]


def _lookups(monkeypatch, old: list[str], new: list[str]) -> int:
    """Index entries the searches of one diff looked at (what its time is made of)."""
    seen = []
    search = unified._Budgeted.find_longest_match

    def counted(self, alo=0, ahi=None, blo=0, bhi=None):
        before = self._budget.left
        try:
            return search(self, alo, ahi, blo, bhi)
        finally:
            seen.append(before - self._budget.left)

    monkeypatch.setattr(unified._Budgeted, "find_longest_match", counted)
    diff = unified.unified_diff_text(old, new, "a", "b", plain_newlines=True)
    assert _apply(old, diff) == new
    assert diff.count("\n@@ ") == len(old) // 10  # nine equal lines part two changes
    return sum(seen)


def test_many_short_equal_blocks_cost_linear_time_not_difflibs_quadratic(monkeypatch):
    # difflib takes 35 s over 35,000 such lines: each search scans the rest of the file again
    small = _lookups(monkeypatch, *_every_tenth_line_reindented(4_000))
    large = _lookups(monkeypatch, *_every_tenth_line_reindented(8_000))
    assert large <= 2.2 * small, (small, large)
