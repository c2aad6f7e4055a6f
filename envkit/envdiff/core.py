"""`diff(a, b) -> EnvDiff`: picks the platforms, builds the sides, and runs the right comparison."""

from __future__ import annotations

from envkit.envdiff.categories import _CAT_RANK, CATEGORY_ORDER
from envkit.envdiff.compare import _diff_concrete, _duplicates
from envkit.envdiff.highlights import _highlights
from envkit.envdiff.lists import _diff_channels, _diff_variables, _live_channels_against_a_file
from envkit.envdiff.pip_origin import _name_pip_entries
from envkit.envdiff.platforms import pick_platforms, platforms_differ
from envkit.envdiff.records import (
    GROUPS,
    IMPACTS,
    Change,
    EnvDiff,
    ListDiff,
    PackageState,
    PipNotRecorded,
    SpecCheck,
)
from envkit.envdiff.sides import _side, spec_of
from envkit.envdiff.spec import _check_spec, _diff_specs
from envkit.model import EnvSpec, LiveEnv, Lock


def diff(
    a: EnvSpec | Lock | LiveEnv,
    b: EnvSpec | Lock | LiveEnv,
    *,
    platform: str | None = None,
    host_platform: str | None = None,
    label_a: str = "A",
    label_b: str = "B",
    platform_a: str | None = None,
    platform_b: str | None = None,
) -> EnvDiff:
    """Compare two environments and return an EnvDiff (see the module docstring).

    `platform` picks the platform of multi-platform locks (see `pick_platforms`); `platform_a` /
    `platform_b` force one side's platform (a `conda env export` does not say which it is; the
    caller may know).  Raises UsageError when a multi-platform lock's platform cannot be chosen.
    """
    d = _diff(a, b, platform, host_platform, label_a, label_b, platform_a, platform_b)
    if platform is None and platform_a is None and platform_b is None:
        d = _every_platform(d, a, b, host_platform, label_a, label_b)
    return d


def _every_platform(d: EnvDiff, a, b, host_platform, label_a: str, label_b: str) -> EnvDiff:
    """`d` with every other platform two multi-platform sources share compared too (a change only on
    osx-arm64 is a difference), and the platforms only one of them locks."""
    from dataclasses import replace

    from envkit.envdiff.platforms import model_platforms

    pa, pb = model_platforms(a), model_platforms(b)
    if len(pa) < 2 or len(pb) < 2:  # one platform against several: that one is compared, as before
        return d
    shown = d.a.platform
    others = []
    for p in (p for p in pa if p in pb and p != shown):
        sub = _diff(a, b, p, host_platform, label_a, label_b, None, None)
        others.append((p, len(sub.changes)))
    return replace(
        d,
        other_platforms=tuple(others),
        platforms_only_a=tuple(p for p in pa if p not in pb),
        platforms_only_b=tuple(p for p in pb if p not in pa),
    )


def _diff(
    a: EnvSpec | Lock | LiveEnv,
    b: EnvSpec | Lock | LiveEnv,
    platform: str | None,
    host_platform: str | None,
    label_a: str,
    label_b: str,
    platform_a: str | None,
    platform_b: str | None,
) -> EnvDiff:
    pa, pb = pick_platforms(a, b, platform=platform, host_platform=host_platform, labels=(label_a, label_b))
    sa = _side(a, platform_a or pa, label_a)
    sb = _side(b, platform_b or pb, label_b)
    _live_channels_against_a_file(sa, sb)
    cross = platforms_differ(sa.info.platform, sb.info.platform)
    changes: list[Change] = []
    unchanged: list[PackageState] = []
    spec_side = None
    checks: tuple[SpecCheck, ...] = ()
    unmentioned: tuple[PackageState, ...] = ()
    dups_a = _duplicates(sa)
    dups_b = _duplicates(sb)
    pip_gap = None
    if sa.info.concrete and sb.info.concrete:
        _name_pip_entries(sa, sb)
        _name_pip_entries(sb, sa)
        changes, unchanged, skipped = _diff_concrete(sa, sb, dups_a, dups_b, cross)
        blind = "a" if not sa.info.records_pip else "b" if not sb.info.records_pip else None
        if blind and sa.info.records_pip != sb.info.records_pip:
            pip_gap = PipNotRecorded(side=blind, kind=(sa if blind == "a" else sb).info.kind, skipped=skipped)
    elif sa.info.concrete != sb.info.concrete:
        spec_side = "b" if sa.info.concrete else "a"
        spec, conc = (sb, sa) if sa.info.concrete else (sa, sb)
        checks, unmentioned = _check_spec(spec_of(spec), conc)
    else:
        changes, unchanged = _diff_specs(spec_of(sa), spec_of(sb))
    ranked = tuple(sorted(changes, key=_rank_key))
    return EnvDiff(
        a=sa.info,
        b=sb.info,
        changes=ranked,
        unchanged=tuple(sorted(unchanged, key=lambda s: (s.name.lower(), s.manager))),
        channels=_diff_channels(sa, sb),
        pip_options=ListDiff(a=sa.pip_options, b=sb.pip_options),
        variables=_diff_variables(sa, sb),
        duplicates_a=dups_a,
        duplicates_b=dups_b,
        spec_side=spec_side,
        spec_checks=checks,
        unmentioned=unmentioned,
        highlights=_highlights(sa, sb),
        cross_platform=cross,
        pip_not_recorded=pip_gap,
    )


#: Within a category, the package that defines it comes first (pytorch before pytorch-cuda).
_PRIMARY = (
    "python",
    "pytorch",
    "torch",
    "cuda-version",
    "cudatoolkit",
    "cudnn",
    "nccl",
    "libblas",
    "blas",
    "numpy",
)


#: Changes of one package on both sides first, then packages only on one side.
_KIND_RANK = {
    k: i
    for i, k in enumerate(
        (
            "manager",
            "variant",
            "upgraded",
            "downgraded",
            "changed",
            "source",
            "channel",
            "rebuilt",
            "removed",
            "added",
            "duplicate",
        )
    )
}


def _rank_key(c: Change):
    n = c.name.lower()
    return (
        GROUPS.index(c.group),
        IMPACTS.index(c.impact),
        _CAT_RANK.get(c.category or "", len(CATEGORY_ORDER) + (c.kind != "duplicate")),
        _PRIMARY.index(n) if n in _PRIMARY else len(_PRIMARY),
        _KIND_RANK[c.kind],
        n,
        c.name,
    )
