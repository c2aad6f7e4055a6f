"""`python PROBE_DIR --config JSON`: the runner's entry point into the probe (see __init__)."""

import sys

if __package__:  # `python -m envkit.smoke.probe` in envkit's own tree
    from .core import main
else:
    # `python PROBE_DIR`, as the runner runs its scratch copy: import the folder as the package it
    # is (its modules import each other relatively), from the folder that holds it
    import importlib
    import os

    _here = os.path.dirname(os.path.abspath(__file__))
    sys.path[0] = os.path.dirname(_here)
    main = importlib.import_module(os.path.basename(_here) + ".core").main

if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
