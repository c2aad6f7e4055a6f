"""`envkit normalize` end to end against a bare libyaml load of the same file (target: <= 2x).

Inputs: a generated 3,000-package, 3-platform conda-lock.yml (written in the work dir, in
conda-lock's own layout and quoting), the same lock as envkit's writer writes it (double quotes,
which the block-list loader takes too), and the largest corpus file `normalize` rewrites (pixi.lock,
the largest corpus file of all, is read but never rewritten: pixi owns it; it is measured with
`envkit validate`, which reads every environment in it).  Both sides are fresh processes of the same
interpreter, so interpreter start-up is in both.

The `read_file` cases compare, in one process, `envkit.read_file` (text to Lock records) with
py-rattler, the fastest other Python reader of these formats: `LockFile.from_path` plus reading each
package's name, version and URL (rattler builds Rust objects; the Python ones are made on access).
Target: envkit at most as slow as rattler.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from _sides import csafe_argv, json_loads_inproc, json_loads_proc, rattler_lock_proc
from run import QUICK, Case

HERE = Path(__file__).resolve().parent
CORPUS = HERE.parent / "tests" / "data" / "corpus"

BARE_LOAD = "import sys, yaml; yaml.load(open(sys.argv[1], encoding='utf-8').read(), Loader=yaml.CSafeLoader)"


def _largest(formats_ok) -> Path:
    sys.path.insert(0, str(HERE.parent))
    from envkit.formats import detect_format

    best = None
    for f in sorted(CORPUS.iterdir()):
        if not f.name[:2].isdigit():
            continue
        try:
            text = f.read_text(encoding="utf-8")
        except UnicodeDecodeError:  # the corpus's UTF-16 files are not the size cases
            continue
        if detect_format(text, f.name) not in formats_ok:
            continue
        if best is None or f.stat().st_size > best.stat().st_size:
            best = f
    return best


def rattler_read(path: Path, environment: str | None = None) -> int:
    """py-rattler's read of a lock (conda-lock v1 or pixi.lock), each package's name, version and URL
    read from the Python objects, as a caller would; the number of packages.  `environment`: only
    that environment's (as envkit's `read_file` reads a pixi.lock's default environment)."""
    import rattler

    n = 0
    for name, env in rattler.LockFile.from_path(path).environments():
        if environment is not None and name != environment:
            continue
        for pkgs in env.packages_by_platform().values():
            for p in pkgs:
                n += bool(p.name and p.version and p.location)
    return n


def rattler_readable(src: Path, dst: Path) -> Path:
    """`src` (a conda-lock.yml) with its pip packages' dependency specs made PEP 508 (`'*'` -> `>=0`,
    a bare version `1.2` -> `==1.2`), which py-rattler 0.28 requires (it refuses the corpus's lock
    otherwise: "data did not match any variant of untagged enum MapOrVec"); same size and shape."""
    import re

    head, sep, body = src.read_text(encoding="utf-8").partition("\npackage:\n")
    items = []
    for item in body.split("\n- "):
        if "manager: pip" in item:
            item = item.replace(": '*'", ": '>=0'")
            item = re.sub(r"^(    [A-Za-z0-9_.-]+): ([0-9][0-9.]*)$", r"\1: '==\2'", item, flags=re.M)
        items.append(item)
    dst.write_text(head + sep + "\n- ".join(items), encoding="utf-8")
    return dst


