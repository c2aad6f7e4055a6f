"""Reading a 3,000-package uv.lock and pylock.toml against a bare `tomllib.loads` of the same text
(target: <= 1.5x).  Both are in-process: `envkit.formats.read_text` (text to Lock records, with its
checks) against the TOML parse alone.

`cases()` follows bench/run.py's Case protocol; `python bench/bench_toml.py` runs the same
comparison on its own, interleaving the two sides (paired ratios hold up under machine load).
"""

from __future__ import annotations

import hashlib
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
N = 3000


def _h(s: str) -> str:
    return hashlib.sha256(s.encode()).hexdigest()


def make_uv_lock(n: int = N) -> str:
    """A uv.lock (version 1) of `n` registry packages, each with 2 dependencies, an sdist and 3 wheels."""
    out = ["version = 1", "revision = 3", 'requires-python = ">=3.10"', ""]
    for i in range(n):
        name = f"pkg-{i:04d}"
        fn = name.replace("-", "_")
        base = f"https://files.pythonhosted.org/packages/{_h(name)[:2]}/{_h(name)[2:4]}/{_h(name)[4:60]}"
        out += [
            "[[package]]",
            f'name = "{name}"',
            f'version = "1.{i % 50}.0"',
            'source = { registry = "https://pypi.org/simple" }',
        ]
        out += ["dependencies = ["] + [f'    {{ name = "pkg-{(i + k) % n:04d}" }},' for k in (1, 2)] + ["]"]
        out.append(
            f'sdist = {{ url = "{base}/{fn}-1.{i % 50}.0.tar.gz", hash = "sha256:{_h(name + "s")}", '
            f'size = 12345, upload-time = "2026-01-01T00:00:00Z" }}'
        )
        out.append("wheels = [")
        for tag in ("py3-none-any", "cp312-cp312-manylinux_2_17_x86_64", "cp312-cp312-macosx_11_0_arm64"):
            out.append(
                f'    {{ url = "{base}/{fn}-1.{i % 50}.0-{tag}.whl", hash = "sha256:{_h(name + tag)}", '
                f'size = 23456, upload-time = "2026-01-01T00:00:00Z" }},'
            )
        out += ["]", ""]
    return "\n".join(out)


def make_pylock(n: int = N) -> str:
    """A pylock.toml of `n` packages, each with 2 wheels and an sdist (what `uv export` writes)."""
    out = ['lock-version = "1.0"', 'requires-python = ">=3.10"', 'created-by = "uv"', ""]
    for i in range(n):
        name = f"pkg-{i:04d}"
        fn = name.replace("-", "_")
        base = f"https://files.pythonhosted.org/packages/{_h(name)[:2]}/{_h(name)[2:60]}"
        v = f"1.{i % 50}.0"
        out += [
            "[[packages]]",
            f'name = "{name}"',
            f'version = "{v}"',
            'index = "https://pypi.org/simple"',
            f'sdist = {{ url = "{base}/{fn}-{v}.tar.gz", upload-time = 2026-01-01T00:00:00Z, size = 12345, '
            f'hashes = {{ sha256 = "{_h(name + "s")}" }} }}',
            "wheels = [",
        ]
        for tag in ("py3-none-any", "cp312-cp312-manylinux_2_17_x86_64"):
            out.append(
                f'    {{ url = "{base}/{fn}-{v}-{tag}.whl", upload-time = 2026-01-01T00:00:00Z, '
                f'size = 23456, hashes = {{ sha256 = "{_h(name + tag)}" }} }},'
            )
        out += ["]", ""]
    return "\n".join(out)


def _sides(fmt: str, text: str):
    try:
        import tomllib
    except ModuleNotFoundError:  # Python 3.10
        import tomli as tomllib  # type: ignore[no-redef]

    from envkit.formats import read_text

    return (lambda: read_text(text, filename=fmt, format=fmt)), (lambda: tomllib.loads(text))


def cases(work=None) -> list:
    """The harness's protocol (bench/run.py passes its work dir; these inputs are made in memory)."""
    from run import Case

    out = []
    for fmt, make in (("uv-lock", make_uv_lock), ("pylock", make_pylock)):
        text = make()
        measure, floor = _sides(fmt, text)
        out.append(
            Case(
                name=f"read {fmt}, {N:,} packages (in-process)",
                measure=measure,
                floor=floor,
                floor_label="tomllib.loads (the parse limit)",
                target=1.5,
                repeat=11,
                work=f"{N:,} packages of TOML on both sides",
                notes=f"{len(text) / 2**20:.1f} MiB of TOML to Lock records",
            )
        )
    return out


def main() -> int:
    sys.path.insert(0, str(HERE.parent))
    ok = True
    for fmt, make in (("uv-lock", make_uv_lock), ("pylock", make_pylock)):
        text = make()
        measure, floor = _sides(fmt, text)
        measure(), floor()  # warm-up
        ratios = []
        for _ in range(7):
            t0 = time.perf_counter()
            floor()
            t1 = time.perf_counter()
            measure()
            t2 = time.perf_counter()
            ratios.append((t2 - t1) / (t1 - t0))
        ratios.sort()
        median = ratios[len(ratios) // 2]
        ok &= median <= 1.5
        print(
            f"{fmt}: {N} packages, {len(text) / 2**20:.1f} MiB; read / tomllib.loads = {median:.2f}x "
            f"(paired, median of 7; min {ratios[0]:.2f}x, max {ratios[-1]:.2f}x; target <= 1.5x)"
        )
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
