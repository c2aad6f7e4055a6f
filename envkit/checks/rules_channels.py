"""Rules about channels and URLs: mixing defaults with conda-forge, channel priority, plain http."""

from __future__ import annotations

import re
from collections.abc import Iterator

from envkit._text import plural
from envkit.checks._helpers import join_names
from envkit.checks.core import Context, Hit, Target, rule
from envkit.model import EnvSpec, Resolved

CONDA_FORGE = "conda-forge"


#: A mirror of conda-forge or of Anaconda's defaults serves the same builds under another host
#: (https://mirrors.tuna.tsinghua.edu.cn/help/anaconda/: `.../anaconda/cloud/conda-forge`,
#: `.../anaconda/pkgs/main`; https://prefix.dev/conda-forge), so it counts as that channel.
_MIRROR_OF_FORGE = re.compile(r"^[a-z][a-z0-9+.-]*://[^/]+/(?:.+/)?conda-forge$", re.IGNORECASE)
_MIRROR_OF_DEFAULTS = re.compile(
    r"^[a-z][a-z0-9+.-]*://[^/]+/(?:.+/)?pkgs/(?:main|r|free|msys2|pro)$", re.IGNORECASE
)


def _is_defaults(name: str) -> bool:
    from envkit.conda.channels import is_defaults

    return is_defaults(name) or bool(_MIRROR_OF_DEFAULTS.match(name))


def _is_forge(name: str) -> bool:
    return name == CONDA_FORGE or bool(_MIRROR_OF_FORGE.match(name))


def channel_uses(target: Target) -> list[tuple[str, int | None, str]]:
    """(channel name, line, how) for every channel the target uses, in file order: listed channels,
    `channel::` prefixes on dependencies and the channels locked or installed packages come from
    (one entry per channel, at its first dependency or package)."""
    out: list[tuple[str, int | None, str]] = []
    spec = target.env_file
    if spec is not None:  # an export too: where each channel is written
        for ch in spec.channels:
            out.append((ch.name, spec.line_of(f"channel:{ch.name}") or spec.line_of("channels"), "listed"))
        prefixed: set[str] = set()
        for d in spec.conda:
            if d.channel and d.channel not in prefixed:
                prefixed.add(d.channel)
                out.append((d.channel, d.line, f"prefix of {d.name}"))
        return out
    view = target.view
    if view is not None:
        listed_line = target.line_of_key("channels") if view.channels else None
        for ch in view.channels:
            out.append((ch.name, listed_line, "listed"))
        seen: set[str] = set()
        for p in view.all_packages:
            if p.manager == "conda" and p.channel and p.channel not in seen:
                seen.add(p.channel)
                out.append((p.channel, p.line, f"channel of {p.name}"))
    return out


@rule(
    "mixed-channels",
    order=3,
    severity="warning",
    summary="`defaults` (main, anaconda, r, msys2) mixed with conda-forge; or a channel outside "
    "`allowed-channels`.",
    description="""
        Packages from Anaconda's `defaults` channels (`defaults`, `main`, `anaconda`, `r`,
        `msys2`, `pkgs/...`) and from conda-forge are built with different compilers and pinnings;
        mixing them in one environment is a classic source of `undefined symbol` and `GLIBCXX`
        errors and of solves that flip between channels.  A warning is given when a file, a lock
        or a live environment uses both.

        A file that lists conda-forge and neither `defaults` nor `nodefaults` is not reported:
        conda appends the channels of each user's `.condarc` behind it, which envkit cannot see
        from the file, and a conda-forge installer (Miniforge) configures no `defaults` at all.

        With `allowed-channels` in the configuration, every channel used (listed, as a `channel::`
        prefix, or as the source of a locked package) must be in that list.
        """,
    example="""
        channels:
          - conda-forge
          - defaults
        dependencies:
          - python=3.11
          - numpy
        """,
    example_fixed="""
        channels:
          - conda-forge
          - nodefaults
        dependencies:
          - python=3.11
          - numpy
        """,
)
def mixed_channels(target: Target, ctx: Context) -> Iterator[Hit]:
    # each channel is named (and placed) at its first use: a large file's 100,000 `conda-forge::`
    # prefixes are one use
    uses = channel_uses(target)
    if not uses:
        return
    names = list(dict.fromkeys(n for n, _, _ in uses))
    defaults = [n for n in names if _is_defaults(n)]
    forge = next((n for n in names if _is_forge(n)), None)
    if defaults and forge:
        first = next((u for u in uses if _is_defaults(u[0]) or _is_forge(u[0])), uses[0])
        line = _second_line(uses)
        yield Hit(
            line if line is not None else first[1],
            f"defaults channels ({', '.join(defaults)}) are mixed with conda-forge; their "
            f"builds are not binary-compatible: use conda-forge with nodefaults (or only "
            f"defaults)",
            tuple(defaults) + (forge,),
        )
    allowed = ctx.config.allowed_channels
    if allowed is not None:
        reported: set[str] = set()
        for name, line, how in uses:
            if name in allowed or name == "nodefaults" or name in reported:
                continue
            reported.add(name)
            yield Hit(
                line, f"channel {name} ({how}) is not in allowed-channels ({', '.join(allowed)})", (name,)
            )