def _read_file_cases(work: Path, big: Path, pixi: Path) -> list[Case]:
    from envkit.formats import read_file

    corpus_lock = _largest({"conda-lock"})
    corpus_for_rattler = rattler_readable(corpus_lock, work / f"{corpus_lock.stem}.rattler.yml")
    out = []
    for label, ours, theirs, env, target, repeat in (
        ("generated conda-lock.yml, 3,000 packages x 3 platforms", big, big, None, 1.0, 9),
        (
            f"{corpus_lock.name} (largest corpus conda-lock.yml)",
            corpus_lock,
            corpus_for_rattler,
            None,
            1.0,
            21,
        ),
        (f"{pixi.name} (largest corpus pixi.lock, default environment)", pixi, pixi, "default", 1.0, 21),
    ):
        n = len(read_file(ours).packages)
        got = rattler_read(theirs, env)
        assert got == n, (label, n, got)  # the same packages on both sides
        out.append(
            Case(
                name=f"read_file {label} (in-process)",
                measure=lambda p=ours: read_file(p),
                floor=lambda p=theirs, e=env: rattler_read(p, e),
                floor_label="py-rattler LockFile.from_path + name/version/url",
                target=target,
                repeat=repeat,
                work=f"{n:,} packages to records on both sides",
                others=[json_loads_inproc(ours)],
            )
        )
    from envkit.formats.pixilock import read_pixi_environments
    from envkit.io import read_text

    def every_env(p=pixi):
        return read_pixi_environments(read_text(p), str(p))

    n = sum(len(lock.packages) for lock in every_env().values())
    assert rattler_read(pixi) == n, n
    out.append(
        Case(
            name=f"read {pixi.name}, every environment (in-process)",
            measure=every_env,
            floor=lambda: rattler_read(pixi),
            floor_label="py-rattler LockFile.from_path + name/version/url",
            target=1.0,
            repeat=21,
            work=f"{n:,} packages in {len(every_env())} environments on both sides",
            others=[json_loads_inproc(pixi)],
        )
    )
    return out


def env_yml_500(path: Path) -> Path:
    """An environment.yml of 500 dependencies (conda specs of the usual forms, comments, a pip list)."""
    out = [
        "# a large, hand-kept environment",
        "name: big",
        "channels:",
        "  - conda-forge",
        "  - nodefaults",
        "dependencies:",
        "  - python=3.11",
    ]
    forms = (
        "pkg-{i:03d}",
        "pkg-{i:03d}>=1.{m}",
        "pkg-{i:03d}=1.{m}",
        "pkg-{i:03d} >=1.{m},<2",
        "pkg-{i:03d}==1.{m}.0",
        "conda-forge::pkg-{i:03d}",
        "pkg-{i:03d}=1.{m}=*_cpu",
    )
    for i in range(450):
        out.append(
            "  - "
            + forms[i % len(forms)].format(i=i, m=i % 9)
            + ("  # pinned on purpose" if i % 50 == 0 else "")
        )
    out.append("  - pip")
    out.append("  - pip:")
    out += [f"    - pippkg-{k:02d}=={k}.0" for k in range(48)]
    path.write_text("\n".join(out) + "\n", encoding="utf-8")
    return path


def _normalize_env_cases(work: Path) -> list[Case]:
    from envkit.formats.canonical import normalize_text

    spec = env_yml_500(work / "environment-500.yml")
    text = spec.read_text(encoding="utf-8")

    def ruamel_round_trip():
        import io

        from ruamel.yaml import YAML

        y = YAML(typ="rt")
        buf = io.StringIO()
        y.dump(y.load(text), buf)
        return buf.getvalue()

    try:
        import ruamel.yaml  # noqa: F401
    except ImportError:
        from run import skipped

        return [
            skipped(
                "normalize_text of a 500-dependency environment.yml (in-process)",
                "ruamel.yaml is not installed (pip install -e '.[bench]')",
            )
        ]
    return [
        Case(
            name="normalize_text of a 500-dependency environment.yml (in-process)",
            measure=lambda: normalize_text(text, filename=str(spec)),
            floor=ruamel_round_trip,
            floor_kind="alternative",
            floor_label="ruamel.yaml round trip (load + dump, comments kept)",
            target=1.0,
            repeat=9,
            others=[json_loads_inproc(spec)],
            notes="envkit parses every spec and writes canonical text with the comments kept; "
            "ruamel only loads and dumps",
        )
    ]


