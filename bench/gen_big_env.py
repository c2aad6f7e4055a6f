"""Write the hostile-size environment.yml of issue 13: about 50 MB, 1.1 million pinned conda
dependencies (`pkgN==1.2.N`), under envkit's 64 MiB input cap.

    python bench/gen_big_env.py OUT [--deps N]

validate / check / normalize / diff on it must each stay within about 2x a CSafeLoader load of
the same file, in time and in peak memory, or refuse it early with a clear limit.  Deterministic:
the same N always gives the same bytes.
"""

from __future__ import annotations

import argparse

DEFAULT_DEPS = 1_100_000


def big_env_text(n: int = DEFAULT_DEPS) -> str:
    head = "name: big\nchannels:\n  - conda-forge\ndependencies:\n"
    body = "".join(f"  - conda-forge::hostile-package-{i:07d}==1.2.{i % 1000}\n" for i in range(n))
    return head + body


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out")
    ap.add_argument("--deps", type=int, default=DEFAULT_DEPS)
    args = ap.parse_args()
    with open(args.out, "w", encoding="utf-8") as fh:
        fh.write(big_env_text(args.deps))


if __name__ == "__main__":
    main()
