"""`envkit` and `python -m envkit`: `--version` is answered here, before click and the command line
(envkit.cli) are imported, since it needs neither; everything else goes to envkit.cli.main."""

import sys

from envkit import __version__


def main() -> None:
    if sys.argv[1:] in (["--version"], ["-V"]):
        sys.stdout.write(f"envkit {__version__}\n")  # what envkit.cli's click version option prints
        sys.stdout.flush()
        sys.exit(0)
    from envkit.cli import main as cli_main

    cli_main(prog_name="envkit")


if __name__ == "__main__":
    main()