def _big_env_cases(work: Path) -> list[Case]:
    """The 50 MB environment.yml (bench/gen_big_env.py, written by the hostile-input work), when present."""
    from run import skipped

    gen = HERE / "gen_big_env.py"
    names = [f"{cmd} of a 50 MB environment.yml" for cmd in ("validate", "check", "normalize", "diff")]
    if not gen.exists():
        return [skipped(n, "bench/gen_big_env.py is not in this checkout") for n in names]
    if QUICK:
        return [skipped(n, "not in --quick") for n in names]
    big = work / "big-50mb-environment.yml"
    if not big.exists():
        import subprocess

        subprocess.run([sys.executable, str(gen), str(big)], check=True)
    py = sys.executable
    argvs = {
        "validate": [py, "-m", "envkit", "validate", str(big)],
        "check": [py, "-m", "envkit", "check", str(big)],
        "normalize": [py, "-m", "envkit", "normalize", str(big), "-o", os.devnull],
        "diff": [py, "-m", "envkit", "diff", str(big), str(big)],
    }
    from run import Proc

    out = []
    for name, argv in zip(names, argvs.values(), strict=True):
        # every command refuses the file early (over envkit's 100,000-entry limit): exit 2
        out.append(
            Case(
                name=name,
                measure=Proc(argv, rc=2),
                floor=csafe_argv(big),
                floor_kind="alternative",
                floor_label="python + PyYAML CSafeLoader load",
                target=2.0,
                repeat=3,
                notes="refused early with a clear limit; the memory target: compare the two "
                "peak RSS figures of the row",
            )
        )
    return out


def cases(work: Path) -> list[Case]:
    big = work / "conda-lock-3000x3.yml"
    if not big.exists():
        sys.path.insert(0, str(HERE.parent / "tests"))
        from support.lockgen import make_conda_lock  # the generator the tests use

        make_conda_lock(big)
    ours = work / "conda-lock-3000x3.envkit.yml"
    if not ours.exists():
        # the same lock as envkit writes it (double-quoted scalars): the fast reader must take it too
        from envkit.formats import read_file, write_text

        ours.write_text(write_text(read_file(big), "conda-lock"), encoding="utf-8")
    py = sys.executable
    rewritable = _largest({"env", "conda-lock", "explicit", "requirements", "conda-list-export"})
    pixi = _largest({"pixi"})
    out = [
        Case(
            name="normalize conda-lock.yml, 3,000 packages x 3 platforms",
            measure=[py, "-m", "envkit", "normalize", str(big), "-o", str(work / "normalized.yml")],
            floor=[py, "-c", BARE_LOAD, str(big)],
            floor_label="python + PyYAML CSafeLoader load",
            floor_kind="alternative",
            target=2.0,
            repeat=5,
            others=[json_loads_proc(big), rattler_lock_proc(big)],
        ),
        Case(
            name="normalize conda-lock.yml written by envkit, 3,000 packages x 3 platforms",
            measure=[py, "-m", "envkit", "normalize", str(ours), "-o", str(work / "normalized-envkit.yml")],
            floor=[py, "-c", BARE_LOAD, str(ours)],
            floor_label="python + PyYAML CSafeLoader load",
            floor_kind="alternative",
            target=2.0,
            repeat=5,
            others=[json_loads_proc(ours)],
        ),
        Case(
            name=f"normalize {rewritable.name} (largest rewritable corpus file)",
            measure=[
                py,
                "-m",
                "envkit",
                "normalize",
                str(rewritable),
                "-o",
                str(work / "normalized-corpus.yml"),
            ],
            floor=[py, "-c", BARE_LOAD, str(rewritable)],
            floor_label="python + PyYAML CSafeLoader load",
            floor_kind="alternative",
            target=2.0,
            repeat=7,
            others=[json_loads_proc(rewritable)],
        ),
        Case(
            name=f"validate {pixi.name} (largest corpus file, all environments)",
            measure=[py, "-m", "envkit", "validate", str(pixi)],
            floor=[py, "-c", BARE_LOAD, str(pixi)],
            floor_label="python + PyYAML CSafeLoader load",
            floor_kind="alternative",
            target=2.0,
            repeat=7,
            others=[json_loads_proc(pixi), rattler_lock_proc(pixi)],
        ),
    ]
    return out + _read_file_cases(work, big, pixi) + _normalize_env_cases(work) + _big_env_cases(work)
