"""Conda match specs: parse (with py-rattler's MatchSpec, conda's semantics) and write canonically.

Canonical form, chosen to read like what people write and to parse back to the same spec:

    name                     no constraint
    name=1.26                fuzzy version (conda's `1.26.*`)
    name==1.26.4             exact version
    name=1.26.4=py311h_0     exact version and build (conda env export form)
    name=*=cuda*             any version, build pattern
    name=2.7.*=cuda*         fuzzy version and build pattern
    name>=1.2,<2             any other version spec starting with an operator
    name 1.2.*|1.3.*         a version spec starting with a digit or '*'
    name >=0.15 dagmc_*      version spec and build pattern together
    chan[/subdir]::name...   channel (and subdir) prefix
    name[version='>=1',build='py*',build_number='3']   when other bracket keys are present
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from envkit.errors import InvalidSpecError, Where, clip
from envkit.model import CondaDep, format_spec
from envkit.model.records import _SIMPLE_VERSION

_BRACKET = r"\[(?P<body>[^\]]*)\]"
_PAIR = r"\s*(?P<key>[A-Za-z_]+)\s*=\s*(?P<value>'[^']*'|\"[^\"]*\"|[^,\]]*)\s*(?:,|$)"
_EXTRA_ORDER = (
    "build_number",
    "md5",
    "sha256",
    "license",
    "license_family",
    "fn",
    "url",
    "track_features",
    "features",
    "namespace",
)
_HANDLED = {"version", "build", "channel", "subdir"}

#: Longest match spec and most version constraints envkit parses: py-rattler's parser is quadratic
#: in the number of constraints, and no real spec comes near either bound.
MAX_SPEC_CHARS = 4096
MAX_CONSTRAINTS = 256


#: The plain forms most files are written in (`numpy`, `python=3.11`, `numpy==1.26.4`,
#: `numpy>=1.26,<2`, each with an optional `channel::` prefix), parsed without py-rattler, whose
#: import alone costs more than a small file's whole check, and whose parse is most of a large
#: file's read.  tests/conda/test_matchspec_fast.py holds them equal to rattler's parse.
_NUM = r"\d++(?:\.\d++)*+"
# (possessive: what follows a name or number is never a character of it, so there is nothing to
# give back; a name does not end in `.` or `-`)
_FAST_TEXT = (
    r"(?:(?P<chan>[A-Za-z0-9_][A-Za-z0-9_.-]*+)::)?"
    r"(?P<name>[A-Za-z0-9_][A-Za-z0-9_.-]*+(?<![.-]))"
    rf"(?:(?P<eq>==?)(?P<num>{_NUM})|(?P<range>[<>]=?{_NUM}(?:,[<>]=?{_NUM})*+))?"
)
_FAST = re.compile(_FAST_TEXT)
#: _FAST on every line of a text at once, in C: one tuple of its groups per line, all empty for a
#: line that is not a plain spec
_FAST_LINES = rf"(?m)^(?:{_FAST_TEXT}$)?[^\n]*"


def _parse_plain(s: str, raw: str, where: Where | None) -> CondaDep | None:
    m = _FAST.fullmatch(s)
    if m is None:
        return None
    chan, name, eq, num, version = m.group("chan", "name", "eq", "num", "range")
    name = name.lower()
    version = version or (f"=={num}" if eq == "==" else f"{num}.*" if eq else None)
    channel = _channel_name(chan) if chan else None
    return CondaDep(name=name, version=version, channel=channel, raw=raw, line=where.line if where else None)


def parse_plain_specs(texts: Sequence[object], lines: Sequence[int | None]) -> list[CondaDep | None]:
    """For each of `texts` (entry i written on line `lines[i]`) what `parse_spec` gives when it is
    in one of the plain forms above, None for any other (a spec `parse_spec` must read, a malformed
    one, something not text).  The dependencies of a 100,000-entry file are matched in one call
    and built without a call per entry to parse_spec."""
    n = len(texts)
    if not n:
        return []
    try:
        joined = "\n".join(texts)  # type: ignore[arg-type]
    except TypeError:  # an item that is not text (a `- pip:` mapping) is not a spec here
        texts = [t if type(t) is str else "" for t in texts]
        joined = "\n".join(texts)  # type: ignore[arg-type]
    rows = re.findall(_FAST_LINES, joined) if joined.count("\n") == n - 1 else None
    if rows is None or len(rows) != n:  # a text holds a line break: parse_spec reads each
        return [None] * n
    from operator import itemgetter

    # `chan::` -> its canonical name, once per channel written (a large file names a few)
    chans: dict[str, str | None] = {c: _channel_name(c) if c else None for c in set(map(itemgetter(0), rows))}
    out: list[CondaDep | None] = [
        CondaDep(
            name=name.lower(),
            version=version or (("==" + num if eq == "==" else num + ".*") if eq else None),
            channel=chans[chan],
            raw=raw,  # type: ignore[arg-type]
            line=line,
        )
        if name
        else None
        for (chan, name, eq, num, version), raw, line in zip(rows, texts, lines, strict=True)
    ]
    if max(map(len, texts)) >= MAX_CONSTRAINTS:  # type: ignore[arg-type]
        # parse_spec checks the size of a text that long before either parser reads it
        for i, text in enumerate(texts):
            if len(text) >= MAX_CONSTRAINTS:  # type: ignore[arg-type]
                out[i] = None
    return out


def _channel_name(text: str) -> str:
    """The canonical name of the channel written `text` (a plain name)."""
    from envkit.conda.channels import parse_channel  # here: most specs name no channel

    return parse_channel(text).name


def parse_spec(text: str, *, where: Where | None = None) -> CondaDep:
    """Parse one conda match spec (as written in environment.yml, history or a lock).

    Raises InvalidSpecError naming `where` and quoting the text when it is not a valid spec.
    """
    raw = text
    s = text.strip()
    if len(s) >= MAX_CONSTRAINTS:  # shorter, it has fewer constraints than the bound and is short
        _check_size(s, where)  # before either parser: the bound holds whichever one reads it
    plain = _parse_plain(s, raw, where)
    if plain is not None:
        return plain
    from rattler import MatchSpec

    if not s:
        raise InvalidSpecError("empty match spec", where=where)
    extra_pairs: list[tuple[str, str]] = []
    m = re.search(_BRACKET, s)
    if m:
        for pm in re.finditer(_PAIR, m.group("body")):
            key = pm.group("key").lower()
            if key in _HANDLED:
                continue
            value = pm.group("value").strip().strip("'\"")
            extra_pairs.append((key, value))
    try:
        ms = MatchSpec(s, strict=False)
    except Exception as exc:  # rattler raises its own exception types
        msg = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        raise InvalidSpecError(f"invalid match spec {clip(s)!r}: {clip(msg)}", where=where) from None
    name = ms.name.normalized if ms.name is not None else None
    if not name:
        raise InvalidSpecError("match spec has no package name", where=where, text=s)
    version = str(ms.version) if ms.version is not None else None
    if version == "*":
        version = None  # any version, as conda reads it: `h5py=*=*openmpi*` is `h5py[build=*openmpi*]`
    if version:
        version = _restore_literals(version, _after_name(s, name))
    build = ms.build if ms.build else None
    channel = None
    if ms.channel is not None:
        from envkit.conda.channels import parse_channel

        channel = parse_channel(_channel_text(s) or ms.channel.base_url).name
    subdir = ms.subdir or None
    if ms.build_number is not None and not any(k == "build_number" for k, _ in extra_pairs):
        extra_pairs.append(("build_number", str(ms.build_number)))
    order = {k: i for i, k in enumerate(_EXTRA_ORDER)}
    extra = tuple(sorted(dict(extra_pairs).items(), key=lambda kv: (order.get(kv[0], 99), kv[0])))
    return CondaDep(
        name=name,
        version=version,
        build=build,
        channel=channel,
        subdir=subdir,
        extra=extra,
        raw=raw,
        line=where.line if where else None,
    )


def _check_size(s: str, where: Where | None) -> None:
    """Refuse a spec too long or with too many constraints to parse in bounded time."""
    if len(s) > MAX_SPEC_CHARS:
        raise InvalidSpecError(
            f"match spec is {len(s):,} characters long; envkit reads specs of at most {MAX_SPEC_CHARS:,}",
            where=where,
            text=s,
            hint="a spec that long is not one a person wrote: check how the file was generated",
        )
    n = s.count(",") + s.count("|") + 1
    if n > MAX_CONSTRAINTS:
        raise InvalidSpecError(
            f"match spec has {n:,} version constraints; envkit reads at most {MAX_CONSTRAINTS}",
            where=where,
            text=s,
            hint="merge the constraints (`>=1.2,<2` says what a long list says)",
        )


_LITERAL = r"(?<![A-Za-z0-9_.])\d[0-9A-Za-z_+!]*(?:\.[0-9A-Za-z_+!]+)*"


def _after_name(spec: str, name: str) -> str:
    """The text of `spec` after its channel prefix and package name."""
    rest = spec.partition("::")[2] or spec
    i = rest.lower().find(name)
    return rest[i + len(name) :] if i >= 0 else rest


def _restore_literals(normalized: str, raw_rest: str) -> str:
    """Put back the version literals as written (`3.000`, `2.038`), where py-rattler printed an equal
    but different text (`3.0`, `2.38`): the spec means the same, and the user's text (and the package
    file name) stays recognisable."""
    from rattler import Version

    raw = re.findall(_LITERAL, raw_rest)
    if not raw:
        return normalized
    out: list[str] = []
    pos = 0
    for m in re.finditer(_LITERAL, normalized):
        lit = m.group(0)
        for cand in raw:
            if cand == lit:
                break
            try:
                if Version(cand) == Version(lit):
                    lit = cand
                    break
            except Exception:  # not a version (a build number): keep looking
                continue
        out.append(normalized[pos : m.start()])
        out.append(lit)
        pos = m.end()
    out.append(normalized[pos:])
    return "".join(out)


def _channel_text(spec: str) -> str | None:
    head, sep, _ = spec.partition("::")
    # `chan/subdir::name` -> chan (the subdir is stripped by parse_channel when it is a known one)
    return head if sep else None


def exact_version(dep: CondaDep) -> str | None:
    """The single version `dep` pins (`==1.2.3`, `=1.2.3=build`), or None when it allows several."""
    v = dep.version
    if v and v.startswith("==") and _SIMPLE_VERSION.fullmatch(v[2:]):
        return v[2:]
    return None


def matches(
    dep: CondaDep,
    *,
    name: str,
    version: str,
    build: str | None = None,
    build_number: int | None = None,
    channel: str | None = None,
) -> bool:
    """Whether the package (name, version, build, ...) satisfies `dep`, with conda's semantics."""
    from rattler import MatchSpec, PackageRecord
    from rattler.package.build_string import BuildString

    if dep.name != name.lower():
        return False
    if dep.channel and channel and not _same_channel(dep.channel, channel):
        return False
    plain = CondaDep(
        name=dep.name,
        version=dep.version,
        build=dep.build,
        extra=tuple(kv for kv in dep.extra if kv[0] == "build_number"),
    )
    record = PackageRecord(
        name=name,
        version=version,
        build=BuildString(build or "0"),
        build_number=build_number or 0,
        subdir="noarch",
    )
    return MatchSpec(format_spec(plain), strict=False).matches(record)