def _second_line(uses: list[tuple[str, int | None, str]]) -> int | None:
    """The line where the second family (defaults or conda-forge) first appears: that is where
    the mixing starts."""
    fam_first = None
    for name, line, _ in uses:
        fam = "d" if _is_defaults(name) else "cf" if _is_forge(name) else None
        if fam is None:
            continue
        if fam_first is None:
            fam_first = fam
        elif fam != fam_first:
            return line
    return None


@rule(
    "channel-priority",
    order=4,
    severity="warning",
    summary="`channel_priority` is not strict in the applicable .condarc; environment.yml cannot set it.",
    description="""
        With `channel_priority: flexible` (conda's default before 23.10's recommendation, and
        still the default of many installations) or `disabled`, the solver may take a package from
        a lower-priority channel when it has a higher version, so the same environment.yml
        resolves differently on machines with different channels configured.  `strict` makes the
        first channel that has a package the only source of it.

        Checked on a live environment (`-n`/`-p`): the effective setting of its .condarc search
        path and `CONDA_CHANNEL_PRIORITY`, when it uses more than one channel.

        An environment.yml cannot set channel priority: a `channel_priority:` key in it, or a
        `CONDA_CHANNEL_PRIORITY` variable (applied on activation, after the solve), is ignored by
        conda; that is reported on the file.

        Fix: `conda config --set channel_priority strict` (or in the environment's own .condarc:
        `conda config --env --set channel_priority strict`).
        """,
    example="""
        channels:
          - pytorch
          - conda-forge
        channel_priority: strict
        dependencies:
          - pytorch
        """,
    example_fixed="""
        channels:
          - pytorch
          - conda-forge
        dependencies:
          - pytorch
        """,
)
def channel_priority(target: Target, ctx: Context) -> Iterator[Hit]:
    m = target.env_file
    if m is not None:
        for key in ("channel_priority", "channel-priority"):
            line = m.line_of(key)
            if line is not None:
                yield Hit(
                    line,
                    f"environment.yml cannot set channel priority: conda ignores "
                    f"`{key}:`; run `conda config --set channel_priority strict` "
                    f"instead",
                )
        for name, _value in m.variables:
            if name.upper() == "CONDA_CHANNEL_PRIORITY":
                yield Hit(
                    m.line_of(f"variable:{name}") or m.line_of("variables"),
                    "CONDA_CHANNEL_PRIORITY in `variables:` is set on activation, after the "
                    "environment is solved: it does not change channel priority; run "
                    "`conda config --set channel_priority strict` instead",
                )
    elif target.view is not None:
        prio = target.view.channel_priority  # recorded by a live environment only
        if prio is None or prio == "strict":
            return
        used = list(dict.fromkeys(n for n, _, _ in channel_uses(target)))
        if len(used) < 2:
            return
        yield Hit(
            None,
            f"channel_priority is '{prio}' for this environment, which uses "
            f"{plural(len(used), 'channel')} ({join_names(used)}); a lower-priority "
            f"channel can win a solve. Set it with `conda config --set channel_priority "
            f"strict` (an environment.yml cannot set it)",
            tuple(used),
        )


_HTTP = re.compile(r"\bhttp://[^\s'\"#]+", re.IGNORECASE)
_LOCAL = re.compile(
    r"^http://(?:[^@/]*@)?(?:localhost|127\.\d+\.\d+\.\d+|\[::1\])(?::\d+)?(?:/|$)", re.IGNORECASE
)


def _insecure(text: str) -> list[str]:
    if "http:" not in text.lower():  # most entries: no scan, no import
        return []
    from envkit.urls import redact_url

    return [redact_url(u)[0] for u in _HTTP.findall(text) if not _LOCAL.match(u)]


