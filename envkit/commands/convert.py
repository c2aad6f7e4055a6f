"""`envkit convert IN -o OUT`: turn one environment or lock format into another.

The output is read back and diffed against IN (envkit.ops.convert); what gets installed
differently exits 1 unless --allow-loss accepts it, and the output is written either way, so that
the user can look at it.
"""

from __future__ import annotations

import click

from envkit.commands._options import environment_option
from envkit.convert import TARGETS
from envkit.formats import FORMATS

#: exit code when something was dropped and --allow-loss was not given
EXIT_LOSS = 1


class _ReportFormat(click.Choice):
    """text|json; also an input format's name, the old meaning of `convert --format` (no input
    format is called text or json, so the two never collide)."""

    def convert(self, value, param, ctx):
        if value in FORMATS:
            return value
        return super().convert(value, param, ctx)


@click.command("convert")
@click.argument("source", metavar="IN")
@click.option(
    "-o", "--output", metavar="OUT", help="Write here (atomically); its name picks the format. '-': stdout."
)
@click.option(
    "--to", "target", type=click.Choice(TARGETS), help="The output format (default: from OUT's name)."
)
@click.option(
    "--platform",
    metavar="PLATFORM",
    help="The platform to write, for one-platform outputs "
    "(explicit, env, requirements, pylock), or to give one to a lock that has none (pylock, uv.lock).",
)
@click.option(
    "--input-format",
    "in_format",
    type=click.Choice(FORMATS),
    help="Read IN as this format (default: detected).",
)
@environment_option("pixi.lock: the environment to read.")
@click.option(
    "--extra", "extras", multiple=True, metavar="NAME", help="uv.lock: install this extra too (repeatable)."
)
@click.option("--all-extras", is_flag=True, help="uv.lock: install every extra.")
@click.option(
    "--group",
    "groups",
    multiple=True,
    metavar="NAME",
    help="uv.lock: install this dependency group too (repeatable).",
)
@click.option("--all-groups", is_flag=True, help="uv.lock: install every dependency group.")
@click.option("--no-default-groups", is_flag=True, help="uv.lock: leave out the default groups (`dev`).")
@click.option("--allow-loss", is_flag=True, help="Exit 0 even when the output cannot hold everything IN has.")
@click.option(
    "--format",
    "fmt",
    type=_ReportFormat(("text", "json")),
    default="text",
    show_default=True,
    help="Report format: json prints the report (format, platform, losses) on stdout; needs -o FILE.",
)
@click.option("--json", "as_json", is_flag=True, hidden=True)  # the old spelling of --format json
def convert(
    source,
    output,
    target,
    platform,
    in_format,
    environment,
    extras,
    all_extras,
    groups,
    all_groups,
    no_default_groups,
    allow_loss,
    fmt,
    as_json,
) -> int:
    """Convert an environment file or lock to another format.

    Reads every format envkit reads (environment.yml exports, requirements with --hash, explicit,
    conda-lock.yml, pixi.lock, pylock.toml, uv.lock, `conda list` output) and writes env,
    requirements, explicit, conda-lock, pixi (v6), pixi-v7, pylock, cyclonedx (CycloneDX 1.6 SBOM
    JSON), conda-list-json and conda-list-export.

    A uv.lock converts to what `uv export` selects: the project's dependencies, the default groups,
    no extras; --extra/--all-extras/--group/--all-groups/--no-default-groups choose as uv's do (one
    side of extras declared in conflict, `[tool.uv] conflicts`: a torch per accelerator).

    Exit codes: 0 installs the same (or --allow-loss), 1 what gets installed changes, 2 unusable input.
    """
    from envkit.commands._common import note_named_format
    from envkit.errors import UsageError
    from envkit.io import emit
    from envkit.lock.pixi_out import PIXI_TARGETS
    from envkit.ops.convert import convert_model, read_source

    if fmt not in ("text", "json"):  # the old spelling of --input-format (no input format is text/json)
        in_format, fmt = in_format or fmt, "text"
    as_json = as_json or fmt == "json"
    if output is None and target is None:
        raise UsageError("say where to write: -o OUT (its name picks the format) or --to FORMAT")
    if as_json and (output is None or output == "-"):
        raise UsageError("--json prints the report on stdout: write the converted file with -o FILE")
    named = target is None
    target = target or _target_of(output)
    uv_options = (extras, all_extras, groups, all_groups, no_default_groups)
    model, fmt = read_source(source, in_format, environment=environment, uv_options=uv_options)
    result = convert_model(model, target, source_format=fmt, platform=platform)
    emit(result.text, output)
    if target in PIXI_TARGETS:
        from envkit.commands._lock_files import note_pypi_for_conda

        note_pypi_for_conda(target, *result.read_back.values())  # what the output holds
    if named:
        note_named_format(output, target, "--to")
    for line in loss_lines(result, source, output or "-", allow_loss=allow_loss):
        click.echo(line, err=True)
    if as_json:
        click.echo(_json_report(result, source, fmt, output, target, platform))
    return EXIT_LOSS if result.changes_what_is_installed and not allow_loss else 0


