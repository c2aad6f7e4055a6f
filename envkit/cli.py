"""The envkit command line: a click group whose commands are loaded lazily.

Each command lives in `envkit/commands/<name>.py`, declared with click's decorators, and is
imported only when it runs (COMMANDS lists them without importing them), so that `envkit --help`
stays fast (no YAML engine, py-rattler, conda-lock or torch); `envkit --version` is answered
before this module is imported (envkit/__main__.py).
This module is the one error boundary: an `EnvkitError` becomes `error: ...` (and `hint: ...`, its
remedies worded as flags) on stderr and exit code 2 (unusable input or usage), whatever its class;
1 is a command's own verdict (findings, a stale lock, a failed smoke test), 3 a bug in envkit.  A
traceback is only ever shown for a bug, with `ENVKIT_DEBUG=1`.
"""

from __future__ import annotations

import importlib
import os
import sys

import click

from envkit import __version__
from envkit.output import echo, echo_errors

# name -> (its module in envkit.commands, which defines the command under that name; one-line help).
# The help text is duplicated here on purpose: listing the commands must not import them.
COMMANDS: dict[str, tuple[str, str]] = {
    "normalize": ("normalize", "Rewrite an environment file in canonical form."),
    "validate": ("normalize", "Parse environment files and report errors."),
    "export": ("export", "Export a live conda environment exactly."),
    "lock": ("lock", "Lock a live environment or solve a spec into conda-lock.yml."),
    "create": ("create", "Create an environment from a lock, without solving."),
    "diff": ("diff", "Explain how two environments differ, most important first."),
    "check": ("check", "Check environment files, locks and live envs (CI gate)."),
    "explain": ("explain", "Explain a check rule, with an example."),
    "template": ("template", "Generate PyTorch+CUDA environments that install."),
    "smoke": ("smoke", "Smoke-test torch, CUDA and the DataLoader inside an env."),
    "machine": ("machine", "Show a machine's profile: OS, glibc, CPU, driver, GPUs."),
    "fleet": ("fleet", "Group many hosts by environment; explain each outlier."),
    "fingerprint": ("fleet", "One line per environment and machine class."),
    "convert": ("convert", "Convert a lock or environment file to another format."),
    "audit": ("audit", "Audit environments for known vulnerabilities and licences."),
}


CONTEXT_SETTINGS = {"help_option_names": ["-h", "--help"], "max_content_width": 100}


class LazyGroup(click.Group):
    """A group whose commands come from COMMANDS: listed without importing them, each imported
    only when it runs."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(COMMANDS)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        entry = COMMANDS.get(cmd_name)
        if entry is None:
            return None
        command: click.Command = getattr(importlib.import_module(f"envkit.commands.{entry[0]}"), cmd_name)
        return command

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        rows = [(name, COMMANDS[name][1]) for name in self.list_commands(ctx)]
        with formatter.section("Commands"):
            formatter.write_dl(rows)


@click.group(cls=LazyGroup, context_settings=CONTEXT_SETTINGS)
@click.version_option(__version__, "-V", "--version", prog_name="envkit", message="%(prog)s %(version)s")
def cli() -> None:
    """envkit: reproducible conda environments.

    Lock the environment that works, check environment files in CI, and explain why a server behaves
    differently from a laptop.
    """


def main(args: list[str] | None = None, prog_name: str = "envkit") -> None:
    """Run the CLI and exit; EnvkitError becomes a clean message and its exit code.  Everything the
    command prints passes the redacting streams of envkit.output (no credential reaches a log)."""
    from envkit.output import redacted_stdio

    try:
        with redacted_stdio():
            _main(args, prog_name)
    except SystemExit as exc:
        if args is None and "rattler" in sys.modules:
            _exit_now(exc.code)
        raise


def _exit_now(code: object) -> None:
    """Flush and end the process with `code` without interpreter finalization.

    py-rattler (0.28) runs its work on a tokio runtime whose worker threads are never joined: one
    can still be taking or releasing the GIL while the interpreter finalizes, which ends the
    process in `Fatal Python error: PyGILState_Release` (exit 134) or a segmentation fault (139)
    after the command has finished, about one run in six, whatever envkit decided.  A CI gate
    reads the exit status as the verdict, so once rattler was used envkit leaves with os._exit:
    finalization has nothing of envkit's to do (no atexit handler; every file is written and
    closed when the command returns)."""
    status = 0 if code is None else code if isinstance(code, int) else 1
    if not isinstance(code, (int, type(None))):
        sys.stderr.write(f"{code}\n")
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):
            pass
    os._exit(status)


def _main(args: list[str] | None, prog_name: str) -> None:
    try:
        rv = cli.main(args=args, prog_name=prog_name, standalone_mode=False)
    except KeyboardInterrupt:
        echo("Interrupted.", err=True)
        sys.exit(130)
    except Exception as exc:
        code = _failure(exc)
        if code is None:
            raise
        sys.exit(code)
    sys.exit(rv if isinstance(rv, int) else 0)


def _failure(exc: Exception) -> int | None:
    """Report `exc` as the CLI does and return its exit code; None: re-raise it (ENVKIT_DEBUG)."""
    if isinstance(exc, click.exceptions.Exit):
        return exc.exit_code
    if isinstance(exc, click.ClickException):
        exc.show()
        return 2 if exc.exit_code == 1 else exc.exit_code
    if isinstance(exc, click.exceptions.Abort):
        # click turns Ctrl-C inside a command into Abort
        echo("Interrupted." if isinstance(exc.__cause__, KeyboardInterrupt) else "Aborted.", err=True)
        return 130
    debug = bool(os.environ.get("ENVKIT_DEBUG"))
    if "envkit.errors" in sys.modules:
        from envkit.errors import EnvkitError

        if isinstance(exc, EnvkitError):
            if debug:
                return None
            echo_errors([exc])
            return 2
    if isinstance(exc, BrokenPipeError):
        # `envkit ... | head`: not an error worth a traceback.
        sys.stderr.close()
        return 1
    if debug:
        return None
    if isinstance(exc, OSError):
        # A file system refusal the command did not anticipate (permissions, a full disk).
        where = f"{exc.filename}: " if exc.filename else ""
        echo(f"error: {where}{exc.strerror or exc}", err=True)
        return 2
    # a bug: say so plainly, keep the traceback one variable away
    echo(f"error: internal error: {type(exc).__name__}: {exc}", err=True)
    echo(
        "hint: this is a bug in envkit; run again with ENVKIT_DEBUG=1 to see the traceback and report it",
        err=True,
    )
    return 3


if __name__ == "__main__":  # pragma: no cover
    main()
