"""`envkit --version` against a bare interpreter start (target: <= 4x)."""
import sys

from run import Case


def cases(work):
    return [
        Case(
            name="envkit --version",
            measure=[sys.executable, "-m", "envkit", "--version"],
            floor=[sys.executable, "-c", "pass"],
            floor_label="python -c pass",
            target=4.0,
            repeat=10,
        )
    ]