def _same_channel(wanted: str, got: str) -> bool:
    """Whether a package from channel `got` satisfies `wanted::` (names or URLs; `defaults` stands
    for the channels it expands to, as in conda)."""
    from envkit.conda.channels import is_defaults, parse_channel

    w, g = parse_channel(wanted).name, parse_channel(got).name
    return w == g or (w == "defaults" and is_defaults(g))


def to_rattler(dep: CondaDep, *, source: str | None = None):
    """The py-rattler MatchSpec a solve is given for `dep`, read as conda, mamba and pixi read it.

    py-rattler's `solve()` parses plain strings in strict mode, which refuses conda's own forms
    (`name=1.26.4=py311h_0`, every line of `conda env export`; `name=*=*openblas`;
    `name=2.8.*=cuda*`): a MatchSpec parsed leniently keeps their meaning (version + build).
    Raises InvalidSpecError (naming the dependency's line) when py-rattler cannot read it at all.
    """
    from rattler import MatchSpec

    text = format_spec(dep)
    try:
        return MatchSpec(text, strict=False)
    except Exception as exc:  # rattler raises its own exception types
        msg = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        raise InvalidSpecError(
            f"invalid match spec {clip(dep.raw or text)!r}: {clip(msg)}",
            where=Where(file=source, line=dep.line, key="dependencies"),
        ) from None