def _target_of(output: str) -> str:
    """The target format `output`'s name picks (the one rule of envkit.formats.registry); UsageError
    when it picks none, or one that convert does not write."""
    from envkit.errors import UsageError
    from envkit.formats.registry import output_format

    target, _ = output_format(output, TARGETS, None, command="convert", option="--to")
    if target is None:
        raise UsageError(
            f"cannot tell the output format from the name {output!r}",
            hint=f"pass --to (one of: {', '.join(TARGETS)})",
        )
    return target


def _json_report(result, source: str, fmt: str, output: str | None, target: str, platform: str | None) -> str:
    """The --format json report of a conversion."""
    import json

    conv = result.conversion
    doc = {
        "source": source,
        "source_format": fmt,
        "output": output,
        "target": target,
        "platform": platform,
        "lossless": result.lossless,
        "verified": result.verified,
        "left_out_platforms": list(conv.left_out_platforms),
        "losses": [loss.as_dict() for loss in result.losses],
        "changes_install": [c.as_dict() for c in result.changes_install],
        "notes": [n.as_dict() for n in result.notes],
    }
    if not result.verified:
        doc["unverified_because"] = result.unverified_because
    return json.dumps(doc, indent=2, ensure_ascii=False)


#: how many packages a line names before "... (N in all)"
_SHOWN = 5


def _names(items: list[str], count: int) -> str:
    more = f", ... ({count} in all)" if count > len(items) else ""
    return ", ".join(items) + more


def loss_lines(result, source: str, output: str, *, allow_loss: bool = False) -> list[str]:
    """The stderr lines that say what a conversion changed (render: sentences live here): a
    `warning:` per loss of what gets installed, a `note:` per thing the target cannot hold that
    installs the same."""
    from envkit.convert import FEATURES

    conv = result.conversion
    out = []
    if conv.left_out_platforms:
        out.append(f"note: only {conv.platform} written; left out: {', '.join(conv.left_out_platforms)}")
    for n in result.notes:
        who = f" ({_names(list(n.packages), n.count)})" if n.packages else ""
        why = f"; {n.detail}" if n.detail else ""
        out.append(f"note: {conv.target} cannot hold {FEATURES[n.feature]}{who}: installs the same{why}")
    for loss in result.losses:
        who = f": {_names(list(loss.packages), loss.count)}" if loss.packages else ""
        why = f" ({loss.detail})" if loss.detail else ""
        out.append(f"warning: {conv.target} cannot hold {FEATURES[loss.feature]}; dropped{who}{why}")
    if result.changes_install:
        by_kind: dict[str, list[str]] = {}
        several = len({c.platform for c in result.changes_install}) > 1
        for c in result.changes_install:
            where = f" [{c.platform}]" if c.platform and several else ""
            by_kind.setdefault(c.kind, []).append(
                f"{c.name}{where}" if c.a is None or c.b is None else f"{c.name} ({c.a} → {c.b}){where}"
            )
        parts = [f"{k} {len(v)}: {_names(v[:_SHOWN], len(v))}" for k, v in by_kind.items()]
        out.append(
            f"warning: {output} read back differs from {source} in "
            f"{len(result.changes_install)} package(s): " + "; ".join(parts)
        )
    elif not result.verified:
        out.append(f"note: not verified ({result.unverified_because})")
    if result.changes_what_is_installed:
        if allow_loss:
            out.append(f"note: {source} -> {output} changes what gets installed (accepted: --allow-loss)")
        else:
            out.append(
                f"warning: {source} -> {output} changes what gets installed; pass --allow-loss to accept it"
            )
    return out