@rule(
    "insecure-url",
    order=19,
    severity="warning",
    summary="`http://` channels or package-index URLs, or `--trusted-host`.",
    description="""
        A channel or package index reached over plain `http://` can be tampered with in transit
        (and anything it serves is installed and run); `--trusted-host` tells pip to accept an
        index whose certificate does not verify.  Local URLs (`localhost`, `127.0.0.1`) are not
        reported.

        Checked: channels, `channel::` prefixes and URL dependencies, pip options and URL
        requirements, and the URLs of locked packages (one finding per insecure channel).

        Fix: use `https://` (anaconda.org, PyPI and the PyTorch index all serve it), and fix the
        certificate instead of trusting the host.
        """,
    example="""
        channels:
          - http://conda.anaconda.org/conda-forge
        dependencies:
          - python=3.11
          - pip
          - pip:
            - --trusted-host pypi.example.org
            - --extra-index-url http://pypi.example.org/simple
            - internal-tool==1.0
        """,
    example_fixed="""
        channels:
          - https://conda.anaconda.org/conda-forge
        dependencies:
          - python=3.11
          - pip
          - pip:
            - --extra-index-url https://pypi.example.org/simple
            - internal-tool==1.0
        """,
)
def insecure_url(target: Target, ctx: Context) -> Iterator[Hit]:
    spec = target.env_file
    if spec is not None:  # the URLs as written, an export's too
        yield from _spec_insecure(target, spec)
    elif target.view is not None:
        yield from _view_insecure(target.view)


def _spec_insecure(target: Target, spec: EnvSpec) -> Iterator[Hit]:
    text = target.text or ""
    # an entry's text is the file's, but for a YAML escape: without one, a file that never says
    # `http:` (nor `--trusted-host`) has no entry that does, and its entries need no look
    escaped = target.text is None or "\\" in text
    http = escaped or "http:" in text.lower()
    # YAML is parsed (for line numbers) only when a channel can be insecure at all: no `http://`
    # and no escape sequence in the text means none is
    data = target.yaml if ("\\" in text or (http and _HTTP.search(text))) else None
    raw_channels = data.get("channels") if data is not None else None
    if raw_channels is not None:
        from envkit.formats._yaml import YamlList  # loaded only when a spec's YAML was parsed

        for i, c in enumerate(raw_channels) if isinstance(raw_channels, YamlList) else ():
            if isinstance(c, str):
                for u in _insecure(c):
                    yield Hit(raw_channels.line_of(i), f"channel over plain http: {u}")
    for d in spec.conda if http else ():
        for u in _insecure(d.raw):
            yield Hit(d.line, f"conda dependency {d.name} over plain http: {u}", (d.name,))
    for p in spec.pip if http or "--trusted-host" in text else ():
        raw = p.raw or p.text
        if "--trusted-host" in raw:
            host = raw.split("--trusted-host", 1)[1].strip(" =").split()
            yield Hit(
                p.line,
                f"pip option --trusted-host {host[0] if host else ''} disables "
                f"certificate checks for that host".replace("  ", " "),
            )
        for u in _insecure(raw):
            what = f"pip package {p.name}" if p.name else "pip option" if p.kind == "option" else "pip entry"
            yield Hit(p.line, f"{what} over plain http: {u}", (p.name,) if p.name else ())


def _view_insecure(view: Resolved) -> Iterator[Hit]:
    """A lock's or a live environment's channels, pip options and package URLs over plain http."""
    for ch in view.channels:
        if ch.url and _insecure(ch.url):
            yield Hit(None, f"channel {ch.name} is reached over plain http: {ch.url}", (ch.name,))
    for opt in view.pip_options:
        if "--trusted-host" in opt:
            yield Hit(None, f"pip option '{opt}' disables certificate checks for that host")
        for u in _insecure(opt):
            yield Hit(None, f"pip option over plain http: {u}")
    seen: dict[str, list] = {}
    # a live prefix's records carry the URL of the channel they came from: reported above
    for p in view.lock.packages if view.lock is not None else ():
        url = p.url
        if url and url[:5].lower() == "http:" and not _LOCAL.match(url):
            base = url.split("#", 1)[0].rsplit("/", 1)[0]
            if p.manager == "conda":
                base = base.rsplit("/", 1)[0]  # the channel, without the subdir
            entry = seen.setdefault(base, [p.line, []])
            entry[1].append(p.name)
    for base, (line, names) in seen.items():
        from envkit.urls import redact_url

        yield Hit(
            line,
            f"{plural(len(names), 'package')} downloaded over plain http from "
            f"{redact_url(base)[0]} ({join_names(dict.fromkeys(names))})",
            tuple(dict.fromkeys(names)),
        )
