"""conda-lock.yml's `package:` list read without a YAML tree, inside condalock's one reader.

conda-lock (and envkit) write the `package:` list, nearly all of a lock's text, in one layout
(older conda-lock writes the same keys sorted, `category:` first, and is read the same way):

  - name: numpy
    version: 1.26.4
    manager: conda
    platform: linux-64
    dependencies:            (or `dependencies: {}`)
      libblas: '>=3.9.0,<4.0a0'
    url: https://conda.anaconda.org/conda-forge/linux-64/numpy-1.26.4-py311h64a7726_0.conda
    hash:                    (or `hash: {}`)
      md5: a502d7aad449a1206efb366d6a12c52d
      sha256: 3f4365e11b28e244c95ba8579942b0802761ba7bb31c026f50d1a9ea9c728149
    category: main
    optional: false

`read_list` matches that layout with one regular expression per package and gives its fields to
condalock's one record builder (`package_record`): no YAML tree, no per-package dict, each scalar
converted once by the fast YAML reader's rules (versions, specs, platforms repeat).  From the first
entry that is not in it (another key order, as older conda-lock writes, a value that is not plain
text, a key conda-lock does not write) the list is loaded as YAML values
(envkit.formats._blocklist), which condalock turns into records through the same builder; a
document outside both layouts is loaded as YAML whole.  The Lock is the same whichever way an entry
was read, line numbers included (tests/formats/test_formats_blocklist.py proves it).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from operator import itemgetter

from envkit.formats import _blocklist
from envkit.formats._fastyaml import Unsupported, is_not_text, plain_text, text_value
from envkit.formats._yaml import YamlList
from envkit.formats.condalock import package_record
from envkit.model import LockedPackage

_V = r"([^ \n][^\n]*)\n"  # a one-line value; what it means is up to _fastyaml.text_value
_MAP4 = r"((?:    [^ \n][^\n]*\n)+)"  # a block mapping at indent 4, read by _MAP4_ENTRY
#: each key's line(s) as conda-lock writes them, its groups in the order _package takes them
_LINES = {
    "name": ("name: " + _V, ("name",)),
    "version": ("version: " + _V, ("version",)),
    "manager": ("manager: (conda|pip)\n", ("manager",)),
    "platform": ("platform: " + _V, ("platform",)),
    "dependencies": (r"dependencies:(?: \{\}\n|\n" + _MAP4 + ")", ("dependencies",)),
    "url": ("url: " + _V, ("url",)),
    "hash": (
        r"hash:(?: \{\}\n|\n(?:    md5: " + _V + r")?    sha256: " + _V + r"(?=  [^ ])|\n" + _MAP4 + ")",
        ("md5", "sha256", "hash"),
    ),
    "category": ("category: " + _V, ("category",)),
    "optional": ("optional: (true|false)\n", ("optional",)),
}
_GROUPS: tuple[str, ...] = ("name", "version", "manager", "platform", "dependencies", "url")
_GROUPS += ("md5", "sha256", "hash", "category", "optional")


def _layout(keys: tuple[str, ...]) -> tuple[re.Pattern[str], tuple[int, ...]]:
    """(the pattern of an entry whose keys are written in the order `keys`, where each of its groups
    goes in the order _package takes them)."""
    pattern = "- " + "  ".join(_LINES[k][0] for k in keys)
    order = [g for k in keys for g in _LINES[k][1]]
    return re.compile(pattern), tuple(order.index(g) for g in _GROUPS)


#: the layouts conda-lock writes: its schema's key order (conda-lock 2 and later, and envkit), and
#: every key sorted, as older conda-lock writes them
_PACKAGE, _ = _layout(tuple(_LINES))
_SORTED, _SORTED_ORDER = _layout(tuple(sorted(_LINES)))
_MAP4_ENTRY = re.compile(r"^    ([A-Za-z0-9_][A-Za-z0-9_.\-/]*): ([^ \n][^\n]*)$", re.MULTILINE)

#: (key, text) pairs of a block mapping (a package's dependencies or hashes)
Pairs = tuple[tuple[str, str], ...]


def read_list(text: str, pos: int) -> tuple[YamlList, int]:
    """(the `package:` list whose first entry starts at offset `pos` of `text`, which ends in a
    newline; the offset where it ends), as envkit.formats._blocklist.load_document asks of a list
    reader: each entry in the layout above as its record, the rest of the list, from the first entry
    that is not, as the block-list loader's YAML values (Unsupported when those are outside its
    layout too: then the whole document is read as YAML)."""
    values: dict[str, str] = {}  # raw scalar -> its text; versions, specs, platforms repeat
    maps: dict[str, Pairs] = {}  # raw block -> its pairs; noarch packages repeat per platform
    convert, pairs = _converters(values, maps)
    get, get_pairs = values.get, maps.get
    match, sorted_match, count = _PACKAGE.match, _SORTED.match, text.count
    order = itemgetter(*_SORTED_ORDER)
    line = count("\n", 0, pos) + 1
    out: YamlList = list.__new__(YamlList)
    out.line = line
    lines: list[int] = []
    out.lines = lines
    append, append_line = out.append, lines.append
    while True:
        m = match(text, pos)
        if m is not None:
            groups = m.groups()
        else:
            m = sorted_match(text, pos)
            if m is None:
                break
            groups = order(m.groups())
        if text.startswith("  ", m.end()):
            break  # more keys than conda-lock writes: read as YAML values
        try:
            p = _package(groups, line, get, convert, get_pairs, pairs)
        except Unsupported:  # a value that is not plain text, a duplicate key: read as YAML values
            break
        append(p)
        append_line(line)
        line += count("\n", pos, m.end())
        pos = m.end()
    if text.startswith("- ", pos):
        rest, pos = _blocklist.load_entries(text, pos)
        out += rest
        lines += rest.lines
    if not out:
        raise Unsupported
    return out, pos


def _converters(
    values: dict[str, str], maps: dict[str, Pairs]
) -> tuple[Callable[[str], str], Callable[[str], Pairs]]:
    """(the text of a raw scalar, the pairs of a raw block mapping), each remembered in `values` /
    `maps` once converted."""
    get = values.get

    def convert(raw: str) -> str:
        value = values[raw] = text_value(raw)
        return value

    def key(k: str) -> str:
        if is_not_text(k):
            raise Unsupported
        values[k] = k  # a plain key that is text reads as itself
        return k

    def pairs(block: str) -> Pairs:
        found = _MAP4_ENTRY.findall(block)
        if len(found) != block.count("\n"):
            raise Unsupported  # a line that is not `key: value` at indent 4
        out = tuple((k if k in values else key(k), get(v) or convert(v)) for k, v in found)
        if len(out) > 1 and len({k for k, _ in out}) != len(out):
            raise Unsupported  # a duplicate key: the tree reader reports it
        maps[block] = out
        return out

    return convert, pairs


def _package(
    groups: tuple,
    line: int,
    get: Callable[[str], str | None],
    convert: Callable[[str], str],
    get_pairs: Callable[[str], Pairs | None],
    pairs: Callable[[str], Pairs],
) -> LockedPackage:
    """The package of one match of _PACKAGE, on `line`."""
    (
        r_name,
        r_version,
        manager,
        r_platform,
        r_deps,
        r_url,
        r_md5,
        r_sha256,
        r_hash,
        r_category,
        optional,
    ) = groups
    # names, URLs and hashes are mostly unique: checked, not remembered
    name = r_name if plain_text(r_name) else get(r_name) or convert(r_name)
    version = get(r_version) or convert(r_version)
    platform = get(r_platform) or convert(r_platform)
    url = r_url if plain_text(r_url) else get(r_url) or convert(r_url)
    category = get(r_category) or convert(r_category)
    depends = () if r_deps is None else get_pairs(r_deps) or pairs(r_deps)
    md5: str | None
    sha256: str | None
    if r_hash is not None:
        h = dict(get_pairs(r_hash) or pairs(r_hash))
        md5, sha256 = h.get("md5"), h.get("sha256")
    elif r_sha256 is not None:
        md5 = None if r_md5 is None else r_md5 if plain_text(r_md5) else get(r_md5) or convert(r_md5)
        sha256 = r_sha256 if plain_text(r_sha256) else get(r_sha256) or convert(r_sha256)
    else:  # hash: {}
        md5 = sha256 = None
    return package_record(
        name, version, manager, platform, depends, url, md5, sha256, category, optional == "true", line
    )
