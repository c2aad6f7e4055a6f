"""The side-level lists: channels (order and priority) and environment variables (secrets compared,
never shown)."""

from __future__ import annotations

import re
from dataclasses import replace

from envkit.envdiff.records import ChannelDiff, ListDiff
from envkit.envdiff.sides import _Side
from envkit.urls import has_placeholder


def _diff_variables(sa: _Side, sb: _Side) -> ListDiff:
    """The variables of both sides, redacted; secrets whose redacted forms match are compared by
    their real values and named in `secrets_changed` when those differ.  A value that is already a
    placeholder on a side (`API_KEY: <TOKEN>` in an export) is unknown there: named in
    `secrets_unknown`, never a change."""
    changed: list[str] = []
    unknown: list[str] = []
    if sa.variables is not None and sb.variables is not None:
        ra = dict(x.split("=", 1) for x in sa.variables)
        rb = dict(x.split("=", 1) for x in sb.variables)
        secret_a, secret_b = sa.secrets or {}, sb.secrets or {}
        for k in ra:
            if k not in rb or ra[k] != rb[k]:
                continue
            # a side whose value was not redacted here but holds a placeholder wrote it redacted
            hidden_a = k not in secret_a and _is_placeholder(ra[k])
            hidden_b = k not in secret_b and _is_placeholder(rb[k])
            if hidden_a or hidden_b:
                unknown.append(k)
            elif (k in secret_a or k in secret_b) and secret_a.get(k) != secret_b.get(k):
                changed.append(k)
    return ListDiff(
        a=sa.variables, b=sb.variables, secrets_changed=tuple(changed), secrets_unknown=tuple(unknown)
    )


def _is_placeholder(value: str) -> bool:
    """`<TOKEN>`, `https://<USER>:<PASSWORD>@host`, `***`: a value written with its credential
    already removed."""
    v = value.strip().strip("'\"")
    return has_placeholder(v) or re.fullmatch(r"<[A-Z_]+>|\*{3,}", v) is not None


def _live_channels_against_a_file(sa: _Side, sb: _Side) -> None:
    """A live prefix against a file (an export, a lock, a spec): the file lists the channels its
    packages need, the prefix its whole configuration (.condarc), so the prefix's side is compared
    as the channels its packages came from; the configured ones no package came from are kept
    apart (`unused_channels`), to be mentioned, not counted as a difference.  Two prefixes compare
    their configurations."""
    live = [s for s in (sa, sb) if s.used_channels is not None]
    if len(live) != 1 or (sa if live[0] is sb else sb).channels is None:
        return
    side = live[0]
    used = side.used_channels or ()
    side.unused_channels = tuple(c for c in side.channels or () if c not in used)
    side.channels = used or None


def _diff_channels(sa: _Side, sb: _Side) -> ChannelDiff:
    ca, cb = sa.channels, sb.channels
    note = ""
    if "export" in (sa.info.kind, sb.info.kind):
        note = "`conda env export` does not write channels in priority order (conda#7884)"
    lists = ChannelDiff(
        a=ca,
        b=cb,
        priority_a=sa.priority,
        priority_b=sb.priority,
        note=note,
        unused_a=sa.unused_channels,
        unused_b=sb.unused_channels,
    )
    if ca is None or cb is None:
        return lists
    # `nodefaults` is a directive (do not add .condarc's channels), not a channel: a lock records
    # it or not as its writer likes (conda-lock keeps what the spec said, envkit drops it), so a spec
    # and a lock compare without it.  Two specs keep it: with and without it they solve against
    # different channels.
    ka, kb = ca, cb
    if sa.info.concrete != sb.info.concrete:
        ka = tuple(c for c in ca if c != "nodefaults")
        kb = tuple(c for c in cb if c != "nodefaults")
    set_a, set_b = set(ka), set(kb)
    common_a = [c for c in ka if c in set_b]
    common_b = [c for c in kb if c in set_a]
    return replace(
        lists,
        added=tuple(c for c in kb if c not in set_a),
        removed=tuple(c for c in ka if c not in set_b),
        order_changed=common_a != common_b,
        note=note if ka != kb else "",
    )
