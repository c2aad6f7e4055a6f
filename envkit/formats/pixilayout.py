"""pixi.lock's `packages:` list read without a YAML token stream, inside pixilock's one reader.

pixi (rattler_lock) writes a conda package's entry with its keys in one order, the fields of its
record (crates/rattler_lock/src/parse/models/v6/conda_package_data.rs); nearly every entry of a
lock looks like this:

  - conda: https://conda.anaconda.org/conda-forge/linux-64/bzip2-1.0.8-hda65f42_9.conda
    build_number: 9          (when the file name does not say it)
    noarch: python
    sha256: 0b75d45f0bba3e95dc693336fa51f40ea28c980131fec438afb7ce6118ed05f6
    md5: d2ffd7602c02f2b316fd921d39876885
    depends:
    - __glibc >=2.17,<3.0.a0
    constrains:
    - ...
    license: bzip2-1.0.6
    license_family: BSD
    purls: []
    size: 260182
    timestamp: 1771350215188
    python_site_packages_path: ...

`read_list` matches that layout with one regular expression per entry and gives the entry the
block-list loader gives (envkit.formats._blocklist.load_entries with pixilock's kept keys: the same
YamlMap, values and line numbers), each value one the YAML reader reads as the same text for
certain.  Any other entry (a pypi or source entry, another key, a value that is not plain text) is
read by load_entries, one at a time; the list is the same either way
(tests/formats/test_formats_blocklist.py proves it).
"""

from __future__ import annotations

import re

from envkit.formats import _blocklist
from envkit.formats._yaml import YamlList, YamlMap

_INT = r"(?:0|[1-9][0-9]*+)"  # a YAML int that is its decimal digits (no octal 0..., no sign)
_SAFE = _blocklist._safe_value(r"\n")  # a one-line value the reader takes (not kept: unchecked)
_ITEMS = rf"(?:  - {_SAFE}\n)++"
_ENTRY = re.compile(
    # the location: a URL is text for certain (a scheme, `://`, no white space, no trailing `:`)
    r"- conda: ([A-Za-z][A-Za-z0-9+.-]*+://[!-~]*[!-9;-~])\n"
    rf"(?:  build_number: ({_INT})\n)?"
    rf"(  noarch: {_SAFE}\n)?"  # not kept: only its line counts
    # hex digits with a letter other than b: never a YAML int (nor 0b binary)
    r"(?:  sha256: ((?=[0-9a-f]*[ac-f])[0-9a-f]{64})\n)?"
    r"(?:  md5: ((?=[0-9a-f]*[ac-f])[0-9a-f]{32})\n)?"
    rf"(?:  depends:\n((?:  - {_blocklist._WORD_ITEM}\n)++))?"
    # the keys the readers do not keep, in pixi's order, each at most once
    rf"(?:  constrains:\n{_ITEMS})?"
    rf"(?:  license: {_SAFE}\n)?"
    rf"(?:  license_family: {_SAFE}\n)?"
    rf"(?:  purls:(?: \[\]\n|\n{_ITEMS}))?"
    rf"(?:  size: {_INT}\n)?"
    rf"(?:  timestamp: {_INT}\n)?"
    rf"(?:  python_site_packages_path: {_SAFE}\n)?"
    r"(?! )"  # no other line of the entry
)

_new_map = dict.__new__
_new_list = list.__new__


def reader(kept: frozenset[str]):
    """The `read_list` of envkit.formats._blocklist.load_document for pixi.lock's `packages:` list,
    the entries holding the `kept` keys (those of the layout above must be among them)."""

    def read_list(text: str, pos: int) -> tuple[YamlList, int]:
        return _read_list(text, pos, kept)

    return read_list


def _read_list(text: str, pos: int, kept: frozenset[str]) -> tuple[YamlList, int]:
    """(the list whose first entry starts at offset `pos` of `text`; the offset where it ends), as
    envkit.formats._blocklist.load_entries gives them (Unsupported where it raises it)."""
    line = text.count("\n", 0, pos) + 1
    entries: YamlList = _new_list(YamlList)
    entries.line = line
    entry_lines: list[int] = []
    entries.lines = entry_lines
    append, append_line = entries.append, entry_lines.append
    match, count, end = _ENTRY.match, text.count, len(text)
    while pos < end:
        m = match(text, pos)
        if m is None:
            if not text.startswith("- ", pos):
                break
            one, stop = _blocklist.load_entries(text, pos, kept, line=line, limit=1)
            append(one[0])
            append_line(line)
            line += count("\n", pos, stop)
            pos = stop
            continue
        url, build_number, noarch, sha256, md5, depends = m.groups()
        entry: YamlMap = _new_map(YamlMap)
        entry.line = line
        entry.lines = lines = {"conda": line}
        entry["conda"] = url
        no = line + 1
        if build_number is not None:
            entry["build_number"] = int(build_number)
            lines["build_number"] = no
            no += 1
        if noarch is not None:
            no += 1
        if sha256 is not None:
            entry["sha256"] = sha256
            lines["sha256"] = no
            no += 1
        if md5 is not None:
            entry["md5"] = md5
            lines["md5"] = no
            no += 1
        if depends is not None:
            items: YamlList = _new_list(YamlList)
            items.extend(depends[4:-1].split("\n  - "))
            n = len(items)
            items.line = no + 1
            items.lines = list(range(no + 1, no + 1 + n))
            entry["depends"] = items
            lines["depends"] = no
        append(entry)
        append_line(line)
        stop = m.end()
        line += count("\n", pos, stop)
        pos = stop
    if not entries:
        raise _blocklist.Unsupported
    return entries, pos
