"""`envkit machine`: what a machine offers an environment (its profile)."""

from __future__ import annotations

import click

from envkit.commands._options import text_or_json
from envkit.output import echo


@click.command(context_settings={"help_option_names": ["-h", "--help"]})
@click.argument("source", required=False, default="host", metavar="[host|ssh://HOST|PROFILE]")
@text_or_json("Output format (json: the format -o writes).")
@click.option(
    "-o",
    "--output",
    metavar="FILE",
    help="Write the profile as JSON to FILE (atomically), for `envkit check --machine FILE`.",
)
def machine(source: str, fmt: str, as_json: bool, output: str | None) -> int:
    """Show this machine's profile: OS and platform, glibc or macOS, CPU level, the virtual packages
    a solver sees, the NVIDIA driver and the newest CUDA it supports, each GPU's compute capability,
    the Pythons found.

    SOURCE is `host` (default: this machine), ssh://[user@]HOST[:PORT] (the stdlib probe is streamed
    to the remote python3; nothing is installed there), or a profile file written by -o.
    Works without a GPU.  Exit codes: 0 done, 2 usage or parse error, or ssh or the probe failed.
    """
    from envkit.io import emit
    from envkit.machine import resolve_machine

    profile = resolve_machine(source)
    if output is not None:
        from envkit.io import atomic_write, file_identity

        atomic_write(output, profile.to_json(), unchanged_since=file_identity(output, since_start=True))
    if as_json or fmt == "json":
        emit(profile.to_json(), None)
    elif output is not None:
        echo(f"wrote {output}", err=True)
    else:
        from envkit.render.machine import render_machine_text

        emit(render_machine_text(profile), None)
    return 0
