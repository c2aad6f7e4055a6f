"""Host-list expressions, as Slurm and ClusterShell write them: `node[001-128]`, `node[1-3,7]`,
`rack[1-2]-n[01-04]`, `gpu[01-16/2]`, joined by commas at the top level (`login1,node[1-4]`).

A bracket holds comma-separated numbers and ranges `A-B` (optionally `/STEP`); the width of `A`
sets the zero padding (`[001-128]` gives node001 ... node128), as in ClusterShell's NodeSet
(https://clustershell.readthedocs.io/en/latest/tools/nodeset.html) and Slurm's hostlist
(https://slurm.schedmd.com/srun.html#OPT_nodelist).  Several brackets in one name expand as a
cartesian product, left to right.
"""

from __future__ import annotations

from envkit.errors import UsageError

#: More hosts than this in one expression is a typo (`node[1-100000]`), not a cluster.
MAX_HOSTS = 100_000


def expand(text: str, *, where: str | None = None) -> list[str]:
    """The host names of a host-list expression, in the order written (duplicates kept: the caller
    reports them).  Raises UsageError naming the expression, the offending part and a caret under
    it for an unclosed bracket, a range written backwards, a non-number or an empty element."""
    hosts: list[str] = []
    for start, part in _top_level(text, where):
        hosts.extend(_expand_one(text, part, start, where))
        if len(hosts) > MAX_HOSTS:
            raise _error(text, start, f"expands to more than {MAX_HOSTS:,} hosts", where)
    return hosts


def is_expression(text: str) -> bool:
    """Whether `text` uses host-list syntax (a bracket or a top-level comma)."""
    return "[" in text or "]" in text or "," in text


def _top_level(text: str, where: str | None) -> list[tuple[int, str]]:
    """(offset, part) of each comma-separated part outside brackets."""
    parts: list[tuple[int, str]] = []
    depth = 0
    start = 0
    for i, ch in enumerate(text):
        if ch == "[":
            if depth:
                raise _error(text, i, "brackets do not nest", where)
            depth = 1
        elif ch == "]":
            if not depth:
                raise _error(text, i, "a `]` without its `[`", where)
            depth = 0
        elif ch == "," and not depth:
            parts.append((start, text[start:i]))
            start = i + 1
    if depth:
        raise _error(text, text.rindex("["), "a `[` that is never closed", where)
    parts.append((start, text[start:]))
    for off, part in parts:
        if not part.strip():
            raise _error(text, off, "an empty host name", where)
    return parts


def _expand_one(text: str, part: str, offset: int, where: str | None) -> list[str]:
    names = [""]
    i = 0
    while i < len(part):
        j = part.find("[", i)
        if j < 0:
            names = [n + part[i:] for n in names]
            break
        k = part.index("]", j)
        prefix = part[i:j]
        values = _bracket(text, part[j + 1 : k], offset + j + 1, where)
        names = [n + prefix + v for n in names for v in values]
        if len(names) > MAX_HOSTS:
            raise _error(text, offset, f"expands to more than {MAX_HOSTS:,} hosts", where)
        i = k + 1
    return names


def _bracket(text: str, body: str, offset: int, where: str | None) -> list[str]:
    out: list[str] = []
    pos = offset
    if not body:
        raise _error(text, offset, "an empty bracket", where)
    for item in body.split(","):
        out.extend(_range(text, item, pos, where))
        pos += len(item) + 1
    return out


def _range(text: str, item: str, pos: int, where: str | None) -> list[str]:
    rng, _, step_text = item.partition("/")
    lo, dash, hi = rng.partition("-")
    step = 1
    if step_text:
        if not step_text.isdigit() or int(step_text) == 0:
            raise _error(text, pos + len(rng) + 1, f"step {step_text!r} is not a positive number", where)
        step = int(step_text)
    for off, value in ((0, lo), (len(lo) + 1, hi if dash else "0")):
        if not value.isdigit():
            what = "an empty range bound" if not value else f"{value!r} is not a number"
            raise _error(text, pos + off, what, where, hint="ranges are written [001-128] or [1-3,7]")
    if not dash:
        return [lo]
    a, b = int(lo), int(hi)
    if b < a:
        raise _error(text, pos, f"the range {rng} runs backwards", where, hint=f"write [{hi}-{lo}]")
    if (b - a) // step + 1 > MAX_HOSTS:
        raise _error(text, pos, f"the range {rng} has more than {MAX_HOSTS:,} hosts", where)
    width = len(lo) if lo.startswith("0") and len(lo) > 1 else 0
    return [str(n).zfill(width) for n in range(a, b + 1, step)]


def _error(text: str, col: int, what: str, where: str | None, hint: str | None = None) -> UsageError:
    at = f"{where}: " if where else ""
    caret = " " * col + "^"
    return UsageError(
        f"{at}bad host list {text!r}: {what}\n  {text}\n  {caret}",
        hint=hint or "write host lists as Slurm and ClusterShell do: node[001-128], node[1-3,7]",
    )


def fold(hosts) -> str:
    """Hosts as one host-list expression, as `nodeset -f` folds them: node001,node002,node003,gpu7
    -> `node[001-003],gpu7`.  Names are grouped by what surrounds their last number (and its
    width), in the order each group first appears; numbers ascend within a group."""
    import re
    from itertools import groupby

    pat = re.compile(r"^(.*?)(\d+)(\D*)$")
    groups: dict[tuple[str, str, int], list[int]] = {}
    order: list[tuple[str, str, int] | str] = []
    for h in hosts:
        m = pat.match(h)
        if not m:
            order.append(h)
            continue
        digits = m.group(2)
        width = len(digits) if digits.startswith("0") and len(digits) > 1 else 0
        key = (m.group(1), m.group(3), width)
        if key not in groups:
            groups[key] = []
            order.append(key)
        groups[key].append(int(digits))
    out = []
    for item in order:
        if isinstance(item, str):
            out.append(item)
            continue
        prefix, suffix, width = item
        nums = sorted(set(groups[item]))
        if len(nums) == 1:
            out.append(f"{prefix}{str(nums[0]).zfill(width)}{suffix}")
            continue
        spans = []
        for _, pairs in groupby(enumerate(nums), key=lambda t: t[1] - t[0]):  # runs of consecutive numbers
            run = [n for _, n in pairs]
            a, b = str(run[0]).zfill(width), str(run[-1]).zfill(width)
            spans.append(a if len(run) == 1 else f"{a}-{b}")
        out.append(f"{prefix}[{','.join(spans)}]{suffix}")
    return ",".join(out)
